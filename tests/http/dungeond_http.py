#!/usr/bin/env python3
"""HTTP tests of dungeond: start the real daemon on a free loopback port,
speak real HTTP to it, stop it with SIGTERM and check it exits 0.

Usage: dungeond_http.py PATH/TO/dungeond [--only NAME]
Prints TAP (meson runs it with protocol 'tap', suite 'http'). Python 3
standard library only.
"""
import ctypes
import http.client
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

DAEMON = None
RESULTS = []
SAFE_MAX = 2**53 - 1
# The "slow" job: long enough to be in flight when a test signals, cancels or
# promotes it. An authored dungeon of 3000 rooms is about 0.9 s of work in a
# release build on the development machine (several seconds under ASan),
# with a body of ~4 MB (no grid). A classic 1000x1000 map, the heaviest the
# default grid limit allows, takes only ~0.15 s now: too short to be sure a
# test sees it running. Its cycle-search limits are pinned to the values
# this was measured with (issue 14 raised the defaults, which made it about
# 2.5 times longer: past drain_timeout_ms under load).
SLOW = {"algorithm": "authored", "seed": 7, "deadline_ms": 60000,
        "params": {"rooms": 3000, "grid": False, "stall_cutoff": 64, "failures_max": 2}}
# Lobby jobs run under the lobby's deadline_ms too (issue 12), so the slow
# lobby asks for the same generous one as SLOW.
SLOW_LOBBY = {"algorithm": SLOW["algorithm"], "params": SLOW["params"],
              "deadline_ms": SLOW["deadline_ms"]}


class Daemon:
    """One dungeond process with a config derived from the repository's."""

    # Subclasses with their own __init__ (hardening_http.py) listen on
    # IPv4 loopback and do not set it.
    host = "127.0.0.1"

    def __init__(self, limits=None, workers=2, extra=None, host="127.0.0.1"):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "..", "config", "dungeond.json")) as f:
            config = json.load(f)
        config["workers"] = workers
        config["limits"].update(limits or {})
        # Tests run from the build directory: name the room sets and the
        # content tables absolutely.
        config["roomsets_dir"] = os.path.join(here, "..", "..", "config", "roomsets")
        config["tables_dir"] = os.path.join(here, "..", "..", "config", "tables")
        config.update(extra or {})
        self.dir = tempfile.mkdtemp(prefix="dungeond-test-")
        self.config_path = os.path.join(self.dir, "dungeond.json")
        with open(self.config_path, "w") as f:
            json.dump(config, f)
        self.proc = subprocess.Popen(
            [DAEMON, "--config", self.config_path, "--listen",
             f"[{host}]:0" if ":" in host else f"{host}:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        first = self.proc.stderr.readline()
        match = re.search(r'"port":(\d+)', first)
        if not match:
            self.proc.kill()
            raise RuntimeError("daemon did not start: " + first + self.proc.stderr.read())
        self.port = int(match.group(1))
        self.host = host
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line)

    def connection(self, timeout=120):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None):
        """One request; returns (status, headers dict lower-case, body bytes)."""
        own = conn is None
        conn = conn or self.connection()
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        result = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        if own:
            conn.close()
        return result

    def stats(self):
        return json.loads(self.request("GET", "/v1/stats")[2])

    def wait_for(self, predicate, seconds=60):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if predicate(self.stats()):
                return True
            time.sleep(0.01)
        return False

    def stop(self, sig=signal.SIGTERM, timeout=120):
        """Sends `sig` (None: it was sent already) and waits for the exit."""
        if sig is not None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = "timeout"
        self.reader.join(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)
        return code

    def sanitizer_reports(self):
        return [l for l in self.lines if "Sanitizer" in l or "runtime error" in l]


class SkipTest(Exception):
    """Raised by a test that cannot run here; reported as a TAP SKIP."""


class Tap:
    """Numbers TAP results; `failed` counts the tests that did not pass."""

    def __init__(self):
        self.number = 0
        self.failed = 0
        fit_slow_to_build()

    def report(self, name, fn, *args):
        self.number += 1
        started = time.monotonic()
        try:
            fn(*args)
            print(f"ok {self.number} - {name}", flush=True)
        except SkipTest as e:
            print(f"ok {self.number} - {name} # SKIP {e}", flush=True)
        except Exception as e:  # a failed check or an unexpected error
            self.fail(name, str(e).splitlines() or [repr(e)], counted=True)
        # A TAP comment: the log then shows where a suite's minutes go.
        print(f"# {time.monotonic() - started:.2f} s", flush=True)

    def fail(self, name, lines=(), counted=False):
        """A failed result; `counted`: its number was already taken."""
        if not counted:
            self.number += 1
        self.failed += 1
        # Also on stderr: meson's --print-errorlogs shows a failed test's
        # stderr, and CI's log is all a failure leaves behind.
        for stream in (sys.stdout, sys.stderr):
            print(f"not ok {self.number} - {name}", file=stream, flush=True)
            for line in lines:
                print(f"# {line}", file=stream, flush=True)


def run_tests(tests, argv):
    """The main of a test file: `tests` is a list of (name, fn); argv is
    [script, PATH/TO/dungeond, optionally --only TEXT]. Prints the TAP plan
    and results; returns the exit status."""
    global DAEMON
    DAEMON = os.path.abspath(argv[1])
    only = argv[3] if len(argv) > 3 and argv[2] == "--only" else None
    print(f"1..{len(tests)}", flush=True)
    tap = Tap()
    for name, fn in tests:
        if only and only not in name:
            tap.number += 1
            print(f"ok {tap.number} - {name} # SKIP not selected", flush=True)
            continue
        tap.report(name, fn)
    return 1 if tap.failed else 0


def run_plan(tests):
    """Runs (name, fn, *args) entries in order as one TAP plan; returns the
    exit status."""
    print(f"1..{len(tests)}", flush=True)
    tap = Tap()
    for name, fn, *args in tests:
        tap.report(name, fn, *args)
    return 1 if tap.failed else 0


def fit_slow_to_build():
    """SLOW with a third of its rooms when DAEMON is a sanitizer build.
    There, 1,000 rooms still take longer than 3,000 in a release build (about
    3 s against 1 s on the development machine), so SLOW stays in flight as
    long as its tests need, and CI's sanitizer leg saves about a minute of
    tests that run alone. Called once DAEMON is set (Tap does); SLOW_LOBBY
    shares SLOW's params."""
    if DAEMON and os.path.isfile(DAEMON) and sanitized():
        SLOW["params"]["rooms"] = 1000


def release_leg_only(what):
    """Skips a subtest that runs no code of this build (a peer tool over the
    repository's files) when DAEMON is a sanitizer build: the release build's
    run of the suite has checked it, and the sanitizers have nothing of ours
    to watch there."""
    if DAEMON and os.path.isfile(DAEMON) and sanitized():
        raise SkipTest(f"{what} runs no code of this build; the release build's run checks it")


def sanitized():
    """Whether the daemon under test is an AddressSanitizer build (it links
    libasan): its timings are several times a release build's."""
    with open(DAEMON, "rb") as f:
        return b"libasan.so" in f.read()


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def test(name):
    def wrap(fn):
        RESULTS.append((name, fn))
        return fn
    return wrap


def problem(status, headers, body, expected, field=None):
    check(status == expected, f"status {status}, expected {expected}: {body[:300]!r}")
    check(headers.get("content-type") == "application/problem+json",
          f"content-type {headers.get('content-type')}")
    doc = json.loads(body)
    for key in ("type", "title", "status", "detail"):
        check(key in doc, f"problem lacks {key}: {doc}")
    check(doc["status"] == expected, f"problem status {doc['status']}")
    check("x-request-id" in headers, "no X-Request-Id")
    if field is not None:
        check(isinstance(doc.get("errors"), list) and doc["errors"], f"no errors[]: {doc}")
        check(doc["errors"][0]["field"] == field,
              f"errors[0].field {doc['errors'][0]['field']!r}, expected {field!r}")
        check(doc["errors"][0]["message"], "empty message")
    return doc


CLASSIC = {"algorithm": "classic", "seed": 42}

# ---------------------------------------------------------------- main daemon
MAIN = {}


@test("health endpoints")
def _(d):
    for path in ("/livez", "/healthz"):
        status, headers, body = d.request("GET", path)
        check(status == 200 and json.loads(body) == {"status": "ok"}, f"{path}: {status} {body}")
    status, _, body = d.request("GET", "/readyz")
    check(status == 200 and json.loads(body)["status"] == "ready", f"readyz {status} {body}")


@test("GET /v1/algorithms lists classic with its parameter table")
def _(d):
    status, headers, body = d.request("GET", "/v1/algorithms")
    check(status == 200 and headers["content-type"] == "application/json", f"{status}")
    algorithms = json.loads(body)
    classic = [a for a in algorithms if a["name"] == "classic"]
    check(classic, "classic missing")
    names = [p["name"] for p in classic[0]["params"]]
    check("width" in names and "height" in names, f"params {names}")


@test("POST /v1/levels answers a level with timings and request id")
def _(d):
    status, headers, body = d.request("POST", "/v1/levels", CLASSIC,
                                      {"X-Request-Id": "test-req-1"})
    check(status == 200, f"status {status} {body[:200]!r}")
    check(headers["content-type"] == "application/json", headers["content-type"])
    check(headers.get("x-request-id") == "test-req-1", f"request id {headers.get('x-request-id')}")
    timing = headers.get("server-timing", "")
    check(re.search(r"queue;dur=[\d.]+, gen;dur=[\d.]+, ser;dur=[\d.]+", timing), timing)
    level = json.loads(body)
    check(level["format"] == "dungeond.level/1", level.get("format"))
    check(level["seed"] == 42 and level["algorithm"] == "classic", "seed/algorithm")
    check(level["grid"]["width"] == 80 and len(level["grid"]["rows"]) == 21, "grid size")
    status, headers, _ = d.request("POST", "/v1/levels", CLASSIC, {"X-Request-Id": "bad id!"})
    check(status == 200 and re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{12}", headers["x-request-id"]),
          f"made id {headers.get('x-request-id')}")


@test("same request and seed give byte-identical levels")
def _(d):
    bodies = {d.request("POST", "/v1/levels", CLASSIC)[2] for _ in range(3)}
    check(len(bodies) == 1, "levels differ")


@test("a request without seed gets one <= 2^53-1, reported and reproducible")
def _(d):
    status, _, body = d.request("POST", "/v1/levels", {"algorithm": "classic"})
    check(status == 200, f"status {status}")
    seed = json.loads(body)["seed"]
    check(isinstance(seed, int) and 0 <= seed <= SAFE_MAX, f"seed {seed}")
    again = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": seed})[2]
    check(again == body, "the reported seed does not reproduce the level")
    other = json.loads(d.request("POST", "/v1/levels", {"algorithm": "classic"})[2])["seed"]
    check(other != seed, "two requests got the same chosen seed")


@test("Accept: text/plain gives the ASCII map; unknown Accept gives 406")
def _(d):
    status, headers, body = d.request("POST", "/v1/levels", CLASSIC, {"Accept": "text/plain"})
    check(status == 200 and headers["content-type"].startswith("text/plain"), f"{status}")
    rows = body.decode().split("\n")
    check(rows[-1] == "" and len(rows) == 22 and all(len(r) == 80 for r in rows[:-1]),
          f"ascii shape {len(rows)}")
    level = json.loads(d.request("POST", "/v1/levels", CLASSIC)[2])
    check(rows[:-1] == level["grid"]["rows"], "ascii differs from the JSON grid")
    status, headers, body = d.request("POST", "/v1/levels", CLASSIC, {"Accept": "image/png"})
    problem(status, headers, body, 406)


@test("400: malformed JSON and empty body")
def _(d):
    problem(*d.request("POST", "/v1/levels", "{bad"), 400)
    problem(*d.request("POST", "/v1/levels", ""), 400)
    problem(*d.request("POST", "/v1/levels", "[1,2]"), 400)


@test("422: unknown algorithm, member, parameter, value out of range")
def _(d):
    doc = problem(*d.request("POST", "/v1/levels", {"algorithm": "nope"}), 422, "algorithm")
    check("classic" in doc["errors"][0]["message"], "known algorithms not listed")
    problem(*d.request("POST", "/v1/levels", {"algorithm": "classic", "colour": 1}), 422,
            "colour")
    problem(*d.request("POST", "/v1/levels", {"algorithm": "classic", "params": {"wdth": 9}}),
            422, "params.wdth")
    doc = problem(*d.request("POST", "/v1/levels",
                             {"algorithm": "classic", "params": {"width": 5}}), 422,
                  "params.width")
    check("20" in doc["errors"][0]["message"] and "1000" in doc["errors"][0]["message"],
          "range not named")
    problem(*d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": -1}), 422, "seed")
    problem(*d.request("POST", "/v1/levels", {"algorithm": "classic", "deadline_ms": 0}), 422,
            "deadline_ms")
    problem(*d.request("POST", "/v1/levels",
                       {"algorithm": "classic", "params": {"rooms_min": 9, "rooms_max": 3}}),
            422, "params.rooms_min")


@test("422: configured limits (grid cells, rooms)")
def _(d):
    doc = problem(*d.request("POST", "/v1/levels",
                             {"algorithm": "classic",
                              "params": {"width": 600, "height": 600}}), 422, "params.width")
    check("grid_cells_max" in doc["detail"], doc["detail"])
    problem(*d.request("POST", "/v1/levels",
                       {"algorithm": "classic", "params": {"rooms_min": 1, "rooms_max": 900}}),
            422, "params.rooms_max")


@test("every algorithm's default request works under limits.rooms_max; asked-for rooms above it are 422")
def _(d):
    # landmark's default rooms_max (20000, no cap) is above this daemon's 500:
    # the default is lowered to the limit and echoed, not refused.
    for algorithm in ("classic", "landmark", "nonlinear", "authored"):
        status, _, body = d.request("POST", "/v1/levels", {"algorithm": algorithm, "seed": 3})
        check(status == 200, f"{algorithm}: {status} {body[:300]}")
    level = json.loads(d.request("POST", "/v1/levels", {"algorithm": "landmark", "seed": 3})[2])
    check(level["params"]["rooms_max"] == 500, f"landmark rooms_max {level['params']['rooms_max']}")
    problem(*d.request("POST", "/v1/levels",
                       {"algorithm": "landmark", "params": {"rooms_max": 501}}),
            422, "params.rooms_max")
    # The same request through a lobby: the pre-generated level is the capped one.
    status, _, body = d.request("PUT", "/v1/lobbies/landmark-default", {"algorithm": "landmark"})
    check(status in (200, 201), f"lobby settings {status} {body[:300]}")
    d.request("DELETE", "/v1/lobbies/landmark-default")


@test("413: body larger than limits.body_bytes_max")
def _(d):
    big = json.dumps({"algorithm": "classic", "params": {}, "pad": "x" * 5000})
    problem(*d.request("POST", "/v1/levels", big), 413)
    # The daemon still serves afterwards.
    check(d.request("GET", "/livez")[0] == 200, "daemon unhealthy after 413")


@test("404 unknown route, 405 wrong method with Allow")
def _(d):
    problem(*d.request("GET", "/v2/levels"), 404)
    status, headers, body = d.request("DELETE", "/v1/levels")
    problem(status, headers, body, 405)
    check(headers.get("allow") == "GET, HEAD, POST", f"Allow {headers.get('allow')}")
    status, headers, body = d.request("DELETE", "/v1/stats")
    problem(status, headers, body, 405)
    check(headers.get("allow") == "GET, HEAD", f"Allow {headers.get('allow')}")


@test("profiles derive parameters from players; explicit params win")
def _(d):
    players = [{"level": 10}, {"level": 20}, {"level": 30}, {"level": 40}]
    body = d.request("POST", "/v1/levels",
                     {"algorithm": "classic", "seed": 3, "players": players})[2]
    params = json.loads(body)["params"]
    # party: width 60+10n, height 18+2n, rooms_min 4+1.5n, rooms_max 7+2n,
    # closet_chance 0.3-0.01*mean(level), secret_door_chance 0.05+0.005*max(level)
    check(params["width"] == 100 and params["height"] == 26, f"size {params}")
    check(params["rooms_min"] == 10 and params["rooms_max"] == 15, f"rooms {params}")
    check(abs(params["closet_chance"] - 0.05) < 1e-9, f"closet {params['closet_chance']}")
    check(abs(params["secret_door_chance"] - 0.25) < 1e-9, f"secret {params}")
    body = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 3,
                                            "players": players, "params": {"width": 90}})[2]
    params = json.loads(body)["params"]
    check(params["width"] == 90 and params["height"] == 26, f"explicit {params}")
    crowd = [{"level": 1}] * 40
    params = json.loads(d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 3,
                                                         "players": crowd})[2])["params"]
    check(params["width"] == 160 and params["rooms_max"] == 40, f"clamps {params}")
    params = json.loads(d.request("POST", "/v1/levels",
                                  {"algorithm": "classic", "seed": 3, "profile": "solo",
                                   "players": [{"level": 10}]})[2])["params"]
    check(params["rooms_max"] == 8 and params["width"] == 80, f"solo {params}")
    problem(*d.request("POST", "/v1/levels", {"algorithm": "classic", "profile": "zzz"}), 422,
            "profile")
    problem(*d.request("POST", "/v1/levels", {"algorithm": "classic", "players": [1]}), 422,
            "players[0]")
    problem(*d.request("POST", "/v1/levels",
                       {"algorithm": "classic", "players": [{"level": "x"}]}), 422, "players[0]")
    problem(*d.request("POST", "/v1/levels",
                       {"algorithm": "classic", "players": [{}] * 65}), 422, "players")


@test("keep-alive: many requests on one connection")
def _(d):
    conn = d.connection()
    conn.connect()
    sock = conn.sock
    for i in range(20):
        status, _, _ = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": i},
                                 conn=conn)
        check(status == 200, f"request {i}: {status}")
        check(conn.sock is sock, "connection was not kept alive")
    conn.close()


@test("64 concurrent requests all succeed")
def _(d):
    results = [None] * 64

    def one(i):
        try:
            status, _, body = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": i})
            results[i] = (status, json.loads(body)["seed"])
        except Exception as e:  # reported below
            results[i] = (repr(e), None)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = [(i, r) for i, r in enumerate(results) if r != (200, i)]
    check(not bad, f"failed: {bad[:5]}")


@test("GET /v1/stats reports requests, algorithms, queues and workers")
def _(d):
    stats = d.stats()
    check(stats["requests"]["total"] > 50, f"total {stats['requests']['total']}")
    check(stats["requests"]["by_status"].get("200", 0) > 50, "200s not counted")
    check(stats["requests"]["by_status"].get("422", 0) >= 10, "422s not counted")
    classic = stats["algorithms"]["classic"]
    check(classic["requests"] > 50 and classic["outcomes"]["client_error"] >= 10,
          f"classic {classic}")
    latency = classic["latency_ms"]
    check(0 < latency["p50"] <= latency["p90"] <= latency["p99"], f"latency {latency}")
    check(stats["queues"]["interactive"]["max"] == 1024, f"queues {stats['queues']}")
    workers = dict(stats["workers"])
    pauses, paused_ms = workers.pop("pauses"), workers.pop("paused_ms")
    check(workers == {"total": 2, "busy": 0, "speculative_busy": 0,
                      "speculative_priority": "idle", "speculative_reruns": 0,
                      "heavy_priority": "lowered",
                      "time_slices": "custom" if kernel_custom_slices() else "refused"},
          f"workers {stats['workers']}")
    check(isinstance(pauses, int) and isinstance(paused_ms, int) and pauses >= 0 and
          paused_ms >= 0, f"workers {stats['workers']}")
    check(stats["rejections"]["too_large"] == 1, f"rejections {stats['rejections']}")


@test("GET /metrics is Prometheus text that promtool accepts")
def _(d):
    status, headers, body = d.request("GET", "/metrics")
    check(status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4"),
          headers.get("content-type"))
    text = body.decode()
    for needle in ('dungeond_build_info{version="', "dungeond_http_requests_total{code=\"200\"}",
                   "dungeond_generation_duration_seconds_bucket{algorithm=\"classic\",le=\"+Inf\"}",
                   "dungeond_http_request_duration_seconds_count", "dungeond_queue_depth",
                   "dungeond_workers_busy"):
        check(needle in text, f"missing {needle}")
    promtool = shutil.which("promtool")
    if promtool is None:
        raise SkipTest("promtool not installed (Debian package prometheus)")
    run = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True)
    check(run.returncode == 0, f"promtool: {run.stdout.decode()} {run.stderr.decode()}")


@test("one JSON log line per request with the documented fields")
def _(d):
    d.request("POST", "/v1/levels", CLASSIC, {"X-Request-Id": "log-probe"})
    time.sleep(0.1)
    lines = [json.loads(l) for l in d.lines if '"log-probe"' in l]
    check(len(lines) == 1, f"{len(lines)} lines for one request")
    line = lines[0]
    for key in ("time", "request_id", "method", "path", "status", "total_ms", "queue_ms",
                "generation_ms", "algorithm"):
        check(key in line, f"log line lacks {key}: {line}")
    check(line["status"] == 200 and line["path"] == "/v1/levels", f"{line}")


# ------------------------------------------------------- one-worker daemon
@test("[1 worker] deadline passed during generation gives 504")
def _(d):
    slow = dict(SLOW, deadline_ms=1)
    problem(*d.request("POST", "/v1/levels", slow), 504, "deadline_ms")


@test("[1 worker] deadline passed in the queue gives 504; full queue gives 503 + Retry-After")
def _(d):
    results = {}

    def run(key):
        results[key] = d.request("POST", "/v1/levels", SLOW)[0]

    a = threading.Thread(target=run, args=("a",))
    a.start()
    check(d.wait_for(lambda s: s["workers"]["busy"] == 1), "slow job never started")
    start = time.monotonic()
    problem(*d.request("POST", "/v1/levels", dict(CLASSIC, deadline_ms=50)), 504, "deadline_ms")
    check(time.monotonic() - start < 2.0, "504 came late: the queue sweep did not expire it")
    b = threading.Thread(target=run, args=("b",))
    b.start()
    check(d.wait_for(lambda s: s["queues"]["interactive"]["depth"] == 1), "b never queued")
    status, headers, body = d.request("POST", "/v1/levels", CLASSIC)
    problem(status, headers, body, 503)
    check(headers.get("retry-after") == "1", f"Retry-After {headers.get('retry-after')}")
    a.join()
    b.join()
    check(results == {"a": 200, "b": 200}, f"slow jobs {results}")
    stats = d.stats()
    check(stats["rejections"]["queue_full"] == 1 and stats["rejections"]["deadline_exceeded"] == 2,
          f"rejections {stats['rejections']}")


@test("[1 worker] a queued job whose client went away is dropped")
def _(d):
    results = {}

    def run():
        results["a"] = d.request("POST", "/v1/levels", SLOW)[0]

    a = threading.Thread(target=run)
    a.start()
    check(d.wait_for(lambda s: s["workers"]["busy"] == 1), "slow job never started")
    conn = d.connection()
    conn.request("POST", "/v1/levels", body=json.dumps(SLOW))
    check(d.wait_for(lambda s: s["queues"]["interactive"]["depth"] == 1), "never queued")
    # A client that is gone for good: closed with a reset (SO_LINGER 0). A
    # plain close cannot be told from a half-close, whose client still
    # reads its answer (issue 12 item 7); such a job is bounded by its
    # deadline instead.
    conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()
    a.join()
    check(d.wait_for(lambda s: s["rejections"]["clients_gone"] == 1 and
                     s["workers"]["busy"] == 0, 30), f"not dropped: {d.stats()['rejections']}")


# ------------------------------------------------------------------ lobbies
# Every request of these tests comes from one address, which stands for
# many clients: client_workers_max lets it use both workers (issue 24).
LOBBY_LIMITS = {"lobby_debounce_ms": 30, "lobby_idle_ttl_ms": 1500, "lobby_grace_ms": 1000,
                "speculative_reserved_workers": 1, "lobby_players_max": 8,
                "client_workers_max": 2}


def lobby_get(d, lobby):
    status, _, body = d.request("GET", f"/v1/lobbies/{lobby}")
    return status, (json.loads(body) if body else None)


def wait_pregen(d, lobby, state, seconds=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        status, doc = lobby_get(d, lobby)
        if status == 200 and doc["pregen"] == state:
            return doc
        time.sleep(0.01)
    raise AssertionError(f"{lobby} never reached {state}: {lobby_get(d, lobby)}")


def direct(d, doc):
    eff = doc["effective"]
    # The slow lobby's level takes seconds under a sanitizer: a generous
    # deadline, as the lobby has.
    return d.request("POST", "/v1/levels", {"algorithm": eff["algorithm"], "seed": eff["seed"],
                                            "params": eff["params"], "players": eff["players"],
                                            "deadline_ms": 60000})[2]


@test("[lobby] four joins, then start is a hit, byte-identical to the direct request")
def _(d):
    jobs_before = d.stats()["lobbies"]["jobs"]
    conn = d.connection()
    began = time.monotonic()
    for i, level in enumerate((10, 20, 30, 40)):
        status, _, _ = d.request("PUT", f"/v1/lobbies/hit/players/p{i}", {"level": level},
                                 conn=conn)
        check(status in (200, 201), f"join {i}: {status}")
    burst_s = time.monotonic() - began
    conn.close()
    doc = wait_pregen(d, "hit", "ready")
    if burst_s < 0.025:  # inside lobby_debounce_ms (30): the burst makes one job
        jobs = d.stats()["lobbies"]["jobs"] - jobs_before
        check(jobs == 1, f"{jobs} jobs for a burst of joins within the debounce")
    check(doc["effective"]["params"]["width"] == 100, f"profile not applied: {doc['effective']}")
    check(len(doc["players"]) == 4 and doc["seed"] == doc["effective"]["seed"], f"{doc}")
    start = time.monotonic()
    status, headers, body = d.request("POST", "/v1/lobbies/hit/start")
    elapsed = time.monotonic() - start
    check(status == 200 and headers.get("x-pregen") == "hit", f"{status} {headers}")
    check(body == direct(d, doc), "pre-generated level differs from the direct request")
    status, headers, again = d.request("POST", "/v1/lobbies/hit/start")
    check(status == 200 and again == body, "second start differs")
    check(elapsed < 1.0, f"hit took {elapsed}s")
    status, _, _ = d.request("PUT", "/v1/lobbies/hit/players/late", {"level": 1})
    check(status == 409, f"join after start: {status}")
    status, _, _ = d.request("DELETE", "/v1/lobbies/hit/players/p0")
    check(status == 409, f"leave after start: {status}")
    check(d.request("POST", "/v1/lobbies/hit/start")[2] == body, "start after a refused leave")


@test("[lobby] join then immediate start is a wait with the same bytes")
def _(d):
    settings = SLOW_LOBBY
    check(d.request("PUT", "/v1/lobbies/wait", settings)[0] == 201, "create")
    d.request("PUT", "/v1/lobbies/wait/players/a", {"level": 5})
    status, headers, body = d.request("POST", "/v1/lobbies/wait/start")
    check(status == 200 and headers.get("x-pregen") == "wait", f"{status} {headers}")
    _, doc = lobby_get(d, "wait")
    check(body == direct(d, doc), "waited level differs from the direct request")


@test("[lobby] a join after ready regenerates; a leave recomputes; duplicate joins count once")
def _(d):
    d.request("PUT", "/v1/lobbies/churn/players/a", {"level": 1})
    d.request("PUT", "/v1/lobbies/churn/players/a", {"level": 1})
    first = wait_pregen(d, "churn", "ready")
    check(len(first["players"]) == 1, f"duplicate join: {first['players']}")
    jobs = d.stats()["lobbies"]["jobs"]
    d.request("PUT", "/v1/lobbies/churn/players/b", {"level": 1})
    second = wait_pregen(d, "churn", "ready")
    check(second["effective"]["params"]["width"] == first["effective"]["params"]["width"] + 10,
          "join did not change the effective request")
    check(d.stats()["lobbies"]["jobs"] > jobs, "no new job after the join")
    status, _, body = d.request("DELETE", "/v1/lobbies/churn/players/b")
    check(status == 200 and json.loads(body)["effective"] == first["effective"], "leave")
    problem(*d.request("DELETE", "/v1/lobbies/churn/players/zz"), 404)


def kernel_custom_slices():
    """Whether this kernel applies a thread's requested time slice
    (sched_setattr's sched_runtime for SCHED_OTHER, Linux 6.12+), probed on
    a throwaway thread of this process, read back from /proc."""
    found = []

    def probe():
        libc = ctypes.CDLL(None, use_errno=True)
        nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        attr = struct.pack("=IIQiIQQQ", 48, 0, 0, nice, 0, 250000, 0, 0)
        if libc.syscall(314, 0, ctypes.c_char_p(attr), 0) == 0:  # SYS_sched_setattr, x86-64
            with open("/proc/thread-self/sched") as f:
                found.append(re.search(r"se\.slice\s*:\s*250000\n", f.read()) is not None)
    t = threading.Thread(target=probe)
    t.start()
    t.join()
    return bool(found and found[0])


def thread_files(d, *names):
    """{thread id: [contents of /proc/PID/task/TID/NAME for each name]} of the
    daemon's threads; a thread that ended meanwhile is left out."""
    found = {}
    task_dir = f"/proc/{d.proc.pid}/task"
    for tid in os.listdir(task_dir):
        try:
            contents = []
            for name in names:
                with open(f"{task_dir}/{tid}/{name}") as f:
                    contents.append(f.read())
        except FileNotFoundError:
            continue
        found[tid] = contents
    return found


def stat_fields(stat):
    """The fields of a /proc stat line, numbered as proc(5) does from 3 on."""
    return [None, None, None] + stat.rsplit(")", 1)[1].split()


def idle_threads(d):
    """Threads of the daemon under SCHED_IDLE (policy 5, /proc stat field 41)."""
    return [tid for tid, (stat,) in thread_files(d, "stat").items()
            if int(stat_fields(stat)[41]) == 5]


def thread_table(d):
    """{thread id: (nice, CPU ticks used)} of the daemon, from /proc stat
    (fields 19 and 14 + 15)."""
    table = {}
    for tid, (stat,) in thread_files(d, "stat").items():
        fields = stat_fields(stat)
        table[tid] = (int(fields[19]), int(fields[14]) + int(fields[15]))
    return table


@test("[lobby] heavy maps run on threads lowered to nice 10, light ones never do")
def _(d):
    check(d.stats()["workers"]["heavy_priority"] == "lowered", f"{d.stats()['workers']}")
    lowered = [tid for tid, (nice, _) in thread_table(d).items() if nice == 10]
    check(len(lowered) == 2, f"{len(lowered)} threads at nice 10, expected one per worker")

    def lowered_ticks():
        table = thread_table(d)
        return sum(table[tid][1] for tid in lowered if tid in table)

    before = lowered_ticks()
    for seed in range(60):
        status, _, _ = d.request("POST", "/v1/levels", {"algorithm": "landmark", "seed": seed,
                                                         "params": {"width": 100, "height": 100}})
        check(status == 200, f"light request {status}")
    light = lowered_ticks() - before
    heavy_doc = {"algorithm": "landmark", "params": {"width": 600, "height": 600}}
    for seed in range(4):
        status, _, _ = d.request("POST", "/v1/levels", dict(heavy_doc, seed=seed))
        check(status == 200, f"heavy request {status}")
    heavy = lowered_ticks() - before - light
    # A tick is 10 ms: 60 light maps on the lowered threads would show; four
    # 600x600 maps (about 0.1 s of CPU each) must.
    check(light == 0, f"light maps ran on the lowered threads ({light} ticks)")
    check(heavy >= 5, f"heavy maps did not run on the lowered threads ({heavy} ticks)")


def metric_value(d, name):
    """The value of an unlabelled series in /metrics."""
    _, _, body = d.request("GET", "/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")


@test("[lobby] heavy maps pause while light requests run (limits.yield_percent), not otherwise")
def _(d):
    heavy_doc = {"algorithm": "landmark", "params": {"width": 600, "height": 600}}
    before = d.stats()["workers"]["pauses"]
    for seed in range(2):
        status, _, _ = d.request("POST", "/v1/levels", dict(heavy_doc, seed=seed))
        check(status == 200, f"heavy request {status}")
    check(d.stats()["workers"]["pauses"] == before,
          f"heavy maps alone paused: {d.stats()['workers']}")
    results = []

    def heavy():
        for seed in range(2, 5):
            results.append(d.request("POST", "/v1/levels", dict(heavy_doc, seed=seed))[0])

    thread = threading.Thread(target=heavy)
    thread.start()
    light = 0
    while thread.is_alive():
        status, _, _ = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": light})
        check(status == 200, f"light request {status}")
        light += 1
    thread.join()
    check(results == [200, 200, 200], f"heavy answers {results}")
    workers = d.stats()["workers"]
    check(workers["pauses"] > before, f"no pause in {light} light requests beside 3 heavy maps: "
          f"{workers}")
    check(metric_value(d, "dungeond_job_pauses_total") == workers["pauses"],
          "/metrics and /v1/stats disagree")
    check(metric_value(d, "dungeond_job_paused_seconds_total") * 1000 >= workers["paused_ms"],
          "paused seconds missing from /metrics")


@test("[lobby] a running speculative job takes no worker from interactive jobs; start raises it")
def _(d):
    d.request("PUT", "/v1/lobbies/idle-prio", SLOW_LOBBY)
    wait_pregen(d, "idle-prio", "running")
    workers = d.stats()["workers"]
    check(workers["speculative_busy"] == 1, f"{workers}")
    idle = workers["speculative_priority"] == "idle"
    if idle:
        check(len(idle_threads(d)) == 1, f"idle threads {idle_threads(d)}")
    waits_before = d.stats()["lobbies"]["waits"]
    results, waited = [], []
    threads = [threading.Thread(target=lambda: results.append(d.request("POST", "/v1/levels", SLOW)))
               for _ in range(2)]
    starter = threading.Thread(
        target=lambda: waited.append(d.request("POST", "/v1/lobbies/idle-prio/start")))
    try:
        for t in threads:
            t.start()
        # Both interactive workers are free for real requests meanwhile (with
        # shared priority, the one not reserved is busy with the lobby's job).
        want_busy = 3 if idle else 2
        check(d.wait_for(lambda s: s["workers"]["busy"] == want_busy and
                         s["queues"]["interactive"]["depth"] == (0 if idle else 1)),
              f"interactive jobs did not start beside the speculative one: {d.stats()['workers']}")
        threads.append(starter)
        starter.start()
        check(d.wait_for(lambda s: s["lobbies"]["waits"] > waits_before), "start did not wait")
        # Raised where the daemon may (root with CAP_SYS_NICE): then no thread
        # is idle while the promoted job runs. Where it may not, the job
        # reruns on an interactive worker and the idle thread stays idle.
        if (idle and lobby_get(d, "idle-prio")[1]["pregen"] == "running"
                and d.stats()["workers"]["speculative_reruns"] == 0):
            check(not idle_threads(d), f"promoted job still idle: {idle_threads(d)}, "
                  f"{d.stats()['workers']}")
    finally:
        for t in threads:
            t.join()
    check([r[0] for r in results] == [200, 200], f"{[r[0] for r in results]}")
    status, headers, body = waited[0]
    check(status == 200 and headers.get("x-pregen") == "wait", f"{status} {headers}")
    # The speculative thread went back down to SCHED_IDLE after its promoted job.
    check(len(idle_threads(d)) == 1, f"idle threads after the start {idle_threads(d)}")
    d.request("DELETE", "/v1/lobbies/idle-prio")


@test("[lobby] disband cancels running work; an idle lobby expires after its TTL")
def _(d):
    d.request("PUT", "/v1/lobbies/gone", SLOW_LOBBY)
    wait_pregen(d, "gone", "running")
    status, _, _ = d.request("DELETE", "/v1/lobbies/gone")
    check(status == 204, f"disband {status}")
    problem(*d.request("GET", "/v1/lobbies/gone"), 404)
    check(d.wait_for(lambda s: s["workers"]["busy"] == 0), "cancelled job still running")
    d.request("PUT", "/v1/lobbies/idle/players/a", {"level": 1})
    check(lobby_get(d, "idle")[0] == 200, "idle lobby missing")
    time.sleep(1.5 + 1.2)
    problem(*d.request("GET", "/v1/lobbies/idle"), 404)
    check(d.stats()["lobbies"]["expired"] >= 1, "expiry not counted")


@test("[lobby] errors: unknown lobby, bad ids, methods, attributes, limits")
def _(d):
    problem(*d.request("GET", "/v1/lobbies/nope"), 404)
    problem(*d.request("POST", "/v1/lobbies/nope/start"), 404)
    problem(*d.request("GET", "/v1/lobbies/bad%20id"), 404)
    problem(*d.request("GET", "/v1/lobbies/x/other"), 404)
    status, headers, body = d.request("POST", "/v1/lobbies/x")
    problem(status, headers, body, 405)
    check(headers.get("allow") == "GET, PUT, DELETE", headers.get("allow"))
    problem(*d.request("PUT", "/v1/lobbies/e1/players/a", {"level": "high"}), 422, "level")
    problem(*d.request("PUT", "/v1/lobbies/e2", {"params": {"width": 5}}), 422, "params.width")
    problem(*d.request("PUT", "/v1/lobbies/e3", {"colour": 1}), 422, "colour")
    problem(*d.request("PUT", "/v1/lobbies/e4", "{x"), 400)
    check(lobby_get(d, "e2")[0] == 404, "a rejected create left a lobby behind")
    for i in range(8):
        d.request("PUT", f"/v1/lobbies/full/players/p{i}", {"level": 1})
    problem(*d.request("PUT", "/v1/lobbies/full/players/p9", {"level": 1}), 422, "players")


@test("[lobby] 200 lobbies churning: interactive requests all succeed, never queued long")
def _(d):
    stop = time.monotonic() + 3
    errors = []

    def churn(k):
        i = 0
        while time.monotonic() < stop:
            lobby = f"c{k}-{i % 25}"
            status = d.request("PUT", f"/v1/lobbies/{lobby}/players/p{i % 5}",
                               {"level": i % 40})[0]
            if status not in (200, 201):
                errors.append(status)
            i += 1

    queue_ms = []

    def interactive():
        while time.monotonic() < stop:
            status, headers, _ = d.request("POST", "/v1/levels", CLASSIC)
            if status != 200:
                errors.append(("interactive", status))
            else:
                queue_ms.append(float(re.search(r"queue;dur=([\d.]+)",
                                                headers["server-timing"]).group(1)))

    threads = [threading.Thread(target=churn, args=(k,)) for k in range(8)]
    threads += [threading.Thread(target=interactive) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not errors, f"failures: {errors[:5]}")
    check(d.stats()["lobbies"]["active"] >= 150, f"lobbies {d.stats()['lobbies']}")
    queue_ms.sort()
    # One worker stays reserved for interactive work, so a real request only
    # ever waits behind other interactive requests, never a speculative job.
    # A sanitizer build makes every level several times slower (and a
    # loaded machine once gave 278 ms there): its bound is three times wider.
    bound = 750 if sanitized() else 250
    check(queue_ms and queue_ms[int(len(queue_ms) * 0.99) - 1] < bound,
          f"interactive queue p99 {queue_ms[int(len(queue_ms) * 0.99) - 1]} ms (bound {bound})")
    stats = d.stats()["lobbies"]
    check(stats["jobs"] > 0 and stats["superseded"] >= 0, f"{stats}")


# ----------------------------------------------------------------- drain
def drain_test():
    """SIGTERM with requests in flight: running ones finish, queued ones get
    503, readyz turns 503 on an open connection, new connections are still
    answered, the daemon exits 0 with every handle closed."""
    # One address stands for the clients: it may use both workers. The
    # drain waits for the running jobs as long as they may take (a loaded
    # machine or ASan can stretch SLOW past the default 10 s).
    d = Daemon(workers=2, limits={"client_workers_max": 2, "drain_timeout_ms": 120000})
    results = {}

    def run(key):
        try:
            results[key] = d.request("POST", "/v1/levels", SLOW)[0]
        except Exception as e:
            results[key] = repr(e)

    keep = d.connection()
    check(d.request("GET", "/readyz", conn=keep)[0] == 200, "not ready")
    threads = [threading.Thread(target=run, args=(k,)) for k in ("a", "b")]
    for t in threads:
        t.start()
    check(d.wait_for(lambda s: s["workers"]["busy"] == 2), "jobs never started")
    third = threading.Thread(target=run, args=("c",))
    third.start()
    check(d.wait_for(lambda s: s["queues"]["interactive"]["depth"] == 1), "c never queued")
    d.proc.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    status, _, body = d.request("GET", "/readyz", conn=keep)
    check(status == 503 and json.loads(body)["status"] == "draining", f"readyz {status}")
    keep.close()
    # Issue 12 item 5: until the load balancer has taken the replica out,
    # new connections are still answered (with Connection: close).
    status, headers, _ = d.request("GET", "/livez")
    check(status == 200 and headers.get("connection") == "close",
          f"livez during the drain: {status} {headers}")
    status, headers, _ = d.request("GET", "/readyz")
    check(status == 503 and headers.get("retry-after") == "1", f"readyz {status} {headers}")
    for t in threads + [third]:
        t.join()
    code = d.stop(sig=None, timeout=120)
    check(results == {"a": 200, "b": 200, "c": 503}, f"in-flight results {results}")
    check(code == 0, f"exit status {code}: {''.join(d.lines[-5:])}")
    check(any('"stopped"' in l for l in d.lines), "no stopped line")
    check(not d.sanitizer_reports(), "".join(d.sanitizer_reports()))


def eviction_test():
    """Ready levels beyond lobby_cache_bytes_max are evicted least recently
    used first; a start on an evicted lobby is a miss with the same bytes."""
    # A fixed secret fixes both lobbies' seeds, and so their levels' sizes:
    # with a random key per process a level sometimes passed the budget on
    # its own and was evicted as soon as it was ready (a CI failure).
    budget = 8000
    d = Daemon(workers=2, limits=dict(LOBBY_LIMITS, lobby_cache_bytes_max=budget,
                                      lobby_idle_ttl_ms=600000),
               extra={"lobby_seed_secret": "5eed" * 8})
    try:
        d.request("PUT", "/v1/lobbies/old/players/a", {"level": 1})
        old = wait_pregen(d, "old", "ready")
        old_bytes = d.stats()["lobbies"]["ready_bytes"]
        d.request("PUT", "/v1/lobbies/new/players/a", {"level": 2})
        new_bytes = len(direct(d, wait_pregen(d, "new", "ready")))
        # The test's premise: each level fits the budget, the two do not.
        check(max(old_bytes, new_bytes) <= budget < old_bytes + new_bytes,
              f"levels of {old_bytes} and {new_bytes} bytes do not straddle {budget}")
        check(d.wait_for(lambda s: s["lobbies"]["evicted"] == 1), f"{d.stats()['lobbies']}")
        check(lobby_get(d, "old")[1]["pregen"] == "none", "old lobby still ready")
        check(d.stats()["lobbies"]["ready_bytes"] <= budget, "over budget")
        status, headers, body = d.request("POST", "/v1/lobbies/old/start")
        check(status == 200 and headers.get("x-pregen") == "miss", f"{status} {headers}")
        check(body == direct(d, old), "miss differs from the direct request")
        status, headers, _ = d.request("POST", "/v1/lobbies/new/start")
        check(headers.get("x-pregen") == "hit", f"new lobby: {headers.get('x-pregen')}")
    finally:
        code = d.stop()
    check(code == 0, f"exit status {code}")
    check(not d.sanitizer_reports(), "".join(d.sanitizer_reports()))


def auth_test():
    """With auth_tokens set, /v1/ paths need a bearer token (401 +
    WWW-Authenticate otherwise); health and /metrics stay open."""
    token = "t0ken-for-the-http-tests"
    d = Daemon(extra={"auth_tokens": [token]})
    try:
        status, headers, body = d.request("GET", "/v1/algorithms")
        problem(status, headers, body, 401)
        check(headers.get("www-authenticate", "").startswith("Bearer"), f"{headers}")
        problem(*d.request("POST", "/v1/levels", CLASSIC,
                           {"Authorization": "Bearer wrong-token-of-some-length"}), 401)
        status, _, _ = d.request("POST", "/v1/levels", CLASSIC,
                                 {"Authorization": "Bearer " + token})
        check(status == 200, f"with the token: {status}")
        for path in ("/livez", "/readyz", "/metrics"):
            check(d.request("GET", path)[0] == 200, f"{path} needs no token")
    finally:
        code = d.stop()
    check(code == 0, f"exit status {code}")


def main():
    global DAEMON
    DAEMON = os.path.abspath(sys.argv[1])
    only = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--only" else None
    main_tests = [(n, f) for n, f in RESULTS if not n.startswith("[")]
    one_worker = [(n, f) for n, f in RESULTS if n.startswith("[1 worker]")]
    lobby = [(n, f) for n, f in RESULTS if n.startswith("[lobby]")]
    plan = len(main_tests) + 1 + len(one_worker) + 1 + len(lobby) + 1 + 3
    print(f"1..{plan}", flush=True)
    number = 0
    failed = 0

    def report(name, fn, *args):
        nonlocal number, failed
        number += 1
        if only and only not in name:
            print(f"ok {number} - {name} # SKIP not selected", flush=True)
            return
        try:
            fn(*args)
            print(f"ok {number} - {name}", flush=True)
        except SkipTest as e:
            print(f"ok {number} - {name} # SKIP {e}", flush=True)
        except Exception as e:  # a failed check or an unexpected error
            failed += 1
            for stream in (sys.stdout, sys.stderr):  # stderr: CI's log shows it
                print(f"not ok {number} - {name}", file=stream, flush=True)
                for line in str(e).splitlines() or [repr(e)]:
                    print(f"# {line}", file=stream, flush=True)

    def ensure_stopped(d):
        """With --only the stop test may be skipped: never leave a daemon."""
        if d.proc.poll() is None:
            d.stop()

    def stop_clean(d, name):
        code = d.stop()
        check(code == 0, f"{name}: exit status {code}: {''.join(d.lines[-5:])}")
        check(any('"stopped"' in l for l in d.lines), "no stopped line")
        check(not d.sanitizer_reports(), "".join(d.sanitizer_reports()))

    d = Daemon(limits={"body_bytes_max": 4096, "grid_cells_max": 250000, "rooms_max": 500})
    for name, fn in main_tests:
        report(name, fn, d)
    report("SIGTERM on an idle daemon: exit 0, every handle closed", stop_clean, d, "main")
    ensure_stopped(d)
    d = Daemon(workers=1, limits={"interactive_queue_max": 1})
    for name, fn in one_worker:
        report(name, fn, d)
    report("[1 worker] SIGTERM: exit 0", stop_clean, d, "one worker")
    ensure_stopped(d)
    d = Daemon(workers=2, limits=LOBBY_LIMITS)
    for name, fn in lobby:
        report(name, fn, d)
    report("[lobby] SIGTERM with lobbies alive: exit 0, no leak", stop_clean, d, "lobby")
    ensure_stopped(d)
    report("[lobby] LRU eviction over the byte budget; start after eviction is a miss",
           eviction_test)
    report("bearer tokens guard /v1/ paths when configured", auth_test)
    report("SIGTERM with requests in flight: they finish, queued get 503, exit 0", drain_test)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
