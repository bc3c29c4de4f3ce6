#!/usr/bin/env python3
"""Benchmarks of the `landmark` generator and its building blocks, side by
side with the libraries a game developer would otherwise use, in one run:

  Delaunay of 10,000 random points  vs  npm delaunator (node)
  A* 500x500, 20% obstacles         vs  libtcod TCOD_path_compute
  fBm noise, 4 octaves, 200x200     vs  libtcod Perlin fBm
  whole landmark levels at 200x200  (dungeon bench, one core)

Installs the npm peer into bench/peers (pinned by its package-lock.json), builds
libdungeon in release mode into build-release/ if needed, compiles
bench/landmark/blocks.c against it and libtcod, runs everything and prints
a table, or with --json one JSON object. Usage:

  python3 bench/landmark/run.py [--json] [--seconds S]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build-release")
PEERS = os.path.join(ROOT, "bench", "peers")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def ensure_peers():
    if not os.path.isdir(os.path.join(PEERS, "node_modules", "delaunator")):
        log("installing npm peers into bench/peers ...")
        # npm ci: the versions of the committed package-lock.json, nothing newer.
        run(["npm", "ci", "--no-audit", "--no-fund", "--prefix", PEERS],
            stdout=subprocess.DEVNULL)


def ensure_build():
    if not os.path.isdir(BUILD):
        log("configuring build-release ...")
        run(["meson", "setup", BUILD, "--buildtype=release", "-Dtests=false"], cwd=ROOT,
            stdout=subprocess.DEVNULL)
    run(["ninja", "-C", BUILD], stdout=subprocess.DEVNULL)


def build_blocks(out):
    tcod = subprocess.run(["pkg-config", "--cflags", "--libs", "libtcod"], check=True,
                          text=True, capture_output=True).stdout.split()
    # src/lib is the library's internal include directory: the building
    # blocks timed here (A*, Delaunay, noise) are internal headers there.
    run(["cc", "-O2", "-std=c17", "-D_GNU_SOURCE", "-I", os.path.join(ROOT, "include"),
         "-I", os.path.join(ROOT, "src", "lib"),
         os.path.join(ROOT, "bench", "landmark", "blocks.c"),
         os.path.join(BUILD, "src", "lib", "libdungeon.a"), "-o", out] + tcod +
        ["-ljansson", "-lm"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON object, no table")
    parser.add_argument("--seconds", default="1", help="length of each dungeon bench run")
    parser.add_argument("--repeat", type=int, default=3,
                        help="alternating runs of the block programs (median kept)")
    args = parser.parse_args()
    ensure_peers()
    ensure_build()
    with tempfile.TemporaryDirectory() as tmp:
        blocks = os.path.join(tmp, "blocks")
        points = os.path.join(tmp, "points.txt")
        build_blocks(blocks)
        # Alternate our program and node a few times and keep the median of
        # each figure: the machine is shared, and a burst of other work
        # should not land on one side only.
        ours_runs, node_runs = [], []
        for _ in range(args.repeat):
            ours_runs.append(json.loads(run([blocks, "--points", points],
                                            capture_output=True).stdout))
            node_runs.append(json.loads(run(["node", os.path.join(ROOT, "bench", "landmark",
                                                                  "delaunator.mjs"), points],
                                            capture_output=True).stdout))
        ours = {k: (statistics.median(r[k] for r in ours_runs)
                    if isinstance(ours_runs[0][k], float) else ours_runs[0][k])
                for k in ours_runs[0]}
        node = dict(node_runs[0])
        node["delaunator_ms"] = statistics.median(r["delaunator_ms"] for r in node_runs)
    levels = json.loads(run([os.path.join(BUILD, "src", "cli", "dungeon"), "bench",
                             "--algorithm", "landmark", "--param", "width=200", "--param",
                             "height=200", "--seconds", args.seconds, "--json"],
                            capture_output=True).stdout)
    rows = [
        ("delaunay 10k points (ms)", ours["delaunay_ms"], node["delaunator_ms"],
         "delaunator " + node["delaunator_version"], 2.0),
        ("A* 500x500 20% walls (ms)", ours["astar_ms"], ours["tcod_path_ms"],
         "libtcod TCOD_path_compute", 2.0),
        ("fBm 4 octaves 200x200 (ms)", ours["noise_ms"], ours["tcod_noise_ms"],
         "libtcod Perlin fBm", 4.0),
    ]
    result = {"blocks": [], "levels": levels, "repeat": args.repeat}
    for name, mine, theirs, peer, target in rows:
        result["blocks"].append({"name": name, "dungeon_ms": mine, "peer": peer,
                                 "peer_ms": theirs, "speedup": theirs / mine,
                                 "target_speedup": target,
                                 "met": theirs / mine >= target})
    result["levels"]["target_levels_per_second"] = 100
    result["levels"]["met"] = levels["levels_per_second_median"] >= 100
    result["checks"] = {
        "delaunay_triangles": [ours["delaunay_triangles"], node["delaunator_triangles"]],
        "astar_steps": [ours["astar_steps"], ours["tcod_path_steps"]],
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'benchmark':30} {'dungeon':>10} {'peer':>10} {'speedup':>8} {'target':>7}  peer")
    for b in result["blocks"]:
        print(f"{b['name']:30} {b['dungeon_ms']:10.3f} {b['peer_ms']:10.3f} "
              f"{b['speedup']:7.1f}x {b['target_speedup']:6.1f}x  {b['peer']}"
              f"{'' if b['met'] else '  (target missed)'}")
    lv = result["levels"]
    print(f"{'landmark 200x200 (levels/s)':30} {lv['levels_per_second_median']:10.0f} "
          f"{'':>10} {'':>8} {100:>7}  median of {lv['runs']} runs, one core"
          f"{'' if lv['met'] else '  (target missed)'}")
    print(f"same answers: triangles {result['checks']['delaunay_triangles']}, "
          f"A* steps {result['checks']['astar_steps']}")


if __name__ == "__main__":
    main()
