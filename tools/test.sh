#!/usr/bin/env bash
# Build and run every test: once normally (gcc, warnings as errors), once under
# AddressSanitizer + UndefinedBehaviorSanitizer, a clang build, and each fuzzer briefly.
# Usage: ./tools/test.sh            (GP_FUZZ_SECONDS=N to fuzz longer; 0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
GP_WITH_FUZZ=1 ./tools/deps.sh
jobs=$(nproc)
step() { echo; echo "=== $*"; }

step "gcc, warnings as errors: build + ctest (build/debug)"
cmake -S . -B build/debug -DCMAKE_BUILD_TYPE=Debug -DGP_WERROR=ON -DCMAKE_C_COMPILER=gcc >/dev/null
cmake --build build/debug -j"$jobs"
ctest --test-dir build/debug --output-on-failure -j"$jobs"

step "AddressSanitizer + UndefinedBehaviorSanitizer: build + ctest (build/asan)"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DGP_SANITIZE=ON -DGP_WERROR=ON -DCMAKE_C_COMPILER=gcc >/dev/null
cmake --build build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j"$jobs"

step "clang, warnings as errors: build only (build/clang)"
cmake -S . -B build/clang -DCMAKE_BUILD_TYPE=Debug -DGP_WERROR=ON -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build/clang -j"$jobs"

secs=${GP_FUZZ_SECONDS:-10}
if [ "$secs" -gt 0 ]; then
  step "libFuzzer: each parser for ${secs}s over its seed corpus (build/fuzz)"
  ./tools/fuzz.sh "$secs"
fi
echo
echo "test: all passed"
