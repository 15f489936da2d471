# Helpers for CLI tests: source it, then call expect_* ; the script exits 1 on the first failure.
# Usage in a test: GP=$1 (the gpuplan binary), SRC=$2 (the source tree).
set -u
GP=${1:?gpuplan binary}
SRC=${2:?source dir}
DATA="$SRC/tests/data"   # reference configs and lists the tests read (tests/data/README.md)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checks=0

# run CMD...: runs gpuplan with args, captures stdout/stderr/exit code
run() {
  "$GP" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
}
fail() { echo "FAIL: $*"; echo "--- stdout"; head -20 "$TMP/out"; echo "--- stderr"; head -20 "$TMP/err"; fails=$((fails+1)); }
expect_rc() { checks=$((checks+1)); [ "$rc" -eq "$1" ] || fail "$2: exit code $rc, expected $1"; }
expect_out() { checks=$((checks+1)); grep -qF -- "$1" "$TMP/out" || fail "$2: stdout lacks '$1'"; }
expect_err() { checks=$((checks+1)); grep -qF -- "$1" "$TMP/err" || fail "$2: stderr lacks '$1'"; }
expect_json() { # expect_json JQ_FILTER EXPECTED WHAT
  checks=$((checks+1))
  got=$(jq -r "$1" "$TMP/out" 2>/dev/null)
  [ "$got" = "$2" ] || fail "$3: $1 = '$got', expected '$2'"
}
finish() {
  echo "$((checks-fails)) passed, $fails failed"
  [ "$fails" -eq 0 ]
}
