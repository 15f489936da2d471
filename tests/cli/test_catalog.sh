#!/usr/bin/env bash
# The catalog owns data/*.json: a --data-dir price reaches every path that prices a GPU
# (the capacity search and a fixed --replicas setup alike), and the GPU catalog's links.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/dd"
echo '{"gpus": [{"id": "H100-SXM-80GB", "on_demand_usd_per_hour": 10}]}' > "$TMP/dd/prices.json"
# one H100 serves 10 users of Llama-3.1-8B: $10/h with the override, $2.69/h built in (RunPod)
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --users 10 --json --data-dir "$TMP/dd"; expect_rc 0 "search"
expect_json '.usd_per_hour / .layout.gpus_total' 10 "the search prices by --data-dir"
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --users 10 --replicas 1 --json --data-dir "$TMP/dd"; expect_rc 0 "fixed"
expect_json '.usd_per_hour / .layout.gpus_total' 10 "a fixed --replicas setup prices by --data-dir too"
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --users 10 --replicas 1 --json; expect_rc 0 "built-in price"
expect_json '.usd_per_hour / .layout.gpus_total' 2.69 "built-in on-demand price"

# a GPU whose scale_up_link names no link is refused, naming the file and the field
echo '{"gpus": [{"id": "X1", "memory_bytes": 1000, "scale_up_link": "nvlink9"}]}' > "$TMP/dd/gpus.json"
run gpus --data-dir "$TMP/dd"; expect_rc 1 "unknown link id"; expect_err "nvlink9" "names the link"
# an engine profile whose CUDA-graph sizes are out of order is refused when the catalog opens,
# naming the file and the field, not ignored
rm -f "$TMP/dd/gpus.json"
echo '{"engines": [{"id": "vllm", "cuda_graph_batch_sizes": [8, 4]}]}' > "$TMP/dd/engines.json"
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --users 10 --replicas 1 --data-dir "$TMP/dd"; expect_rc 1 "bad graph sizes"
expect_err "cuda_graph_batch_sizes" "names the field"; expect_err "engines.json" "names the file"
# ... and so is an eager dispatch time per layer in the wrong unit (seconds read as microseconds)
echo '{"engines": [{"id": "trtllm", "eager_layer_us": 5e9}]}' > "$TMP/dd/engines.json"
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --engine trtllm --users 10 --replicas 1 --data-dir "$TMP/dd"
expect_rc 1 "absurd eager dispatch"; expect_err "eager_layer_us" "names the field"
# ... and so is a partial profile: it replaces the built-in one whole, so one changed field
# would otherwise leave the built-in rules running unnoticed
echo '{"engines": [{"id": "trtllm", "step_overhead_ms": 3}]}' > "$TMP/dd/engines.json"
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --engine trtllm --users 10 --replicas 1 --data-dir "$TMP/dd"
expect_rc 1 "partial profile"; expect_err "max_num_batched_tokens" "names the first missing key"
# a whole profile changed in one field is taken: TensorRT-LLM's built-in one with 20 ms per
# step (1.75 built in) serves the same 10 users at a longer TPOT
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --engine trtllm --users 10 --replicas 1 --json
tpot=$(jq '.perf.tpot.p50_s' "$TMP/out")
jq '{engines: [.engines[] | select(.id == "trtllm") | .step_overhead_ms = 20]}' "$SRC/data/engines.json" > "$TMP/dd/engines.json"
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --engine trtllm --users 10 --replicas 1 --json --data-dir "$TMP/dd"
expect_rc 0 "a whole profile"
checks=$((checks+1)); jq -e --argjson t "$tpot" '.perf.tpot.p50_s > $t + 0.015' "$TMP/out" >/dev/null ||
  fail "the user's step overhead lengthens TPOT (built in: $tpot s)"
finish
