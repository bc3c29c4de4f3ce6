#!/usr/bin/env bash
# HTTP benchmark of dungeond beside the library-only rate and a Node.js peer.
#
#   bench/http-bench.sh [--build DIR] [--seconds S] [--connections C] [--json]
#
# Loads POST /v1/levels {"algorithm":"classic","seed":N} (80x21, defaults)
# with wrk (C connections, default 64, for S seconds, default 10) against
# dungeond on a free loopback port (default config, 2 workers, request log
# to /dev/null), then the same load against bench/peers/rotjs-server.mjs
# (node's http module + rot.js Uniform 80x25; rot-js installed here from the
# npm registry), and prints requests/s and p50/p99 latency for both beside
# `dungeon bench` (library only, one thread). Loopback only, bounded in time;
# the machine is shared, so figures move between runs.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="$root/build"
seconds=10
connections=64
as_json=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --json) as_json=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "http-bench: unknown option $1" >&2; exit 2 ;;
  esac
done
for tool in wrk node npm python3; do
  command -v "$tool" >/dev/null || { echo "http-bench: $tool is required" >&2; exit 2; }
done
[ -x "$build/src/server/dungeond" ] || { echo "http-bench: build first (ninja -C $build)" >&2; exit 2; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# wrk script: a POST with a varying seed, so no two requests are the same level.
script="$here/post-classic.lua"

# wrk --latency output -> "requests_per_s p50_ms p99_ms errors"
parse_wrk() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(label):
    m = re.search(r"^\s*%s%%\s+([\d.]+)(us|ms|s)\s*$" % label, text, re.M)
    if not m:
        return float("nan")
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]
    return float(m.group(1)) * scale
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
errors = 0
m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
if m: errors += int(m.group(1))
m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
if m: errors += sum(int(x) for x in m.groups())
print(f"{rps:.0f} {ms('50'):.2f} {ms('99'):.2f} {errors}")
PY
}

wait_port() { # file -> port printed as "port":N
  for _ in $(seq 1 100); do
    port="$(grep -o '"port": *[0-9]*' "$1" 2>/dev/null | head -1 | grep -o '[0-9]*$' || true)"
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.05
  done
  echo "http-bench: server did not start: $(cat "$1")" >&2
  return 1
}

# 1. dungeond
(cd "$root" && exec "$build/src/server/dungeond" --config config/dungeond.json \
  --listen 127.0.0.1:0 2>"$work/dungeond.err") &
pids+=($!)
sleep 0.2
port="$(wait_port "$work/dungeond.err")"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$script" \
  "http://127.0.0.1:$port/v1/levels" > "$work/dungeond.wrk"
read -r d_rps d_p50 d_p99 d_err < <(parse_wrk "$work/dungeond.wrk")
kill -TERM "${pids[0]}"
wait "${pids[0]}" || { echo "http-bench: dungeond exited non-zero" >&2; exit 1; }
pids=()

# 2. library only (one thread)
lib_json="$("$build/src/cli/dungeon" bench --algorithm classic --seconds 1 --runs 5 --json)"
lib_rate="$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(round(d["levels_per_second_median"]))' "$lib_json")"

# 3. Node.js + rot.js peer
if [ ! -d "$here/peers/node_modules/rot-js" ]; then
  (cd "$here/peers" && npm install --no-audit --no-fund --silent >/dev/null)
fi
node "$here/peers/rotjs-server.mjs" 0 > "$work/peer.out" &
pids+=($!)
port="$(wait_port "$work/peer.out")"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$script" \
  "http://127.0.0.1:$port/v1/levels" > "$work/peer.wrk"
read -r p_rps p_p50 p_p99 p_err < <(parse_wrk "$work/peer.wrk")

ratio="$(python3 -c "print(f'{$d_rps / max($p_rps, 1):.1f}')")"
if [ "$as_json" = 1 ]; then
  python3 - <<PY
import json
print(json.dumps({
  "load": {"tool": "wrk", "connections": $connections, "seconds": $seconds, "threads": 2,
           "request": "POST /v1/levels classic 80x21, seed varies"},
  "dungeond": {"requests_per_s": $d_rps, "p50_ms": $d_p50, "p99_ms": $d_p99, "errors": $d_err},
  "library_levels_per_s_one_thread": $lib_rate,
  "peer_node_rotjs_uniform_80x25": {"requests_per_s": $p_rps, "p50_ms": $p_p50,
                                    "p99_ms": $p_p99, "errors": $p_err},
  "dungeond_over_peer": $ratio,
}))
PY
else
  printf '%-34s %12s %10s %10s %8s\n' "service (wrk -c$connections, ${seconds}s)" "requests/s" "p50 ms" "p99 ms" "errors"
  printf '%-34s %12s %10s %10s %8s\n' "dungeond classic 80x21" "$d_rps" "$d_p50" "$d_p99" "$d_err"
  printf '%-34s %12s %10s %10s %8s\n' "node + rot.js Uniform 80x25" "$p_rps" "$p_p50" "$p_p99" "$p_err"
  printf '%-34s %12s\n' "library only, 1 thread (levels/s)" "$lib_rate"
  printf 'dungeond / peer: %sx\n' "$ratio"
fi
