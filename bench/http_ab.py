#!/usr/bin/env python3
"""Two dungeond builds under the same HTTP load, interleaved in one run.

  bench/http_ab.py --a BUILD_DIR --b BUILD_DIR [--rounds R] [--seconds S]
                   [--connections C] [--json]

For a change that must not cost speed (a refactor): starts the dungeond of
each build (default config, 2 workers, request log to a file) on a free
loopback port, then R rounds (default 6) of wrk for S seconds (default 4)
with C connections (default 64) on POST /v1/levels {"algorithm":"classic",
"seed":N}, A then B in odd rounds, B then A in even ones, the idle daemon
waiting. A shared machine's speed drifts between runs; interleaving within
one run and comparing each round's B/A ratio keeps the comparison fair.
Prints requests/s and p50/p99 latency per build (median over rounds) and
the median per-round ratio B/A; --json prints one JSON object instead.
Needs wrk. Loopback only, bounded in time.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The request mix of bench/http-bench.sh, from the same file.
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "post-classic.lua")


def start(build, root, log):
    binary = os.path.join(build, "src", "server", "dungeond")
    proc = subprocess.Popen([binary, "--config", os.path.join(root, "config", "dungeond.json"),
                             "--listen", "127.0.0.1:0"], cwd=root,
                            stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    for _ in range(200):
        with open(log) as f:
            m = re.search(r'"port":(\d+)', f.read())
        if m:
            return proc, int(m.group(1))
        time.sleep(0.05)
    proc.kill()
    sys.exit(f"http_ab: {binary} did not start; see {log}")


def wrk(port, seconds, connections, script):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                          "-s", script, f"http://127.0.0.1:{port}/v1/levels"],
                         capture_output=True, text=True, check=True).stdout

    def ms(label):
        m = re.search(r"^\s*%s%%\s+([\d.]+)(us|ms|s)\s*$" % label, out, re.M)
        return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)] if m else None
    errors = 0
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    if m:
        errors += int(m.group(1))
    return {"requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50_ms": ms("50"), "p99_ms": ms("99"), "errors": errors}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", required=True, help="build directory of the reference")
    parser.add_argument("--b", required=True, help="build directory of the change")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("http_ab: wrk is required (apt-get install wrk)")
    if args.rounds < 1 or args.seconds < 1 or args.connections < 1:
        sys.exit("http_ab: --rounds, --seconds and --connections must be at least 1")
    for name in ("a", "b"):
        build = os.path.abspath(getattr(args, name))
        if not os.access(os.path.join(build, "src", "server", "dungeond"), os.X_OK):
            sys.exit(f"http_ab: no dungeond in {build} (build it first)")
    work = tempfile.mkdtemp(prefix="http-ab-")
    procs = {}
    try:
        for name in ("a", "b"):
            procs[name] = start(os.path.abspath(getattr(args, name)), root,
                                os.path.join(work, f"{name}.log"))
        runs = {"a": [], "b": []}
        for r in range(args.rounds):
            for name in (("a", "b") if r % 2 == 0 else ("b", "a")):
                runs[name].append(wrk(procs[name][1], args.seconds, args.connections, SCRIPT))
        for name, (proc, _) in procs.items():
            proc.terminate()
            if proc.wait(timeout=60) != 0:
                sys.exit(f"http_ab: dungeond {name} exited {proc.returncode}")
        procs = {}
        shutil.rmtree(work, ignore_errors=True)  # logs are kept only when a daemon failed
    finally:
        for proc, _ in procs.values():
            proc.kill()
    summary = {}
    for name in ("a", "b"):
        rs = runs[name]
        summary[name] = {"build": getattr(args, name),
                         "requests_per_s": statistics.median(x["requests_per_s"] for x in rs),
                         "p50_ms": statistics.median(x["p50_ms"] for x in rs),
                         "p99_ms": statistics.median(x["p99_ms"] for x in rs),
                         "errors": sum(x["errors"] for x in rs)}
    ratios = [b["requests_per_s"] / a["requests_per_s"] for a, b in zip(runs["a"], runs["b"])]
    result = {"rounds": args.rounds, "seconds": args.seconds, "connections": args.connections,
              "a": summary["a"], "b": summary["b"],
              "ratio_b_over_a_median": round(statistics.median(ratios), 3),
              "ratios": [round(x, 3) for x in ratios]}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{'build':<6} {'requests/s':>11} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}  directory")
    for name in ("a", "b"):
        s = summary[name]
        print(f"{name:<6} {s['requests_per_s']:>11.0f} {s['p50_ms']:>8.2f} {s['p99_ms']:>8.2f} "
              f"{s['errors']:>7}  {s['build']}")
    print(f"B/A requests/s, median of {args.rounds} interleaved rounds: "
          f"{result['ratio_b_over_a_median']:.3f} (rounds: {', '.join(f'{x:.2f}' for x in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
