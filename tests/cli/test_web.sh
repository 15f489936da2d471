#!/usr/bin/env bash
# gpuplan web: the JSON API on a free loopback port. The API answers what the CLI's --json
# answers; hostile requests get clean errors (400 with the parser's position, 413, 404, 405,
# refused file-naming keys, bounds on work) and the server survives them all.
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 0; }

"$GP" web --port 0 --max-body 65536 --timeout 5 >"$TMP/server.log" 2>"$TMP/server.err" &
PID=$!
cleanup() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
PORT=
for _ in $(seq 1 100); do # wait for the banner (bounded)
  PORT=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$TMP/server.log")
  [ -n "$PORT" ] && break
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
[ -n "$PORT" ] || { echo "FAIL: server did not start"; cat "$TMP/server.err"; exit 1; }
URL="http://127.0.0.1:$PORT"

# api METHOD PATH [BODY-FILE]: status in $code, body in $TMP/out
api() {
  local data=()
  [ $# -ge 3 ] && data=(--data-binary "@$3" -H 'Content-Type: application/json')
  code=$(curl -s -m 20 -o "$TMP/out" -w '%{http_code}' -X "$1" "${data[@]}" "$URL$2")
}
post() { printf '%s' "$2" > "$TMP/body"; api POST "$1" "$TMP/body"; }
expect_code() { checks=$((checks+1)); [ "$code" = "$1" ] || fail "$2: HTTP $code, expected $1"; }
alive() { api GET /api/health; expect_code 200 "server alive after $1"; }

# the page and its files, embedded
api GET /; expect_code 200 "page"; expect_out "<title>gpuplan" "page is the app"
api GET /app.js; expect_code 200 "app.js"; api GET /style.css; expect_code 200 "style.css"
checks=$((checks+1)); grep -q "Content-Security-Policy: default-src 'self'" <(curl -s -D - -o /dev/null "$URL/") ||
  fail "page has a content security policy"

# the catalog: same as the CLI
api GET /api/models; expect_code 200 "models"
"$GP" model list --json > "$TMP/cli.json"
checks=$((checks+1)); cmp -s "$TMP/out" "$TMP/cli.json" || fail "/api/models differs from 'model list --json'"
api GET /api/gpus; expect_code 200 "gpus"
"$GP" gpus --json > "$TMP/cli.json"
checks=$((checks+1)); cmp -s "$TMP/out" "$TMP/cli.json" || fail "/api/gpus differs from 'gpus --json'"

# fit/serve/train: the same JSON document as the CLI, byte for byte
post /api/fit '{"model": "llama-3.1-70b", "gpu": "H100-SXM-80GB", "context": 8192, "batch": 4, "engine": "vllm"}'
expect_code 200 "fit"; expect_json .verdict.min_gpus 2 "fit: 70B needs 2 H100s"
"$GP" fit --model llama-3.1-70b --gpu H100-SXM-80GB --context 8192 --batch 4 --engine vllm --json > "$TMP/cli.json"
checks=$((checks+1)); cmp -s "$TMP/out" "$TMP/cli.json" || fail "/api/fit differs from 'fit --json'"
post /api/serve '{"model": "llama-3.1-70b", "users": 300, "gpu": "H100-SXM-80GB", "ttft_p99": 2, "tpot_p99": 0.1}'
expect_code 200 "serve"
"$GP" serve --model llama-3.1-70b --users 300 --gpu H100-SXM-80GB --ttft-p99 2 --tpot-p99 0.1 --json > "$TMP/cli.json"
checks=$((checks+1)); cmp -s "$TMP/out" "$TMP/cli.json" || fail "/api/serve differs from 'serve --json'"
post /api/train '{"model": "llama-3.1-8b", "gpus": 8, "tokens": "1e9", "task": "train"}'
expect_code 200 "train"
"$GP" train --model llama-3.1-8b --gpus 8 --tokens 1e9 --task train --json > "$TMP/cli.json"
checks=$((checks+1)) # the search's own run time differs between runs
cmp -s <(jq 'del(.. | .seconds?)' "$TMP/out") <(jq 'del(.. | .seconds?)' "$TMP/cli.json") ||
  fail "/api/train differs from 'train --json'"
if "$GP" help | grep -q '^  plan '; then
  post /api/plan '{"model": "llama-3.1-70b", "users": 300, "gpu": "H100-SXM-80GB", "ttft_p99": 2, "tpot_p99": 0.1}'
  expect_code 200 "plan"
  "$GP" plan --model llama-3.1-70b --users 300 --gpu H100-SXM-80GB --ttft-p99 2 --tpot-p99 0.1 --json > "$TMP/cli.json"
  checks=$((checks+1)); cmp -s "$TMP/out" "$TMP/cli.json" || fail "/api/plan differs from 'plan --json'"
fi
# a pasted config.json as the model
post /api/fit '{"model": {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000}, "gpu": "L4"}'
expect_code 200 "inline config"; expect_json .verdict.single_gpu_sufficient true "inline 1.1B fits an L4"
post /api/fit '{"model": {"model_type": "llama", "hidden_size": -5}}'
expect_code 400 "broken inline config"; expect_out "scenario key 'model'" "names the key"

# malformed JSON: 400 with the parser's message and position
post /api/fit '{"model": "llama-3.1-70b", "gpu": }'
expect_code 400 "malformed JSON"; expect_json .error.position 35 "byte position"; expect_json .error.line 1 "line"
expect_json .error.column 35 "column"; expect_out "unexpected token" "parser's message"
post /api/fit ''; expect_code 400 "empty body"
post /api/fit '[1, 2]'; expect_code 400 "not an object"; expect_out "JSON object" "says what a scenario is"
post /api/fit '{"model": "llama-3.1-8b", "model": "llama-3.1-70b"}'; expect_code 400 "duplicate key"
post /api/fit '{"model": "llama-3.1-8b", "bogus_flag": 1}'; expect_code 400 "unknown key"; expect_out "bogus_flag" "names the key"; expect_json .error.field bogus_flag "field"
post /api/fit '{"model": "llama-3.1-8b", "dtype": "fp99"}'; expect_code 400 "bad value"; expect_json .error.exit_code 2 "usage error"
printf '{"a":%s1%s}' "$(printf '[%.0s' $(seq 1 5000))" "$(printf ']%.0s' $(seq 1 5000))" > "$TMP/deep"
api POST /api/fit "$TMP/deep"; expect_code 400 "deeply nested JSON"
alive "malformed bodies"

# too large: 413 (declared length, and a chunked body without one)
head -c 70000 /dev/zero | tr '\0' ' ' > "$TMP/big"
api POST /api/fit "$TMP/big"; expect_code 413 "huge body"
code=$(curl -s -m 20 -o "$TMP/out" -w '%{http_code}' -H 'Transfer-Encoding: chunked' --data-binary @"$TMP/big" "$URL/api/fit")
expect_code 413 "huge chunked body"
alive "huge bodies"

# no file-system access: keys naming files are refused, abbreviations too; models must be catalog ids
for kv in '"trace": "/etc/passwd"' '"trac": "/etc/passwd"' '"data_dir": "/tmp"' '"data": "/tmp"' '"out": "/tmp/x"' \
          '"export": "vllm"' '"format": "html"' '"help": true' '"json": true' '"mod": "/etc"' '"m": "/etc"' \
          '"config_file": "/etc/passwd"' '"trace_path": "x"' '"scenario": "/etc/passwd"'; do
  post /api/serve "{\"users\": 10, $kv}"; expect_code 400 "refused: $kv"
done
post /api/serve '{"users": 10, "trace": "/etc/passwd"}'; expect_out "reads and writes no files" "says why"
post /api/plan '{"users": 10, "out": "/tmp/x"}'; expect_code 400 "plan's out refused"; expect_out "reads and writes no files" "says why"
post /api/fit '{"model": "/etc/passwd"}'; expect_code 400 "model path"; expect_out "not in the catalog" "model must be a catalog id"
post /api/fit '{"model": "../../../../etc/passwd"}'; expect_code 400 "model relative path"
post /api/fit '{"model": ["llama-3.1-8b", "/etc"]}'; expect_code 400 "model list with a path"
post /api/fit '{"model": "llama-3.1-8b", "gpu": "--trace=/etc/passwd"}'; expect_code 422 "value that looks like a flag is a value"
post /api/fit '{"model": "llama-3.1-8b", "Gpu": "h100"}'; expect_code 400 "key not a flag name"
post /api/fit '{"model": "llama-3.1-8b", "--trace": "x"}'; expect_code 400 "key with dashes"

# bounds on the work of one request
post /api/serve '{"model": "llama-3.1-8b", "users": 1000000}'; expect_code 400 "too many users"; expect_out "bound" "says the bound"
post /api/serve '{"model": "llama-3.1-8b", "rate": 10, "requests": 1e9}'; expect_code 400 "too many requests"
post /api/serve '{"model": "llama-3.1-8b", "users": 10, "output_tokens": "9999999"}'; expect_code 400 "too many tokens (string)"
post /api/train '{"model": "llama-3.1-8b", "gpus": 10000000}'; expect_code 400 "too many GPUs"
post /api/fit "{\"model\": \"llama-3.1-8b\", \"gpu\": [$(printf '"h100",%.0s' $(seq 1 40))\"h100\"]}"; expect_code 400 "list too long"
alive "bounds"

# routes and methods
api GET /api/nothing; expect_code 404 "unknown route"
api GET /../../etc/passwd; expect_code 404 "path traversal"
api GET /api/fit; expect_code 405 "GET on a POST route"
api DELETE /api/fit; expect_code 405 "DELETE"
api POST /api/models "$TMP/body"; expect_code 405 "POST on a GET route"
code=$(curl -s -m 20 -o /dev/null -w '%{http_code}' -H 'Host: evil.example' "$URL/api/health")
expect_code 403 "DNS rebinding: foreign Host refused"

# a slow client is cut off by the timeout and does not stop others (bounded: 5 s timeout)
( exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'POST /api/fit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{' >&3; sleep 8; exec 3>&- ) &
SLOW=$!
alive "a slow client"
post /api/fit '{"model": "llama-3.1-8b"}'; expect_code 200 "fit while a slow client waits"
wait "$SLOW" 2>/dev/null

# many requests at once (bounded)
for i in $(seq 1 16); do
  curl -s -m 20 -o /dev/null -X POST --data-binary '{"model": "llama-3.1-8b", "gpu": "l4"}' "$URL/api/fit" &
done
wait $(jobs -p | grep -v "^$PID$") 2>/dev/null
alive "concurrent requests"

# stops cleanly on SIGTERM
kill -TERM "$PID"; wait "$PID"; rc=$?
checks=$((checks+1)); [ "$rc" -eq 0 ] || fail "server exit code $rc after SIGTERM"
checks=$((checks+1)); grep -q "stopping" "$TMP/server.log" || fail "server says it stops"
trap 'rm -rf "$TMP"' EXIT

# bad options
run web --port 70000; expect_rc 2 "port out of range"
run web --bind not-an-address --port 0; expect_rc 1 "bad bind address"; expect_err "IPv4 or IPv6" "says what --bind takes"
finish
