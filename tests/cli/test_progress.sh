#!/usr/bin/env bash
# Progress of long work on stderr (docs/cli.md, "Progress"), and the CLI's work budget
# (--max-work, docs/reliability.md). The format is checked, never the timing: forced on with
# GPUPLAN_PROGRESS=1 the first report prints at once, later ones at most 5 a second, then
# a final line; captured (not a terminal) and not asked, nothing is printed.
. "$(dirname "$0")/lib.sh"
NUM='[0-9]+(\.[0-9]+)?'
WORK="(, [0-9.]+(e\+[0-9]+)? units of work)?"
# every stderr line matches a pattern; the last is the final line
expect_lines() { # expect_lines CMD REGEX WHAT
  checks=$((checks+1))
  local bad
  bad=$(grep -v -E "^gpuplan $1: ($2), $NUM s$WORK\$" "$TMP/err" | grep -v -E "^gpuplan $1: done in $NUM s\$")
  [ -z "$bad" ] || fail "$3: unexpected line: $bad"
  checks=$((checks+1))
  tail -1 "$TMP/err" | grep -q -E "^gpuplan $1: done in $NUM s\$" || fail "$3: no final line"
  checks=$((checks+1))
  [ "$(wc -l < "$TMP/err")" -ge 2 ] || fail "$3: no progress line before the final one"
}

# not a terminal and not asked: nothing on stderr (tests' captured output stays clean)
run plan --json; expect_rc 0 "plan"
checks=$((checks+1)); [ ! -s "$TMP/err" ] || fail "progress printed into captured stderr"
GPUPLAN_PROGRESS=0 run plan --json
checks=$((checks+1)); [ ! -s "$TMP/err" ] || fail "GPUPLAN_PROGRESS=0 printed"

# plan: one line per candidate setup (GPU and precision, i of n); stdout stays one JSON document
export GPUPLAN_PROGRESS=1
run plan --json; expect_rc 0 "plan with progress"
expect_json .currency BRL "--json stdout untouched"
expect_lines plan "sizing: [A-Za-z0-9-]+ [a-z0-9]+ \([0-9]+ of [0-9]+\)" "plan"
checks=$((checks+1)); head -1 "$TMP/err" | grep -q -E "sizing: .* \(1 of [0-9]+\), " || fail "plan: the first line is candidate 1"
# serve: the capacity search, one GPU type of the catalog's priced ones at a time
run serve --model llama-3.1-8b --users 300; expect_rc 0 "serve search"
expect_lines serve "capacity search: [A-Za-z0-9-]+ \([0-9]+ of [0-9]+\)" "serve"
# evaluate mode: one simulation on the GPU asked
run serve --model llama-3.1-8b --users 30 --gpu H100-SXM-80GB --replicas 1; expect_rc 0 "serve evaluate"
expect_lines serve "simulation: H100-SXM-80GB" "serve evaluate"
# train: the layout search at the GPU count
run train --model llama-3.1-8b --gpus 64; expect_rc 0 "train"
expect_lines train "layout search: 64 GPUs" "train"
# calibrate: the files read, then each entry fitted
run calibrate "$DATA/runs/runs.jsonl"; expect_rc 0 "calibrate"
expect_lines calibrate "reading runs: runs.jsonl \(1 of 1\)|fitting: [A-Za-z0-9-]+ (train|serve) [a-z0-9]+ \([0-9]+ of [0-9]+\)" "calibrate"
# fit does no long work: nothing to report
run fit --model llama-3.1-8b; expect_rc 0 "fit"
checks=$((checks+1)); [ ! -s "$TMP/err" ] || fail "fit printed progress"

# --max-work: the question's budget. 8B on 64 GPUs has 5,272 valid layouts x 50 units each =
# 263,600 units: over 1e5 the search stops (the final line says so), under 3e5 it runs.
run train --model llama-3.1-8b --gpus 64 --max-work 1e5
expect_rc 1 "layout search over --max-work"; expect_err "budget of 1e+05 units" "names the budget"
expect_err "raise the work budget (max_work; the CLI's --max-work)" "says how to raise it"
expect_err "gpuplan train: stopped after" "final line on a stop"
run train --model llama-3.1-8b --gpus 64 --max-work 3e5 --json
expect_rc 0 "layout search within --max-work"; expect_json .search.valid 5272 "5,272 valid layouts"
unset GPUPLAN_PROGRESS
# the estimate before a serving simulation uses the same budget: 100 requests x (200 + 1000/512
# + 1) = 20,295 token-steps (tests/unit/test_run.c)
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --rate inf --requests 100 --max-work 2e4
expect_rc 1 "20,295 token-steps over 2e4"; expect_err "above the budget of 2e+04" "the flag's budget"
run serve --model llama-3.1-8b --gpu H100-SXM-80GB --rate inf --requests 100 --max-work 3e4 --json
expect_rc 0 "under 3e4 it runs"
# lifting the CLI's default (1e11): 2^30 requests x 201 steps = 2.2e11 passes the estimate with
# --max-work 1e12 and is then refused by the memory bound (8.59 GB), never run without bound
run serve --model llama-3.1-8b --requests 1073741824 --rate inf
expect_rc 1 "2.2e11 over the default 1e11"; expect_err "above the budget of 1e+11" "default budget"
run serve --model llama-3.1-8b --requests 1073741824 --rate inf --max-work 1e12
expect_rc 1 "memory still bounded"; expect_err "of memory, over the budget of 8.59 GB" "the memory bound stays"
run serve --model llama-3.1-8b --requests 10 --rate inf --max-work 1e13
expect_rc 2 "past 1e12"; expect_err "--max-work takes a number from 1 to 1000000000000" "the ceiling"
finish
