#!/usr/bin/env python3
"""Regression guard: two builds through one fixed suite, interleaved, B/A per row.

  bench/compare.py --a OLD_BUILD --b NEW_BUILD [--rounds R] [--seconds S]
                   [--bench-seconds T] [--connections C] [--lobbies L]
                   [--only ROW,...] [--strict] [--json]

Run before merging a change that must not cost speed: build the old commit
and the new one into two build directories and point --a and --b at them.
The suite, each row a rate (higher is better):

  classic 80x21      dungeon bench --algorithm classic (levels/s of CPU time)
  landmark 200x200   dungeon bench --algorithm landmark, width=height=200
  nonlinear          dungeon bench --algorithm nonlinear
  authored           dungeon bench --algorithm authored (default room set)
  http post classic  wrk -t2 -cC for S s on POST /v1/levels classic (requests/s)
  lobby start hit    L ready lobbies started one after another (starts/s
                     of the median start, client side)
  daemon start-up    dungeond from exec to its listening line with the
                     default config, the shipped room sets loaded (starts/s:
                     1 / the median of 3 starts); below the table also
                     the median CPU seconds of a start, every thread's,
                     read from /proc at the listening line (10 ms steps)

Both builds' daemons (default config) run on free loopback ports for the
whole run. Each of R rounds (default 5) measures every row once for A and
once for B, A first in even rounds and B first in odd ones, so that noise
on a shared machine hits both sides. Each `dungeon bench` is 5 timed
runs of T seconds (default 0.2); its rate is taken in thread CPU time
(what it reports as placement_compare), which the time spent waiting for
a core does not move; a build too old to report that is timed by the
wall clock (the row's unit and "clock" say which). Per row: the median
of each side over the rounds, and the median of the per-round ratios B/A
with their min-max and interquartile range. A row whose median ratio is
below 0.95 is flagged; with --strict a flagged row makes the exit status
3. --json prints one JSON object instead of the table. Defaults take
about three minutes on two cores. A missing build, a missing wrk or a count below 1 is a message and
exit status 1.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

PROG = "compare"
THRESHOLD = 0.95

# The fixed suite: (row name, unit, kind, algorithm, params).
SUITE = [
    ("classic 80x21", "levels/s", "cli", "classic", {}),
    ("landmark 200x200", "levels/s", "cli", "landmark", {"width": 200, "height": 200}),
    ("nonlinear", "levels/s", "cli", "nonlinear", {}),
    ("authored", "levels/s", "cli", "authored", {}),
    ("http post classic", "requests/s", "http", None, None),
    ("lobby start hit", "starts/s", "lobby", None, None),
    ("daemon start-up", "starts/s", "startup", None, None),
]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", required=True, help="build directory of the reference")
    parser.add_argument("--b", required=True, help="build directory of the change")
    benchlib.add_load_options(parser, 5, "interleaved rounds")
    parser.add_argument("--lobbies", type=int, default=100,
                        help="lobbies started per round and build (default 100)")
    parser.add_argument("--only", help="comma-separated row names to run (default all)")
    parser.add_argument("--strict", action="store_true", help="exit 3 when a row is flagged")
    args = parser.parse_args()
    benchlib.check_load_options(PROG, args, lobbies=args.lobbies)
    names = [row[0] for row in SUITE]
    args.rows = SUITE
    if args.only is not None:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        unknown = [w for w in wanted if w not in names]
        if unknown or not wanted:
            benchlib.fail(PROG, f"--only takes row names from: {', '.join(names)} "
                                f"(got {args.only!r})")
        args.rows = [row for row in SUITE if row[0] in wanted]
    return args


def measure(row, build, daemon, args, round_index, side):
    """One measurement of `row` for one build: (rate, details)."""
    name, _, kind, algorithm, params = row
    if kind == "cli":
        out = benchlib.cli_bench(build, algorithm, params, args.bench_seconds, compare=True)
        cpu = out.get("placement_compare", {}).get("levels_per_cpu_second_with_placement_median")
        return out["levels_per_second_median"], {"cpu_rate": cpu}
    if kind == "http":
        out = benchlib.wrk(daemon.port, "/v1/levels", args.seconds, args.connections,
                           benchlib.POST_CLASSIC_LUA)
        return out["requests_per_s"], {"p99_ms": out["p99_ms"], "errors": out["errors"]}
    if kind == "startup":
        starts = [benchlib.startup_times(PROG, build) for _ in range(3)]
        seconds = statistics.median(t["seconds"] for t in starts)
        return 1 / seconds, {"seconds": seconds,
                             "cpu_seconds": statistics.median(t["cpu_seconds"] for t in starts)}
    # The same lobby ids on both sides: a lobby's seed is a hash of its id,
    # so both builds start the same levels.
    out = benchlib.lobby_start_hits(daemon.port, args.lobbies, f"cmp{round_index}")
    return out["starts_per_s"], {"p50_ms": out["p50_ms"], "misses": out["misses"]}


def run_suite(args, builds, daemons):
    """Every row, every round, both sides interleaved; per-row lists of rates and details."""
    rates = {row[0]: {"a": [], "b": []} for row in args.rows}
    details = {row[0]: {"a": [], "b": []} for row in args.rows}
    progress = benchlib.Progress("compare.py")
    for r in range(args.rounds):
        # Each row's A and B run back to back, so the pair shares the
        # machine's state of the moment; the order flips every round.
        for number, row in enumerate(args.rows, 1):
            progress.step("row", number, len(args.rows), f"{row[0]}, round {r + 1} of {args.rounds}")
            for side in benchlib.order(r, ["a", "b"]):
                rate, extra = measure(row, builds[side], daemons.get(side), args, r, side)
                rates[row[0]][side].append(rate)
                details[row[0]][side].append(extra)
    progress.end()
    return rates, details


def summarise(args, rates, details):
    rows = []
    for name, unit, kind, _, _ in args.rows:
        a, b = rates[name]["a"], rates[name]["b"]
        clock = "wall"
        if kind == "cli":
            cpu = {side: [d["cpu_rate"] for d in details[name][side]] for side in ("a", "b")}
            if all(x is not None for side in cpu.values() for x in side):
                a, b, clock = cpu["a"], cpu["b"], "thread_cpu"
        ratios = [y / x for x, y in zip(a, b)]
        s = benchlib.spread(ratios)
        if clock == "thread_cpu":
            unit = "levels/cpu-s"
        row = {"name": name, "unit": unit, "clock": clock,
               "a_median": benchlib.significant(benchlib.spread(a)["median"]),
               "b_median": benchlib.significant(benchlib.spread(b)["median"]),
               "ratio_median": round(s["median"], 3), "ratio_min": round(s["min"], 3),
               "ratio_max": round(s["max"], 3), "ratio_q1": round(s["q1"], 3),
               "ratio_q3": round(s["q3"], 3), "ratios": [round(x, 3) for x in ratios],
               # Judged on the ratio as printed, so a reader of the
               # table or the JSON sees why a row is (or is not) flagged.
               "flagged": round(s["median"], 3) < THRESHOLD}
        if kind == "http":
            for side in ("a", "b"):
                row[f"{side}_p99_ms_median"] = benchlib.spread(
                    [d["p99_ms"] for d in details[name][side]])["median"]
                row[f"{side}_errors"] = sum(d["errors"] for d in details[name][side])
        if kind == "lobby":
            for side in ("a", "b"):
                row[f"{side}_misses"] = sum(d["misses"] for d in details[name][side])
        if kind == "startup":
            for side in ("a", "b"):
                row[f"{side}_seconds_median"] = round(benchlib.spread(
                    [d["seconds"] for d in details[name][side]])["median"], 4)
                row[f"{side}_cpu_seconds_median"] = round(benchlib.spread(
                    [d["cpu_seconds"] for d in details[name][side]])["median"], 4)
            # CPU seconds summed over the daemon's threads: what a start
            # costs the machine, which the wall time hides on a second core.
            cpu_ratios = [a["cpu_seconds"] / b["cpu_seconds"] if b["cpu_seconds"] else None
                          for a, b in zip(details[name]["a"], details[name]["b"])]
            if all(x is not None for x in cpu_ratios):
                row["cpu_ratio_median"] = round(benchlib.spread(cpu_ratios)["median"], 3)
        rows.append(row)
    return rows


def print_table(result):
    lines = benchlib.table(
        ["row", "unit", "A median", "B median", "B/A", "min-max", "IQR", ""],
        [[r["name"], r["unit"], benchlib.rate_text(r["a_median"]), benchlib.rate_text(r["b_median"]),
          f"{r['ratio_median']:.3f}", f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}",
          f"{r['ratio_q1']:.2f}-{r['ratio_q3']:.2f}", "SLOWER" if r["flagged"] else ""]
         for r in result["rows"]])
    for line in lines:
        print(line)
    print(f"A = {result['a']}\nB = {result['b']}\n"
          f"B/A: median of {result['rounds']} interleaved rounds' ratios; "
          f"SLOWER marks a median below {THRESHOLD}")
    for r in result["rows"]:
        if "a_seconds_median" in r:
            cpu_ratio = (f", A/B {r['cpu_ratio_median']:.2f}x" if "cpu_ratio_median" in r else "")
            print(f"{r['name']}: wall A {r['a_seconds_median']:.3f} s, B "
                  f"{r['b_seconds_median']:.3f} s; CPU (all threads, at the listening line) "
                  f"A {r['a_cpu_seconds_median']:.2f} s, B {r['b_cpu_seconds_median']:.2f} s"
                  f"{cpu_ratio} (medians)")
        for side in ("a", "b"):
            if r.get(f"{side}_errors") or r.get(f"{side}_misses"):
                print(f"warning: {r['name']}: build {side.upper()} had "
                      f"{r.get(f'{side}_errors', 0)} failed requests, "
                      f"{r.get(f'{side}_misses', 0)} starts that were not hits")


def main():
    args = parse_args()
    builds = {side: benchlib.require_build(PROG, getattr(args, side)) for side in ("a", "b")}
    needs_daemon = any(row[2] in ("http", "lobby") for row in args.rows)
    if any(row[2] == "http" for row in args.rows):
        benchlib.require_tools(PROG, "wrk")
    work = benchlib.scratch("bench-compare-")
    daemons = {}
    try:
        if needs_daemon:
            for side in ("a", "b"):
                # One key for both, so a lobby id gives both the same seed.
                daemons[side] = benchlib.Daemon(PROG, builds[side],
                                                os.path.join(work, f"{side}.log"),
                                                benchlib.shared_secret_config(work, builds[side]))
        try:
            rates, details = run_suite(args, builds, daemons)
        except (RuntimeError, ValueError, subprocess.CalledProcessError, OSError) as e:
            benchlib.fail(PROG, f"a measurement failed ({e}); daemon logs in {work}")
        while daemons:
            daemons.popitem()[1].stop()
        shutil.rmtree(work, ignore_errors=True)  # logs are kept only when a daemon failed
    finally:
        for daemon in daemons.values():
            daemon.kill()
    result = {"a": builds["a"], "b": builds["b"], "rounds": args.rounds,
              "seconds": args.seconds, "bench_seconds": args.bench_seconds,
              "connections": args.connections, "lobbies": args.lobbies,
              "threshold": THRESHOLD, "rows": summarise(args, rates, details)}
    result["flagged"] = [r["name"] for r in result["rows"] if r["flagged"]]
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 3 if args.strict and result["flagged"] else 0


if __name__ == "__main__":
    sys.exit(main())
