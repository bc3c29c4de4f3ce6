#!/usr/bin/env python3
"""How close to the peers this design can come at all: issue 22's goals 1 and 2 against a
ceiling build, in one run.

  python3 bench/ceilings.py [--build DIR] [--ceiling-build DIR] [--rounds R] [--seconds S]
                          [--bench-seconds T] [--connections C] [--json]

The ceiling build is this checkout's source with the two patches of bench/ceilings/ applied:

  generator-only.patch  a level is the algorithm's own steps and nothing after them: no
                        trace of the finished grid, no placement, progression, population
                        or metrics pass (`dungeon bench` times dg_generate, so the level's
                        allocation and release stay in)
  empty-worker.patch    a level job's worker does nothing but copy a finished level's
                        bytes (the file named by DUNGEOND_CEILING_BODY): no generation, no
                        JSON, no level id; the request still goes through libmicrohttpd,
                        the event loop, the job queue, a worker thread and back

So a ceiling row is what the same code reaches when the work issue 22 asks to speed up costs
nothing: the most that work could give. Rows, each ratio ours/peer:

  generation, one core, levels/s (dungeon bench against a timed peer loop):
    classic 80x21, generator only     vs  libtcod BSP 80x25, depth 3
    classic 80x21, whole level        vs  libtcod BSP 80x25, depth 3
    classic 200x200, generator only   vs  libtcod BSP 200x200, depth 6
    classic 200x200, whole level      vs  libtcod BSP 200x200, depth 6
  HTTP, wrk -t2 -cC for S seconds, requests/s:
    POST /v1/levels, empty worker     vs  nginx serving a static file of the same bytes
    POST /v1/levels, whole level      vs  nginx
    GET /livez (no job, no worker)    vs  nginx

The peers are bench/peers.sh's (libtcod_bsp.c against Debian's libtcod-dev; nginx with 2
worker processes and its access log on); dungeond runs with the checkout's default config.
It needs git, meson, ninja, wrk, nginx and libtcod-dev (deploy/install-deps.sh installs
them all).
The ceiling build is made in a scratch directory (meson, release, like `build`; about 20 s on
two cores) and removed afterwards, unless --ceiling-build names a directory to make it in
or to reuse. Each of R rounds (default 3) measures every figure once, the order reversed
every other round; a ratio is taken within each round, and its median and min-max are
shown. --json prints one JSON object instead of the table. Loopback only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import peers  # noqa: E402

PROG = "ceilings"
CEILINGS = os.path.join(benchlib.BENCH, "ceilings")
PATCHES = ["generator-only.patch", "empty-worker.patch"]
CLASSIC_80 = {}
CLASSIC_200 = peers.CLASSIC_200
GENERATORS = {
    "ceiling80": ("classic 80x21, generator only", ("ceiling", CLASSIC_80)),
    "classic80": ("classic 80x21, whole level", ("cli", CLASSIC_80)),
    "bsp80": ("libtcod BSP 80x25, depth 3", ("bsp", (80, 25, 3))),
    "ceiling200": ("classic 200x200, 60-80 rooms, generator only", ("ceiling", CLASSIC_200)),
    "classic200": ("classic 200x200, 60-80 rooms, whole level", ("cli", CLASSIC_200)),
    "bsp200": ("libtcod BSP 200x200, depth 6", ("bsp", (200, 200, 6))),
}
GENERATOR_ROWS = [("ceiling80", "bsp80"), ("classic80", "bsp80"), ("ceiling200", "bsp200"),
                  ("classic200", "bsp200")]
SERVERS = {"empty": ("dungeond POST /v1/levels classic, empty worker", "/v1/levels",
                     benchlib.POST_CLASSIC_LUA),
           "whole": ("dungeond POST /v1/levels classic, whole level", "/v1/levels",
                     benchlib.POST_CLASSIC_LUA),
           "livez": ("dungeond GET /livez", "/livez", None),
           "nginx": ("nginx, static file of the same size", "/level.json", None)}
HTTP_ROWS = [("empty", "nginx"), ("whole", "nginx"), ("livez", "nginx")]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=benchlib.DEFAULT_BUILD, help="build directory")
    parser.add_argument("--ceiling-build", default=None,
                        help="where to make the ceiling build, or a ceiling build to reuse "
                             "(default: a scratch directory, removed afterwards)")
    benchlib.add_load_options(parser, 3)
    args = parser.parse_args()
    benchlib.check_load_options(PROG, args)
    return args


def run_quiet(cmd, what, cwd=None, env=None):
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        benchlib.fail(PROG, f"{what} failed ({' '.join(cmd)}):\n{out.stderr.strip()[-3000:]}")
    return out.stdout


def ceiling_build(where):
    """The ceiling build in `where` (made there unless it holds one already):
    the checkout's tracked files as they are on disk, the patches applied,
    dungeon and dungeond built. Returns the build directory."""
    if os.path.exists(where) and not os.path.isdir(where):
        benchlib.fail(PROG, f"--ceiling-build {where} is not a directory")
    source = os.path.join(where, "src")
    build = os.path.join(source, "build")
    if all(os.access(benchlib.program(build, n), os.X_OK) for n in ("dungeon", "dungeond")):
        return build
    if os.path.exists(source):
        benchlib.fail(PROG, f"{source} exists but holds no ceiling build; remove it or name "
                            "another --ceiling-build")
    benchlib.require_tools(PROG, "git", "meson", "ninja")
    files = run_quiet(["git", "-C", benchlib.ROOT, "ls-files", "-z"],
                      "listing the checkout's files (ceilings.py needs a git checkout)")
    for name in filter(None, files.split("\0")):
        origin = os.path.join(benchlib.ROOT, name)
        if os.path.isfile(origin):  # a file deleted and not yet committed is left out
            os.makedirs(os.path.dirname(os.path.join(source, name)), exist_ok=True)
            shutil.copy2(origin, os.path.join(source, name))
    # Outside a repository `git apply` is a strict patch(1): a hunk that no
    # longer fits fails here, by name, rather than measuring something else.
    # Inside one (a --ceiling-build in a checkout) it would patch paths from
    # that repository's top and skip the rest: the ceiling keeps git from
    # looking above `where`.
    outside = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.abspath(where))
    for patch in PATCHES:
        run_quiet(["git", "apply", os.path.join(CEILINGS, patch)],
                  f"applying bench/ceilings/{patch} (the source moved on: update the patch)",
                  cwd=source, env=outside)
    run_quiet(["meson", "setup", build, source, "--buildtype=release", "-Dtests=false"],
              "configuring the ceiling build")
    run_quiet(["ninja", "-C", build, benchlib.PROGRAMS["dungeon"], benchlib.PROGRAMS["dungeond"]],
              "building the ceiling build")
    return build


def measure_generator(key, args, ceiling, bsp):
    """One figure of generator `key`: (levels/s, mean rooms)."""
    kind, what = GENERATORS[key][1]
    if kind == "bsp":
        width, height, depth = what
        out = peers.run_json([bsp, "--width", str(width), "--height", str(height), "--depth",
                              str(depth), "--seconds", str(args.bench_seconds), "--runs",
                              str(peers.RUNS)])
        return out["levels_per_second_median"], out["mean_rooms"]
    build = ceiling if kind == "ceiling" else args.build
    out = benchlib.cli_bench(build, "classic", what, args.bench_seconds, peers.RUNS)
    # The ceiling build's levels carry no metrics: their rooms are not counted.
    rooms = out["quality"]["mean_rooms"] if kind == "cli" else None
    return out["levels_per_second_median"], rooms


def run_rounds(args, ceiling, bsp, servers):
    """Every figure once per round, orders reversed every other round."""
    figures = {key: [] for key in list(GENERATORS) + list(SERVERS)}
    progress = benchlib.Progress("ceilings.py")
    for r in range(args.rounds):
        progress.step("round", r + 1, args.rounds)
        for key in benchlib.order(r, list(GENERATORS)):
            figures[key].append(measure_generator(key, args, ceiling, bsp))
        for key in benchlib.order(r, list(SERVERS)):
            _, path, script = SERVERS[key]
            out = benchlib.wrk(servers[key].port, path, args.seconds, args.connections, script)
            figures[key].append((out["requests_per_s"], out["p99_ms"], out["errors"]))
    progress.end()
    return figures


def print_table(result):
    sections = [("generation, one core (levels/s; rooms per level)", result["generation"],
                 "mean_rooms", "{:.1f} rooms"),
                (f"HTTP, wrk -t2 -c{result['connections']} {result['seconds']} s "
                 "(requests/s; p99)", result["http"], "p99_ms", "p99 {:.2f} ms")]
    peers.print_rows(sections, f"{result['rounds']} rounds; ratio: median of the per-round "
                               "ratios; generator only and empty worker: the ceiling build "
                               f"(bench/ceilings/*.patch); build {result['build']}",
                     result["http"], digits=3)


def main():
    args = parse_args()
    args.build = benchlib.require_build(PROG, args.build)
    benchlib.require_tools(PROG, "wrk", "cc", "pkg-config")
    if shutil.which("nginx") is None and not os.path.exists("/usr/sbin/nginx"):
        benchlib.fail(PROG, "nginx is required (deploy/install-deps.sh installs it)")
    work = benchlib.scratch("bench-ceilings-")
    where = os.path.abspath(args.ceiling_build) if args.ceiling_build else work
    ceiling = ceiling_build(where)
    servers = {}
    try:
        bsp = peers.compile_bsp(work)
        servers["whole"] = benchlib.Daemon(PROG, args.build, os.path.join(work, "whole.log"))
        body = benchlib.post_level(servers["whole"].port, {"algorithm": "classic", "seed": 1})
        body_path = os.path.join(work, "level.json")
        with open(body_path, "wb") as f:
            f.write(body)
        os.environ["DUNGEOND_CEILING_BODY"] = body_path  # read by the ceiling daemon only
        servers["empty"] = benchlib.Daemon(PROG, ceiling, os.path.join(work, "empty.log"))
        if benchlib.post_level(servers["empty"].port, {"algorithm": "classic", "seed": 2}) != body:
            benchlib.fail(PROG, f"the ceiling daemon did not answer with the stored level; logs "
                                f"in {work}")
        servers["livez"] = servers["whole"]
        servers["nginx"] = peers.Nginx(work, body)
        try:
            figures = run_rounds(args, ceiling, bsp, servers)
        except (RuntimeError, ValueError, subprocess.CalledProcessError, OSError) as e:
            benchlib.fail(PROG, f"a measurement failed ({e}); logs in {work}")
        for key in ("empty", "whole", "nginx"):
            servers.pop(key).stop()
        servers.clear()
        shutil.rmtree(work, ignore_errors=True)  # logs are kept only when something failed
    finally:
        for server in servers.values():
            if server.proc.poll() is None:
                server.proc.kill()
    labels = {key: label for key, (label, _) in GENERATORS.items()}
    return peers.report(args, body,
                        peers.rows_of(figures, GENERATOR_ROWS, labels, "levels/s", "mean_rooms"),
                        peers.rows_of(figures, HTTP_ROWS, {k: v[0] for k, v in SERVERS.items()},
                                      "requests/s", "p99_ms"),
                        print_table, ceiling_build=ceiling)

if __name__ == "__main__":
    sys.exit(main())
