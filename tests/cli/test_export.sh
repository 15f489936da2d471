#!/usr/bin/env bash
# gpuplan export: engines' launch files on stdout or under --out, exit codes, engine/task
# mismatches, and that every vLLM flag written is a real one (tests/data/engines/vllm-flags.txt).
. "$(dirname "$0")/lib.sh"

# Llama-3.1-70B, context 8192: 141 GB of bf16 weights need 2 x H100 (gpuplan fit's smallest
# layout), so the export without --tp runs TP 2.
run export --engine vllm --model llama-3.1-70b --context 8192; expect_rc 0 "vllm to stdout"
expect_out "vllm serve meta-llama/Llama-3.1-70B" "model repo"; expect_out "--tensor-parallel-size 2" "TP from gp_fit"
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

# usage errors exit 2, unsupported layouts exit 1
run export --engine nosuch --model llama-3.1-8b; expect_rc 2 "unknown engine"; expect_err "unknown engine 'nosuch'" "message"
run export --model llama-3.1-8b; expect_rc 2 "no engine"
run export --engine megatron --model llama-3.1-8b; expect_rc 2 "megatron for inference"
expect_err "launches training" "says why"
run export --engine vllm --model llama-3.1-8b --task train --gpus 8; expect_rc 2 "vllm for training"
run export --engine tgi --model llama-3.1-70b --tp 2 --pp 2; expect_rc 1 "tgi has no PP"; expect_err "pipeline" "says PP"
run export --engine megatron --model llama-3.1-8b --task train; expect_rc 2 "training without a GPU count"
finish
