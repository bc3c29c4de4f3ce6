#!/usr/bin/env python3
"""bench/floors.sh keeps working and keeps measuring what it says (issue 22):
its patches still apply to this checkout, the floor build it makes digs the
same grid as this build with nothing after the generator's steps, its
daemon answers every level request with the stored level, and its table
and --json object have every row, each ratio the quotient of the figures
beside it. Timings are never compared with anything. Also a --floor-build
that holds something else: a message and exit 1.

Usage: bench_floors.py SOURCE_ROOT BUILD_DIR
Prints TAP. Python 3 standard library only; needs git, meson, ninja and what
bench/floors.sh installs (deploy/install-deps.sh).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
# The suite's TAP runner (tests/http's harness, standard library only).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "http"))
from dungeond_http import run_plan  # noqa: E402

ROOT, BUILD = (os.path.abspath(p) for p in sys.argv[1:3])
FLOORS = os.path.join(ROOT, "bench", "floors.sh")
TINY = ["--rounds", "1", "--seconds", "1", "--bench-seconds", "0.05"]
WORK = tempfile.mkdtemp(prefix="bench-floors-test-")
FLOOR_DIR = os.path.join(WORK, "floor")  # made by the first test, reused by the others
FLOOR_BUILD = os.path.join(FLOOR_DIR, "src", "build")
GENERATION_PEERS = ["libtcod BSP 80x25, depth 3"] * 2 + ["libtcod BSP 200x200, depth 6"] * 2
HTTP_OURS = ["empty worker", "whole level", "GET /livez"]


def run(cmd, timeout=600):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def ok(out):
    if out.returncode != 0:
        raise AssertionError(f"{out.args} exited {out.returncode}: {out.stderr[-3000:]}")
    return out.stdout


def positive(value, what):
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0):
        raise AssertionError(f"{what} is {value!r}, expected a positive number")


def floors_json():
    out = ok(run([FLOORS, "--build", BUILD, "--floor-build", FLOOR_DIR, "--json"] + TINY))
    lines = out.strip().splitlines()
    assert len(lines) == 1, f"--json printed {len(lines)} lines on stdout"
    result = json.loads(lines[0])
    assert result["floor_build"] == FLOOR_BUILD, result["floor_build"]
    assert [r["peer"] for r in result["generation"]] == GENERATION_PEERS, result["generation"]
    ours = [r["ours"] for r in result["generation"]]
    assert [o.endswith("generator only") for o in ours] == [True, False, True, False], ours
    assert [r["peer"].startswith("nginx") for r in result["http"]] == [True] * 3, result["http"]
    for row, expected in zip(result["http"], HTTP_OURS):
        assert row["ours"].endswith(expected), (row["ours"], expected)
        assert row["ours_errors"] == 0 and row["peer_errors"] == 0, f"failed requests: {row}"
    for row in result["generation"] + result["http"]:
        for key in ("ours_median", "peer_median", "ratio_median"):
            positive(row[key], f"{row['ours']}.{key}")
        if abs(row["ratio_median"] - row["ours_median"] / row["peer_median"]) > \
                0.002 * max(1.0, row["ratio_median"]):
            raise AssertionError(f"{row['ours']}: ratio is not ours / peer: {row}")
    assert result["static_file_bytes"] > 1000, result["static_file_bytes"]


def generate(build, seed):
    out = ok(run([os.path.join(build, "src", "cli", "dungeon"), "generate", "--algorithm",
                  "classic", "--seed", str(seed), "--quiet"], timeout=60))
    return json.loads(out)


def floor_is_the_generator_alone():
    # The floor times the same digging: the same grid, rooms and doors as
    # this build's, and nothing the passes after the generator add.
    for seed in (1, 2, 77):
        floor, whole = generate(FLOOR_BUILD, seed), generate(BUILD, seed)
        for key in ("rooms", "doors"):
            assert floor[key] == whole[key], f"seed {seed}: the floor's {key} differs"
        # The placement pass writes the stairs into the grid; every other
        # tile is the generator's.
        assert len(floor["grid"]["rows"]) == len(whole["grid"]["rows"]), "grid heights differ"
        stairs = 0
        for y, (ours, theirs) in enumerate(zip(floor["grid"]["rows"], whole["grid"]["rows"])):
            for x, (a, b) in enumerate(zip(ours, theirs)):
                if a != b:
                    named = (floor["grid"]["legend"][a], whole["grid"]["legend"][b])
                    assert named[0] in ("floor", "corridor") and named[1].startswith("stairs"), \
                        f"seed {seed}: tile ({x}, {y}) is {named[0]} on the floor, {named[1]}"
                    stairs += 1
        assert stairs == 2, f"seed {seed}: {stairs} tiles differ, not the two stairs"
        assert whole["graph"]["nodes"] and whole["metrics"]["walkable_tiles"] > 0, whole["metrics"]
        assert floor["graph"]["nodes"] == [] and floor["graph"]["edges"] == [], floor["graph"]
        assert floor["metrics"]["walkable_tiles"] == 0, floor["metrics"]
        assert "placement" in whole and "placement" not in floor, "the placement pass ran"


def floors_table():
    out = ok(run([FLOORS, "--build", BUILD, "--floor-build", FLOOR_DIR] + TINY))
    lines = out.splitlines()
    assert lines[0].split() == ["ours", "rate", "peer", "rate", "ours/peer", "min-max"], lines[0]
    rows = [line for line in lines if line.startswith("  ")]
    assert len(rows) == 7, f"{len(rows)} rows: {lines}"
    for line in rows:
        cells = line.split()
        float(cells[-2])
        lo, hi = (float(x) for x in cells[-1].split("-"))
        assert lo <= hi, line


def floors_errors():
    stray = os.path.join(WORK, "stray")
    os.makedirs(os.path.join(stray, "src"))
    out = run([FLOORS, "--build", BUILD, "--floor-build", stray] + TINY)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "holds no floor build" in out.stderr, out.stderr
    out = run([sys.executable, os.path.join(ROOT, "bench", "floors.py"), "--build", BUILD,
               "--rounds", "0"])
    assert out.returncode == 1 and "--rounds must be at least 1" in out.stderr, out.stderr


def main():
    tests = [("floors.sh --json: the floor build made, every row, ratios of the figures",
              floors_json),
             ("the floor digs this build's grid, rooms and doors, and adds nothing after",
              floor_is_the_generator_alone),
             ("floors.sh table on the kept floor build: header and seven rows", floors_table),
             ("floors.sh: a --floor-build holding something else, a bad count: message and "
              "exit 1", floors_errors)]
    try:
        return run_plan(tests)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
