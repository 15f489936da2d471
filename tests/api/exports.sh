#!/usr/bin/env bash
# api_exports: the functions libgpuplan.so exports are exactly tests/data/api_exports.txt, and
# each is declared GP_API in include/ (docs/architecture.md, "Public and private"). A new export
# is a deliberate act: add the declaration to include/ with its documentation and the name to
# the list in the same change.
# Usage: exports.sh LIBGPUPLAN_SO SOURCE_DIR
set -euo pipefail
lib=$1
src=$2
list=$src/tests/data/api_exports.txt
command -v nm >/dev/null || { echo "api_exports: nm (binutils) is needed" >&2; exit 1; }
[ -f "$lib" ] || { echo "api_exports: no library at $lib" >&2; exit 1; }

# defined functions of the dynamic symbol table (T, or W for a weak definition), library names only
exported=$(nm -D --defined-only "$lib" | awk '($2 == "T" || $2 == "W") && $3 ~ /^gp/ {print $3}' | sort -u)
expected=$(grep -v '^#' "$list" | grep -v '^$' | sort -u)
declared=$(grep -hoE 'GP_API[^(;]*[ *]gp_[a-z0-9_]+\(' "$src"/include/gpuplan.h "$src"/include/gpuplan/*.h \
           | grep -oE 'gp_[a-z0-9_]+\($' | tr -d '(' | sort -u)

rc=0
extra=$(comm -23 <(echo "$exported") <(echo "$expected"))
missing=$(comm -13 <(echo "$exported") <(echo "$expected"))
undeclared=$(comm -23 <(echo "$expected") <(echo "$declared"))
unlisted=$(comm -13 <(echo "$expected") <(echo "$declared"))
if [ -n "$extra" ]; then
    echo "api_exports: exported but not in tests/data/api_exports.txt (a private function lost its" \
         "hidden visibility, or a new API function is not listed):" >&2
    echo "$extra" | sed 's/^/  /' >&2; rc=1
fi
if [ -n "$missing" ]; then
    echo "api_exports: listed but not exported (removed or hidden; an API break):" >&2
    echo "$missing" | sed 's/^/  /' >&2; rc=1
fi
if [ -n "$undeclared" ]; then
    echo "api_exports: listed but not declared GP_API in include/:" >&2
    echo "$undeclared" | sed 's/^/  /' >&2; rc=1
fi
if [ -n "$unlisted" ]; then
    echo "api_exports: declared GP_API in include/ but not listed:" >&2
    echo "$unlisted" | sed 's/^/  /' >&2; rc=1
fi
[ $rc -eq 0 ] && echo "api_exports: $(echo "$exported" | wc -l) functions, as listed"
exit $rc
