#!/usr/bin/env bash
# The tree's C layout is .clang-format's (4-space indent, 120 columns, K&R braces): this formats
# every tracked C file in place, or with --check lists the files clang-format would change and
# exits 1 (the ctest lint_format). Generated files (build/) are not tracked and not touched.
# Usage: tools/format.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format: clang-format is needed (./tools/deps.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find src include tools tests bench fuzz -name '*.[ch]')
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: ${#bad[@]} file(s) differ from .clang-format (run tools/format.sh):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files as .clang-format lays them out"
  exit 0
fi
clang-format -i "${files[@]}"
