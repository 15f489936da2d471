#!/usr/bin/env bash
# gpuplan probe and --gpu local, against the fake NVML (tests/fake_nvml) and without NVML.
. "$(dirname "$0")/lib.sh"
FAKE=${3:?fake NVML library}

# no NVML: runs, says so, lists nothing; --gpu local explains
GPUPLAN_NVML_LIB=/nonexistent/libnvidia-ml.so.1 run probe
expect_rc 0 "probe without NVML"; expect_out "NVML not found" "says NVML is absent"
GPUPLAN_NVML_LIB=/nonexistent/libnvidia-ml.so.1 run probe --json
expect_json .nvml.available false "json: not available"; expect_json .gpu_count 0 "json: no GPUs"
expect_json '.nvml.driver_version' null "json: driver null"
GPUPLAN_NVML_LIB=/nonexistent/libnvidia-ml.so.1 run fit --model llama-3.1-8b --gpu local
expect_rc 2 "--gpu local without NVML"; expect_err "--gpu local: NVML not found" "names the reason"

# the fake: 8 x H100 SXM
GPUPLAN_NVML_LIB=$FAKE run probe --json
expect_rc 0 "probe with fake NVML"
expect_json .nvml.available true "available"
expect_json .nvml.driver_version 550.54.15 "driver version"
expect_json .nvml.cuda_version 12.4 "CUDA version"
expect_json .gpu_count 8 "eight GPUs"
expect_json '.gpus[0].name' "NVIDIA H100 80GB HBM3" "name"
expect_json '.gpus[0].memory_total_bytes' 85520809984 "memory total"
expect_json '.gpus[1].memory_free_bytes' $((85520809984 - 2*1073741824)) "memory free"
expect_json '.gpus[0].pcie_gen' 5 "PCIe gen"; expect_json '.gpus[0].pcie_width' 16 "PCIe width"
expect_json '.gpus[0].nvlink_active' 18 "NVLink links"
expect_json '.gpus[7].catalog_id' H100-SXM-80GB "catalog entry"
run probe --nvml "$FAKE"; expect_rc 0 "--nvml"; expect_out "H100-SXM-80GB" "text names the catalog entry"
expect_out "CUDA 12.4" "text CUDA"

# --gpu local plans on the probed GPU: the same answer as naming it
GPUPLAN_NVML_LIB=$FAKE run fit --model llama-3.1-70b --gpu local --json
expect_rc 0 "fit --gpu local"; expect_json .gpu H100-SXM-80GB "fit on the probed GPU"
cp "$TMP/out" "$TMP/local.json"
run fit --model llama-3.1-70b --gpu H100-SXM-80GB --json
checks=$((checks+1)); cmp -s "$TMP/out" "$TMP/local.json" || fail "--gpu local differs from --gpu H100-SXM-80GB"
GPUPLAN_NVML_LIB=$FAKE FAKE_NVML_NAME="NVIDIA A100 80GB PCIe" FAKE_NVML_MEMORY_MIB=81920 run serve --model llama-3.1-8b --users 10 --gpu local --json
expect_rc 0 "serve --gpu local"; expect_json .gpu A100-PCIE-80GB "serve on a probed A100 PCIe"
GPUPLAN_NVML_LIB=$FAKE FAKE_NVML_NAME="Quadro K620" run fit --model llama-3.1-8b --gpu local
expect_rc 2 "unknown local GPU"; expect_err "matches no catalog entry" "says why"
GPUPLAN_NVML_LIB=$FAKE FAKE_NVML_COUNT=0 run fit --model llama-3.1-8b --gpu local
expect_rc 2 "no local GPU"; expect_err "lists no GPU" "says none"
GPUPLAN_NVML_LIB=$FAKE FAKE_NVML_INIT_FAIL=1 run probe
expect_rc 1 "NVML init failure"; expect_err "Driver Not Loaded" "NVML's reason"
finish
