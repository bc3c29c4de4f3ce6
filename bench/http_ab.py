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
Needs wrk. Loopback only, bounded in time. bench/compare.py runs this load
as one row of a wider suite (generators, lobby starts).
"""
import argparse
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

PROG = "http_ab"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", required=True, help="build directory of the reference")
    parser.add_argument("--b", required=True, help="build directory of the change")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    benchlib.require_tools(PROG, "wrk")
    benchlib.require_at_least(PROG, 1, rounds=args.rounds, seconds=args.seconds,
                              connections=args.connections)
    builds = {name: benchlib.require_build(PROG, getattr(args, name), ("dungeond",))
              for name in ("a", "b")}
    work = benchlib.scratch("http-ab-")
    daemons = {}
    try:
        for name in ("a", "b"):
            daemons[name] = benchlib.Daemon(PROG, builds[name], os.path.join(work, f"{name}.log"))
        runs = {"a": [], "b": []}
        progress = benchlib.Progress("http_ab.py")
        for step, (_, name) in enumerate(benchlib.interleaved(args.rounds, ["a", "b"]), 1):
            progress.step("wrk run", step, 2 * args.rounds, f"build {name.upper()}")
            runs[name].append(benchlib.wrk(daemons[name].port, "/v1/levels", args.seconds,
                                           args.connections, benchlib.POST_CLASSIC_LUA))
        while daemons:
            daemons.popitem()[1].stop()
        shutil.rmtree(work, ignore_errors=True)  # logs are kept only when a daemon failed
    finally:
        for daemon in daemons.values():
            daemon.kill()
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
    rows = [[name, f"{s['requests_per_s']:.0f}", f"{s['p50_ms']:.2f}", f"{s['p99_ms']:.2f}",
             s["errors"], s["build"]] for name, s in summary.items()]
    for line in benchlib.table(["build", "requests/s", "p50 ms", "p99 ms", "errors", "directory"],
                               rows):
        print(line)
    print(f"B/A requests/s, median of {args.rounds} interleaved rounds: "
          f"{result['ratio_b_over_a_median']:.3f} (rounds: {', '.join(f'{x:.2f}' for x in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
