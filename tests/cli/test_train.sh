#!/usr/bin/env bash
# `gpuplan train`: exit codes, the contract's JSON keys (shared/design/interface.md), the
# fixed-layout mode, --scaling, --deadline and bad flags. Counts are worked by hand in
# tests/unit/test_train_search.c.
. "$(dirname "$0")/lib.sh"

TINY="--layers 2 --hidden 16 --heads 4 --kv-heads 2 --ffn 32 --vocab 100"

run train --help; expect_rc 0 "--help"; expect_out "--deadline" "help lists train flags"

# issue 4's done-when: TP 8 inside the node, PP across nodes, with step time, MFU and why
run train --model llama-3.1-405b --gpu H100-SXM-80GB --gpus 16384 --seq 8192 --global-batch 2048 --json
expect_rc 0 "405B on 16,384 H100"
expect_json .layout.tp 8 "TP 8 inside the node"
expect_json '.layout.pp > 1' true "PP across nodes"
expect_json '.layout.tp * .layout.pp * .layout.dp * .layout.cp' 16384 "uses every GPU"
for k in tp pp dp cp ep zero micro_batch recompute; do expect_json ".layout | has(\"$k\")" true "layout.$k"; done
for k in step_time_s tokens_per_s tokens_per_s_per_gpu model_tflops_per_gpu hw_tflops_per_gpu mfu hfu time_to_train_s; do
  expect_json ".perf | has(\"$k\")" true "perf.$k"
done
expect_json '.memory.per_gpu_bytes <= .memory.capacity_bytes' true "memory fits"
expect_json '.perf.mfu > 0 and .perf.mfu < 1' true "MFU in (0, 1)"
expect_json '.candidates | length' 5 "top 5 candidates"
expect_json '[.candidates[].perf.step_time_s] | . == sort' true "candidates sorted by step time"
expect_json '.candidates[0].why | test("TP 8")' true "why names TP 8"
expect_json '.pareto | length > 0' true "Pareto front"
expect_json '.search.evaluated >= .search.valid and .search.valid >= .search.fitting' true "search counts"
expect_json '.search.seconds < 1' true "well under a second"
# tokens/s = global batch x seq / step time
expect_json '(.perf.tokens_per_s - 2048 * 8192 / .perf.step_time_s) | fabs < 1' true "tokens/s = 2048 x 8192 / step"

# the tiny model on 8 GPUs: 128 valid layouts (worked by hand in test_train_search.c)
run train $TINY --gpus 8 --seq 512 --global-batch 8 --top 3 --json
expect_rc 0 "tiny search"; expect_json .search.valid 128 "128 valid layouts"; expect_json '.candidates | length' 3 "--top 3"
run train $TINY --gpus 8 --seq 512 --global-batch 8 --tp 2 --pp 2 --json
expect_json .search.valid 48 "tp and pp fixed: 48 layouts"; expect_json '[.candidates[].layout.pp] | unique | tostring' '[2]' "pp fixed"
expect_json '[.candidates[].layout.tp] | unique | .[0]' 2 "tp stays 2"

# fixed layout: one layout evaluated, time to train = tokens / tokens per second
run train $TINY --tp 2 --pp 2 --dp 2 --micro-batch 1 --zero 1 --recompute none --seq 512 --global-batch 8 --tokens 1B --json
expect_rc 0 "fixed layout"; expect_json .search.mode fixed "fixed mode"; expect_json .gpus 8 "gpus = tp x pp x dp"
expect_json .layout.zero 1 "zero as given"; expect_json .perf.micro_batches 4 "8 / (2 x 1) micro-batches"
expect_json '(.perf.time_to_train_s * .perf.tokens_per_s - 1e9) | fabs < 1' true "time to train x tokens/s = 1e9"
run train $TINY --tp 2 --pp 2 --dp 2 --micro-batch 1 --zero 1 --recompute none --seq 512 --global-batch 8
expect_rc 0 "fixed layout text"; expect_out "bubble" "breakdown chart"; expect_out "MFU" "MFU line"

# text output of a search
run train $TINY --gpus 8 --seq 512 --global-batch 8
expect_rc 0 "text search"; expect_out "Best layout" "winner"; expect_out "Pareto front" "front"; expect_out "Evaluated 128 layouts" "count line"

# --scaling: 1, 2, 4, 8 GPUs; efficiency 1 at the first count that fits
run train $TINY --gpus 8 --seq 512 --global-batch 8 --scaling --json
expect_rc 0 "--scaling"; expect_json '[.scaling[].gpus] | tostring' '[1,2,4,8]' "counts 1..8"
expect_json '.scaling[0].efficiency' 1 "efficiency 1 at 1 GPU"
run train $TINY --gpus 8 --seq 512 --global-batch 8 --scaling
expect_out "Scaling" "scaling table"

# deadline and token/duration syntax
run train --model llama-3.1-70b --deadline 30d --tokens 1T --seq 8192 --global-batch 1024 --json
expect_rc 0 "--deadline"; expect_json '.perf.time_to_train_s <= 30 * 86400' true "meets 30 days"
expect_json '.gpus % 8' 0 "a whole number of nodes"; expect_json .tokens 1000000000000 "1T tokens"
run train --model llama-3.1-70b --deadline 720h --tokens 1e12 --seq 8192 --global-batch 1024 --json
expect_json '.deadline_s' 2592000 "720h = 30 days"

# links: PCIe inside the node is slower than NVLink for the same layout
run train --model llama-3.1-8b --tp 8 --pp 1 --dp 1 --micro-batch 1 --zero 0 --recompute full --seq 4096 --global-batch 8 --json
nv=$(jq .perf.breakdown.tp_comm_s "$TMP/out")
run train --model llama-3.1-8b --tp 8 --pp 1 --dp 1 --micro-batch 1 --zero 0 --recompute full --seq 4096 --global-batch 8 --intra-node pcie --json
expect_rc 0 "--intra-node pcie"; expect_json .cluster.intra_node pcie5 "H100 PCIe gen 5"
expect_json ".perf.breakdown.tp_comm_s > $nv" true "TP over PCIe costs more"
run train $TINY --gpus 16 --seq 512 --global-batch 16 --inter-node ib-hdr --json
expect_rc 0 "--inter-node"; expect_json .cluster.inter_gbps 25 "HDR 25 GB/s per GPU"

# the honest range (issue 11): [low, high] brackets the prediction; FSDP's FlashAttention-2 is
# slower than Megatron-Core's cuDNN attention on H100 at a long sequence
run train --model llama-3.1-8b --tp 1 --pp 1 --dp 8 --micro-batch 1 --zero 3 --seq 16384 --global-batch 8 --json
expect_rc 0 "megatron"; mg=$(jq .perf.tokens_per_s "$TMP/out")
expect_json '.perf.tokens_per_s_low < .perf.tokens_per_s and .perf.tokens_per_s < .perf.tokens_per_s_high' true "range brackets tokens/s"
expect_json '.perf.step_time_s_low < .perf.step_time_s and .perf.step_time_s < .perf.step_time_s_high' true "range brackets the step"
run train --model llama-3.1-8b --tp 1 --pp 1 --dp 8 --micro-batch 1 --zero 3 --seq 16384 --global-batch 8 --framework fsdp --json
expect_rc 0 "--framework fsdp"; expect_json ".perf.tokens_per_s < $mg" true "FA2 under FSDP is slower than cuDNN"
run train --model llama-3.1-8b --gpus 8 --seq 4096 --tokens 1T
expect_out "likely range" "text range"; expect_out "(likely " "time-to-train range"
expect_out "published llama runs" "a Llama's range comes from the Llama runs"
# an architecture the validation set holds enough runs of carries its own range (data/kernels.json
# fit.range_by_model_type), which says whose runs it comes from; one it lacks takes the MoE pool's
run train --model gpt-oss-120b --gpus 64 --json
expect_rc 0 "gpt-oss"
expect_json '.perf.range_basis == "gpt_oss" and .perf.range_cases >= 10' true "gpt-oss's own range"
expect_json '.perf.tokens_per_s_low <= .perf.tokens_per_s_high' true "an ordered range"
run train --model mixtral-8x7b --gpus 16 --json
expect_rc 0 "mixtral"; expect_json '.perf.range_basis == "MoE" and .perf.range_cases == 0' true "the MoE pool"
# CUDA graphs (docs/performance.md section 2): a graph of the whole iteration leaves no host
# time per layer, so the same layout runs faster than with eager launches
run train --model llama-3.1-8b --tp 1 --pp 1 --dp 8 --seq 4096 --global-batch 64 --json
expect_rc 0 "eager launches"; eager=$(jq .perf.tokens_per_s "$TMP/out")
run train --model llama-3.1-8b --tp 1 --pp 1 --dp 8 --seq 4096 --global-batch 64 --cuda-graphs full --json
expect_rc 0 "--cuda-graphs full"; expect_json ".perf.tokens_per_s > $eager" true "a full-iteration graph is faster"

# bad usage exits 2, bad input 1
run train $TINY --gpus 8 --framework jax; expect_rc 2 "bad --framework"; expect_err "--framework" "names the flag"
run train $TINY --gpus 8 --cuda-graphs some; expect_rc 2 "bad --cuda-graphs"; expect_err "--cuda-graphs" "names the flag"
run train $TINY --seq 512; expect_rc 2 "no --gpus nor --deadline"; expect_err "--gpus" "says what is missing"
run train $TINY --deadline 30d --seq 512; expect_rc 2 "deadline without tokens"
run train $TINY --gpus 8 --tokens lots; expect_rc 2 "bad --tokens"; expect_err "--tokens" "names the flag"
run train $TINY --gpus 8 --deadline 3x --tokens 1B; expect_rc 2 "bad --deadline"
run train $TINY --gpus 8 --rank fastest; expect_rc 2 "bad --rank"
run train $TINY --gpus 8 --rank cost; expect_rc 2 "cost without a price"
run train $TINY --gpus 8 --top 0; expect_rc 2 "bad --top"
run train $TINY --gpus 8 --task infer; expect_rc 2 "inference task"
run train $TINY --gpus 8 --bogus; expect_rc 2 "unknown option"
run train $TINY --gpus 6 --tp 4; expect_rc 2 "tp does not divide gpus"
run train $TINY --gpus 6 --tp 3 --seq 512; expect_rc 1 "tp 3 does not divide 4 heads"; expect_err "tp=3" "names tp"
run train $TINY --gpus 8 --inter-node warp-drive; expect_rc 1 "unknown link"; expect_err "warp-drive" "names the link"
run train $TINY --gpus 8 --inter-node nvlink4; expect_rc 2 "scale-up link between nodes"
# Megatron-Core's selective modules: named ones imply selective recomputation and show in the
# layout; moe_act needs an MoE model, modules need selective, names are Megatron's
run train --model qwen3-30b-a3b --gpus 8 --seq 4096 --recompute-modules layernorm,moe_act --json
expect_rc 0 "--recompute-modules"; expect_json .layout.recompute selective "implies selective"
expect_json .layout.recompute_modules layernorm,moe_act "modules in the layout"
run train --model qwen3-30b-a3b --gpus 8 --seq 4096 --recompute-modules layernorm,moe_act
expect_out "recompute selective (layernorm, moe_act)" "modules in the text"
run train --model llama-3.1-8b --gpus 8 --recompute-modules moe_act; expect_rc 1 "moe_act on a dense model"
expect_err "recompute_modules" "names the field"
run train --model llama-3.1-8b --gpus 8 --recompute full --recompute-modules mlp; expect_rc 1 "modules with full"
run train --model llama-3.1-8b --gpus 8 --recompute-modules attention; expect_rc 2 "unknown module"
expect_err "--recompute-modules" "names the flag"
run train --model llama-3.1-405b --gpus 8 --seq 8192 --global-batch 64 --json
expect_rc 0 "nothing fits is an answer"; expect_json .layout null "no layout"; expect_json '.reasons[0].code' no_layout_fits "reason"
finish
