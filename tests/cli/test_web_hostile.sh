#!/usr/bin/env bash
# gpuplan web under hostile HTTP on loopback (issue 17): shortened keys are refused naming the
# key meant; one client address cannot take more than its share of connections; oversize and
# deeply nested bodies are refused; a question past its deadline stops (503) while
# /api/health keeps answering at once; SIGTERM stops the server while a long question runs;
# with every planning slot taken, a question waits until its deadline and gets 503 + Retry-After.
# Bounded: every wait has a limit, the whole script takes well under a minute.
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 0; }

"$GP" web --port 0 --timeout 5 --request-timeout 3 --threads 4 --max-body 65536 >"$TMP/server.log" 2>"$TMP/server.err" &
PID=$!
cleanup() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
PORT=
for _ in $(seq 1 100); do
  PORT=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$TMP/server.log")
  [ -n "$PORT" ] && break
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
[ -n "$PORT" ] || { echo "FAIL: server did not start"; cat "$TMP/server.err"; exit 1; }
URL="http://127.0.0.1:$PORT"
post() { printf '%s' "$2" > "$TMP/body"; code=$(curl -s -m 20 -o "$TMP/out" -w '%{http_code}' --data-binary @"$TMP/body" "$URL$1"); }
expect_code() { checks=$((checks+1)); [ "$code" = "$1" ] || fail "$2: HTTP $code, expected $1"; }
# health from another loopback address (127.0.0.2 is this machine too): its own per-address quota
health2() { curl -s -m 5 --interface 127.0.0.2 -o /dev/null -w '%{http_code} %{time_total}' "$URL/api/health"; }

# 1. shortened keys (getopt used to take them): refused, naming the key meant (issue 17 row 1)
for kv in '"request": 1073741824|requests' '"use": 16777216|users' '"contex": 8|context' '"batc": 8|batch'; do
  key=${kv%%|*}; meant=${kv##*|}
  post /api/serve "{\"model\": \"llama-3.1-8b\", \"rate\": 1, $key}"
  expect_code 400 "shortened key $key"; expect_out "did you mean '$meant'" "names $meant"
done
post /api/serve '{"model": "llama-3.1-8b", "users": 10000, "requests": 50000, "prompt_tokens": 131072, "output_tokens": 32768}'
expect_code 400 "issue 17 row 2: the largest load within the bounds exceeds the work budget"; expect_out "budget" "says why"
# the web API keeps its own cap (1e10) on max_work: a request may lower it, never raise it
post /api/serve '{"model": "llama-3.1-8b", "rate": 1, "requests": 10, "max_work": 1e11}'
expect_code 400 "max_work above the API's 1e10"; expect_out "max_work" "names the key"
post /api/serve '{"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "rate": "inf", "requests": 100, "max_work": 1e4}'
expect_code 400 "max_work lowered under the load"; expect_out "budget of 1e+04" "the request's own budget"

# 2. more connections from one address than its cap: the excess is turned away, others are served
hold() { # hold N connections open with a partial request, for S seconds
  local n=$1 s=$2 fds=() fd
  trap '' PIPE # the server closes the connections over its cap: writing to them must not kill us
  for _ in $(seq 1 "$n"); do
    exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" || break
    printf 'POST /api/fit HTTP/1.1\r\nHost: 127.0.0.1\r\n' >&"$fd" 2>/dev/null
    fds+=("$fd")
  done
  echo "${#fds[@]} opened at $(date +%s.%N)" > "$TMP/held"
  sleep "$s"
  for fd in "${fds[@]}"; do exec {fd}>&-; done
}
hold 40 6 &
HOLD=$!
for _ in $(seq 1 100); do [ -e "$TMP/held" ] && break; sleep 0.1; done # all 40 open (bounded: 10 s)
sleep 0.5
open0=$(ss -tn state established "( sport = :$PORT )" | tail -n +2 | wc -l)
read -r hcode _ <<<"$(health2)"
checks=$((checks+1)); [ "$hcode" = 200 ] || fail "another address is served while one holds 40 connections (HTTP $hcode)"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/api/health")
checks=$((checks+1)); [ "$code" != 200 ] || fail "the 41st connection from one address is turned away (got 200; $(ss -tn state established "( sport = :$PORT )" | tail -n +2 | wc -l) open; $open0 before; $(cat "$TMP/held" 2>/dev/null))"
wait "$HOLD" 2>/dev/null
sleep 0.5
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/api/health"); expect_code 200 "the address is served again"

# 3. oversize and deeply nested bodies
head -c 70000 /dev/zero | tr '\0' ' ' > "$TMP/big"
code=$(curl -s -m 20 -o /dev/null -w '%{http_code}' --data-binary @"$TMP/big" "$URL/api/fit"); expect_code 413 "oversize body"
printf '{"model":%s1%s}' "$(printf '[%.0s' $(seq 1 3000))" "$(printf ']%.0s' $(seq 1 3000))" > "$TMP/deep"
code=$(curl -s -m 20 -o /dev/null -w '%{http_code}' --data-binary @"$TMP/deep" "$URL/api/fit"); expect_code 400 "deep nesting"

# 4. a long question next to health checks: health answers at once, the question stops at its
#    3 s deadline with 503 (the simulation polls the deadline)
# the largest saturating load within the API's bounds: 50,000 requests of 32,768 output tokens
LONG='{"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "rate": "inf", "requests": 50000, "prompt_tokens": 1000, "output_tokens": 32768}'
( printf '%s' "$LONG" | curl -s -m 30 -o "$TMP/long" -w '%{http_code}' --data-binary @- "$URL/api/serve" > "$TMP/long.code" ) &
LONGPID=$!
sleep 1
worst=0
for _ in 1 2 3 4 5; do
  read -r hcode t <<<"$(health2)"
  checks=$((checks+1)); [ "$hcode" = 200 ] || fail "health during a long question (HTTP $hcode)"
  worst=$(awk -v a="$worst" -v b="$t" 'BEGIN { print (b > a) ? b : a }')
done
echo "health during a long question: slowest of 5 answered in ${worst} s"
# a generous bound (the machine is shared): a health check waits on no other request
checks=$((checks+1)); awk -v t="$worst" 'BEGIN { exit !(t < 0.5) }' || fail "health took ${worst} s next to a long question"
wait "$LONGPID"
checks=$((checks+1)); [ "$(cat "$TMP/long.code")" = 503 ] || fail "long question past its deadline: HTTP $(cat "$TMP/long.code"), expected 503"
checks=$((checks+1)); grep -q "deadline" "$TMP/long" || fail "503 says the deadline passed"

# 5. SIGTERM while a long question runs: the server stops within a second or so
( printf '%s' "$LONG" | curl -s -m 30 -o /dev/null --data-binary @- "$URL/api/serve" ) &
sleep 1
t0=$(date +%s.%N)
kill -TERM "$PID"; wait "$PID"; rc=$?
t1=$(date +%s.%N)
el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
echo "stopped ${el} s after SIGTERM with a question in flight"
checks=$((checks+1)); [ "$rc" -eq 0 ] || fail "exit code $rc after SIGTERM"
checks=$((checks+1)); awk -v t="$el" 'BEGIN { exit !(t < 1.5) }' || fail "took ${el} s to stop after SIGTERM"
wait 2>/dev/null

# 6. one planning slot (--threads 1) held by a long question: a second question, on another
#    connection, waits for the slot half its own 2 s deadline and is answered 503 "busy" with
#    Retry-After; health (a GET) is answered meanwhile; once the slot is free, questions run.
"$GP" web --port 0 --timeout 5 --request-timeout 2 --threads 1 >"$TMP/server.log" 2>"$TMP/server.err" &
PID=$!
trap cleanup EXIT
PORT=
for _ in $(seq 1 100); do
  PORT=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$TMP/server.log"); [ -n "$PORT" ] && break; sleep 0.1
done
[ -n "$PORT" ] || { echo "FAIL: server with one slot did not start"; cat "$TMP/server.err"; exit 1; }
URL="http://127.0.0.1:$PORT"
( printf '%s' "$LONG" | curl -s -m 30 -o /dev/null --data-binary @- "$URL/api/serve" ) &
LONGPID=$!
sleep 0.5
FIT='{"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB"}'
code=$(printf '%s' "$FIT" | curl -s -m 20 -D "$TMP/hdr" -o "$TMP/out" -w '%{http_code}' --data-binary @- "$URL/api/fit")
expect_code 503 "a question while the only slot is taken"
checks=$((checks+1)); grep -qi '^retry-after: 1' "$TMP/hdr" || fail "busy 503 carries Retry-After (headers: $(tr -d '\r' < "$TMP/hdr" | tr '\n' ' '))"
checks=$((checks+1)); grep -q "busy" "$TMP/out" || fail "busy 503 says the server is busy: $(cat "$TMP/out")"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/api/health"); expect_code 200 "health while the only slot is taken"
wait "$LONGPID"
code=$(printf '%s' "$FIT" | curl -s -m 20 -o "$TMP/out" -w '%{http_code}' --data-binary @- "$URL/api/fit")
expect_code 200 "a question once the slot is free"
trap 'rm -rf "$TMP"' EXIT
kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null
finish
