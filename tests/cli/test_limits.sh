#!/usr/bin/env bash
# Issue 17 through the command line: hostile sizes get a clear error (exit 1) naming what to
# lower, in bounded time and memory, never a wrapped answer. Library-level properties and the
# figures behind each message are in tests/unit/test_limits.c.
. "$(dirname "$0")/lib.sh"

# row 3: KV cache of 2^17 B/token x 2^32 tokens x 2^16 sequences = 2^65 B (it wrapped to 0)
run fit --model llama-3.1-8b --context 4294967296 --batch 65536
expect_rc 1 "2^65-byte KV cache"; expect_err "needs 36.9 EB per GPU" "says how much"
expect_err "lower --context or --batch" "says what to lower"
run fit --model llama-3.1-8b --context 4294967296 --json
expect_rc 0 "2^49-byte KV cache is counted"; expect_json .memory.components.kv_cache 562949953421312 "2^49 bytes"
expect_json .verdict.single_gpu_sufficient false "not one GPU"
# training at 2^32 tokens without flash attention: the s^2 scores are past 2^60 bytes
run train --model llama-3.1-8b --seq 4294967296 --no-flash-attention --gpus 8
expect_out "no_layout_fits" "no layout holds it"
# with flash attention too: no layout fits, said plainly with the batch the search used (the
# default 2^22 tokens per step is under one 2^32-token sequence: 1 sequence, not 0) and why
run train --model llama-3.1-8b --seq 4294967296 --gpus 8
expect_rc 0 "no layout is an answer"; expect_out "No layout fits" "says so"
expect_out "global batch 1 sequence (" "the batch searched, not 0"
expect_out "most of it activations" "names what is too large"; expect_out "shorter sequence (--seq)" "what to change"
run train --model llama-3.1-8b --seq 4294967296 --gpus 8 --json
expect_json .global_batch 1 "JSON: the batch searched"
# 8B on one GPU: 8.03e9 params x (2 + 2 + 12) bytes = 128.5 GB of model states
run train --model llama-3.1-8b --gpus 1
expect_out "layouts for 1 GPU fits" "one GPU, singular"; expect_out "optimizer state (128.5 GB): more GPUs" "states dominate"

# row 5: refused before allocating (these took 3.7-5.9 GB and minutes)
run serve --model llama-3.1-8b --users 16777216 --gpu H100-SXM-80GB --tp 1 --replicas 1
expect_rc 1 "2^24 users"; expect_err "budget" "names the budget"
run serve --model llama-3.1-8b --requests 1073741824 --rate inf
expect_rc 1 "2^30 requests at once"; expect_err "budget" "names the budget"
# (the searches, serve without --replicas and plan, stop when the budget is spent: seconds;
# tests/unit/test_limits.c test_capacity_budget checks that with a small budget)

# row 4: trace token counts past 2^32 (1e19 was undefined behaviour, INT64_MAX a wrapped sum)
printf '{"arrival_s": 0, "prompt_tokens": 1e19, "output_tokens": 10}\n' > "$TMP/t1.jsonl"
run serve --model llama-3.1-8b --trace "$TMP/t1.jsonl"; expect_rc 1 "1e19 tokens"; expect_err "t1.jsonl:1:" "file and line"
printf '0,9223372036854775807,10\n' > "$TMP/t2.csv"
run serve --model llama-3.1-8b --trace "$TMP/t2.csv"; expect_rc 1 "INT64_MAX tokens"; expect_err "t2.csv:1:" "file and line"

# row 6: a 16 MiB config.json of [{},{},...] (1.26 GB in Jansson before)
{ printf '['; yes '{},' | head -n 5000000 | tr -d '\n'; printf '{}]'; } > "$TMP/objs.json" # 15 MB
run model show "$TMP/objs.json"; expect_rc 1 "16 MiB of empty objects"; expect_err "too many objects and arrays" "says why"
# row 10: a 200 MB file is named by its size; a flag error has no byte offset
truncate -s 200000000 "$TMP/huge.json"
run model show "$TMP/huge.json"; expect_rc 1 "200 MB config"; expect_err "a 200 MB file" "real size"
run fit --model llama-3.1-8b --pp 99; expect_rc 1 "pp over layers"
checks=$((checks+1)); grep -q "byte offset" "$TMP/err" && fail "a flag error printed a byte offset"

# row 7: 1 of 4 shards
mkdir -p "$TMP/part"; cp "$DATA/models/llama-3.1-70b.json" "$TMP/part/config.json"
printf '\x37\x00\x00\x00\x00\x00\x00\x00{"w":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}  \x00\x00' > "$TMP/part/model-00001-of-00004.safetensors"
run model show "$TMP/part"; expect_rc 1 "1 of 4 shards"; expect_err "3 files are missing" "counts them"
expect_err "model-00004-of-00004.safetensors" "names them"
finish
