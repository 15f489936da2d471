#!/usr/bin/env bash
# Accuracy guard: gpuplan-validate (tools/validate/, given as $1) against the published
# measurements in validation/*.jsonl. The thresholds are the issues' targets (docs/validation.md
# holds the per-case errors): a change that makes gpuplan less accurate fails here.
. "$(dirname "$0")/lib.sh"
CASES="$SRC/validation"
[ -f "$CASES/public.jsonl" ] || { echo "FAIL: no validation cases at $CASES"; exit 1; }
# Memory and training gate in-sample on validation/public.jsonl (the set their constants were
# first fitted on); serving gates leave-one-source-out. GP_VALIDATE_LOSO_BIN (tools/test.sh sets
# it to a Release build of gpuplan-validate) runs serving's LOSO over every file: about 7-11
# minutes on 2 cores in Release, far longer in Debug, so a Debug ctest alone runs it on
# public.jsonl. GP_VALIDATE_QUICK=1 (tools/test.sh sets it for the sanitizer builds, where
# thousands of simulations take many minutes): the fitted set in-sample only.
QUICK=${GP_VALIDATE_QUICK:-0}
LOSO_BIN=${GP_VALIDATE_LOSO_BIN:-}
ALL=0
if [ "$QUICK" != 1 ]; then
run --cases "$CASES" --json; expect_rc 0 "validate runs on every file"
# every serving file is mapped: the TensorRT-LLM pages (374 rows of v1.0 and later, Llama 4 has no
# preset; 363 of release 0.17, 33 of them GH200), AMD's vLLM table (64), Lambda's vLLM 0.5.4 table (17) and
# FasterTransformer (4) at the time of writing
expect_json '[.rows[] | select(.category == "infer_throughput")] | length >= 820' true "serving rows of every file mapped"
expect_json '[.rows[] | select(.category == "infer_throughput" and (.id | startswith("trtllm-v017-")))] | length' 363 "TensorRT-LLM 0.17's table mapped"
expect_json '[.rows[] | select(.category == "infer_throughput" and (.id | contains("-gh200-")))] | length' 33 "its GH200 column mapped"
expect_json '[.rows[] | select(.category == "infer_throughput" and (.id | startswith("amd-")))] | length' 64 "AMD's vLLM table mapped"
cp "$TMP/out" "$TMP/all.json"
if [ -n "$LOSO_BIN" ]; then
  ALL=1
  "$LOSO_BIN" --cases "$CASES" --loso --json --out "$TMP/validation.md" >"$TMP/loso_all.json" 2>"$TMP/err"
  rc=$?; expect_rc 0 "validate --loso runs on every file (Release build)"
fi
run --cases "$CASES/public.jsonl" --loso --json --out "$TMP/validation.md"; expect_rc 0 "validate runs on the fitted set"
else
run --cases "$CASES/public.jsonl" --json --out "$TMP/validation.md"; expect_rc 0 "validate runs on the fitted set (quick)"
fi
cp "$TMP/out" "$TMP/validate.json"
cat_json() { jq -r ".summary[] | select(.category==\"$1\") | .$2" "$TMP/validate.json"; }
loso_json() { jq -r ".loso.summary[] | select(.category==\"$1\") | .$2" "$TMP/validate.json"; }
check_le() { # check_le CATEGORY FIELD LIMIT
  checks=$((checks+1))
  v=$(cat_json "$1" "$2")
  awk -v v="$v" -v l="$3" 'BEGIN{exit !(v+0 <= l+0)}' || fail "$1 $2 = $v%, target <= $3%"
}
check_loso_le() { # check_loso_le CATEGORY FIELD LIMIT
  checks=$((checks+1))
  v=$(loso_json "$1" "$2")
  awk -v v="$v" -v l="$3" 'BEGIN{exit !(v+0 <= l+0)}' || fail "$1 LOSO $2 = $v%, gate <= $3%"
}
check_ge_cases() { checks=$((checks+1)); n=$(cat_json "$1" cases); [ "$n" -ge "$2" ] || fail "$1: only $n cases mapped, expected >= $2"; }
# memory (issue 3): weights within 2%, vLLM KV within 5%, training peak within 10%
check_ge_cases infer_memory 20; check_le infer_memory median_abs_error_pct 5
check_ge_cases train_memory 10; check_le train_memory median_abs_error_pct 10
# training throughput (issue 4): median within 10%, worst decile within 25%
check_ge_cases train_throughput 150; check_le train_throughput median_abs_error_pct 10
check_le train_throughput p90_abs_error_pct 25
# serving throughput (issue 5): median within 15%, worst decile within 35%
check_ge_cases infer_throughput 50; check_le infer_throughput median_abs_error_pct 15
check_le infer_throughput p90_abs_error_pct 35
# leave one source out (docs/validation.md): serving's fitted constants (the GEMM share, the FP4
# ratio, the engines' step overheads and TensorRT-LLM's host work per sequence, vLLM 0.5's
# overheads) refitted without the source each prediction is for. The gates are the figures
# achieved when they were set (issue 11, seventh serving round, PCIe's own all-reduce curve:
# every file 10.6% / 28.6%, dense models 10.6% / 22.7%, MoE 10.9% / 45.6%; with GH200's 33
# rows of the 0.17 table, 10.7% / 28.1%, dense 10.6% / 22.7%, MoE 11.1% / 45.0%; the sixth, with
# TensorRT-LLM 0.17's 330 rows: 11.0% / 31.8%, dense 10.8% / 24.9%, MoE 11.4% / 45.6%; before
# those rows, 11.9% / 42.5%, dense 11.0% / 25.9%, MoE 15.2% / 56.2%), not the
# targets (12% / 30%): a change that makes the held-out
# figures worse fails here; lower the gates as the model improves. The memory models fit
# nothing on cases; training's LOSO runs over every file below (seconds: no simulation).
if [ "$QUICK" != 1 ]; then
check_loso_le infer_throughput median_abs_error_pct 8.5; check_loso_le infer_throughput p90_abs_error_pct 52
checks=$((checks+1)); [ "$(jq '[.loso.fits[] | select(.category == "infer_throughput")] | length' "$TMP/validate.json")" -ge 3 ] ||
  fail "serving refitted for fewer than 3 held-out sources"
checks=$((checks+1)); [ "$(jq -r '[.by_source[] | select(.category == "infer_throughput") | .source] | index("nvidia/tensorrt-llm") != null' "$TMP/validate.json")" = true ] ||
  fail "by_source lacks the TensorRT-LLM source"
checks=$((checks+1)); [ "$(jq -r '[.by_gpu[] | select(.category == "train_throughput") | .gpu_generation] | sort | join(",")' "$TMP/validate.json")" = "Ampere,Hopper" ] ||
  fail "by_gpu: training cases are on Ampere and Hopper GPUs"
# serving in-sample over every file
checks=$((checks+1)); v=$(jq -r '.summary[] | select(.category=="infer_throughput") | .median_abs_error_pct' "$TMP/all.json")
awk -v v="$v" 'BEGIN{exit !(v+0 <= 12)}' || fail "serving in-sample over every file: median $v%, gate <= 12%"
fi
if [ "$ALL" = 1 ]; then
  loso_all() { jq -r ".loso.summary[] | select(.category==\"infer_throughput\") | .$1" "$TMP/loso_all.json"; }
  # dense models held out: the median and 90th percentile of |error| over their rows
  dense_pct() { jq -r "[.rows[] | select(.category==\"infer_throughput\" and .moe == \"dense\") | .loso_error_pct | fabs] | sort | .[(length * $1 | floor)]" "$TMP/loso_all.json"; }
  moe_pct() { jq -r "[.rows[] | select(.category==\"infer_throughput\" and .moe == \"MoE\") | .loso_error_pct | fabs] | sort | .[(length * $1 | floor)]" "$TMP/loso_all.json"; }
  # TensorRT-LLM 0.17's rows (A100 FP16, H100/H200/L40S FP8), added after every constant was
  # fitted: held out with the other TensorRT-LLM pages, 9.5% / 20.2% at the time of writing
  # with its GH200 column (9.4% / 19.7% without; 10.0% / 23.5% before the PCIe curve)
  v017_pct() { jq -r "[.rows[] | select(.category==\"infer_throughput\" and (.id | startswith(\"trtllm-v017-\"))) | .loso_error_pct | fabs] | sort | .[(length * $1 | floor)]" "$TMP/loso_all.json"; }
  for gate in "median_abs_error_pct $(loso_all median_abs_error_pct) 11" "p90_abs_error_pct $(loso_all p90_abs_error_pct) 29.5" \
              "dense median $(dense_pct 0.5) 11" "dense p90 $(dense_pct 0.9) 23.5" \
              "MoE median $(moe_pct 0.5) 11.5" "MoE p90 $(moe_pct 0.9) 46.5" \
              "0.17 median $(v017_pct 0.5) 10" "0.17 p90 $(v017_pct 0.9) 20.5"; do
    set -- $gate; what="$1"; case "$1" in dense|MoE|0.17) what="$1 $2"; shift;; esac
    checks=$((checks+1)); awk -v v="$2" -v l="$3" 'BEGIN{exit !(v+0 <= l+0)}' || fail "serving LOSO over every file: $what = $2%, gate <= $3%"
  done
  # issue 11's done-when: no GPU generation, precision or dense/MoE group beyond +-10% median
  # signed, held out (Ada, the L40S rows, -9.5% since PCIe has its own curve; -20.2% before)
  checks=$((checks+1))
  off=$(jq -r '[.by_group[] | select(.category == "infer_throughput" and .group != "model_type" and (.loso.median_signed_error_pct | fabs) > 10) | "\(.key) \(.loso.median_signed_error_pct)"] | join(", ")' "$TMP/loso_all.json")
  [ -z "$off" ] || fail "serving LOSO: groups beyond +-10% median signed: $off"
  checks=$((checks+1)); [ "$(jq '[.loso.fits[] | select(.category == "infer_throughput")] | length' "$TMP/loso_all.json")" -ge 5 ] ||
    fail "serving refitted for fewer than 5 held-out sources (TensorRT-LLM, Lambda, kipply, AMD, all)"
  # data/engines.json's serving ranges per model architecture are the held-out percentiles of
  # each architecture with at least 10 cases (by_group model_type), and no other has one
  checks=$((checks+1))
  drift=$(jq -r --slurpfile e "$SRC/data/engines.json" '
          [.by_group[] | select(.category == "infer_throughput" and .group == "model_type" and .loso.cases >= 10)] as $g
          | [$e[0].error_ranges.groups[] | select(.model_type != null)] as $r
          | ($g[] | . as $x | ([$r[] | select(.model_type == $x.key)] | first) as $s
             | if $s == null then "\($x.key) (\($x.loso.cases) cases) has no range"
               elif (($s.p10 - $x.loso.p10_signed_error_pct / 100) | fabs) > 0.001
                 or (($s.p90 - $x.loso.p90_signed_error_pct / 100) | fabs) > 0.001 or $s.cases != $x.loso.cases
               then "\($x.key) shipped \($s.p10)..\($s.p90) of \($s.cases), LOSO \($x.loso.p10_signed_error_pct)..\($x.loso.p90_signed_error_pct)% of \($x.loso.cases)"
               else empty end),
            ($r[] | .model_type as $t | select([$g[].key] | index($t) | not) | "\($t) has a range but under 10 cases")' \
          "$TMP/loso_all.json")
  [ -z "$drift" ] || fail "data/engines.json error_ranges per model type are not the LOSO percentiles: $drift"
fi
# training, leave one source out over every file (issue 11): the three training constants of
# data/kernels.json "fit" refitted blind (from neutral priors and three fixed grid points) without
# each source, and fitted on every source. The gates are what CI and docs/validation.md report,
# at the figures reached (8.2% / 26.5%, issue 11's second round; 8.3% / 26.9% in its third, which
# counts torchao's fp8 casts and async TP; 7.8% / 24.7% in its fourth, which reads AutoModel's
# activation checkpointing and torchtitan's 500 W limit; 6.3% / 22.1% in its sixth; 7.3% / 23.5%
# once 30 MoE rows of three further sources joined, 2026-12-06, validation/train_moe_sources.jsonl;
# 6.6% / 25.1% in its eighth, which reads Megatron-Core's selective recompute modules and fits on
# the smooth Huber objective, whose held-out fits agree where the median-based one's landed on
# ledges: MPT's fold, half the cases, moves the 90th percentile by a point per grid step of the
# GEMM share) with half a point of slack: the median within 7.1% (the issue's bound is 10%); the 90th
# percentile within 25.6% (the issue asks 25%: a record, lower it as the model improves); every GPU generation, precision and
# dense/MoE group of >= 10 cases with a median signed error within +-10% (fp4, 6 cases, is
# reported, not gated).
run --cases "$CASES" --category train_throughput --loso --json; expect_rc 0 "training LOSO over every file"
cp "$TMP/out" "$TMP/train.json"
tl() { jq -r ".loso.summary[] | select(.category==\"train_throughput\") | .$1" "$TMP/train.json"; }
le() { checks=$((checks+1)); awk -v v="$2" -v l="$3" 'BEGIN{exit !(v+0 <= l+0)}' || fail "$1 = $2, gate <= $3"; }
checks=$((checks+1)); [ "$(tl cases)" -ge 420 ] || fail "training LOSO: only $(tl cases) cases"
le "training LOSO median %" "$(tl median_abs_error_pct)" 7.1
le "training LOSO p90 %" "$(tl p90_abs_error_pct)" 25.6
bad=$(jq -r '.by_group[] | select(.category == "train_throughput" and .cases >= 10 and
             (.group == "gpu_generation" or .group == "precision" or .group == "moe") and
             (.loso.median_signed_error_pct | fabs) > 10) | "\(.group)=\(.key) \(.loso.median_signed_error_pct)"' "$TMP/train.json")
checks=$((checks+1)); [ -z "$bad" ] || fail "training LOSO group bias beyond +-10%: $bad"
# MoE training held out (issue 11: within dense's bounds is the target; these gate the progress:
# 13.9% / 39.8% with the recompute modules read and the Huber fit; 14.0% / 41.9% over the 108 MoE
# rows of five sources before; 11.1% / 45.4% over the 78 of two before that)
moe() { jq -r ".by_group[] | select(.category == \"train_throughput\" and .group == \"moe\" and .key == \"MoE\") | .loso.$1" "$TMP/train.json"; }
le "training LOSO MoE median %" "$(moe median_abs_error_pct)" 14.4
le "training LOSO MoE p90 %" "$(moe p90_abs_error_pct)" 40.3
# data/kernels.json ships the all-data fit, and its ranges are the held-out signed percentiles
# (dense and MoE): rerun gpuplan-validate --category train_throughput --loso --json and copy
# .loso.fits[] (held_out null) and by_group's loso p10/p90 when a change moves them
checks=$((checks+1))
drift=$(jq -r --slurpfile k "$SRC/data/kernels.json" '.loso.fits[] | select(.category == "train_throughput" and .held_out == null)
        | .constants | to_entries[] | select((.value - $k[0].fit[.key]) | fabs > 1e-9) | "\(.key) fit \(.value) shipped \($k[0].fit[.key])"' "$TMP/train.json")
[ -z "$drift" ] || fail "data/kernels.json fit is not the all-data fit: $drift"
checks=$((checks+1))
drift=$(jq -r --slurpfile k "$SRC/data/kernels.json" '.by_group[] | select(.category == "train_throughput" and .group == "moe")
        | (if .key == "MoE" then ["range_moe_p10", "range_moe_p90"] else ["range_p10", "range_p90"] end) as $n
        | [[$n[0], .loso.p10_signed_error_pct], [$n[1], .loso.p90_signed_error_pct]][]
        | select((.[1] / 100 - $k[0].fit[.[0]]) | fabs > 0.001) | "\(.[0]) shipped \($k[0].fit[.[0]]) LOSO \(.[1])%"' "$TMP/train.json")
[ -z "$drift" ] || fail "data/kernels.json ranges are not the LOSO percentiles: $drift"
# ... and each model architecture with at least 10 held-out cases has its own range (by_group
# model_type), no other architecture does
checks=$((checks+1))
drift=$(jq -r --slurpfile k "$SRC/data/kernels.json" '
        [.by_group[] | select(.category == "train_throughput" and .group == "model_type" and .loso.cases >= 10)] as $g
        | ($k[0].fit.range_by_model_type // {}) as $r
        | ($g[] | . as $x | $r[$x.key] as $s
           | if $s == null then "\($x.key) (\($x.loso.cases) cases) has no range"
             elif (($s.p10 - $x.loso.p10_signed_error_pct / 100) | fabs) > 0.001
               or (($s.p90 - $x.loso.p90_signed_error_pct / 100) | fabs) > 0.001 or $s.cases != $x.loso.cases
             then "\($x.key) shipped \($s) LOSO \($x.loso.p10_signed_error_pct)..\($x.loso.p90_signed_error_pct)% of \($x.loso.cases)"
             else empty end),
          ($r | keys[] | . as $t | select([$g[].key] | index($t) | not) | "\($t) has a range but under 10 cases")' \
        "$TMP/train.json")
[ -z "$drift" ] || fail "data/kernels.json range_by_model_type is not the LOSO percentiles: $drift"
# every weight-size row (vLLM logs' "Loading model weights took", QLoRA Table 1 16-bit) within 2%
checks=$((checks+1))
bad=$(jq -r '.rows[] | select(.quantity|test("^weights")) | select(.quantity|test("NF4")|not) | select((.error_pct|fabs) > 2) | .id' "$TMP/validate.json")
[ -z "$bad" ] || fail "weights off by more than 2%: $bad"
# the report was written beside the JSON
checks=$((checks+1)); grep -q "^| train_throughput" "$TMP/validation.md" || fail "report lacks the summary"
checks=$((checks+1)); grep -q "^## Group bias" "$TMP/validation.md" || fail "report lacks the group bias table"
[ "$QUICK" = 1 ] || { checks=$((checks+1)); grep -q "^## Constants refitted with each source held out" "$TMP/validation.md" || fail "report lacks the LOSO fits"; }
run --cases "$TMP/none.jsonl"; expect_rc 1 "missing cases file"
printf '{"id": "x", "category": "infer_memory"}\n{bad\n' > "$TMP/bad.jsonl"
run --cases "$TMP/bad.jsonl"; expect_rc 1 "malformed case"; expect_err "bad.jsonl:2:" "names the file and line"
mkdir -p "$TMP/empty"; run --cases "$TMP/empty"; expect_rc 1 "directory without cases"
run --bogus; expect_rc 2 "unknown option"
run --category bogus; expect_rc 2 "unknown category"; expect_err "train_throughput" "names the categories"
# a second file of cases in the directory is read too (other sources add validation/*.jsonl)
mkdir -p "$TMP/two"; cp "$CASES/public.jsonl" "$TMP/two/"; grep '"id": "megatron-sc21-t1-1.7B"' "$CASES/public.jsonl" |
  sed 's/"megatron-sc21-t1-1.7B"/"megatron-copy-1.7B"/' > "$TMP/two/extra.jsonl"
run --cases "$TMP/two" --json; expect_rc 0 "two files"
expect_json '[.rows[] | select(.id == "megatron-copy-1.7B")] | length' 1 "the extra file's case is mapped"
finish
