#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan + UBSan + float-cast-overflow +
# implicit-conversion) and run each for N seconds (default 60) over a copy of its seed corpus.
# A crash, leak, timeout (one input over GP_FUZZ_TIMEOUT seconds, default 30: generous because
# the machine may be shared) or out-of-memory (> 2 GB) is written to
# fuzz/findings/ and fails the run. One line per target gives the executions and coverage
# (libFuzzer's cov: edges, ft: features), also appended to build/fuzz/summary.txt, the figures
# docs/reliability.md records.
# Usage: ./tools/fuzz.sh [SECONDS] [TARGET...]     (targets: fuzz_trace fuzz_gguf ...; default all)
#        GP_FUZZ_NO_BUILD=1 skips the build (to run several at once over one build)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
if [ "${GP_FUZZ_NO_BUILD:-0}" != 1 ]; then # 1: run what build/fuzz holds (parallel runs)
  cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DGP_FUZZ=ON -DGP_TESTS=OFF >/dev/null
  cmake --build build/fuzz -j"$(nproc)" >/dev/null
fi
mkdir -p fuzz/findings
if [ $# -gt 0 ]; then targets=("$@"); else targets=(); for src in fuzz/fuzz_*.c; do targets+=("$(basename "$src" .c)"); done; fi
status=0
for name in "${targets[@]}"; do
  work=$(mktemp -d)
  [ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$work/"
  log=build/fuzz/$name.log
  ./build/fuzz/fuzz/"$name" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
      -timeout="${GP_FUZZ_TIMEOUT:-30}" -report_slow_units="${GP_FUZZ_TIMEOUT:-30}" \
      -print_final_stats=1 -artifact_prefix=fuzz/findings/"$name"- "$work" >"$log" 2>&1 || true
  runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+' || echo 0)
  ft=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+' || echo 0)
  corp=$(ls "$work" | wc -l)
  rm -rf "$work"
  if ls fuzz/findings/"$name"-* >/dev/null 2>&1 || grep -qE 'ERROR: libFuzzer|SUMMARY: (Address|Undefined|Leak)Sanitizer|runtime error' "$log"; then
    result="FINDING (fuzz/findings/, $log)"; status=1
    grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5
  else
    result="no finding"
  fi
  line="$(date -u +%Y-%m-%dT%H:%MZ) $name ${secs}s: $runs runs, cov $cov, ft $ft, corpus $corp: $result"
  echo "fuzz: $line"
  echo "$line" >> build/fuzz/summary.txt
done
exit $status
