#!/usr/bin/env python3
"""Lobby pre-generation benchmark (issue 4), Python 3 standard library only.

  bench/lobby-bench.py [--build DIR] [--lobbies N] [--seconds S] [--json]

Starts dungeond on a free loopback port (default config), then
 1. baseline: 4 clients send POST /v1/levels (classic 80x21) for S seconds;
 2. lobby workload: N lobbies, 4 players each joining at random moments over
    S seconds, each lobby started either right after its last join (a quarter
    of them) or 0.5 s later, while the same 4 interactive clients run.
Reports start-to-level latency for hits, waits and misses (p50/p99), the hit
ratio, and interactive p50/p99 with and without the speculative load.
Loopback only, bounded in time. The machine is shared: figures move.
"""
import argparse
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time


def percentile(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(q * len(ordered) + 0.999999) - 1))]


class Client:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method, path, body=None):
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None)
        response = self.conn.getresponse()
        data = response.read()
        return response.status, response.getheader("X-Pregen"), data


def interactive(port, stop, latencies, errors):
    client = Client(port)
    seed = random.randrange(1 << 30)
    while time.monotonic() < stop:
        seed += 1
        start = time.perf_counter()
        status, _, _ = client.request("POST", "/v1/levels", {"algorithm": "classic", "seed": seed})
        latencies.append((time.perf_counter() - start) * 1000)
        if status != 200:
            errors.append(status)


def lobby_life(port, name, seconds, immediate, starts, errors):
    client = Client(port)
    rng = random.Random(name)
    joins = sorted(rng.uniform(0, seconds) for _ in range(4))
    begin = time.monotonic()
    for i, at in enumerate(joins):
        time.sleep(max(0, begin + at - time.monotonic()))
        status, _, _ = client.request("PUT", f"/v1/lobbies/{name}/players/p{i}",
                                      {"level": rng.randrange(1, 40)})
        if status not in (200, 201):
            errors.append(status)
    if not immediate:
        time.sleep(0.5)
    start = time.perf_counter()
    status, pregen, _ = client.request("POST", f"/v1/lobbies/{name}/start")
    elapsed = (time.perf_counter() - start) * 1000
    if status != 200:
        errors.append(status)
    else:
        starts.setdefault(pregen, []).append(elapsed)
    client.request("DELETE", f"/v1/lobbies/{name}")


def main():
    parser = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--lobbies", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    daemon = subprocess.Popen(
        [os.path.join(args.build, "src/server/dungeond"), "--config",
         os.path.join(root, "config/dungeond.json"), "--listen", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True)
    port = int(re.search(r'"port":(\d+)', daemon.stderr.readline()).group(1))
    log = []
    reader = threading.Thread(target=lambda: log.extend(daemon.stderr), daemon=True)
    reader.start()
    try:
        base, base_errors = [], []
        stop = time.monotonic() + args.seconds
        threads = [threading.Thread(target=interactive, args=(port, stop, base, base_errors))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(0.3)  # let the reader take the alone phase's last log lines
        alone_lines = len(log)

        loaded, errors, starts = [], [], {}
        stop = time.monotonic() + args.seconds + 0.6
        threads = [threading.Thread(target=interactive, args=(port, stop, loaded, errors))
                   for _ in range(4)]
        threads += [threading.Thread(target=lobby_life,
                                     args=(port, f"bench{i}", args.seconds, i % 4 == 0, starts,
                                           errors))
                    for i in range(args.lobbies)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/v1/stats")
        stats = json.loads(conn.getresponse().read())["lobbies"]
    finally:
        daemon.send_signal(signal.SIGTERM)
        code = daemon.wait(timeout=60)
        reader.join(timeout=10)
    # The daemon's own view of each start (its log line's total_ms): free of
    # this Python client's thread scheduling.
    # Interactive latency as the daemon saw it (POST /v1/levels log lines),
    # per phase: the fair comparison, since the loaded phase runs 200 more
    # Python client threads whose scheduling inflates the client's clock.
    daemon_interactive = ([], [])
    for index, line in enumerate(log):
        if '"path":"/v1/levels"' in line and '"method":"POST"' in line:
            daemon_interactive[0 if index < alone_lines else 1].append(
                json.loads(line)["total_ms"])
    server_side = {}
    for line in log:
        if '"pregen"' in line:
            entry = json.loads(line)
            server_side.setdefault(entry["pregen"], []).append(entry["total_ms"])
    total = sum(len(v) for v in starts.values())
    result = {
        "lobbies": args.lobbies, "seconds": args.seconds,
        "starts": {k: {"count": len(v), "p50_ms": round(percentile(v, 0.5), 3),
                       "p99_ms": round(percentile(v, 0.99), 3)} for k, v in starts.items()},
        "starts_server_side": {k: {"count": len(v), "p50_ms": round(percentile(v, 0.5), 3),
                                   "p99_ms": round(percentile(v, 0.99), 3)}
                               for k, v in server_side.items()},
        "hit_ratio": round(len(starts.get("hit", [])) / total, 3) if total else 0,
        "interactive_alone": {"requests": len(base), "p50_ms": round(percentile(base, 0.5), 3),
                              "p99_ms": round(percentile(base, 0.99), 3)},
        "interactive_with_lobbies": {"requests": len(loaded),
                                     "p50_ms": round(percentile(loaded, 0.5), 3),
                                     "p99_ms": round(percentile(loaded, 0.99), 3)},
        "daemon_interactive_alone": {"p50_ms": round(percentile(daemon_interactive[0], 0.5), 3),
                                     "p99_ms": round(percentile(daemon_interactive[0], 0.99), 3)},
        "daemon_interactive_with_lobbies": {
            "p50_ms": round(percentile(daemon_interactive[1], 0.5), 3),
            "p99_ms": round(percentile(daemon_interactive[1], 0.99), 3)},
        "errors": len(errors) + len(base_errors), "daemon_exit": code,
        "daemon_lobby_stats": stats,
    }
    ratio = result["interactive_with_lobbies"]["p99_ms"] / max(
        result["interactive_alone"]["p99_ms"], 1e-9)
    result["interactive_p99_ratio"] = round(ratio, 2)
    result["daemon_interactive_p99_ratio"] = round(
        result["daemon_interactive_with_lobbies"]["p99_ms"] /
        max(result["daemon_interactive_alone"]["p99_ms"], 1e-9), 2)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{'start outcome':<14} {'count':>6} {'client p50':>11} {'client p99':>11}"
              f" {'daemon p50':>11} {'daemon p99':>11}   (ms)")
        empty = {"count": 0, "p50_ms": float("nan"), "p99_ms": float("nan")}
        for k in ("hit", "wait", "miss"):
            v = result["starts"].get(k, empty)
            w = result["starts_server_side"].get(k, empty)
            print(f"{k:<14} {v['count']:>6} {v['p50_ms']:>11} {v['p99_ms']:>11}"
                  f" {w['p50_ms']:>11} {w['p99_ms']:>11}")
        print(f"hit ratio {result['hit_ratio']}")
        for k in ("interactive_alone", "interactive_with_lobbies"):
            v = result[k]
            print(f"{k:<26} {v['requests']:>7} requests  p50 {v['p50_ms']} ms  p99 {v['p99_ms']} ms")
        for k in ("daemon_interactive_alone", "daemon_interactive_with_lobbies"):
            v = result[k]
            print(f"{k:<33} daemon-side p50 {v['p50_ms']} ms  p99 {v['p99_ms']} ms")
        print(f"daemon-side interactive p99 with/without lobbies: "
              f"{result['daemon_interactive_p99_ratio']}x")
        print(f"interactive p99 with/without lobbies: {result['interactive_p99_ratio']}x; "
              f"errors {result['errors']}; daemon exit {code}")
    return 0 if code == 0 and result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
