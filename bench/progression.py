#!/usr/bin/env python3
"""What the progression pass costs (issue 19 item 8), with locks=2 one_way=1,
for classic at 80x21 and authored at 1,000 rooms (the `bench` room set).
Classic: `dungeon bench` times the same seeds again with locks=0 one_way=0,
interleaved every 16 levels, in thread CPU time; the cost is the median
over runs of the extra time per level. Authored levels at 1,000 rooms take
about a second each, too slow for 32-level chunks, so there the cost is the
pass's own time (the level's `progression` timing) over the rest of the
generation, medians over the levels of `--runs` runs. Prints a table, or
with --json one JSON object; the issue's bounds (10% and 5%) are shown
beside the measured cost, never enforced (benchmarks are not tests).

  python3 bench/progression.py [--dungeon build/src/cli/dungeon]
                               [--roomsets config/roomsets] [--runs 5]
                               [--seconds 1] [--json]
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [
    ("classic 80x21", ["--algorithm", "classic", "--param", "width=80", "--param", "height=21"],
     10.0, "interleaved"),
    ("authored 1000 rooms", ["--algorithm", "authored", "--param", "roomset=bench", "--param",
                             "rooms=1000"], 5.0, "phase"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dungeon", default=os.path.join(ROOT, "build", "src", "cli", "dungeon"))
    parser.add_argument("--roomsets", default=os.path.join(ROOT, "config", "roomsets"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not os.access(args.dungeon, os.X_OK):
        sys.exit(f"progression.py: {args.dungeon} is not an executable; build first")
    rows = []
    for name, flags, bound, method in CASES:
        cmd = [args.dungeon, "bench", *flags, "--roomsets", args.roomsets, "--param", "locks=2",
               "--param", "one_way=1", "--runs", str(args.runs), "--json"]
        if method == "interleaved":
            cmd += ["--seconds", str(args.seconds)]
        else:
            cmd += ["--seconds", "0.05", "--no-compare"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"progression.py: {' '.join(cmd)} failed: {done.stderr.strip()}")
        out = json.loads(done.stdout)
        if method == "interleaved":
            compare = out["progression_compare"]
            with_us = 1e6 / compare["levels_per_cpu_second_with_progression_median"]
            without_us = 1e6 / compare["levels_per_cpu_second_without_progression_median"]
            cost = compare["progression_cost_percent_median"]
        else:
            pass_us = out["phases"]["progression"]["median_ms"] * 1e3
            with_us = out["generation_us_median"]
            without_us = with_us - pass_us
            cost = 100.0 * pass_us / without_us
        rows.append({"case": name, "method": method, "bound_percent": bound,
                     "us_per_level_with": with_us, "us_per_level_without": without_us,
                     "cost_percent_median": cost, "levels": out["levels"]})
    if args.json:
        print(json.dumps({"runs": args.runs, "seconds_per_run": args.seconds, "cases": rows}))
        return 0
    print(f"{'case':<22} {'method':<12} {'us/level with':>14} {'without':>12} "
          f"{'cost (median)':>14} {'issue bound':>12} {'levels':>8}")
    for r in rows:
        print(f"{r['case']:<22} {r['method']:<12} {r['us_per_level_with']:>14.1f} "
              f"{r['us_per_level_without']:>12.1f} {r['cost_percent_median']:>13.1f}% "
              f"{r['bound_percent']:>11.0f}% {r['levels']:>8}")
    print(f"\ninterleaved: locks=2 one_way=1 against locks=0 one_way=0 on the same seeds, "
          f"thread CPU time, median of {args.runs} runs of {args.seconds} s; phase: the pass's "
          f"own wall-clock time over the rest of the generation, median over the levels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
