"""What the Python benchmarks in bench/ share: where a build keeps its
programs, starting and stopping a dungeond on a free loopback port, one run
of wrk and its figures, `dungeon bench --json`, ready lobbies started from
one connection, interleaved rounds and the spread of per-round ratios.

The scripts import it from their own folder (bench/ is on sys.path when
one of them runs). Python 3 standard library only; every failure the user
can fix (a missing build, tool or bad count) is a message on stderr and
exit status 1, through fail().
"""
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
PEERS = os.path.join(BENCH, "peers")
DEFAULT_BUILD = os.path.join(ROOT, "build")
CONFIG = os.path.join(ROOT, "config", "dungeond.json")
# The only place the scripts name where a build puts its two programs.
PROGRAMS = {"dungeon": os.path.join("src", "cli", "dungeon"),
            "dungeond": os.path.join("src", "server", "dungeond")}
# The request mix of every HTTP row: POST /v1/levels classic, seed varying.
POST_CLASSIC_LUA = os.path.join(BENCH, "post-classic.lua")


class Progress:
    """Progress of a long benchmark on stderr, never a minute of silence
    (issue 25 item 5): on a terminal one line rewritten in place (at most ten
    times a second); otherwise a line at each step of a phase of few steps
    (rounds), at the last step, and at most every five seconds within a long
    one (seeds). Tables and --json stay on stdout."""

    COARSE = 100

    def __init__(self, prog, stream=None):
        self.prog, self.stream = prog, stream or sys.stderr
        self.tty = self.stream.isatty()
        self.phase, self.done, self.last, self.shown = None, None, 0.0, False

    def step(self, phase, done, total, note=""):
        now = time.monotonic()
        new_step = done != self.done
        due = phase != self.phase or (new_step and (total <= self.COARSE or done == total))
        if not due and now - self.last < (0.1 if self.tty else 5.0):
            return
        self.phase, self.done, self.last = phase, done, now
        line = f"{self.prog}: {phase} {done}/{total}" + (f": {note}" if note else "")
        if self.tty:
            self.stream.write("\r\033[K" + line)
            self.shown = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def end(self):
        if self.tty and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
        self.shown = False


def fail(prog, message):
    """Prints `prog: message` on stderr and exits with status 1."""
    print(f"{prog}: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def program(build, name):
    """Path of program `name` ("dungeon" or "dungeond") inside build directory `build`."""
    return os.path.join(build, PROGRAMS[name])


def require_build(prog, build, names=("dungeon", "dungeond")):
    """Absolute path of `build`, after checking it holds each program in `names`."""
    build = os.path.abspath(build)
    if not os.path.isdir(build):
        fail(prog, f"no build directory {build}")
    for name in names:
        if not os.access(program(build, name), os.X_OK):
            fail(prog, f"no {PROGRAMS[name]} in {build} (build it first)")
    return build


def require_tools(prog, *tools):
    """Exits with a message naming the first of `tools` not on PATH."""
    for tool in tools:
        if shutil.which(tool) is None:
            fail(prog, f"{tool} is required (deploy/install-deps.sh installs it)")


def require_at_least(prog, minimum, **counts):
    """Exits with a message for the first count below `minimum` (name as the --flag)."""
    for name, value in counts.items():
        if value < minimum:
            fail(prog, f"--{name.replace('_', '-')} must be at least {minimum} (got {value})")


def add_load_options(parser, rounds, rounds_help="rounds"):
    """The options of the scripts that measure several rates in rounds
    (compare.py, peers.py, floors.py): --rounds (default `rounds`),
    --seconds of wrk, --bench-seconds of dungeon bench, --connections, --json.
    check_load_options() then checks them."""
    parser.add_argument("--rounds", type=int, default=rounds,
                        help=f"{rounds_help} (default {rounds})")
    parser.add_argument("--seconds", type=int, default=3,
                        help="length of each wrk run in whole seconds (default 3)")
    parser.add_argument("--bench-seconds", type=float, default=0.2,
                        help="length of each of a generator's 5 timed runs (default 0.2)")
    parser.add_argument("--connections", type=int, default=64, help="wrk connections (64)")
    parser.add_argument("--json", action="store_true", help="one JSON object, no table")


def check_load_options(prog, args, **more_counts):
    """Exits with a message when a count of add_load_options (or one of
    `more_counts`, name=value) is below 1 or --bench-seconds is outside
    0.05-10."""
    require_at_least(prog, 1, rounds=args.rounds, seconds=args.seconds,
                     connections=args.connections, **more_counts)
    if not 0.05 <= args.bench_seconds <= 10:
        fail(prog, f"--bench-seconds must be from 0.05 to 10 (got {args.bench_seconds})")


def order(round_index, names):
    """`names` in order in even rounds, reversed in odd ones, so that a
    burst of other work on a shared machine does not land on one side only
    (A B, B A, A B, ...)."""
    return list(names) if round_index % 2 == 0 else list(reversed(names))


def interleaved(rounds, names):
    """(round, name) pairs of `rounds` rounds, each in order(round, names)."""
    for r in range(rounds):
        for name in order(r, names):
            yield r, name


def spread(values):
    """Median, min, max and quartiles of a non-empty list of numbers."""
    ordered = sorted(values)
    if len(ordered) >= 2:
        q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        q1 = q3 = ordered[0]
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1],
            "q1": q1, "q3": q3}


def significant(value, digits=4):
    """`value` rounded to `digits` significant figures: a rate of 14.43
    levels/s keeps its precision as well as one of 44,310, so a ratio
    recomputed from two reported rates agrees with the reported ratio."""
    return float(f"{value:.{digits}g}")


def rate_text(value):
    """A rate for a table: whole numbers from 100 up, three figures below."""
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


# A fixed lobby_seed_secret for A/B runs (not a deployment's): without one
# each daemon draws its own random key, so two builds would sign other
# level ids and give lobbies other seeds (docs/config.md, Seeds).
AB_SECRET = "5eed5eed5eed5eed5eed5eed5eed5eed"


def checkout_config(build):
    """The default configuration of the checkout `build` sits in (its
    config/dungeond.json), else this repository's: an older build refuses
    the keys a newer configuration adds."""
    candidate = os.path.join(os.path.dirname(os.path.abspath(build)), "config", "dungeond.json")
    return candidate if os.path.isfile(candidate) else CONFIG


def shared_secret_config(directory, build=None):
    """The default config of `build`'s checkout (checkout_config; this
    repository's without a build) plus AB_SECRET, written in `directory`;
    its path."""
    with open(checkout_config(build) if build is not None else CONFIG) as f:
        config = json.load(f)
    config["lobby_seed_secret"] = AB_SECRET
    name = "dungeond-ab.json" if build is None else f"dungeond-ab-{abs(hash(build)):x}.json"
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        json.dump(config, f)
    return path


class Daemon:
    """A dungeond of one build on a free loopback port, run from the
    repository root (its checkout's default config, its log on stderr to a file)."""

    def __init__(self, prog, build, log_path, config=None):
        config = config if config is not None else checkout_config(build)
        self.prog = prog
        self.log_path = log_path
        binary = program(build, "dungeond")
        with open(log_path, "w") as log:
            self.proc = subprocess.Popen([binary, "--config", config, "--listen", "127.0.0.1:0"],
                                         cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
        self.port = None
        for _ in range(400):
            with open(log_path) as f:
                m = re.search(r'"port":(\d+)', f.read())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.proc.kill()
        self.proc.wait()
        fail(prog, f"{binary} did not start; see {log_path}")

    def stop(self):
        """Terminates the daemon; exits with a message unless it stopped cleanly."""
        self.proc.terminate()
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = "no exit within 60 s"
        if code != 0:
            fail(self.prog, f"dungeond exited {code}; see {self.log_path}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def process_cpu_seconds(pid):
    """User plus system CPU seconds of process `pid` so far, its exited
    threads included (/proc/PID/stat, in clock ticks: 10 ms steps)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def startup_times(prog, build):
    """One start of `build`'s dungeond with its checkout's default config
    (the shipped room sets loaded), on a free loopback port, to its start-up
    line ("port"): {"seconds": wall seconds from exec, "cpu_seconds": CPU
    seconds of every thread of the daemon, read from /proc at that line}.
    The daemon is then stopped and must exit 0."""
    binary = program(build, "dungeond")
    started = time.monotonic()
    proc = subprocess.Popen([binary, "--config", checkout_config(build), "--listen",
                             "127.0.0.1:0"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    seconds = cpu = None
    for line in proc.stderr:
        if '"port"' in line:
            seconds = time.monotonic() - started
            cpu = process_cpu_seconds(proc.pid)
            break
    proc.terminate()
    try:
        proc.stderr.read()
        code = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = "no exit within 60 s"
    if seconds is None or code != 0:
        fail(prog, f"{binary} did not start and stop cleanly (exit {code})")
    return {"seconds": seconds, "cpu_seconds": cpu}


def startup_seconds(prog, build):
    """Wall seconds from exec to the start-up line (see startup_times)."""
    return startup_times(prog, build)["seconds"]


def parse_wrk(text):
    """requests/s, p50/p99 latency in ms and errors (non-2xx/3xx answers plus
    socket errors) from the output of `wrk --latency`."""
    def ms(label):
        m = re.search(r"^\s*%s%%\s+([\d.]+)(us|ms|s)\s*$" % label, text, re.M)
        return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)] if m else None
    rate = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if rate is None:
        raise ValueError("no Requests/sec in wrk's output:\n" + text)
    errors = 0
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    if m:
        errors += int(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        errors += sum(int(x) for x in m.groups())
    return {"requests_per_s": float(rate.group(1)), "p50_ms": ms("50"), "p99_ms": ms("99"),
            "errors": errors}


def wrk(port, path, seconds, connections, script=None):
    """One wrk run (2 threads, `connections`, `seconds`) on http://127.0.0.1:port/path,
    with the Lua `script` if given; its parse_wrk() figures."""
    cmd = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if script is not None:
        cmd += ["-s", script]
    out = subprocess.run(cmd + [f"http://127.0.0.1:{port}{path}"], capture_output=True,
                         text=True, check=True).stdout
    return parse_wrk(out)


def cli_bench(build, algorithm, params=None, seconds=0.2, runs=5, compare=False):
    """`dungeon bench --json` of `build` for `algorithm` with `params` (a dict),
    with the placement comparison (its rates in thread CPU time) only when
    `compare`; the parsed JSON object."""
    cmd = [program(build, "dungeon"), "bench", "--algorithm", algorithm, "--seconds",
           str(seconds), "--runs", str(runs), "--json"] + ([] if compare else ["--no-compare"])
    for name, value in (params or {}).items():
        cmd += ["--param", f"{name}={value}"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def _call(conn, method, path, body=None):
    conn.request(method, path, body=json.dumps(body) if body is not None else None)
    response = conn.getresponse()
    return response.status, response.getheader("X-Pregen"), response.read()


def lobby_start_hits(port, count, prefix, timeout=60):
    """Fills `count` lobbies of four players, waits until each has its level
    pre-generated, then starts them one after another from one keep-alive
    connection (the client-side cost of a hit, nothing else running) and
    deletes them. Returns {"starts_per_s" (1 / the median start), "p50_ms",
    "total_s", "hits", "misses"}."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    names = [f"{prefix}-{i}" for i in range(count)]
    try:
        for name in names:
            for player in range(4):
                _call(conn, "PUT", f"/v1/lobbies/{name}/players/p{player}", {"level": 10 + player})
        pending, deadline = set(names), time.monotonic() + timeout
        while pending and time.monotonic() < deadline:
            for name in sorted(pending):
                status, _, data = _call(conn, "GET", f"/v1/lobbies/{name}")
                if status == 200 and json.loads(data).get("pregen") == "ready":
                    pending.discard(name)
            time.sleep(0.005)
        latencies, misses = [], 0
        begin = time.perf_counter()
        for name in names:
            start = time.perf_counter()
            status, pregen, _ = _call(conn, "POST", f"/v1/lobbies/{name}/start")
            latencies.append((time.perf_counter() - start) * 1000)
            if status != 200 or pregen != "hit":
                misses += 1
        elapsed = time.perf_counter() - begin
        for name in names:
            _call(conn, "DELETE", f"/v1/lobbies/{name}")
    finally:
        conn.close()
    p50 = statistics.median(latencies)
    # The rate of the median start, not of the total: one start delayed by
    # other work on a shared machine moves a mean, hardly a median.
    return {"starts_per_s": 1000 / p50, "p50_ms": p50, "total_s": elapsed,
            "hits": count - misses, "misses": misses}


def post_level(port, body):
    """The body of POST /v1/levels with `body` (a dict) on the daemon at `port`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        status, _, data = _call(conn, "POST", "/v1/levels", body)
    finally:
        conn.close()
    if status != 200:
        raise RuntimeError(f"POST /v1/levels {body} answered {status}: {data[:200]!r}")
    return data


def scratch(prefix):
    """A new temporary directory for a run's logs and files."""
    return tempfile.mkdtemp(prefix=prefix)


def table(headers, rows):
    """Lines of a plain text table: the first column left-aligned, the rest right."""
    cells = [headers] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(parts).rstrip())
    return lines
