#!/usr/bin/env bash
# The developers' rule "functions under ~100 lines", checked: every C function in the given
# folders (default: src and tools/validate) whose definition, from the line naming it to its
# closing brace, is longer than MAX lines (default 100) is listed; exit 1 if any is.
# Functions are found by the layout the tree uses: the body's '{' and '}' in column 0.
# Usage: tools/function_length.sh [MAX] [DIR...]
set -eu
cd "$(dirname "$0")/.."
MAX=${1:-100}
[ $# -gt 0 ] && shift
DIRS=("$@")
[ ${#DIRS[@]} -gt 0 ] || DIRS=(src tools/validate)
find "${DIRS[@]}" -name '*.c' -o -name '*.h' | sort | xargs awk -v max="$MAX" '
  FNR == 1 { head = 0; open = 0 }
  /\(/ && !open { head = FNR; name = $0 }
  /^\{/ && !open { open = 1 }
  /^\}/ && open {
    open = 0
    n = FNR - head + 1
    if (n > max) {
      match(name, /[A-Za-z_][A-Za-z_0-9]*[ \t]*\(/)
      fn = substr(name, RSTART, RLENGTH - 1)
      printf "%s:%d: %s is %d lines (over %d)\n", FILENAME, head, fn, n, max
      bad = 1
    }
  }
  END { exit bad }' || exit 1
