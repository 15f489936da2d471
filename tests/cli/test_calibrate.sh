#!/usr/bin/env bash
# `gpuplan calibrate` and `--profile` (docs/calibration.md): the issue's done-when on the
# shipped Megatron log and `vllm bench serve` result, bad input, and what a profile leaves alone.
. "$(dirname "$0")/lib.sh"
RUNS="$DATA/runs"
P="$TMP/profile.json"

run calibrate --help; expect_rc 0 "--help"; expect_out "--out" "help names --out"

# the Megatron log says neither model nor GPU: the flags fill them in; the vLLM result names
# its model (Llama-3.1-8B-Instruct, the base model's shapes) and not its GPU
run calibrate "$RUNS/megatron_mixtral_16xh100.log" "$RUNS/vllm_bench_serve_llama31_8b.json" \
    --model mixtral-8x7b --gpu H100-SXM-80GB --gpus 16 --out "$P"
expect_rc 0 "calibrate on a Megatron log and a vllm bench serve result"
expect_out "H100-SXM-80GB, train bf16 (1 run)" "a training entry"
expect_out "H100-SXM-80GB, serve bf16 vllm (1 run)" "a serving entry"
expect_out "fitted on one run" "one run per entry is flagged as unchecked"
checks=$((checks+1)); [ -s "$P" ] || fail "profile written"
checks=$((checks+1)); jq -e '.gpuplan_profile == 1 and (.gpus[0].entries | length) == 2' "$P" >/dev/null || fail "profile shape"
checks=$((checks+1)); jq -e '[.gpus[0].entries[].residuals[0] | .after / .measured] | all(. > 0.99 and . < 1.01)' "$P" >/dev/null \
  || fail "each fitted run reproduced within 1%"

# plan uses it, and says so
run plan --json; jq -S '.options' "$TMP/out" > "$TMP/plain.json"
run plan --profile "$P" --json
expect_rc 0 "plan --profile"
expect_err "calibrated on 2 runs of H100-SXM-80GB (train bf16, serve bf16 vllm) from profile.json" "plan says it is calibrated"
checks=$((checks+1)); jq -S '.options' "$TMP/out" | cmp -s - "$TMP/plain.json" && fail "the profile changes the plan's figures"
# a scenario document may name it too
printf '{"model": "llama-3.1-8b", "users": 20, "profile": "%s"}\n' "$P" > "$TMP/sc.json"
run plan "$TMP/sc.json"; expect_rc 0 "scenario key profile"; expect_err "calibrated on 2 runs" "scenario profile applied"

# a precision it saw no run of is left alone: fp8 training on H100 is as without the profile

run train --model llama-3.1-8b --gpu H100-SXM-80GB --gpus 8 --json --profile "$P"
checks=$((checks+1)); jq -e '.perf.step_time_s' "$TMP/out" >/dev/null || fail "train --profile json"

# bad input: FILE:LINE, exit 1, nothing written
printf '{"command": "train", "model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "gpus": 8, "measured": {"mfu": 0.4}}\n{"command": "train", oops}\n' > "$TMP/bad.jsonl"
run calibrate "$TMP/bad.jsonl" --out "$TMP/none.json"
expect_rc 1 "malformed line"; expect_err "bad.jsonl:2" "FILE:LINE"
checks=$((checks+1)); [ ! -e "$TMP/none.json" ] || fail "nothing written on failure"
printf '{"command": "train", "model": "no-such-model", "gpu": "H100-SXM-80GB", "gpus": 8, "measured": {"mfu": 0.4}}\n' > "$TMP/unk.jsonl"
run calibrate "$TMP/unk.jsonl" --out "$TMP/none.json"
expect_rc 1 "unknown model"; expect_err "no-such-model" "names the model"
checks=$((checks+1)); [ ! -e "$TMP/none.json" ] || fail "nothing written for an unknown model"
run calibrate "$RUNS/megatron_mixtral_16xh100.log" --model mixtral-8x7b --gpus 16
expect_rc 1 "no GPU"; expect_err "--gpu" "asks for the GPU"
run calibrate "$RUNS/runs.jsonl" --colour red
expect_rc 2 "unknown flag"
echo '{"gpuplan_profile": 1, "gpus": [{"gpu": "H100-SXM-80GB", "entries": [{"use": "train", "dtype": "bf16", "runs": 1, "params": {"gemm_scale": 3}}]}]}' > "$TMP/wild.json"
run train --model llama-3.1-8b --gpus 8 --profile "$TMP/wild.json"
expect_rc 1 "a scale beyond the peak"; expect_err "physically possible" "says why"
# gpuplan web --profile: the page and the API answer on the calibrated catalog, as the CLI does
if command -v curl >/dev/null; then
  "$GP" web --port 0 --profile "$P" >"$TMP/web.log" 2>"$TMP/web.err" &
  WPID=$!
  WPORT=
  for _ in $(seq 1 100); do
    WPORT=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$TMP/web.log")
    [ -n "$WPORT" ] && break
    kill -0 "$WPID" 2>/dev/null || break
    sleep 0.1
  done
  checks=$((checks+1)); [ -n "$WPORT" ] || fail "web --profile starts"
  checks=$((checks+1)); grep -q "calibrated on 2 runs of H100-SXM-80GB" "$TMP/web.err" || fail "web says it is calibrated"
  body='{"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "users": 20, "replicas": 1, "tp": 1}'
  curl -s -m 20 -X POST -H 'Content-Type: application/json' --data-binary "$body" \
    "http://127.0.0.1:$WPORT/api/serve" > "$TMP/api.json"
  kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null
  run serve --model llama-3.1-8b --gpu H100-SXM-80GB --users 20 --replicas 1 --tp 1 --profile "$P" --json
  a=$(jq -r '.perf.throughput_tokens_per_s // empty' "$TMP/api.json")
  b=$(jq -r '.perf.throughput_tokens_per_s // empty' "$TMP/out")
  checks=$((checks+1)); [ -n "$a" ] && [ "$a" = "$b" ] || fail "API on the profile = CLI --profile ($a vs $b)"
  "$GP" web --port 0 --profile "$TMP/missing.json" >/dev/null 2>"$TMP/web2.err"; rc=$?
  checks=$((checks+1)); [ "$rc" = 1 ] && grep -q "missing.json" "$TMP/web2.err" || fail "web with a missing profile: exit 1 naming it"
fi

finish
