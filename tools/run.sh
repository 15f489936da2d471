#!/usr/bin/env bash
# Build gpuplan (release) and run its built-in example. Usage: ./tools/run.sh [gpuplan args]
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/deps.sh
echo "run: configuring and building (build/release)"
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DGP_TESTS=OFF >/dev/null
cmake --build build/release -j"$(nproc)" --target gpuplan >/dev/null
echo "run: ./build/release/gpuplan $*"
echo
exec ./build/release/gpuplan "$@"
