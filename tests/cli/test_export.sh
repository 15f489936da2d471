#!/usr/bin/env bash
# gpuplan export: engines' launch files on stdout or under --out, exit codes, engine/task
# mismatches, and that every vLLM flag written is a real one (tests/data/engines/vllm-flags.txt).
. "$(dirname "$0")/lib.sh"

# Llama-3.1-70B, context 8192: 141 GB of bf16 weights need 2 x H100 (gpuplan fit's smallest
# layout), so the export without --tp runs TP 2.
run export --engine vllm --model llama-3.1-70b --context 8192; expect_rc 0 "vllm to stdout"
expect_out "vllm serve meta-llama/Llama-3.1-70B" "model repo"; expect_out "--tensor-parallel-size 2" "TP from gpi_fit"
expect_out "--max-model-len 8192" "max-model-len from --context"; expect_out "vLLM v0.11.x" "version cited"
run export --engine vllm --model llama-3.1-70b --context 8192 --tp 4 --pp 1; expect_rc 0 "given TP"
expect_out "--tensor-parallel-size 4" "given TP kept"

# every --flag on the vllm command lines appears in the reference list of vLLM flags
run export --engine vllm --model mixtral-8x7b --tp 2 --pp 1 --dp 2 --ep 4 --dtype fp8 --kv-dtype fp8 --port 9000
expect_rc 0 "vllm mixtral"
grep -v '^#' "$TMP/out" | grep -oE -- '--[a-z0-9-]+' | sort -u > "$TMP/flags"
[ -s "$TMP/flags" ] || fail "no flags found in vllm output"
while read -r flag; do
  checks=$((checks+1))
  grep -qxF -- "$flag" "$DATA/engines/vllm-flags.txt" || fail "vLLM flag $flag is not in tests/data/engines/vllm-flags.txt"
done < "$TMP/flags"

# --out DIR writes the files (scripts executable) and says so
run export --engine deepspeed --model llama-3.1-8b --task train --tp 1 --pp 1 --dp 8 --zero 3 --global-batch 64 \
  --out "$TMP/ds"; expect_rc 0 "--out"
expect_out "wrote $TMP/ds/ds_config.json" "names the files"
checks=$((checks+1)); [ -x "$TMP/ds/launch.sh" ] || fail "launch.sh not executable"
checks=$((checks+1)); jq -e '.zero_optimization.stage == 3 and .train_batch_size == 64 and .gradient_accumulation_steps == 8' \
  "$TMP/ds/ds_config.json" >/dev/null || fail "ds_config.json values (64 = 1 x 8 x 8)"

# --json
run export --engine sglang --model llama-3.1-8b --json; expect_rc 0 "--json"
expect_json .engine sglang "engine"; expect_json '.files[0].name' launch.sh "file name"
expect_json '.command | startswith("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp-size 1")' true "command"

# training searched when not every dimension is given
run export --engine megatron --model llama-3.1-70b --task train --gpus 64 --global-batch 512; expect_rc 0 "megatron search"
expect_out "pretrain_gpt.py" "megatron entry"; expect_out "--global-batch-size 512" "global batch"
run export --engine slurm --model llama-3.1-8b --task lora --gpus 8 --tp 1 --pp 1 --out "$TMP/sl"; expect_rc 0 "slurm lora"
checks=$((checks+1)); [ -f "$TMP/sl/job.sbatch" ] && [ -f "$TMP/sl/fsdp_config.py" ] || fail "slurm lora files"

# --replicas: manifests for all of them; --api-key-env "" drops the key; --audit-log
run export --engine sglang --model llama-3.1-8b --replicas 3 --audit-log --out "$TMP/sg"; expect_rc 0 "sglang replicas"
checks=$((checks+1)); jq -e '.items[0].spec.replicas == 3' "$TMP/sg/deploy.json" >/dev/null || fail "3 replicas"
checks=$((checks+1)); grep -q -- "--log-requests" "$TMP/sg/launch.sh" || fail "sglang request logs"
run export --engine vllm --model llama-3.1-8b --api-key-env ""; expect_rc 0 "no API key"
checks=$((checks+1)); ! grep -q -- "--api-key" "$TMP/out" || fail "--api-key-env '' writes no key"
run export --engine vllm --model llama-3.1-8b --api-key-env MY_KEY; expect_rc 0 "named key"
expect_out '--api-key "$MY_KEY"' "key from the named variable"

# usage errors exit 2, unsupported layouts exit 1
run export --engine nosuch --model llama-3.1-8b; expect_rc 2 "unknown engine"; expect_err "unknown engine 'nosuch'" "message"
run export --model llama-3.1-8b; expect_rc 2 "no engine"
# the engine implies the task: megatron trains without --task train
run export --engine megatron --model llama-3.1-8b --gpus 8 --tp 1 --pp 1 --dp 8; expect_rc 0 "megatron implies train"
expect_out "pretrain_gpt.py" "megatron without --task"
run export --engine vllm --model llama-3.1-8b --task train --gpus 8; expect_rc 2 "vllm for training"
run export --engine tgi --model llama-3.1-70b --tp 2 --pp 2; expect_rc 1 "tgi has no PP"; expect_err "pipeline" "says PP"
run export --engine megatron --model llama-3.1-8b --task train; expect_rc 2 "training without a GPU count"
# DeepSeek-V3's 61 layers on PP 8: uneven first/last stages 6 + 6 x 8 + 7 = 61
run export --engine megatron --model deepseek-v3 --tp 8 --pp 8 --dp 4 --ep 8 --zero 1 --global-batch 512
expect_rc 0 "deepseek-v3 PP 8"; expect_out "--decoder-first-pipeline-num-layers 6" "first stage"
expect_out "--decoder-last-pipeline-num-layers 7" "last stage"
# --ep-overlap reaches the launch file as Megatron-Core's flag (docs/export.md)
run export --engine megatron --model qwen3-30b-a3b --tp 1 --pp 1 --dp 8 --ep 8 --ep-overlap
expect_rc 0 "megatron --ep-overlap"; expect_out "--overlap-moe-expert-parallel-comm" "EP overlap flag"
# --recompute-modules: Megatron-Core's selective flags; fp8 with layernorm / moe_act leaves delayed
# scaling, which refuses them (transformer_config.py:1825 at core_v0.19.0)
run export --engine megatron --model qwen3-30b-a3b --tp 1 --pp 1 --dp 8 --ep 8 --dtype fp8 --recompute-modules layernorm,moe_act
expect_rc 0 "megatron --recompute-modules"; expect_out "--recompute-granularity selective" "selective granularity"
expect_out "--recompute-modules layernorm moe_act" "the modules"; expect_out "--fp8-recipe tensorwise" "not delayed scaling"
# the default plan writes the manifests for all its replicas (the recommended option's count,
# from the serving model) behind one Service, API key from a Secret
run plan --json; n=$(jq -r '.options[0].layout.replicas' "$TMP/out")
run plan --export "$TMP/plan"; expect_rc 0 "plan --export"
checks=$((checks+1)); jq -e --argjson n "$n" '.items[0].kind == "Deployment" and .items[0].spec.replicas == $n and .items[1].kind == "Service"' \
  "$TMP/plan/deploy.json" >/dev/null || fail "deploy.json: $n replicas behind a Service"
checks=$((checks+1)); jq -e '.items[0].spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.key == "api-key"' \
  "$TMP/plan/deploy.json" >/dev/null || fail "API key from a Secret"
checks=$((checks+1)); grep -q -- "--enable-log-requests" "$TMP/plan/launch.sh" || fail "audit logging: request logs"
checks=$((checks+1)); grep -q -- "Llama-3.1-70B-Instruct" "$TMP/plan/launch.sh" || fail "chat service: Instruct"
checks=$((checks+1)); grep -q -- "--array=0-$((n-1))" "$TMP/plan/serve.sbatch" || fail "Slurm array of $n"
# TensorRT-LLM replicas of 2 nodes (TP 8 x PP 2 = 16 GPUs): LWS groups of 2 pods, mpirun of 16
# ranks; Slurm tasks of 2 nodes x 8 ranks
run export --engine trtllm --model llama-3.1-405b --tp 8 --pp 2 --replicas 3 --out "$TMP/trt"; expect_rc 0 "trtllm 2-node replicas"
checks=$((checks+1)); jq -e '.items[0].kind == "LeaderWorkerSet" and .items[0].spec.replicas == 3 and
  .items[0].spec.leaderWorkerTemplate.size == 2' "$TMP/trt/deploy.json" >/dev/null || fail "LWS of 3 groups of 2"
checks=$((checks+1)); jq -e '.items[0].spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].args[0] |
  contains("mpirun --allow-run-as-root -np 16")' "$TMP/trt/deploy.json" >/dev/null || fail "mpirun of 16 ranks"
checks=$((checks+1)); grep -q -- "#SBATCH --nodes=2" "$TMP/trt/serve.sbatch" && grep -q -- "--array=0-2" "$TMP/trt/serve.sbatch" \
  || fail "Slurm array of 3 two-node tasks"
finish
