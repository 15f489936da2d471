#!/usr/bin/env bash
# Load on `gpuplan web` with wrk, on loopback only and bounded in time: plans per second and
# latency (p50, p99) for POST /api/fit and POST /api/plan (and /api/serve), with no errors
# allowed and the server's resident memory compared before and after the run; then /api/plan
# with a server of 1 planning slot (--threads 1) vs 2 (questions run concurrently: the ratio
# should near 2 on 2 free cores).
# Usage: bench/web_load.sh [GPUPLAN_BINARY] [SECONDS_PER_ENDPOINT]   (default: a Release build
# in build/release, 10 s). Needs wrk (GP_WITH_BENCH=1 ./tools/deps.sh). The server is pinned to
# 2 cores (taskset), wrk to others when the machine has them.
set -euo pipefail
cd "$(dirname "$0")/.."
GP=${1:-}
SECS=${2:-10}
[ "$SECS" -ge 1 ] && [ "$SECS" -le 120 ] || { echo "seconds: 1..120"; exit 2; }
command -v wrk >/dev/null || { echo "web_load: needs wrk (GP_WITH_BENCH=1 ./tools/deps.sh)"; exit 2; }
if [ -z "$GP" ]; then
  cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/release -j"$(nproc)" --target gpuplan >/dev/null
  GP=build/release/gpuplan
fi
TMP=$(mktemp -d)
cores=$(nproc)
echo "machine: $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min): figures are only comparable on a quiet machine"
SERVER_CPUS=0,1; WRK_CPUS=0,1
[ "$cores" -ge 4 ] && WRK_CPUS=2-$((cores - 1))
[ "$cores" -lt 2 ] && SERVER_CPUS=0 && WRK_CPUS=0
PID=
start_server() { # start_server THREADS: sets PID and URL
  : >"$TMP/log"
  taskset -c "$SERVER_CPUS" "$GP" web --port 0 --bind 127.0.0.1 --threads "$1" >"$TMP/log" 2>&1 &
  PID=$!
  PORT=
  for _ in $(seq 1 100); do
    PORT=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$TMP/log"); [ -n "$PORT" ] && break; sleep 0.1
  done
  [ -n "$PORT" ] || { echo "server did not start"; cat "$TMP/log"; exit 1; }
  URL="http://127.0.0.1:$PORT"
}
stop_server() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; PID=; }
trap 'stop_server; rm -rf "$TMP"' EXIT
start_server 2
rss() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; } # KiB

script() { # script FILE BODY: a wrk Lua script POSTing BODY
  cat > "$1" <<LUA
wrk.method = "POST"
wrk.body = [[$2]]
wrk.headers["Content-Type"] = "application/json"
LUA
}
FIT='{"model": "llama-3.1-70b", "gpu": "H100-SXM-80GB", "context": 8192, "batch": 16, "engine": "vllm"}'
PLAN='{"model": "llama-3.1-70b", "users": 300, "gpu": "H100-SXM-80GB", "ttft_p99": 2, "tpot_p99": 0.1}'
script "$TMP/fit.lua" "$FIT"
script "$TMP/plan.lua" "$PLAN"

# warm up (allocator arenas, catalog pages), then measure
taskset -c "$WRK_CPUS" wrk -t2 -c8 -d2s -s "$TMP/fit.lua" "$URL/api/fit" >/dev/null
before=$(rss)
printf '%-12s %10s %10s %10s %8s\n' endpoint "req/s" "p50" "p99" errors
status=0
for ep in fit plan serve; do
  lua=$TMP/$ep.lua; [ "$ep" = serve ] && lua=$TMP/plan.lua
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary @<(sed -n 's/^wrk.body = \[\[\(.*\)\]\]$/\1/p' "$lua") "$URL/api/$ep")
  if [ "$code" != 200 ]; then
    printf '%-12s %s\n' "/api/$ep" "skipped (HTTP $code: not in this build?)"; continue
  fi
  out=$(taskset -c "$WRK_CPUS" wrk -t2 -c8 -d"${SECS}s" --timeout 10s --latency -s "$lua" "$URL/api/$ep")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out"); non2xx=${non2xx:-0}
  sock=$(awk '/Socket errors/ {gsub(",", ""); print $4 + $6 + $8 + $10}' <<<"$out"); sock=${sock:-0}
  errors=$((non2xx + sock))
  printf '%-12s %10s %10s %10s %8s\n' "/api/$ep" "$rps" "$p50" "$p99" "$errors"
  [ "$errors" -eq 0 ] || status=1
done
after=$(rss)
growth=$((after - before))
echo "server RSS: ${before} KiB before, ${after} KiB after (growth ${growth} KiB); server on CPUs $SERVER_CPUS, wrk on $WRK_CPUS"
# jemalloc-free glibc keeps freed arenas; more than 16 MiB of growth means a leak
[ "$growth" -lt 16384 ] || { echo "FAIL: memory grew by ${growth} KiB"; status=1; }
kill -0 "$PID" || { echo "FAIL: server died"; status=1; }
stop_server

# /api/plan: 1 planning slot (--threads 1) vs 2
# CPU seconds the server used (utime + stime, clock ticks): on a shared machine the server may
# get less than its cores, so requests per CPU-second shows whether the questions contend and
# the cores it kept busy whether it got them. (Each connection has its own thread; --threads
# is the number of questions answered at once, whichever connections they arrive on.)
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$PID/stat"; }
declare -A RPS PERCPU CORES
for threads in 1 2; do
  start_server "$threads"
  taskset -c "$WRK_CPUS" wrk -t2 -c4 -d2s -s "$TMP/plan.lua" "$URL/api/plan" >/dev/null # warm up
  c0=$(cpu_s)
  out=$(taskset -c "$WRK_CPUS" wrk -t2 -c8 -d"${SECS}s" --timeout 10s -s "$TMP/plan.lua" "$URL/api/plan")
  c1=$(cpu_s)
  RPS[$threads]=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  PERCPU[$threads]=$(awk -v r="${RPS[$threads]}" -v s="$SECS" -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f", (b > a) ? r * s / (b - a) : 0 }')
  CORES[$threads]=$(awk -v s="$SECS" -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", (b - a) / s }')
  stop_server
done
ratio=$(awk -v a="${RPS[1]}" -v b="${RPS[2]}" 'BEGIN { printf "%.2f", (a > 0) ? b / a : 0 }')
echo "/api/plan: ${RPS[1]} req/s with 1 thread, ${RPS[2]} req/s with 2 threads: ratio $ratio (server on CPUs $SERVER_CPUS)"
echo "/api/plan per server CPU-second: ${PERCPU[1]} (1 thread), ${PERCPU[2]} (2 threads): equal means no contention"
echo "/api/plan server cores busy: ${CORES[1]} (1 thread), ${CORES[2]} (2 threads)"
[ "$status" -eq 0 ] && echo "web_load: ok (no errors, memory flat)" || echo "web_load: FAILED"
exit "$status"
