#!/usr/bin/env bash
# The foundation issue's "done when": Llama-3.1-70B from the catalog, from a folder with its
# config.json and safetensors headers, and from a GGUF header all give 70,553,706,496
# parameters (the published count, tests/data/README.md).
. "$(dirname "$0")/lib.sh"
MK=${3:?mkfixtures binary}
"$MK" "$DATA/models/llama-3.1-70b.json" "$TMP/fx" || { echo "FAIL: mkfixtures"; exit 1; }

run model show meta-llama/Llama-3.1-70B --json; expect_json .params_total 70553706496 "catalog"
run model show --model "$TMP/fx/llama-3.1-70b" --json; expect_rc 0 "folder"
expect_json .params_total 70553706496 "folder: exact from safetensors headers"
expect_json .exact.params 70553706496 "folder: exact tally"
expect_json .exact.tensors 723 "folder: 3 + 80 x 9 tensors"
expect_json .exact.bytes 141107412992 "folder: 2 bytes x params"
expect_json .params_from_config 70553706496 "folder: config count agrees"
run model show --model "$TMP/fx/llama-3.1-70b" ; expect_out "(equal)" "text says the counts agree"
run model show --model "$TMP/fx/llama-3.1-70b-Q4_K.gguf" --json; expect_rc 0 "gguf"
expect_json .params_total 70553706496 "gguf: exact, rope_freqs excluded"
expect_json .exact.buffers 64 "gguf: the rope_freqs buffer"
expect_json .layers 80 "gguf metadata"; expect_json .kv_heads 8 "gguf kv heads"
# Q4_K bytes: norms are 80 x 2 x 8,192 + 8,192 = 1,318,912 elements; the 2-D weights
# 70,553,706,496 - 1,318,912 = 70,552,387,584 elements x 144/256 B = 39,685,718,016 B;
# + F32 norms 1,318,912 x 4 = 5,275,648 B + rope_freqs 64 x 4 = 256 B = 39,690,993,920
expect_json .exact.bytes 39690993920 "gguf: exact Q4_K + F32 bytes"
# memory for the GGUF as stored: the weights are the file's bytes
run fit --model "$TMP/fx/llama-3.1-70b-Q4_K.gguf" --gpu h100 --json
expect_json .verdict.single_gpu_sufficient true "Q4_K 70B fits one H100"

# hostile and broken files: a clear error and exit 1
printf '\xff\xff\xff\xff\xff\xff\xff\x7f{}' > "$TMP/huge.safetensors"; mkdir -p "$TMP/hostile"
cp "$TMP/fx/llama-3.1-70b/config.json" "$TMP/hostile/"; cp "$TMP/huge.safetensors" "$TMP/hostile/model.safetensors"
run model show --model "$TMP/hostile"; expect_rc 1 "absurd header length"; expect_err "absurd" "says why"
head -c 1000 "$TMP/fx/llama-3.1-70b-Q4_K.gguf" > "$TMP/cut.gguf"
run model show --model "$TMP/cut.gguf"; expect_rc 1 "truncated gguf"; expect_err "cut.gguf" "names the file"
printf 'GGUF\x03\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00' > "$TMP/count.gguf"
run model show --model "$TMP/count.gguf"; expect_rc 1 "huge tensor count"
run model show --model "$TMP/fx/llama-3.1-70b/model-00001-of-00003.safetensors"; expect_rc 1 "one shard"
finish
