#!/usr/bin/env python3
"""bench/ceilings.py keeps working and keeps measuring what it says (issue 22):
its patches still apply to this checkout, the ceiling build it makes digs the
same grid as this build with nothing after the generator's steps, its
daemon answers every level request with the stored level, and its table
and --json object have every row, each ratio the quotient of the figures
beside it. Timings are never compared with anything. Also a --ceiling-build
that holds something else: a message and exit 1.

Usage: bench_ceilings.py SOURCE_ROOT BUILD_DIR
Prints TAP. Python 3 standard library only; needs git, meson, ninja, wrk,
nginx and libtcod-dev (deploy/install-deps.sh installs them).
"""
import json
import os
import shutil
import sys
import tempfile
# The suite's TAP runner (tests/http's harness, standard library only).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "http"))
from dungeond_http import run_plan  # noqa: E402
from bench_checks import close, ok, positive, run, table_rows  # noqa: E402

ROOT, BUILD = (os.path.abspath(p) for p in sys.argv[1:3])
CEILINGS = [sys.executable, os.path.join(ROOT, "bench", "ceilings.py")]
TINY = ["--rounds", "1", "--seconds", "1", "--bench-seconds", "0.05"]
WORK = tempfile.mkdtemp(prefix="bench-ceilings-test-")
# Made by the first test, reused by the others. Inside a repository of its
# own, as a --ceiling-build in a checkout would be: there `git apply` takes
# paths from that repository's top and skips the patches without an error,
# unless the script keeps git from looking above the ceiling build.
CEILING_DIR = os.path.join(WORK, "ceiling")
CEILING_BUILD = os.path.join(CEILING_DIR, "src", "build")
GENERATION_PEERS = ["libtcod BSP 80x25, depth 3"] * 2 + ["libtcod BSP 200x200, depth 6"] * 2
HTTP_OURS = ["empty worker", "whole level", "GET /livez"]


def ceilings_json():
    out = ok(run(CEILINGS + ["--build", BUILD, "--ceiling-build", CEILING_DIR, "--json"] + TINY,
                 timeout=600))
    lines = out.strip().splitlines()
    assert len(lines) == 1, f"--json printed {len(lines)} lines on stdout"
    result = json.loads(lines[0])
    assert result["ceiling_build"] == CEILING_BUILD, result["ceiling_build"]
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
        close(row["ratio_median"], row["ours_median"], row["peer_median"], row["ours"])
    assert result["static_file_bytes"] > 1000, result["static_file_bytes"]


def generate(build, seed):
    out = ok(run([os.path.join(build, "src", "cli", "dungeon"), "generate", "--algorithm",
                  "classic", "--seed", str(seed), "--quiet"], timeout=60))
    return json.loads(out)


def ceiling_is_the_generator_alone():
    # The ceiling build times the same digging: the same grid, rooms and doors as
    # this build's, and nothing the passes after the generator add.
    for seed in (1, 2, 77):
        bare, whole = generate(CEILING_BUILD, seed), generate(BUILD, seed)
        for key in ("rooms", "doors"):
            assert bare[key] == whole[key], f"seed {seed}: the ceiling build's {key} differs"
        # The placement pass writes the stairs into the grid; every other
        # tile is the generator's.
        assert len(bare["grid"]["rows"]) == len(whole["grid"]["rows"]), "grid heights differ"
        stairs = 0
        for y, (ours, theirs) in enumerate(zip(bare["grid"]["rows"], whole["grid"]["rows"])):
            for x, (a, b) in enumerate(zip(ours, theirs)):
                if a != b:
                    named = (bare["grid"]["legend"][a], whole["grid"]["legend"][b])
                    assert named[0] in ("floor", "corridor") and named[1].startswith("stairs"), \
                        f"seed {seed}: tile ({x}, {y}) is {named[0]} in the ceiling build, {named[1]}"
                    stairs += 1
        assert stairs == 2, f"seed {seed}: {stairs} tiles differ, not the two stairs"
        assert whole["graph"]["nodes"] and whole["metrics"]["walkable_tiles"] > 0, whole["metrics"]
        assert bare["graph"]["nodes"] == [] and bare["graph"]["edges"] == [], bare["graph"]
        assert bare["metrics"]["walkable_tiles"] == 0, bare["metrics"]
        assert "placement" in whole and "placement" not in bare, "the placement pass ran"


def ceilings_table():
    out = ok(run(CEILINGS + ["--build", BUILD, "--ceiling-build", CEILING_DIR] + TINY))
    table_rows(out, 7)


def ceilings_errors():
    stray = os.path.join(WORK, "stray")
    os.makedirs(os.path.join(stray, "src"))
    out = run(CEILINGS + ["--build", BUILD, "--ceiling-build", stray] + TINY)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "holds no ceiling build" in out.stderr, out.stderr
    a_file = os.path.join(WORK, "a-file")
    open(a_file, "w").close()
    out = run(CEILINGS + ["--build", BUILD, "--ceiling-build", a_file] + TINY)
    assert out.returncode == 1 and "is not a directory" in out.stderr, (out.returncode, out.stderr)
    out = run([sys.executable, os.path.join(ROOT, "bench", "ceilings.py"), "--build", BUILD,
               "--rounds", "0"])
    assert out.returncode == 1 and "--rounds must be at least 1" in out.stderr, out.stderr


def main():
    ok(run(["git", "init", "-q", WORK]))
    tests = [("ceilings.py --json: the ceiling build made, every row, ratios of the figures",
              ceilings_json),
             ("the ceiling build digs this build's grid, rooms and doors, and adds nothing after",
              ceiling_is_the_generator_alone),
             ("ceilings.py table on the kept ceiling build: header and seven rows", ceilings_table),
             ("ceilings.py: a --ceiling-build holding something else or not a directory, a bad "
              "count: message and exit 1", ceilings_errors)]
    try:
        return run_plan(tests)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
