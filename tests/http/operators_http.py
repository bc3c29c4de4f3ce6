#!/usr/bin/env python3
"""HTTP tests of issue 26 (operators): honest outcomes, process_* metrics,
route and method labels, generation and serialisation apart (item 2); log
lines, peer addresses, shortest floats and flags (item 6); W3C Trace
Context (item 3); SIGHUP reload (item 4).

Usage: operators_http.py PATH/TO/dungeond [--only TEXT]
Prints TAP (meson runs it with protocol 'tap', suite 'http'). Python 3
standard library only; reuses dungeond_http.py's Daemon. Every daemon
listens on 127.0.0.1 and every wait is bounded.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check  # noqa: E402

TESTS = []


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def stopped_clean(d):
    code = d.stop()
    check(code == 0, f"exit status {code}: {''.join(d.lines[-5:])}")
    check(not d.sanitizer_reports(), "".join(d.sanitizer_reports()))


def metrics(d):
    """{(name, frozenset(labels)): value} of GET /metrics."""
    status, _, body = d.request("GET", "/metrics")
    check(status == 200, f"GET /metrics {status}")
    found = {}
    for line in body.decode().splitlines():
        if line.startswith("#") or not line:
            continue
        match = re.fullmatch(r"([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
        check(match, f"unparsable line {line!r}")
        labels = frozenset(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        found[(match.group(1), labels)] = float(match.group(3))
    return found


def sample(found, name, **labels):
    key = (name, frozenset(labels.items()))
    check(key in found, f"no {name}{labels} in /metrics")
    return found[key]


@test("outcomes: a 422 is client_error, a 504 timeout, a 503 rejected; no server_error")
def _():
    d = harness.Daemon(workers=1, limits={"interactive_queue_max": 1})
    try:
        status = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 1})[0]
        check(status == 200, f"level {status}")
        status = d.request("POST", "/v1/levels", {"algorithm": "classic", "params": {"width": 5}})[0]
        check(status == 422, f"width 5: {status}")
        status = d.request("POST", "/v1/levels", dict(harness.SLOW, deadline_ms=1))[0]
        check(status == 504, f"1 ms deadline: {status}")
        found = metrics(d)
        for outcome, count in (("ok", 1), ("client_error", 1), ("timeout", 1),
                               ("server_error", 0), ("rejected", 0)):
            got = sample(found, "dungeond_level_requests_total", algorithm="classic"
                         if outcome != "timeout" else "authored", outcome=outcome)
            if outcome in ("server_error", "rejected"):
                check(got == 0, f"{outcome} {got}")
            else:
                check(got == count, f"{outcome}: {got}, expected {count}")
        check(("dungeond_level_requests_total",
               frozenset({("algorithm", "classic"), ("outcome", "error")})) not in found,
              "the old outcome error is still exported")
        stats = d.stats()
        classic = stats["algorithms"]["classic"]
        check(classic["outcomes"] == {"ok": 1, "client_error": 1, "server_error": 0,
                                      "timeout": 0, "rejected": 0}, f"classic {classic}")
        check(stats["algorithms"]["authored"]["outcomes"]["timeout"] == 1, f"{stats['algorithms']}")
        by_outcome = stats["requests"]["by_outcome"]
        check(by_outcome["server_error"] == 0 and by_outcome["client_error"] == 1
              and by_outcome["timeout"] == 1, f"by_outcome {by_outcome}")
        # One slow job runs, one waits, the third is refused: rejected.
        results = []

        def slow():
            results.append(d.request("POST", "/v1/levels", harness.SLOW)[0])
        threads = [threading.Thread(target=slow) for _ in range(2)]
        threads[0].start()
        check(d.wait_for(lambda s: s["workers"]["busy"] == 1), "the slow job never ran")
        threads[1].start()
        check(d.wait_for(lambda s: s["queues"]["interactive"]["depth"] == 1), "never queued")
        status = d.request("POST", "/v1/levels", {"algorithm": "classic"})[0]
        check(status == 503, f"a full queue answered {status}")
        for t in threads:
            t.join()
        check(results == [200, 200], f"slow ones {results}")
        found = metrics(d)
        check(sample(found, "dungeond_level_requests_total", algorithm="classic",
                     outcome="rejected") == 1, "the 503 is not rejected")
        check(sample(found, "dungeond_http_responses_total", outcome="rejected") == 1, "503")
        check(sample(found, "dungeond_http_responses_total", outcome="server_error") == 0, "5xx")
    finally:
        stopped_clean(d)


@test("process_* metrics: CPU, resident and virtual memory, open and max fds, start time")
def _():
    d = harness.Daemon()
    try:
        before = time.time()
        found = metrics(d)
        with open(f"/proc/{d.proc.pid}/status") as f:
            rss_kb = int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))
        fds = len(os.listdir(f"/proc/{d.proc.pid}/fd"))
        import resource
        soft = resource.prlimit(d.proc.pid, resource.RLIMIT_NOFILE)[0]
        resident = sample(found, "process_resident_memory_bytes")
        check(0.5 * rss_kb * 1024 < resident < 2 * rss_kb * 1024,
              f"resident {resident}, /proc says {rss_kb} kB")
        check(sample(found, "process_virtual_memory_bytes") >= resident, "virtual < resident")
        open_fds = sample(found, "process_open_fds")
        check(abs(open_fds - fds) <= 2, f"open fds {open_fds}, /proc has {fds}")
        check(sample(found, "process_max_fds") == soft, f"max fds, soft limit {soft}")
        start = sample(found, "process_start_time_seconds")
        check(before - 120 < start <= time.time() + 1, f"start {start}, now {time.time()}")
        cpu = sample(found, "process_cpu_seconds_total")
        check(cpu >= 0, f"cpu {cpu}")
        status = d.request("POST", "/v1/levels", harness.SLOW)[0]
        check(status == 200, f"slow level {status}")
        check(sample(metrics(d), "process_cpu_seconds_total") > cpu, "CPU time did not grow")
    finally:
        stopped_clean(d)


@test("route and method labels: route templates, unknown paths and methods as other")
def _():
    d = harness.Daemon()
    try:
        d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 2})
        d.request("PUT", "/v1/lobbies/route-a/players/p1", {"level": 1})
        d.request("PUT", "/v1/lobbies/route-b/players/p2", {"level": 1})
        d.request("GET", "/v1/lobbies/route-a")
        for i in range(20):
            d.request("GET", f"/no/such/path/{i}")
        d.request("PATCH", "/v1/levels")
        found = metrics(d)

        def count(route, method):
            return sample(found, "dungeond_http_request_duration_seconds_count",
                          route=route, method=method)
        check(count("/v1/levels", "POST") == 1, "POST /v1/levels")
        check(count("/v1/lobbies/{lobby}/players/{player}", "PUT") == 2, "two joins, one series")
        check(count("/v1/lobbies/{lobby}", "GET") == 1, "GET lobby")
        check(count("other", "GET") == 20, "unknown paths")
        check(count("/v1/levels", "other") == 1, "PATCH as other")
        routes = {dict(labels)["route"] for name, labels in found
                  if name == "dungeond_http_request_duration_seconds_count"}
        check(not any("route-a" in r or "/no/" in r for r in routes), f"ids in labels: {routes}")
    finally:
        stopped_clean(d)


@test("generation and serialisation are separate histograms, per algorithm")
def _():
    d = harness.Daemon()
    try:
        body = {"algorithm": "authored", "seed": 7,
                "params": {"rooms": 3000, "grid": False, "cycles": "none"}}
        status, headers, _ = d.request("POST", "/v1/levels", body)
        check(status == 200, f"status {status}")
        timing = dict(re.findall(r"(\w+);dur=([0-9.]+)", headers["server-timing"]))
        found = metrics(d)
        gen = sample(found, "dungeond_generation_duration_seconds_sum", algorithm="authored")
        ser = sample(found, "dungeond_serialisation_duration_seconds_sum", algorithm="authored")
        check(abs(gen * 1000 - float(timing["gen"])) < 0.01, f"gen {gen} vs {timing}")
        check(abs(ser * 1000 - float(timing["ser"])) < 0.01, f"ser {ser} vs {timing}")
        check(sample(found, "dungeond_serialisation_duration_seconds_count",
                     algorithm="authored") == 1, "one serialisation")
        classic = d.stats()["algorithms"]["authored"]
        check(abs(classic["serialisation_ms_mean"] - float(timing["ser"])) < 0.01, f"{classic}")
    finally:
        stopped_clean(d)


def shortest_floats(text):
    """The real numbers of a JSON text that are not in their shortest
    round-trip form (Python's repr is that form)."""
    bad = []
    for token in re.findall(r'(?<=[:\[,])-?\d+\.\d+(?:[eE][-+]?\d+)?(?=[,\]}])', text):
        if token != repr(float(token)):
            bad.append(token)
    return bad


@test("floats in lobby and stats answers are shortest round-trip (0.27, not 0.27000000000000002)")
def _():
    d = harness.Daemon()
    try:
        status, _, body = d.request("PUT", "/v1/lobbies/floats/players/a", {"level": 3})
        check(status in (200, 201), f"join {status}")
        text = body.decode()
        check('"closet_chance":0.27,' in text, f"closet_chance not 0.27: {text[:400]}")
        check(not shortest_floats(text), f"long floats {shortest_floats(text)}")
        status, _, body = d.request("GET", "/v1/lobbies/floats")
        check(not shortest_floats(body.decode()), f"lobby {shortest_floats(body.decode())}")
        d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 3})
        text = d.request("GET", "/v1/stats")[2].decode()
        reals = re.findall(r'(?<=[:\[,])-?\d+\.\d+', text)
        check(reals, "no reals in /v1/stats")
        check(not shortest_floats(text), f"stats {shortest_floats(text)}")
    finally:
        stopped_clean(d)


def json_lines(d):
    lines = []
    for line in d.lines:
        check(line.startswith("{"), f"a log line that is not JSON: {line!r}")
        lines.append(json.loads(line))
    return lines


@test("every log line has time; the access line has the peer address and port")
def _():
    d = harness.Daemon()
    try:
        conn = d.connection()
        conn.connect()
        port = conn.sock.getsockname()[1]
        d.request("GET", "/v1/algorithms", conn=conn)
        conn.close()
        d.request("GET", "/v1/levels", headers={"X-Forwarded-For": "198.51.100.7"})
    finally:
        stopped_clean(d)
    lines = json_lines(d)
    for line in lines:
        check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line.get("time", "")),
              f"no time: {line}")
    access = [l for l in lines if l.get("path") == "/v1/algorithms"]
    check(len(access) == 1 and access[0]["peer"] == f"127.0.0.1:{port}", f"access {access}")
    events = {l.get("event") for l in lines}
    check({"drain", "stopped"} <= events, f"events {events}")
    untrusted = [l for l in lines if l.get("path") == "/v1/levels"]
    check(untrusted and "forwarded_for" not in untrusted[0],
          f"X-Forwarded-For believed from an untrusted peer: {untrusted}")


@test("trusted_proxies: X-Forwarded-For logged from a trusted peer only, as an address")
def _():
    d = harness.Daemon(extra={"trusted_proxies": ["127.0.0.0/30", "10.0.0.8/29"]})
    cases = {"/v1/a": ("198.51.100.7", "198.51.100.7"),
             "/v1/b": ("203.0.113.5, 198.51.100.7, 10.0.0.9", "198.51.100.7"),
             "/v1/c": ('"><script>, 10.0.0.9', "10.0.0.9"),
             "/v1/d": ("2001:db8::1", "2001:db8::1")}
    try:
        for path, (header, _) in cases.items():
            d.request("GET", path, headers={"X-Forwarded-For": header})
        d.request("GET", "/v1/e")
    finally:
        stopped_clean(d)
    lines = {l.get("path"): l for l in json_lines(d) if "path" in l}
    for path, (header, expected) in cases.items():
        got = lines[path].get("forwarded_for")
        check(got == expected, f"{header!r}: forwarded_for {got!r}, expected {expected!r}")
    check("forwarded_for" not in lines["/v1/e"], f"no header: {lines['/v1/e']}")


@test("trusted_proxies over IPv6: a proxy on ::1 (or an IPv6 network) is believed, its IPv6 hops checked too")
def _():
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError as e:
        raise harness.SkipTest(f"no IPv6 loopback here: {e}")
    # ::1 trusted, and the documentation network 2001:db8:1::/48 (a second
    # proxy hop); 2001:db8:2::7 is outside it, so it is the client.
    d = harness.Daemon(extra={"trusted_proxies": ["::1", "2001:db8:1::/48"]}, host="::1")
    cases = {"/v1/a": ("198.51.100.7", "198.51.100.7"),
             "/v1/b": ("2001:db8:2::7, 2001:db8:1::9", "2001:db8:2::7"),
             "/v1/c": ("2001:db8:1::9", "2001:db8:1::9")}
    try:
        for path, (header, _) in cases.items():
            d.request("GET", path, headers={"X-Forwarded-For": header})
    finally:
        stopped_clean(d)
    lines = {l.get("path"): l for l in json_lines(d) if "path" in l}
    for path, (header, expected) in cases.items():
        check(lines[path]["peer"].startswith("[::1]:"), f"peer {lines[path]}")
        got = lines[path].get("forwarded_for")
        check(got == expected, f"{header!r}: forwarded_for {got!r}, expected {expected!r}")
    # Not trusted: an IPv4-only list does not believe a peer on ::1.
    d = harness.Daemon(extra={"trusted_proxies": ["127.0.0.1"]}, host="::1")
    try:
        d.request("GET", "/v1/d", headers={"X-Forwarded-For": "198.51.100.7"})
    finally:
        stopped_clean(d)
    lines = {l.get("path"): l for l in json_lines(d) if "path" in l}
    check("forwarded_for" not in lines["/v1/d"], f"believed an untrusted IPv6 peer: {lines['/v1/d']}")


@test("trusted_proxies refused at load when not IPv4 or IPv6 addresses or networks")
def _():
    for bad, word in (("not-an-ip", "trusted_proxies[0]"), (17, "trusted_proxies"),
                      ("10.0.0.0/33", "trusted_proxies[0]"), ("10.0.0.0/", "trusted_proxies[0]"),
                      ("fd00::/129", "trusted_proxies[0]"), ("fd00::1%lo", "trusted_proxies[0]")):
        path = os.path.join(tempfile.mkdtemp(prefix="dungeond-test-"), "c.json")
        with open(path, "w") as f:
            json.dump({"trusted_proxies": [bad]}, f)
        run = subprocess.run([harness.DAEMON, "--config", path, "--check-config"],
                             capture_output=True, text=True, timeout=60)
        check(run.returncode == 2 and word in run.stderr, f"{bad!r}: {run.returncode} {run.stderr}")


@test("flags through getopt_long: --name=value, missing values, --version")
def _():
    binary = harness.DAEMON
    run = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    check(run.returncode == 0 and re.fullmatch(r"dungeond \S+ \(libdungeon \S+\)\n", run.stdout),
          f"--version: {run.returncode} {run.stdout!r}")
    for argv, message in ((["--config"], "--config needs a value"),
                          (["--listen"], "--listen needs a value"),
                          (["--workers=x"], "--workers must be an integer from 1 to 256"),
                          (["--workers"], "--workers needs a value"),
                          (["--config="], "--config needs a file name"),
                          (["--frobnicate"], "unknown option '--frobnicate'"),
                          (["stray"], "unexpected argument 'stray'")):
        run = subprocess.run([binary] + argv, capture_output=True, text=True, timeout=60)
        check(run.returncode == 2 and message in run.stderr,
              f"{argv}: exit {run.returncode}, {run.stderr[:200]!r}")
    here = os.path.dirname(os.path.abspath(__file__))
    config = os.path.join(here, "..", "..", "config", "dungeond.json")
    run = subprocess.run([binary, f"--config={config}", "--listen=127.0.0.1:9", "--workers=3",
                          "--health-listen=127.0.0.1:10", "--check-config"],
                         capture_output=True, text=True, timeout=60,
                         cwd=os.path.join(here, "..", ".."))
    check(run.returncode == 0, f"--name=value: {run.returncode} {run.stderr}")
    shown = json.loads(run.stdout)
    check((shown["listen"], shown["health_listen"], shown["workers"]) ==
          ("127.0.0.1:9", "127.0.0.1:10", 3), f"{shown}")
    # The daemon itself with = flags, and its first line has a time.
    proc = subprocess.Popen([binary, f"--config={config}", "--listen=127.0.0.1:0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            cwd=os.path.join(here, "..", ".."))
    try:
        first = json.loads(proc.stderr.readline())
        check(first["event"] == "listening" and "time" in first, f"first line {first}")
    finally:
        proc.terminate()
        proc.wait(timeout=120)
        proc.stderr.close()


TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
TRACEPARENT_RE = r"00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})"


def raw_request(d, path, header_lines):
    """GET `path` with headers given as (name, value) pairs, repeats kept."""
    conn = d.connection()
    conn.putrequest("GET", path)
    for name, value in header_lines:
        conn.putheader(name, value)
    conn.endheaders()
    response = conn.getresponse()
    response.read()
    headers = {k.lower(): v for k, v in response.getheaders()}
    conn.close()
    return response.status, headers


@test("W3C traceparent: continued when valid, a new trace when not; tracestate with it")
def _():
    d = harness.Daemon()
    try:
        state = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
        _, h = raw_request(d, "/v1/algorithms?t=1", [("traceparent", f"00-{TRACE}-{PARENT}-01"),
                                                     ("tracestate", state)])
        m = re.fullmatch(TRACEPARENT_RE, h.get("traceparent", ""))
        check(m and m.group(1) == TRACE and m.group(2) not in (PARENT, "0" * 16)
              and m.group(3) == "01", f"continued: {h.get('traceparent')}")
        check(h.get("tracestate") == state, f"tracestate {h.get('tracestate')}")
        continued_span = m.group(2)
        invalid = [("upper", [("traceparent", f"00-{TRACE.upper()}-{PARENT}-01"),
                              ("tracestate", state)]),
                   ("zero", [("traceparent", f"00-{'0' * 32}-{PARENT}-01")]),
                   ("ff", [("traceparent", f"ff-{TRACE}-{PARENT}-01")]),
                   ("twice", [("traceparent", f"00-{TRACE}-{PARENT}-01"),
                              ("traceparent", f"00-{TRACE}-{PARENT}-00")]),
                   ("none", [])]
        seen = set()
        for name, lines in invalid:
            _, h = raw_request(d, f"/v1/algorithms?t={name}", lines)
            m = re.fullmatch(TRACEPARENT_RE, h.get("traceparent", ""))
            check(m and m.group(1) != TRACE and m.group(3) == "01", f"{name}: {h}")
            check("tracestate" not in h, f"{name}: tracestate kept with a new trace")
            seen.add(m.group(1))
        check(len(seen) == len(invalid), f"new traces share ids: {seen}")
        # A tracestate that breaks the rules is dropped, the trace kept.
        _, h = raw_request(d, "/v1/algorithms?t=badstate",
                           [("traceparent", f"00-{TRACE}-{PARENT}-00"), ("tracestate", "Rojo=1")])
        check(h["traceparent"].startswith(f"00-{TRACE}-") and h["traceparent"].endswith("-00")
              and "tracestate" not in h, f"bad tracestate: {h}")
        # Every answer has one, problems included.
        status, h, _ = d.request("GET", "/no/such")
        check(status == 404 and re.fullmatch(TRACEPARENT_RE, h.get("traceparent", "")), f"{h}")
    finally:
        stopped_clean(d)
    lines = {l.get("path"): l for l in json_lines(d) if "path" in l}
    line = next(l for l in json_lines(d) if l.get("trace_id") == TRACE
                and l.get("span_id") == continued_span)
    check(line["parent_id"] == PARENT, f"continued line {line}")
    check("parent_id" not in lines["/no/such"], f"new trace has a parent: {lines['/no/such']}")


@test("trace spans in the log: queue, generation, serialisation, children of the request's span")
def _():
    d = harness.Daemon()
    try:
        status, h, _ = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 4},
                                 headers={"traceparent": f"00-{TRACE}-{PARENT}-01"})
        check(status == 200, f"status {status}")
        timing = dict(re.findall(r"(\w+);dur=([0-9.]+)", h["server-timing"]))
        span = re.fullmatch(TRACEPARENT_RE, h["traceparent"]).group(2)
    finally:
        stopped_clean(d)
    line = next(l for l in json_lines(d) if l.get("path") == "/v1/levels")
    check(line["trace_id"] == TRACE and line["span_id"] == span and line["parent_id"] == PARENT,
          f"{line}")
    spans = line.get("spans", [])
    check([x["name"] for x in spans] == ["queue", "generation", "serialisation"], f"{spans}")
    for x, key in zip(spans, ("queue", "gen", "ser")):
        check(x["parent_id"] == span and re.fullmatch("[0-9a-f]{16}", x["span_id"]), f"{x}")
        check(abs(x["duration_ms"] - float(timing[key])) < 0.002, f"{x} vs {timing}")
    check(len({x["span_id"] for x in spans} | {span}) == 4, "span ids repeat")
    for a, b in zip(spans, spans[1:]):
        check(abs(a["start_ms"] + a["duration_ms"] - b["start_ms"]) < 0.002, f"gaps {spans}")
    check(0 <= spans[0]["start_ms"] <= line["total_ms"], f"{spans[0]} {line['total_ms']}")


TOKEN = "reload-token-0123456789"


def write_config(d, change):
    with open(d.config_path) as f:
        config = json.load(f)
    change(config)
    with open(d.config_path, "w") as f:
        json.dump(config, f)


def reload_and_wait(d, event, before):
    """SIGHUP, then the next log line of `event` after the first `before` lines."""
    d.proc.send_signal(harness.signal.SIGHUP)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        for line in d.lines[before:]:
            doc = json.loads(line)
            if doc.get("event") == event:
                return doc
        time.sleep(0.02)
    raise AssertionError(f"no {event} line after SIGHUP: {d.lines[before:][-5:]}")


@test("SIGHUP reloads profiles, limits, tokens; a lobby and a running job survive")
def _():
    d = harness.Daemon()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        status = d.request("PUT", "/v1/lobbies/keep/players/a", {"level": 2})[0]
        check(status in (200, 201), f"join {status}")
        before_width = json.loads(d.request("GET", "/v1/lobbies/keep")[2])["effective"]["params"]["width"]
        check(d.stats()["config"] == {"generation": 0, "reloads": 0, "reload_failures": 0},
              f"{d.stats()['config']}")
        # A job that reads the room sets is running while they are replaced.
        slow = []
        runner = threading.Thread(target=lambda: slow.append(
            d.request("POST", "/v1/levels", harness.SLOW)))
        runner.start()
        check(d.wait_for(lambda st: st["workers"]["busy"] >= 1), "the slow job never ran")

        def change(config):
            config["profiles"]["party"]["params"]["width"]["base"] = 100
            config["profiles"]["party"]["params"]["width"]["max"] = 200
            config["limits"]["lobbies_max"] = 77
            config["auth_tokens"] = [TOKEN]
            config["listen"] = "127.0.0.1:1"  # not reloadable: kept, and said so
        write_config(d, change)
        line = reload_and_wait(d, "config_reloaded", len(d.lines))
        check(line["generation"] == 1 and line["not_reloaded"] == ["listen"] and "time" in line,
              f"reloaded line {line}")
        runner.join()
        check(slow and slow[0][0] == 200, f"the job across the reload: {slow and slow[0][0]}")
        # Tokens: /v1/ needs one now.
        check(d.request("GET", "/v1/stats")[0] == 401, "no token accepted after reload")
        stats = json.loads(d.request("GET", "/v1/stats", headers=auth)[2])
        check(stats["config"] == {"generation": 1, "reloads": 1, "reload_failures": 0}, f"{stats}")
        # The lobby survived, and still starts; a new one takes the new profile.
        status, _, body = d.request("GET", "/v1/lobbies/keep", headers=auth)
        lobby = json.loads(body)
        check(status == 200 and lobby["players"] == {"a": {"level": 2}}, f"lobby {status} {lobby}")
        check(lobby["effective"]["params"]["width"] == before_width, "the lobby changed unasked")
        status = d.request("POST", "/v1/lobbies/keep/start", headers=auth)[0]
        check(status == 200, f"start after reload {status}")
        d.request("PUT", "/v1/lobbies/fresh/players/a", {"level": 2}, headers=auth)
        fresh = json.loads(d.request("GET", "/v1/lobbies/fresh", headers=auth)[2])
        check(fresh["effective"]["params"]["width"] == 110, f"new profile {fresh['effective']}")
        check(sample(metrics(d), "dungeond_config_generation") == 1, "metric")
        # Still listening where it was.
        check(d.request("GET", "/livez")[0] == 200, "listener moved")
    finally:
        stopped_clean(d)


@test("SIGHUP that changes a room set while a job reads it: the job ends on the old set, the next request on the new")
def _():
    here = os.path.dirname(os.path.abspath(__file__))
    sets = tempfile.mkdtemp(prefix="dungeond-test-roomsets-")
    for name in ("crypt.json", "sewer.json"):
        shutil.copy(os.path.join(here, "..", "..", "config", "roomsets", name), sets)
    d = harness.Daemon(extra={"roomsets_dir": sets})
    small = {"algorithm": "authored", "seed": 3, "params": {"roomset": "crypt"}}
    try:
        status, _, body = d.request("POST", "/v1/levels", small)
        check(status == 200, f"before {status}")
        old = json.loads(body)
        # A slow job on the crypt set is running while the set is replaced.
        slow = []
        runner = threading.Thread(target=lambda: slow.append(d.request(
            "POST", "/v1/levels", dict(harness.SLOW, params=dict(harness.SLOW["params"],
                                                                  roomset="crypt")))))
        runner.start()
        check(d.wait_for(lambda st: st["workers"]["busy"] >= 1), "the slow job never ran")
        path = os.path.join(sets, "crypt.json")
        with open(path) as f:
            crypt = json.load(f)
        crypt["rooms"][0]["weight"] += 7
        with open(path, "w") as f:
            json.dump(crypt, f)
        os.remove(os.path.join(sets, "sewer.json"))
        line = reload_and_wait(d, "config_reloaded", len(d.lines))
        check(line["generation"] == 1, f"reloaded line {line}")
        runner.join()
        check(slow and slow[0][0] == 200, f"the job across the reload: {slow and slow[0][:2]}")
        across = json.loads(slow[0][2])
        check(across["roomset_sha256"] == old["roomset_sha256"],
              "the running job did not keep the set it was submitted with")
        status, _, body = d.request("POST", "/v1/levels", small)
        new = json.loads(body)
        check(status == 200 and new["roomset_sha256"] != old["roomset_sha256"],
              f"after the reload {status}: the old set is still used")
        status, _, body = d.request("POST", "/v1/levels", dict(small, params={"roomset": "sewer"}))
        check(status == 422 and b"roomset" in body, f"a removed set: {status} {body[:200]}")
        names = [r["name"] for r in json.loads(d.request("GET", "/v1/roomsets")[2])]
        check(names == ["crypt"], f"/v1/roomsets after the reload: {names}")
    finally:
        stopped_clean(d)
        shutil.rmtree(sets, ignore_errors=True)


@test("SIGHUP with a broken configuration: refused with a log line, the old one keeps running")
def _():
    d = harness.Daemon(extra={"auth_tokens": [TOKEN]})
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        d.request("PUT", "/v1/lobbies/stay/players/a", {"level": 1}, headers=auth)
        original = open(d.config_path).read()
        bad_dir = tempfile.mkdtemp(prefix="dungeond-test-roomsets-")
        with open(os.path.join(bad_dir, "broken.json"), "w") as f:
            f.write('{"format": "dungeond.roomset/1", "rooms": 7}')
        cases = [("not JSON", lambda: open(d.config_path, "w").write("{ broken"), ""),
                 ("out of range", lambda: write_config(
                     d, lambda c: c["limits"].update(lobbies_max=-1)), "limits.lobbies_max"),
                 ("unknown profile", lambda: write_config(
                     d, lambda c: c.update(default_profile="nope")), "default_profile"),
                 ("broken room set", lambda: write_config(
                     d, lambda c: c.update(roomsets_dir=bad_dir)), "roomsets_dir")]
        for number, (name, breaks, field) in enumerate(cases, 1):
            with open(d.config_path, "w") as f:
                f.write(original)
            breaks()
            line = reload_and_wait(d, "config_reload_failed", len(d.lines))
            check(line["level"] == "error" and line["message"] and "time" in line,
                  f"{name}: {line}")
            if field:
                check(line["field"] == field, f"{name}: field {line['field']!r}, expected {field}")
            stats = json.loads(d.request("GET", "/v1/stats", headers=auth)[2])
            check(stats["config"] == {"generation": 0, "reloads": 0, "reload_failures": number},
                  f"{name}: {stats['config']}")
            check(d.request("GET", "/v1/stats")[0] == 401, f"{name}: tokens lost")
            status = d.request("GET", "/v1/lobbies/stay", headers=auth)[0]
            check(status == 200, f"{name}: lobby {status}")
        status = d.request("POST", "/v1/levels", {"algorithm": "authored", "seed": 1},
                           headers=auth)[0]
        check(status == 200, f"room sets after the refusals: {status}")
        check(sample(metrics(d), "dungeond_config_reloads_total", result="failed") == len(cases),
              "failed reloads metric")
    finally:
        stopped_clean(d)


NOBODY = 65534


def as_pod_user(d_dir):
    """A wrapper that starts dungeond as the shipped pod does: a non-root
    uid without capabilities and an RLIMIT_NICE of 0 (no way back from
    SCHED_IDLE). Returns the wrapper's path; when the tests already run as
    non-root, it only sets the nice limit."""
    real = harness.DAEMON
    wrapper = os.path.join(d_dir, "as-pod-user.sh")
    drop = "" if os.geteuid() != 0 else (
        f"setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups --inh-caps=-all "
        "--bounding-set=-all ")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\n"
                "# The daemon's config file is in a private temporary directory.\n"
                'chmod -R a+rX "$(dirname "$2")"\n'
                f'exec prlimit --nice=0 {drop}"{real}" "$@"\n')
    os.chmod(wrapper, 0o755)
    return wrapper


@test("speculative work at SCHED_IDLE as a non-root user without RLIMIT_NICE; a start still waits")
def _():
    scratch = tempfile.mkdtemp(prefix="dungeond-test-pod-")
    os.chmod(scratch, 0o755)
    real = harness.DAEMON
    harness.DAEMON = as_pod_user(scratch)
    try:
        d = harness.Daemon(workers=2, limits=dict(harness.LOBBY_LIMITS, lobby_idle_ttl_ms=600000))
    finally:
        harness.DAEMON = real
    try:
        with open(f"/proc/{d.proc.pid}/status") as f:
            status = f.read()
        uid = int(re.search(r"Uid:\s+(\d+)", status).group(1))
        check(uid != 0, f"the daemon runs as root: {uid}")
        check(re.search(r"CapEff:\s+0+\n", status), f"capabilities left: {status}")
        with open(f"/proc/{d.proc.pid}/limits") as f:
            nice = re.search(r"Max nice priority\s+(\d+)", f.read())
        check(nice and nice.group(1) == "0", f"RLIMIT_NICE {nice and nice.group(1)}")
        workers = d.stats()["workers"]
        check(workers["speculative_priority"] == "idle", f"{workers}")
        check(len(harness.idle_threads(d)) == 1, f"idle threads {harness.idle_threads(d)}")
        # A lobby's job runs on the idle thread; both interactive workers stay free.
        d.request("PUT", "/v1/lobbies/pod", harness.SLOW_LOBBY)
        harness.wait_pregen(d, "pod", "running")
        results = []
        threads = [threading.Thread(target=lambda: results.append(
            d.request("POST", "/v1/levels", harness.SLOW)[0])) for _ in range(2)]
        for t in threads:
            t.start()
        check(d.wait_for(lambda st: st["workers"]["busy"] == 3
                         and st["queues"]["interactive"]["depth"] == 0),
              f"interactive jobs waited for the speculative one: {d.stats()['workers']}")
        for t in threads:
            t.join()
        check(results == [200, 200], f"{results}")
        # Its thread cannot be raised: the start makes it run again on an
        # interactive worker, and the client gets its level.
        if harness.lobby_get(d, "pod")[1]["pregen"] != "running":
            d.request("PUT", "/v1/lobbies/pod/players/x", {"level": 9})
            harness.wait_pregen(d, "pod", "running")
        status, headers, body = d.request("POST", "/v1/lobbies/pod/start")
        check(status == 200 and headers.get("x-pregen") == "wait", f"{status} {headers} {body[:200]}")
        check(d.stats()["workers"]["speculative_reruns"] == 1,
              f"the promoted job did not rerun: {d.stats()['workers']}")
        check(len(harness.idle_threads(d)) == 1, "the idle thread was raised or lost")
    finally:
        stopped_clean(d)


def thread_slices(d):
    """{(policy, nice): sorted slices in ns (None: not shown)} of the daemon's threads."""
    found = {}
    for stat, sched in harness.thread_files(d, "stat", "sched").values():
        fields = harness.stat_fields(stat)
        shown = re.search(r"se\.slice\s*:\s*(\d+)", sched)
        found.setdefault((int(fields[41]), int(fields[19])), []).append(
            int(shown.group(1)) if shown else None)
    return {key: sorted(v, key=lambda x: x or 0) for key, v in found.items()}


@test("time slices as the pod user: short for the loop and light jobs, long for heavy maps; a reload changes them")
def _():
    custom = harness.kernel_custom_slices()
    scratch = tempfile.mkdtemp(prefix="dungeond-test-slices-")
    os.chmod(scratch, 0o755)
    real = harness.DAEMON
    harness.DAEMON = as_pod_user(scratch)
    try:
        d = harness.Daemon(workers=2, limits={"interactive_slice_us": 100,
                                              "heavy_slice_us": 100000,
                                              "heavy_job_cost_min": 250000})
    finally:
        harness.DAEMON = real
    try:
        with open(f"/proc/{d.proc.pid}/status") as f:
            check(int(re.search(r"Uid:\s+(\d+)", f.read()).group(1)) != 0, "runs as root")
        said = d.stats()["workers"]["time_slices"]
        check(said == ("custom" if custom else "refused"),
              f"/v1/stats says {said}; this kernel {'applies' if custom else 'ignores'} them")
        if not custom:
            return
        # The loop thread and the two interactive workers (nice 0), the heavy
        # lane's two threads (nice 10); the SCHED_IDLE thread keeps its own.
        want = {(0, 0): [100000] * 3, (0, 10): [100000000] * 2}

        def settled(expected):
            end = time.monotonic() + 30
            while time.monotonic() < end:
                now = thread_slices(d)
                if all(now.get(key) == v for key, v in expected.items()):
                    return now
                time.sleep(0.02)
            return thread_slices(d)
        now = settled(want)
        check(all(now.get(key) == v for key, v in want.items()), f"threads {now}")
        check(list(now) and set(now) <= {(0, 0), (0, 10), (5, 0)}, f"other threads {now}")
        status = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 3})[0]
        check(status == 200, f"a level: {status}")

        def change(config):
            config["limits"]["interactive_slice_us"] = 300
            config["limits"]["heavy_slice_us"] = 20000
        write_config(d, change)
        reload_and_wait(d, "config_reloaded", len(d.lines))
        want = {(0, 0): [300000] * 3, (0, 10): [20000000] * 2}
        now = settled(want)
        check(all(now.get(key) == v for key, v in want.items()), f"after the reload {now}")
        check(d.stats()["workers"]["time_slices"] == "custom", f"{d.stats()['workers']}")
    finally:
        stopped_clean(d)


if __name__ == "__main__":
    sys.exit(harness.run_tests(TESTS, sys.argv))
