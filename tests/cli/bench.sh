#!/usr/bin/env bash
# `gpuplan probe --bench` against the fake CUDA runtime + cuBLASLt + NCCL (tests/fake_cuda):
# progress shown, the figures the fake's rates give, a profile that --profile takes.
. "$(dirname "$0")/lib.sh"
FAKE=${3:?fake cuda library}
LIBS="--cudart $FAKE --cublaslt $FAKE --nccl $FAKE"

FAKE_CUDA_DEVICES=2 run probe --bench $LIBS --out "$TMP/bench.json"
expect_rc 0 "probe --bench on 2 fake H100"
expect_out "2 x NVIDIA H100 80GB HBM3 (catalog: H100-SXM-80GB)" "names the GPUs"
expect_out "700.0 TFLOP/s" "bf16 GEMM at the fake's 700 TFLOP/s"
expect_out "3000.0 GB/s (read + write)" "copy: 2 x bytes / time at the fake's 1.5 TB/s"
expect_out "300.0 GB/s bus" "NCCL bus bandwidth"
expect_err "[19/19] done" "progress shown"
checks=$((checks+1)); jq -e '.gpus[0].gpu == "H100-SXM-80GB" and (.gpus[0].collective.intra_scale | . > 0.646 and . < 0.648)' "$TMP/bench.json" >/dev/null \
  || fail "profile: 300 / 463.58 (NVLink 4 curve at 1 GiB, data/kernels.json) = 0.647 inside a node"
run train --model llama-3.1-8b --gpu H100-SXM-80GB --gpus 8 --profile "$TMP/bench.json"
expect_rc 0 "train with the bench profile"; expect_err "calibrated on" "says so"
FAKE_CUDA_DEVICES=2 run probe --bench $LIBS --json
expect_rc 0 "--json"; expect_json '.gpuplan_profile' 1 "JSON is the profile"
run probe --bench --cudart "$TMP/none.so" --out "$TMP/none.json"
expect_rc 1 "no CUDA runtime"; expect_err "none.so" "names the library"
checks=$((checks+1)); [ ! -e "$TMP/none.json" ] || fail "nothing written"
run probe --out "$TMP/x.json"; expect_rc 2 "--out without --bench"
finish
