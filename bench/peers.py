#!/usr/bin/env python3
"""dungeond side by side with its peers, in one run: our rate, theirs, the ratio.

  bench/peers.sh [--build DIR] [--rounds R] [--seconds S] [--bench-seconds T]
                 [--connections C] [--json]

bench/peers.sh installs what this needs (Debian packages through
deploy/install-deps.sh, the npm peers of bench/peers with `npm ci`) and
runs this script. Rows, each ratio ours/peer (above 1: we are faster):

  generation, one core, levels/s (dungeon bench against a timed peer loop):
    classic 80x21 (placement and metrics on)  vs  libtcod BSP 80x25, depth 3 (<= 8 rooms)
    classic 200x200, 60-80 rooms              vs  libtcod BSP 200x200, depth 6 (<= 64 rooms)
    classic 80x21                             vs  rot.js Uniform 80x25, rot.js Digger 80x25
  HTTP, wrk -t2 -cC for S seconds, requests/s:
    dungeond POST /v1/levels classic          vs  node + rot.js Uniform over HTTP
                                                  (bench/peers/rotjs-server.mjs)
    dungeond POST /v1/levels classic          vs  nginx serving a static file of the
                                                  same bytes (a classic level, seed 1)

libtcod's BSP is bench/peers/libtcod_bsp.c (the dig of libtcod's C sample),
compiled here against Debian's libtcod-dev; rot.js runs in node
(bench/peers/rotjs-levels.mjs). dungeond runs with the default config (2
workers, request log to a file), nginx with 2 worker processes and its
access log on, node with one process. Each of R rounds (default 3) measures
every figure once, the order reversed every other round; a ratio is taken
within each round, and its median and min-max are shown; the rates are the
medians over rounds. Each generator figure is the median of 5 timed runs of
T seconds (default 0.2). --json prints one JSON object instead of the
table. Defaults take about a minute on two cores. Loopback only.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

PROG = "peers"
RUNS = 5  # timed runs per generator figure (dungeon bench's minimum)
CLASSIC_200 = {"width": 200, "height": 200, "rooms_min": 60, "rooms_max": 80}

# Generator figures: name -> (label, how to measure).
GENERATORS = {
    "classic80": ("classic 80x21", ("cli", {})),
    "classic200": ("classic 200x200, 60-80 rooms", ("cli", CLASSIC_200)),
    "bsp80": ("libtcod BSP 80x25, depth 3", ("bsp", (80, 25, 3))),
    "bsp200": ("libtcod BSP 200x200, depth 6", ("bsp", (200, 200, 6))),
    "uniform": ("rot.js Uniform 80x25", ("rotjs", "Uniform")),
    "digger": ("rot.js Digger 80x25", ("rotjs", "Digger")),
}
GENERATOR_ROWS = [("classic80", "bsp80"), ("classic200", "bsp200"),
                  ("classic80", "uniform"), ("classic80", "digger")]
SERVERS = {"dungeond": "dungeond POST /v1/levels classic 80x21",
           "node": "node + rot.js Uniform 80x25 over HTTP",
           "nginx": "nginx, static file of the same size"}
HTTP_ROWS = [("dungeond", "node"), ("dungeond", "nginx")]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=benchlib.DEFAULT_BUILD, help="build directory")
    benchlib.add_load_options(parser, 3)
    args = parser.parse_args()
    benchlib.check_load_options(PROG, args)
    return args


def compile_bsp(work):
    """bench/peers/libtcod_bsp.c built against libtcod into `work`; its path."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libtcod"], capture_output=True,
                           text=True)
    if flags.returncode != 0:
        benchlib.fail(PROG, "libtcod not found by pkg-config (deploy/install-deps.sh installs "
                            "libtcod-dev)")
    out = os.path.join(work, "libtcod_bsp")
    subprocess.run(["cc", "-O2", "-std=c17", "-D_GNU_SOURCE",
                    os.path.join(benchlib.PEERS, "libtcod_bsp.c"), "-o", out]
                   + flags.stdout.split(), check=True)
    return out


def run_json(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def measure_generator(key, args, bsp):
    """One figure of generator `key`: (levels/s, mean rooms)."""
    kind, what = GENERATORS[key][1]
    seconds = args.bench_seconds
    if kind == "cli":
        out = benchlib.cli_bench(args.build, "classic", what, seconds, RUNS)
        return out["levels_per_second_median"], out["quality"]["mean_rooms"]
    if kind == "bsp":
        width, height, depth = what
        out = run_json([bsp, "--width", str(width), "--height", str(height), "--depth",
                        str(depth), "--seconds", str(seconds), "--runs", str(RUNS)])
    else:
        out = run_json(["node", os.path.join(benchlib.PEERS, "rotjs-levels.mjs"), what, "80",
                        "25", str(seconds), str(RUNS)])
    return out["levels_per_second_median"], out["mean_rooms"]


class Nginx:
    """nginx in the foreground serving one file from a temporary prefix."""

    def __init__(self, work, body):
        self.dir = os.path.join(work, "nginx")
        os.makedirs(os.path.join(self.dir, "html"))
        os.chmod(work, 0o755)
        os.chmod(self.dir, 0o755)
        with open(os.path.join(self.dir, "html", "level.json"), "wb") as f:
            f.write(body)
        self.port = free_port()
        conf = "\n".join([
            "user root;" if os.geteuid() == 0 else "",
            "worker_processes 2;",
            f"pid {self.dir}/nginx.pid;",
            f"error_log {self.dir}/error.log warn;",
            "events { worker_connections 1024; }",
            "http {",
            "  default_type application/json;",
            f"  access_log {self.dir}/access.log;",
            "  sendfile on;",
            "  keepalive_requests 1000000;",
            f"  client_body_temp_path {self.dir}/body;",
            f"  proxy_temp_path {self.dir}/proxy;",
            f"  fastcgi_temp_path {self.dir}/fastcgi;",
            f"  uwsgi_temp_path {self.dir}/uwsgi;",
            f"  scgi_temp_path {self.dir}/scgi;",
            f"  server {{ listen 127.0.0.1:{self.port}; root {self.dir}/html; }}",
            "}", ""])
        with open(os.path.join(self.dir, "nginx.conf"), "w") as f:
            f.write(conf)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.proc = subprocess.Popen([nginx, "-p", self.dir, "-c", f"{self.dir}/nginx.conf",
                                      "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        wait_listening(self.port, self.proc, "nginx", os.path.join(self.dir, "error.log"))

    def stop(self):
        self.proc.send_signal(signal.SIGQUIT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class NodePeer:
    """bench/peers/rotjs-server.mjs on a free port."""

    def __init__(self):
        self.proc = subprocess.Popen(["node", os.path.join(benchlib.PEERS, "rotjs-server.mjs"),
                                      "0"], stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            benchlib.fail(PROG, "bench/peers/rotjs-server.mjs did not start (npm ci in "
                                "bench/peers?)")
        self.port = json.loads(line)["port"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, name, log):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.02)
    benchlib.fail(PROG, f"{name} did not start; see {log}")


def run_rounds(args, bsp, servers):
    """Every generator and server figure once per round, orders reversed
    every other round. Returns {key: [(rate, extra), ...]}."""
    figures = {key: [] for key in list(GENERATORS) + list(SERVERS)}
    paths = {"dungeond": ("/v1/levels", benchlib.POST_CLASSIC_LUA),
             "node": ("/v1/levels", benchlib.POST_CLASSIC_LUA), "nginx": ("/level.json", None)}
    progress = benchlib.Progress("peers.py")
    for r in range(args.rounds):
        progress.step("round", r + 1, args.rounds)
        for key in benchlib.order(r, list(GENERATORS)):
            figures[key].append(measure_generator(key, args, bsp))
        for key in benchlib.order(r, list(SERVERS)):
            path, script = paths[key]
            out = benchlib.wrk(servers[key].port, path, args.seconds, args.connections, script)
            figures[key].append((out["requests_per_s"], out["p99_ms"], out["errors"]))
    return figures


def rows_of(figures, pairs, labels, unit, extra_name):
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
        for side, key in (("ours", ours), ("peer", peer)):
            extras = [f[1] for f in figures[key] if f[1] is not None]
            if extras:  # none where a figure has no such value (floors.py's floor rows)
                row[f"{side}_{extra_name}"] = round(benchlib.spread(extras)["median"], 2)
            if len(figures[key][0]) > 2:  # HTTP: failed requests (wrk timeouts included)
                row[f"{side}_errors"] = sum(f[2] for f in figures[key])
        rows.append(row)
    return rows


def print_rows(sections, footer, http_rows, digits=2):
    """The table of rows_of's rows: `sections` of (title, rows, extra, fmt),
    where each side's label shows its figure `extra` through `fmt` when the
    row has one; then `footer`, and a warning for each side of `http_rows`
    that had failed requests."""
    body = []
    for title, rows, extra, fmt in sections:
        body.append([title, "", "", "", "", ""])
        for r in rows:
            labels = {side: r[side] if r.get(f"{side}_{extra}") is None
                      else f"{r[side]} ({fmt.format(r[side + '_' + extra])})"
                      for side in ("ours", "peer")}
            body.append([f"  {labels['ours']}", f"{r['ours_median']:.0f}", labels["peer"],
                         f"{r['peer_median']:.0f}", f"{r['ratio_median']:.{digits}f}",
                         f"{r['ratio_min']:.{digits}f}-{r['ratio_max']:.{digits}f}"])
    for line in benchlib.table(["ours", "rate", "peer", "rate", "ours/peer", "min-max"], body):
        print(line)
    print(footer)
    for r in http_rows:
        for side in ("ours", "peer"):
            if r[f"{side}_errors"]:
                print(f"warning: {r[side]}: {r[side + '_errors']} failed requests "
                      "(non-2xx answers or wrk socket errors and timeouts)")


def print_table(result):
    sections = [("generation, one core (levels/s; rooms per level)", result["generation"],
                 "mean_rooms", "{:.1f} rooms"),
                (f"HTTP, wrk -t2 -c{result['connections']} {result['seconds']} s "
                 "(requests/s; p99)", result["http"], "p99_ms", "p99 {:.2f} ms")]
    print_rows(sections, f"{result['rounds']} rounds; ratio: median of the per-round ratios; "
                         f"static file {result['static_file_bytes']} bytes; build "
                         f"{result['build']}", result["http"])


def main():
    args = parse_args()
    args.build = benchlib.require_build(PROG, args.build)
    benchlib.require_tools(PROG, "wrk", "node", "cc", "pkg-config")
    if shutil.which("nginx") is None and not os.path.exists("/usr/sbin/nginx"):
        benchlib.fail(PROG, "nginx is required (deploy/install-deps.sh installs it)")
    work = benchlib.scratch("bench-peers-")
    servers = {}
    try:
        bsp = compile_bsp(work)
        servers["dungeond"] = benchlib.Daemon(PROG, args.build, os.path.join(work, "dungeond.log"))
        body = benchlib.post_level(servers["dungeond"].port, {"algorithm": "classic", "seed": 1})
        servers["node"] = NodePeer()
        servers["nginx"] = Nginx(work, body)
        try:
            figures = run_rounds(args, bsp, servers)
        except (RuntimeError, ValueError, subprocess.CalledProcessError, OSError) as e:
            benchlib.fail(PROG, f"a measurement failed ({e}); logs in {work}")
        while servers:
            servers.popitem()[1].stop()
        shutil.rmtree(work, ignore_errors=True)  # logs are kept only when something failed
    finally:
        for server in servers.values():
            server.proc.kill()
    labels = {key: label for key, (label, _) in GENERATORS.items()}
    return report(args, body, rows_of(figures, GENERATOR_ROWS, labels, "levels/s", "mean_rooms"),
                  rows_of(figures, HTTP_ROWS, SERVERS, "requests/s", "p99_ms"), print_table)


def report(args, body, generation, http, table, **more):
    """Prints the result (the run's settings, the static file's size, the
    `generation` and `http` rows, and `more`) as one JSON object with
    --json, else through `table`; returns the exit status, 0."""
    result = {"build": args.build, **more, "rounds": args.rounds, "seconds": args.seconds,
              "bench_seconds": args.bench_seconds, "connections": args.connections,
              "static_file_bytes": len(body), "generation": generation, "http": http}
    if args.json:
        print(json.dumps(result))
    else:
        table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
