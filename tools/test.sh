#!/usr/bin/env bash
# Build and run every test: once normally (gcc, warnings as errors), under AddressSanitizer +
# UndefinedBehaviorSanitizer with gcc and with clang (which adds its implicit-conversion
# checks), a clang build, and each fuzzer briefly.
# Usage: ./tools/test.sh            (GP_FUZZ_SECONDS=N to fuzz longer; 0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
# CI also installs the browser test's Chromium and Node (GP_WITH_BROWSER=1 does it elsewhere)
GP_WITH_BROWSER=${GP_WITH_BROWSER:-$([ "${CI:-}" = true ] && echo 1 || echo 0)} GP_WITH_FUZZ=1 ./tools/deps.sh
jobs=$(nproc)
step() { echo; echo "=== $*"; }

step "gcc, warnings as errors: build + ctest (build/debug)"
cmake -S . -B build/debug -DCMAKE_BUILD_TYPE=Debug -DGP_WERROR=ON -DCMAKE_C_COMPILER=gcc >/dev/null
cmake --build build/debug -j"$jobs"
ctest --test-dir build/debug --output-on-failure -j"$jobs"

if command -v npm >/dev/null && [ -x "${CHROMIUM:-/usr/bin/chromium}" ] &&
   node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' 2>/dev/null; then
  step "browser: the web page in headless Chromium vs the CLI (build/browser)"
  mkdir -p build/browser
  cp tests/browser/package.json tests/browser/package-lock.json tests/browser/test.mjs build/browser/
  (cd build/browser && npm ci --no-audit --no-fund --loglevel=error)
  timeout 180 node build/browser/test.mjs build/debug/gpuplan build/browser/out
else
  step "browser: skipped (needs Node >= 20 with npm, and chromium: GP_WITH_BROWSER=1 ./tools/deps.sh)"
fi

step "install: headers, libraries and gpuplan.pc; a program built with pkg-config (build/install)"
rm -rf build/install
cmake --install build/debug --prefix "$PWD/build/install" >/dev/null
PKG_CONFIG_PATH="$PWD/build/install/lib/pkgconfig" sh -c 'cc -std=c11 -Wall -Wextra -Werror tests/install/consumer.c $(pkg-config --cflags --libs gpuplan) -Wl,-rpath,"$PWD/build/install/lib" -o build/install/consumer'
./build/install/consumer && echo "install: a consumer linked through pkg-config gets 70553706496"

step "AddressSanitizer + UndefinedBehaviorSanitizer: build + ctest (build/asan)"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DGP_SANITIZE=ON -DGP_WERROR=ON -DCMAKE_C_COMPILER=gcc >/dev/null
cmake --build build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j"$jobs"

step "clang ASan + UBSan + float-cast-overflow + implicit-conversion: build + ctest (build/clang-asan)"
cmake -S . -B build/clang-asan -DCMAKE_BUILD_TYPE=Debug -DGP_SANITIZE=ON -DGP_WERROR=ON -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build/clang-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/clang-asan --output-on-failure -j"$jobs"

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
