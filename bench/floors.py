#!/usr/bin/env python3
"""How close to the peers this design can come at all: issue 22's goals 1 and 2 against a
floor build, in one run.

  bench/floors.sh [--build DIR] [--floor-build DIR] [--rounds R] [--seconds S]
                  [--bench-seconds T] [--connections C] [--json]

The floor build is this checkout's source with the two patches of bench/floors/ applied:

  generator-only.patch  a level is the algorithm's own steps and nothing after them: no
                        trace of the finished grid, no placement, progression, population
                        or metrics pass (`dungeon bench` times dg_generate, so the level's
                        allocation and release stay in)
  empty-worker.patch    a level job's worker does nothing but copy a finished level's
                        bytes (the file named by DUNGEOND_FLOOR_BODY): no generation, no
                        JSON, no level id; the request still goes through libmicrohttpd,
                        the event loop, the job queue, a worker thread and back

So a floor row is what the same code reaches when the work issue 22 asks to speed up costs
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
The floor build is made in a scratch directory (meson, release, like `build`; about 20 s on
two cores) and removed afterwards, unless --floor-build names a directory to make it in
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

PROG = "floors"
FLOORS = os.path.join(benchlib.BENCH, "floors")
PATCHES = ["generator-only.patch", "empty-worker.patch"]
CLASSIC_80 = {}
CLASSIC_200 = peers.CLASSIC_200
GENERATORS = {
    "floor80": ("classic 80x21, generator only", ("floor", CLASSIC_80)),
    "classic80": ("classic 80x21, whole level", ("cli", CLASSIC_80)),
    "bsp80": ("libtcod BSP 80x25, depth 3", ("bsp", (80, 25, 3))),
    "floor200": ("classic 200x200, 60-80 rooms, generator only", ("floor", CLASSIC_200)),
    "classic200": ("classic 200x200, 60-80 rooms, whole level", ("cli", CLASSIC_200)),
    "bsp200": ("libtcod BSP 200x200, depth 6", ("bsp", (200, 200, 6))),
}
GENERATOR_ROWS = [("floor80", "bsp80"), ("classic80", "bsp80"), ("floor200", "bsp200"),
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
    parser.add_argument("--floor-build", default=None,
                        help="where to make the floor build, or a floor build to reuse "
                             "(default: a scratch directory, removed afterwards)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--seconds", type=int, default=3,
                        help="length of each wrk run in whole seconds (default 3)")
    parser.add_argument("--bench-seconds", type=float, default=0.2,
                        help="length of each of a generator's 5 timed runs (default 0.2)")
    parser.add_argument("--connections", type=int, default=64, help="wrk connections (64)")
    parser.add_argument("--json", action="store_true", help="one JSON object, no table")
    args = parser.parse_args()
    benchlib.require_at_least(PROG, 1, rounds=args.rounds, seconds=args.seconds,
                              connections=args.connections)
    if not 0.05 <= args.bench_seconds <= 10:
        benchlib.fail(PROG, f"--bench-seconds must be from 0.05 to 10 (got {args.bench_seconds})")
    return args


def run_quiet(cmd, what, cwd=None):
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        benchlib.fail(PROG, f"{what} failed ({' '.join(cmd)}):\n{out.stderr.strip()[-3000:]}")
    return out.stdout


def floor_build(where):
    """The floor build in `where` (made there unless it holds one already):
    the checkout's tracked files as they are on disk, the patches applied,
    dungeon and dungeond built. Returns the build directory."""
    source = os.path.join(where, "src")
    build = os.path.join(source, "build")
    if all(os.access(benchlib.program(build, n), os.X_OK) for n in ("dungeon", "dungeond")):
        return build
    if os.path.exists(source):
        benchlib.fail(PROG, f"{source} exists but holds no floor build; remove it or name "
                            "another --floor-build")
    benchlib.require_tools(PROG, "git", "meson", "ninja")
    files = run_quiet(["git", "-C", benchlib.ROOT, "ls-files", "-z"],
                      "listing the checkout's files (floors.sh needs a git checkout)")
    for name in filter(None, files.split("\0")):
        origin = os.path.join(benchlib.ROOT, name)
        if os.path.isfile(origin):  # a file deleted and not yet committed is left out
            os.makedirs(os.path.dirname(os.path.join(source, name)), exist_ok=True)
            shutil.copy2(origin, os.path.join(source, name))
    for patch in PATCHES:
        # Outside a repository `git apply` is a strict patch(1): a hunk that
        # no longer fits fails here, by name, rather than measuring something else.
        run_quiet(["git", "apply", os.path.join(FLOORS, patch)],
                  f"applying bench/floors/{patch} (the source moved on: update the patch)",
                  cwd=source)
    run_quiet(["meson", "setup", build, source, "--buildtype=release", "-Dtests=false"],
              "configuring the floor build")
    run_quiet(["ninja", "-C", build, benchlib.PROGRAMS["dungeon"], benchlib.PROGRAMS["dungeond"]],
              "building the floor build")
    return build


def measure_generator(key, args, floor, bsp):
    """One figure of generator `key`: (levels/s, mean rooms)."""
    kind, what = GENERATORS[key][1]
    if kind == "bsp":
        width, height, depth = what
        out = peers.run_json([bsp, "--width", str(width), "--height", str(height), "--depth",
                              str(depth), "--seconds", str(args.bench_seconds), "--runs",
                              str(peers.RUNS)])
        return out["levels_per_second_median"], out["mean_rooms"]
    build = floor if kind == "floor" else args.build
    out = benchlib.cli_bench(build, "classic", what, args.bench_seconds, peers.RUNS)
    # The floor's levels carry no metrics: their rooms are not counted.
    rooms = out["quality"]["mean_rooms"] if kind == "cli" else None
    return out["levels_per_second_median"], rooms


def run_rounds(args, floor, bsp, servers):
    """Every figure once per round, orders reversed every other round."""
    figures = {key: [] for key in list(GENERATORS) + list(SERVERS)}
    progress = benchlib.Progress("floors.py")
    for r in range(args.rounds):
        progress.step("round", r + 1, args.rounds)
        for key in benchlib.order(r, list(GENERATORS)):
            figures[key].append(measure_generator(key, args, floor, bsp))
        for key in benchlib.order(r, list(SERVERS)):
            _, path, script = SERVERS[key]
            out = benchlib.wrk(servers[key].port, path, args.seconds, args.connections, script)
            figures[key].append((out["requests_per_s"], out["p99_ms"], out["errors"]))
    progress.end()
    return figures


def rows_of(figures, pairs, labels, unit):
    rows = []
    for ours, peer in pairs:
        ratios = [a[0] / b[0] for a, b in zip(figures[ours], figures[peer])]
        s = benchlib.spread(ratios)
        row = {"ours": labels[ours], "peer": labels[peer], "unit": unit,
               "ours_median": benchlib.significant(
                   benchlib.spread([f[0] for f in figures[ours]])["median"]),
               "peer_median": benchlib.significant(
                   benchlib.spread([f[0] for f in figures[peer]])["median"]),
               "ratio_median": round(s["median"], 3), "ratio_min": round(s["min"], 3),
               "ratio_max": round(s["max"], 3), "ratios": [round(x, 3) for x in ratios]}
        if len(figures[ours][0]) > 2:  # HTTP: failed requests (wrk timeouts included)
            row["ours_errors"] = sum(f[2] for f in figures[ours])
            row["peer_errors"] = sum(f[2] for f in figures[peer])
        rows.append(row)
    return rows


def print_table(result):
    body = []
    for title, rows in (("generation, one core (levels/s)", result["generation"]),
                        (f"HTTP, wrk -t2 -c{result['connections']} {result['seconds']} s "
                         "(requests/s)", result["http"])):
        body.append([title, "", "", "", "", ""])
        for r in rows:
            body.append([f"  {r['ours']}", f"{r['ours_median']:.0f}", r["peer"],
                         f"{r['peer_median']:.0f}", f"{r['ratio_median']:.3f}",
                         f"{r['ratio_min']:.3f}-{r['ratio_max']:.3f}"])
    for line in benchlib.table(["ours", "rate", "peer", "rate", "ours/peer", "min-max"], body):
        print(line)
    print(f"{result['rounds']} rounds; ratio: median of the per-round ratios; generator only "
          "and empty worker: the floor build (bench/floors/*.patch); build "
          f"{result['build']}")
    for r in result["http"]:
        for side in ("ours", "peer"):
            if r[f"{side}_errors"]:
                print(f"warning: {r[side]}: {r[side + '_errors']} failed requests "
                      "(non-2xx answers or wrk socket errors and timeouts)")


def main():
    args = parse_args()
    args.build = benchlib.require_build(PROG, args.build)
    benchlib.require_tools(PROG, "wrk", "cc", "pkg-config")
    if shutil.which("nginx") is None and not os.path.exists("/usr/sbin/nginx"):
        benchlib.fail(PROG, "nginx is required (deploy/install-deps.sh installs it)")
    work = benchlib.scratch("bench-floors-")
    where = os.path.abspath(args.floor_build) if args.floor_build else work
    floor = floor_build(where)
    servers = {}
    try:
        bsp = peers.compile_bsp(work)
        servers["whole"] = benchlib.Daemon(PROG, args.build, os.path.join(work, "whole.log"))
        body = benchlib.post_level(servers["whole"].port, {"algorithm": "classic", "seed": 1})
        body_path = os.path.join(work, "level.json")
        with open(body_path, "wb") as f:
            f.write(body)
        os.environ["DUNGEOND_FLOOR_BODY"] = body_path  # read by the floor daemon only
        servers["empty"] = benchlib.Daemon(PROG, floor, os.path.join(work, "empty.log"))
        if benchlib.post_level(servers["empty"].port, {"algorithm": "classic", "seed": 2}) != body:
            benchlib.fail(PROG, f"the floor daemon did not answer with the stored level; logs "
                                f"in {work}")
        servers["livez"] = servers["whole"]
        servers["nginx"] = peers.Nginx(work, body)
        try:
            figures = run_rounds(args, floor, bsp, servers)
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
    result = {"build": args.build, "floor_build": floor, "rounds": args.rounds,
              "seconds": args.seconds, "bench_seconds": args.bench_seconds,
              "connections": args.connections, "static_file_bytes": len(body),
              "generation": rows_of(figures, GENERATOR_ROWS, labels, "levels/s"),
              "http": rows_of(figures, HTTP_ROWS, {k: v[0] for k, v in SERVERS.items()},
                              "requests/s")}
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
