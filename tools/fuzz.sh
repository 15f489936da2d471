#!/usr/bin/env bash
# Build the libFuzzer targets with clang and run each for N seconds (default 60) over a copy
# of its seed corpus. Crashes are written to fuzz/findings/. Usage: ./tools/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DGP_FUZZ=ON -DGP_TESTS=OFF >/dev/null
cmake --build build/fuzz -j"$(nproc)" >/dev/null
mkdir -p fuzz/findings
for src in fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  work=$(mktemp -d)
  [ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$work/"
  echo "fuzz: $name for ${secs}s"
  ./build/fuzz/fuzz/"$name" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
      -artifact_prefix=fuzz/findings/"$name"- "$work" 2>&1 | grep -E "Done [0-9]+ runs|ERROR|SUMMARY" || true
  rm -rf "$work"
  if ls fuzz/findings/"$name"-* >/dev/null 2>&1; then
    echo "fuzz: $name found a crash: see fuzz/findings/"; exit 1
  fi
done
