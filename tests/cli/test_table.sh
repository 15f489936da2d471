#!/usr/bin/env bash
# `gpuplan table`: the classic sizing table (8B/13B/70B/405B), exit codes, --json rows and values
# worked by hand (published parameter counts, docs/memory.md).
. "$(dirname "$0")/lib.sh"

# text: an aligned table with units and the explanation below it
run table; expect_rc 0 "table"
for m in llama-3.1-8b llama-2-13b llama-3.1-70b llama-3.1-405b; do expect_out "$m" "row $m"; done
expect_out "GB = 10^9 bytes" "units stated"; expect_out "8,192 tokens" "default context stated"
expect_out "4,096-token sequences" "default seq stated"; expect_out "selective recomputation" "recompute stated"
expect_out "2x TP2" "70B inference needs 2 x H100 with TP2"; expect_out "rule misses" "explanation below"
run table --help; expect_rc 0 "--help"; expect_out "--context" "help lists flags"

# usage errors exit 2, bad input 1
run table --bogus; expect_rc 2 "unknown option"; expect_err "--bogus" "names the option"
run table extra; expect_rc 2 "stray argument"
run table --context abc; expect_rc 2 "non-numeric context"; expect_err "--context" "names the flag"
run table --context 0; expect_rc 2 "zero context"
run table --seq; expect_rc 2 "missing value"; expect_err "needs a value" "says what is missing"
run table --gpu no-such-gpu; expect_rc 1 "unknown GPU"; expect_err "unknown GPU" "message"

# --json: an array of 4 rows, every size in bytes
run table --json; expect_rc 0 "table --json"
expect_json 'length' 4 "four rows"
expect_json '[.[].model] | join(",")' "llama-3.1-8b,llama-2-13b,llama-3.1-70b,llama-3.1-405b" "row order"
R70='.[] | select(.model=="llama-3.1-70b")'
expect_json "$R70 | .params" 70553706496 "Llama-3.1-70B published count"
# rule of thumb: 2 bytes/param = 2 x 70,553,706,496; bf16 weights are exactly that
expect_json "$R70 | .inference.rule_of_thumb_weights_bytes" 141107412992 "2 x 70,553,706,496"
expect_json "$R70 | .inference.weights_bytes" 141107412992 "bf16 weights = 2 bytes/param"
# KV cache: 2 (K,V) x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 B/token x 8,192
expect_json "$R70 | .inference.kv_cache_bytes" 2684354560 "KV 327,680 x 8,192"
# prefill activations: 2,048-token chunk x (3 x 28,672 + 2 x 8,192) x 2 B + 128,256 fp32 logits
expect_json "$R70 | .inference.activations_bytes" 419943424 "prefill activations by hand"
# overhead: 0.35 GiB non-torch memory + 0.55 GiB the driver keeps from CUDA = 0.9 GiB
expect_json "$R70 | .inference.overhead_bytes" 966367641 "0.9 GiB runtime overhead"
expect_json "$R70 | .inference.min_gpus" 2 "70B bf16 needs 2 x H100"
expect_json "$R70 | .inference.min_layout.tp" 2 "as TP2"
expect_json "$R70 | .inference.min_layout.label" "2x TP2" "label"
# training with AdamW: model states = 16 bytes/param (ZeRO paper: 2 + 2 + 12)
expect_json "$R70 | .training.rule_of_thumb_states_bytes" 1128859303936 "16 x 70,553,706,496"
expect_json "$R70 | .training.model_states_bytes" 1128859303936 "gpuplan's states = 16 B/param"
expect_json "$R70 | .training.weights_bytes" 141107412992 "2 B/param bf16 weights"
expect_json "$R70 | .training.gradients_bytes" 141107412992 "2 B/param bf16 gradients"
expect_json "$R70 | .training.optimizer_bytes" 846644477952 "12 B/param fp32 master + 2 moments"
expect_json "$R70 | .training.rule_of_thumb_low_bytes" 846644477952 "12 B/param"
expect_json "$R70 | .training.rule_of_thumb_high_bytes" 1269966716928 "18 B/param"
expect_json '[.[] | .training.model_states_bytes == 16 * .params] | all' true "16 B/param for every row"
expect_json '[.[] | .inference.weights_bytes == 2 * .params] | all' true "2 B/param for every row"
expect_json '.[] | select(.model=="llama-2-13b") | .inference.kv_cache_bytes' 6710886400 "13B MHA KV: 819,200 x 8,192"
# totals are the sum of the parts; the percentages are shares of the total
expect_json '[.[] | .inference.total_bytes == .inference.weights_bytes + .inference.kv_cache_bytes + .inference.activations_bytes + .inference.overhead_bytes] | all' true "inference total"
expect_json '[.[] | .training.total_bytes == .training.model_states_bytes + .training.activations_bytes + .training.overhead_bytes] | all' true "training total"
expect_json '[.[] | .training.recompute == "selective" and .training.micro_batch == 1 and .training.seq == 4096] | all' true "training workload"
expect_json '[.[] | .inference.min_gpus >= 1 and .training.min_gpus >= 1] | all' true "every job has a layout"
expect_json '[.[] | .training.min_gpus >= .inference.min_gpus] | all' true "training needs at least as many GPUs"

# flags reach the library
run table --json --context 4096; expect_json "$R70 | .inference.kv_cache_bytes" 1342177280 "--context 4096"
run table --json --gpu H200-SXM-141GB; expect_json "$R70 | .inference.min_gpus" 1 "70B bf16 fits one H200"
expect_json '.[0].gpu' "H200-SXM-141GB" "gpu named"
run table --json --seq 8192
expect_json '.[0].training.seq' 8192 "--seq 8192"
finish
