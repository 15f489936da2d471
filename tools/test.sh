#!/usr/bin/env bash
# Build and run every test: once normally (gcc, warnings as errors), under AddressSanitizer +
# UndefinedBehaviorSanitizer with gcc and with clang (which adds its implicit-conversion
# checks), Release builds with clang and gcc (warnings as errors), and each fuzzer briefly.
# Usage: ./tools/test.sh            (GP_FUZZ_SECONDS=N to fuzz longer; 0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
# the browser test is part of the suite: its Chromium and Node come from Debian like the rest
GP_WITH_BROWSER=1 GP_WITH_FUZZ=1 ./tools/deps.sh
jobs=$(nproc)
step() { echo; echo "=== $*"; }

step "gcc, warnings as errors: build (build/debug)"
cmake -S . -B build/debug -DCMAKE_BUILD_TYPE=Debug -DGP_WERROR=ON -DCMAKE_C_COMPILER=gcc >/dev/null
cmake --build build/debug -j"$jobs"
# A Release build with warnings as errors: the optimizer's warnings (-Wformat-truncation,
# -Wmaybe-uninitialized) appear only there, and the accuracy guard's leave-one-source-out over
# every validation file needs the speed of a Release gpuplan-validate (thousands of serving
# simulations: 4-9 minutes on 2 cores).
step "gcc, Release, warnings as errors: build (build/release-werror)"
cmake -S . -B build/release-werror -DCMAKE_BUILD_TYPE=Release -DGP_WERROR=ON -DCMAKE_C_COMPILER=gcc >/dev/null
cmake --build build/release-werror -j"$jobs"
step "gcc Debug: ctest, with serving's held-out accuracy gate on the Release harness (build/debug)"
GP_VALIDATE_LOSO_BIN="$PWD/build/release-werror/tools/validate/gpuplan-validate" \
  ctest --test-dir build/debug --output-on-failure -j"$jobs"

# The browser test must run, not skip: a missing Node (>= 18: Debian bookworm's), npm or
# Chromium fails the suite. playwright-core 1.49 is the newest that runs on Node 18.
step "browser: the web page in headless Chromium vs the CLI, desktop and phone, en and pt-BR (build/browser)"
node_major=$(node -e 'console.log(process.versions.node.split(".")[0])' 2>/dev/null || echo 0)
if ! command -v npm >/dev/null || [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ] || [ "$node_major" -lt 18 ]; then
  echo "browser: cannot run: needs Node >= 18 with npm (found: node ${node_major}, npm $(command -v npm || echo none))" \
       "and Chromium at ${CHROMIUM:-/usr/bin/chromium}; install them with GP_WITH_BROWSER=1 ./tools/deps.sh" >&2
  exit 1
fi
mkdir -p build/browser
cp tests/browser/package.json tests/browser/package-lock.json tests/browser/test.mjs build/browser/
(cd build/browser && npm ci --no-audit --no-fund --loglevel=error)
timeout 600 node build/browser/test.mjs build/debug/gpuplan build/browser/out

step "install: headers, libraries and gpuplan.pc; a program built with pkg-config (build/install)"
rm -rf build/install
cmake --install build/debug --prefix "$PWD/build/install" >/dev/null
PKG_CONFIG_PATH="$PWD/build/install/lib/pkgconfig" sh -c 'cc -std=c11 -Wall -Wextra -Werror tests/install/consumer.c $(pkg-config --cflags --libs gpuplan) -Wl,-rpath,"$PWD/build/install/lib" -o build/install/consumer'
./build/install/consumer && echo "install: a consumer linked through pkg-config gets 70553706496"

step "AddressSanitizer + UndefinedBehaviorSanitizer: build + ctest (build/asan)"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DGP_SANITIZE=ON -DGP_WERROR=ON -DCMAKE_C_COMPILER=gcc >/dev/null
cmake --build build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 GP_VALIDATE_QUICK=1 \
  ctest --test-dir build/asan --output-on-failure -j"$jobs"

step "clang ASan + UBSan + float-cast-overflow + implicit-conversion: build + ctest (build/clang-asan)"
cmake -S . -B build/clang-asan -DCMAKE_BUILD_TYPE=Debug -DGP_SANITIZE=ON -DGP_WERROR=ON -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build/clang-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 GP_VALIDATE_QUICK=1 \
  ctest --test-dir build/clang-asan --output-on-failure -j"$jobs"

# clang builds Release with warnings as errors too (gcc did above).
step "clang, Release, warnings as errors: build only (build/clang)"
cmake -S . -B build/clang -DCMAKE_BUILD_TYPE=Release -DGP_WERROR=ON -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build/clang -j"$jobs"

secs=${GP_FUZZ_SECONDS:-10}
if [ "$secs" -gt 0 ]; then
  step "libFuzzer: each parser for ${secs}s over its seed corpus (build/fuzz)"
  ./tools/fuzz.sh "$secs"
fi
echo
echo "test: all passed"
