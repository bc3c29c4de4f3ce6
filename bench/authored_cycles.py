#!/usr/bin/env python3
"""The cycle benchmark of issue 6: seed 003's tables, on the `bench` room set,
fixed seed. Runs the `dungeon` CLI (wall-clock figures are the median of
--runs runs; the level itself is identical every run) and prints seven tables,
or with --json one JSON object. Table 7 is the cycle count across seeds (issue
14: the target is a mean of at least 216 over seeds 1-8 at 1,000 rooms);
--distribution-only prints just that table.

  python3 bench/authored_cycles.py [--dungeon build/src/cli/dungeon]
                                   [--roomsets config/roomsets] [--seed 1] [--runs 3]
                                   [--seeds 1-8] [--distribution-only] [--json]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

PROGRESS = benchlib.Progress("authored_cycles.py")

TIMING = re.compile(r"generated in ([0-9.]+) ms.*?\((.*)\)")


def generate(args, seed=None, **params):
    """Generates once per run; returns (level JSON, median timings in ms)."""
    seed = args.seed if seed is None else seed
    cmd = [args.dungeon, "generate", "--algorithm", "authored", "--seed", str(seed),
           "--roomsets", args.roomsets, "--param", "roomset=bench", "--param", "grid=false"]
    for k, v in params.items():
        cmd += ["--param", "%s=%s" % (k, v)]
    level, samples = None, {}
    what = " ".join([f"seed {seed}"] + [f"{k}={v}" for k, v in params.items()])
    for run in range(args.runs):
        PROGRESS.step(what, run + 1, args.runs, "generating")
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        text = json.loads(done.stdout)
        if level is not None and text != level:
            sys.exit("not deterministic: %s" % " ".join(cmd))
        level = text
        m = TIMING.search(done.stderr)
        samples.setdefault("total", []).append(float(m.group(1)))
        for part in m.group(2).split(", "):
            name, value, _ = part.split(" ")
            samples.setdefault(name, []).append(float(value))
    return level, {k: statistics.median(v) for k, v in samples.items()}


def summary(level, timings):
    s = level["stats"]
    cycles = s["cycles_built"]
    return {
        "cycles": cycles,
        "attempts": s["cycle_attempts"],
        "conversion_percent": round(100.0 * cycles / s["cycle_attempts"], 1)
        if s["cycle_attempts"] else 0.0,
        "rooms_added": s["cycle_rooms_added"],
        "cost_per_cycle_ms": round(timings.get("cycles", 0) / cycles, 3) if cycles else None,
        "cycle_pass_ms": round(timings.get("cycles", 0), 1),
        "total_generation_ms": round(timings["total"], 1),
        "distances": [c["graph_distance"] for c in level["cycles"]["built"]],
    }


def distribution(args):
    """Table 7: every seed of --seeds at 1,000 rooms with the defaults."""
    first, _, last = args.seeds.partition("-")
    seeds = list(range(int(first), int(last or first) + 1))
    rows = []
    for seed in seeds:
        level, timings = generate(args, seed=seed, rooms=1000)
        rows.append(dict(summary(level, timings), seed=seed))
    counts = [r["cycles"] for r in rows]
    return {"seeds": rows,
            "cycles_mean": round(statistics.mean(counts), 1),
            "cycles_min": min(counts), "cycles_max": max(counts),
            "cycle_pass_ms_mean": round(statistics.mean(r["cycle_pass_ms"] for r in rows), 1),
            "total_generation_ms_mean":
                round(statistics.mean(r["total_generation_ms"] for r in rows), 1),
            # Issue 22, goal 3: the median over the seeds, at most 400 ms.
            "total_generation_ms_median":
                round(statistics.median(r["total_generation_ms"] for r in rows), 1)}


def print_distribution(args, dist):
    table("7. Seeds %s, 1,000 rooms, defaults: cycles per seed" % args.seeds,
          ["seed", "cycles", "attempts", "conversion", "rooms added", "cycles ms", "total ms"],
          [[r["seed"], r["cycles"], r["attempts"], "%.1f%%" % r["conversion_percent"],
            r["rooms_added"], r["cycle_pass_ms"], r["total_generation_ms"]]
           for r in dist["seeds"]])
    print("  cycles: mean %.1f, min %d, max %d; mean ms in cycles %.1f, mean total ms %.1f, "
          "median total ms %.1f"
          % (dist["cycles_mean"], dist["cycles_min"], dist["cycles_max"],
             dist["cycle_pass_ms_mean"], dist["total_generation_ms_mean"],
             dist["total_generation_ms_median"]))


def table(title, header, rows):
    print("\n" + title)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in [header] + rows:
        print("  " + "  ".join(str(x).ljust(w) for x, w in zip(row, widths)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dungeon", default="build/src/cli/dungeon")
    p.add_argument("--roomsets", default="config/roomsets")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seeds", default="1-8", help="seed range of table 7, e.g. 1-8")
    p.add_argument("--distribution-only", action="store_true",
                   help="only table 7 (the cycle count across seeds)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    out = {"seed": args.seed, "runs": args.runs}
    if args.distribution_only:
        out["distribution"] = distribution(args)
        if args.json:
            print(json.dumps(out))
        else:
            print_distribution(args, out["distribution"])
        return

    # 1. 1,000 rooms: corridors vs chains.
    chains_level, chains_t = generate(args, rooms=1000, cycles="chains")
    corr_level, corr_t = generate(args, rooms=1000, cycles="corridors")
    out["rooms_1000"] = {"corridors": summary(corr_level, corr_t),
                         "chains": summary(chains_level, chains_t)}
    # 2. 250 rooms: chains without and with shims.
    out["rooms_250"] = {}
    for shims in ("false", "true"):
        lv, t = generate(args, rooms=250, shims=shims)
        out["rooms_250"]["shims_" + shims] = summary(lv, t)
    # 3. Failed-connection cost (chains, 1,000 rooms).
    out["failed_cost_ms"] = {k: round(chains_t.get(k, 0.0), 3)
                             for k in ("fail_p50", "fail_p75", "fail_p90", "fail_p99")}
    # 4. The pattern database.
    # Built at load: its build time is the median over --runs loads.
    builds = []
    for _ in range(args.runs):
        check = json.loads(subprocess.run([args.dungeon, "check", "--json",
                                           args.roomsets + "/bench.json"],
                                          capture_output=True, text=True, check=True).stdout)[0]
        builds.append(check["table_build_ms"])
    out["table"] = {"states": check["table_states"], "bytes": check["table_bytes"],
                    "bytes_per_state": round(check["table_bytes"] / check["table_states"], 2),
                    "build_ms": round(statistics.median(builds), 1)}
    # 5. Grouping on vs off.
    off_level, off_t = generate(args, rooms=1000, grouping="false")
    out["grouping"] = {
        "on": dict(summary(chains_level, chains_t), moves=check["move_groups"]),
        "off": dict(summary(off_level, off_t), moves=check["moves"])}
    # 6. The stall-cutoff curve, measured with the cutoff out of the way.
    free_level, free_t = generate(args, rooms=1000, stall_cutoff=4096)
    ns_per_expansion = free_t["cycles"] * 1e6 / max(1, free_level["stats"]["cycle_expansions"])
    out["cutoff_curve"] = [
        dict(point, saved_ms=round(point["saved_expansions"] * ns_per_expansion / 1e6, 1))
        for point in free_level["cycles"]["cutoff_curve"]]
    out["cutoff_reference"] = summary(free_level, free_t)
    # 7. The cycle count across seeds.
    out["distribution"] = distribution(args)

    if args.json:
        print(json.dumps(out))
        return
    r = out["rooms_1000"]
    table("1. 1,000 rooms, seed %d: corridors vs chains" % args.seed,
          ["", "cycles", "attempts", "conversion", "rooms added", "ms/cycle", "total ms"],
          [[k, v["cycles"], v["attempts"], "%.1f%%" % v["conversion_percent"], v["rooms_added"],
            v["cost_per_cycle_ms"], v["total_generation_ms"]] for k, v in r.items()])
    d = sorted(r["chains"]["distances"])
    if d:
        print("  chain cycles' graph distance when built: min %d, median %d, p90 %d, max %d"
              % (d[0], d[len(d) // 2], d[int(len(d) * 0.9)], d[-1]))
    table("2. 250 rooms: chains without and with shims",
          ["", "cycles", "conversion", "ms/cycle"],
          [[k, v["cycles"], "%.1f%%" % v["conversion_percent"], v["cost_per_cycle_ms"]]
           for k, v in out["rooms_250"].items()])
    table("3. Failed-connection cost (chains, 1,000 rooms)", ["percentile", "ms"],
          [[k[5:], v] for k, v in out["failed_cost_ms"].items()])
    t = out["table"]
    table("4. Pattern database (bench set)", ["states", "bytes", "bytes/state", "build ms"],
          [[t["states"], t["bytes"], t["bytes_per_state"], t["build_ms"]]])
    g = out["grouping"]
    table("5. Grouping on vs off (1,000 rooms)", ["", "moves", "cycles", "ms/cycle"],
          [[k, v["moves"], v["cycles"], v["cost_per_cycle_ms"]] for k, v in g.items()])
    table("6. Stall cutoff (measured with stall_cutoff=4096: %d cycles, %.1f ms in cycles)"
          % (out["cutoff_reference"]["cycles"], out["cutoff_reference"]["cycle_pass_ms"]),
          ["cutoff", "cycles lost", "failed-search ms saved"],
          [[c["cutoff"], c["lost_cycles"], c["saved_ms"]] for c in out["cutoff_curve"]])
    print_distribution(args, out["distribution"])


if __name__ == "__main__":
    main()
