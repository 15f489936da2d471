#!/usr/bin/env bash
# A calibration profile in the web API: named on the server's command line (every answer is
# calibrated and says so), or uploaded with one request as a JSON object (only that answer).
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 0; }
P="$TMP/profile.json"
"$GP" calibrate "$DATA/runs/vllm_bench_serve_llama31_8b.json" --gpu H100-SXM-80GB --out "$P" >/dev/null || { echo "FAIL: calibrate"; exit 1; }

start() { # start [ARGS]: a server on a free port, its URL in $URL
  "$GP" web --port 0 "$@" >"$TMP/server.log" 2>"$TMP/server.err" &
  PID=$!
  PORT=
  for _ in $(seq 1 100); do
    PORT=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$TMP/server.log")
    [ -n "$PORT" ] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$PORT" ] || { echo "FAIL: server did not start"; cat "$TMP/server.err"; exit 1; }
  URL="http://127.0.0.1:$PORT"
}
stop() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
trap 'stop; rm -rf "$TMP"' EXIT
post() { printf '%s' "$2" > "$TMP/body"; code=$(curl -s -m 20 -o "$TMP/out" -w '%{http_code}' -X POST --data-binary "@$TMP/body" -H 'Content-Type: application/json' "$URL$1"); }
expect_code() { checks=$((checks+1)); [ "$code" = "$1" ] || fail "$2: HTTP $code, expected $1"; }
Q='"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "users": 20'

start
post /api/serve "{$Q}"; expect_code 200 "plain serve"; cp "$TMP/out" "$TMP/plain.json"
expect_json 'has("calibration")' false "no profile, no calibration key"
post /api/serve "{$Q, \"profile\": $(cat "$P")}"; expect_code 200 "serve with an uploaded profile"
expect_json '.calibration' "calibrated on 1 run of H100-SXM-80GB (serve bf16 vllm) from uploaded profile" "says so"
post /api/serve "{$Q}"; expect_code 200 "the next answer"
expect_json 'has("calibration")' false "an upload changes only its own answer"
post /api/serve "{$Q, \"profile\": \"$P\"}"; expect_code 400 "a profile file name is refused"
post /api/serve "{$Q, \"profile\": {\"gpuplan_profile\": 1, \"gpus\": [{\"gpu\": \"H999\"}]}}"
expect_code 422 "a bad profile (bad input, as the API answers it)"; expect_out "H999" "names the GPU"
stop

start --profile "$P"
checks=$((checks+1)); grep -q "every answer is calibrated on 1 run" "$TMP/server.log" || fail "banner says so"
post /api/serve "{$Q}"; expect_code 200 "serve on a calibrated server"
expect_json '.calibration | startswith("calibrated on 1 run")' true "every answer says so"
finish
