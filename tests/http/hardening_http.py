#!/usr/bin/env python3
"""Transport hardening of dungeond (issue 12 items 1, 3, 4, 5, 6, 7): the
real daemon on loopback, attacked as a hostile client would, over raw
sockets where http.client would be too polite. Every test is bounded in
time; traffic stays on 127.0.0.0/8 (several source addresses 127.0.0.x show
the per-IP limit). Each daemon is stopped with SIGTERM and must exit 0.

Usage: hardening_http.py PATH/TO/dungeond [--only NAME]
Prints TAP. Python 3 standard library only.
"""
import json
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import dungeond_http as harness
from dungeond_http import check, problem

TESTS = []
# Timings are multiplied by this under sanitizers (meson's
# --timeout-multiplier does not reach the script; .ci/run sets ASAN_OPTIONS).
SLACK = 4.0 if "ASAN_OPTIONS" in os.environ else 1.0


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


class Daemon(harness.Daemon):
    """dungeond with a health listener, optionally a file-descriptor limit
    (RLIMIT_NOFILE) to provoke EMFILE, and optionally variables added to
    its environment (`env`)."""

    def __init__(self, limits=None, workers=2, extra=None, nofile=None, env=None):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "..", "config", "dungeond.json")) as f:
            config = json.load(f)
        config["workers"] = workers
        config["limits"].update(limits or {})
        config["roomsets_dir"] = ""  # no room sets: fast start, few descriptors
        config["health_listen"] = "127.0.0.1:0"
        config.update(extra or {})
        self.dir = tempfile.mkdtemp(prefix="dungeond-hardening-")
        self.config_path = os.path.join(self.dir, "dungeond.json")
        with open(self.config_path, "w") as f:
            json.dump(config, f)

        def limit():
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        self.proc = subprocess.Popen(
            [harness.DAEMON, "--config", self.config_path, "--listen", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=limit,
            env=dict(os.environ, **(env or {})))
        first = self.proc.stderr.readline()
        port = re.search(r'"port":(\d+)', first)
        health = re.search(r'"health_port":(\d+)', first)
        if not port or not health:
            self.proc.kill()
            raise RuntimeError("daemon did not start: " + first + self.proc.stderr.read())
        self.port = int(port.group(1))
        self.health_port = int(health.group(1))
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def metrics(self):
        """The health listener's /metrics as {name{labels}: value}."""
        text = raw(self.health_port, b"GET /metrics HTTP/1.1\r\nHost: h\r\n"
                   b"Connection: close\r\n\r\n", timeout=10).decode()
        values = {}
        for line in text.split("\r\n\r\n", 1)[1].splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def events(self, kind):
        return [json.loads(l) for l in self.lines if f'"event":"{kind}"' in l]


def connect(port, source="127.0.0.1", timeout=10, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    if rcvbuf is not None:
        # A reader with little room: a small receive buffer, and a small
        # segment size so that the daemon's kernel send buffer (sized from
        # the segment size) stays small too and the level stays in the
        # daemon, as it would with a slow client across a real network.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def read_all(s):
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError as e:  # a reset after the answer, or a timeout
        if not data:
            data = repr(e).encode()
    return data


def raw(port, data, timeout=10, half_close=False, source="127.0.0.1"):
    """Sends `data` on a new connection and reads until the daemon closes."""
    s = connect(port, source, timeout)
    try:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        return read_all(s)
    finally:
        s.close()


def parse(response):
    """(status, headers lower-case, body) of one HTTP/1.1 answer."""
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    check(lines[0].startswith("HTTP/1.1 "), f"not an HTTP answer: {response[:120]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def get(port, path="/livez", timeout=10, source="127.0.0.1"):
    return parse(raw(port, f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                     .encode(), timeout, source=source))


def stopped_clean(d, limit_s=60):
    code = d.stop(timeout=limit_s * SLACK)
    check(code == 0, f"exit status {code}: {''.join(d.lines[-5:])}")
    check(not d.sanitizer_reports(), "".join(d.sanitizer_reports()))


def wait_until(predicate, seconds, step=0.02):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


# ------------------------------------------------------------- 1: the wedge
@test("connections_max reached by half-sent headers that end together: accepting again at once")
def _():
    # MHD's own idle timeout (connection_timeout_s) ends them all in one run;
    # before the fix the listener was never re-armed and every later client
    # hung until SIGTERM.
    d = Daemon(limits={"connections_max": 32, "connections_per_ip_max": 0,
                       "connection_timeout_s": 1, "header_timeout_ms": 3600000})
    try:
        held = [connect(d.port) for _ in range(40)]
        for s in held:
            s.sendall(b"GET /livez HTTP/1.1\r\nHost: t\r\n")
        check(wait_until(lambda: d.metrics()["dungeond_connections"] == 32, 5 * SLACK),
              f"connections {d.metrics()['dungeond_connections']}, expected 32")
        check(d.metrics()['dungeond_connection_events_total{event="connection_limit"}'] >= 1,
              "the connection limit was not counted")
        check(d.events("connection_limit"), "no connection_limit log line")
        # The 32 time out together; the 8 waiting in the backlog are accepted
        # then and time out a second later.
        for s in held[:32]:
            read_all(s)
        freed = time.monotonic()
        status, _, _ = get(d.port, timeout=5 * SLACK)
        took = time.monotonic() - freed
        check(status == 200, f"status {status}")
        check(took < 1.0 * SLACK, f"answered {took:.2f} s after the connections ended")
        for s in held:
            s.close()
    finally:
        stopped_clean(d)


@test("EMFILE at accept: one log line a second, a counter, accepting again once descriptors free")
def _():
    d = Daemon(limits={"connections_max": 200, "connections_per_ip_max": 0,
                       "header_timeout_ms": 1000}, nofile=48)
    try:
        held = []
        for _ in range(80):
            s = connect(d.port)
            s.sendall(b"GET /livez HTTP/1.1\r\n")
            held.append(s)
        check(wait_until(lambda: d.events("accept_error"), 5 * SLACK), "no accept_error line")
        line = d.events("accept_error")[0]
        check("Too many open files" in line["detail"], f"{line}")
        for s in held:
            s.settimeout(10 * SLACK)
            read_all(s)  # cut at the header timeout (408), or never accepted
            s.close()
        status, _, _ = get(d.port, timeout=5 * SLACK)
        check(status == 200, f"after the descriptors freed: {status}")
        stats = d.stats()
        errors = stats["connection_events"]["accept_error"]
        check(errors >= 1, f"accept_error counter {errors}")
        check(len(d.events("accept_error")) <= errors, "more lines than events")
        metrics = d.metrics()
        check(metrics['dungeond_connection_events_total{event="accept_error"}'] == errors,
              "the /metrics counter differs from /v1/stats")
    finally:
        stopped_clean(d)


# ------------------------------------------------- 3: slowloris, keep-alive
SLOW_LIMITS = {"connections_max": 64, "connections_per_ip_max": 16, "header_timeout_ms": 1000,
               "body_timeout_ms": 1000}


def trickle(port, source, data, cut, stop, interval=0.1):
    """Sends `data` a byte per `interval` until the daemon closes; records
    (seconds from connect to the close, what the daemon sent) in `cut`."""
    try:
        s = connect(port, source, timeout=30)
    except OSError:
        cut.append(("refused", b""))
        return
    began = time.monotonic()
    s.settimeout(interval)
    answer = b""
    try:
        for byte in data:
            if stop.is_set():
                break
            try:
                s.send(bytes([byte]))
            except OSError:
                break
            try:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
            except socket.timeout:
                pass
            except OSError:
                break
        s.settimeout(5)
        answer += read_all(s)
    finally:
        cut.append((time.monotonic() - began, answer))
        s.close()


@test("slowloris from one address and idle keep-alives from another: others served, probes answered, tricklers cut at the header timeout")
def _():
    d = Daemon(limits=SLOW_LIMITS)
    stop = threading.Event()
    cut = []
    try:
        request = b"GET /v1/algorithms HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"a" * 200 + b"\r\n\r\n"
        threads = [threading.Thread(target=trickle, args=(d.port, "127.0.0.2", request, cut, stop))
                   for _ in range(40)]
        for t in threads:
            t.start()
        # Idle keep-alives from 127.0.0.3: one request each, then silence.
        idle = []
        for _ in range(16):
            s = connect(d.port, "127.0.0.3")
            s.sendall(b"GET /livez HTTP/1.1\r\nHost: t\r\n\r\n")
            check(s.recv(4096).startswith(b"HTTP/1.1 200"), "keep-alive request")
            idle.append(s)
        # A 17th from the same address is refused at accept.
        extra = connect(d.port, "127.0.0.3")
        extra.sendall(b"GET /livez HTTP/1.1\r\nHost: t\r\n\r\n")
        check(not read_all(extra).startswith(b"HTTP/1.1 200"), "17th keep-alive served")
        extra.close()
        # Everyone else: served, on the API and on the health listener.
        for source in ("127.0.0.1", "127.0.0.4"):
            status, _, _ = get(d.port, "/v1/algorithms", source=source)
            check(status == 200, f"API from {source}: {status}")
        for path in ("/livez", "/healthz", "/readyz", "/metrics"):
            status, _, _ = get(d.health_port, path)
            check(status == 200, f"health listener {path}: {status}")
        status, _, _ = get(d.health_port, "/v1/algorithms")
        check(status == 404, f"the health listener serves only probes: {status}")
        for t in threads:
            t.join(30 * SLACK)
        accepted = [(took, answer) for took, answer in cut if took != "refused" and answer]
        timed = [took for took, answer in accepted if b" 408 " in answer.split(b"\r\n")[0]]
        refused = len(cut) - len(accepted)
        check(len(timed) == 16, f"{len(timed)} tricklers cut with 408, expected 16 "
              f"(per-IP limit); refused {refused}")
        check(all(0.9 <= took <= 1.0 + 1.5 * SLACK for took in timed),
              f"cut after {sorted(round(t, 2) for t in timed)} s; header_timeout_ms 1000")
        stats = d.stats()
        events = stats["connection_events"]
        check(events["header_timeout"] >= 16 and events["per_ip_limit"] >= 24 + 1,
              f"events {events}")
        lines = d.events("per_ip_limit")
        check(1 <= len(lines) <= 3 + 2 * SLACK, f"{len(lines)} per_ip_limit lines: rate limit")
        check(any(l["suppressed"] > 0 for l in lines[1:]) or len(lines) == 1, f"{lines}")
        # Idle keep-alives outlive the header timeout (their clock starts at
        # a request's first byte) and still work.
        for s in idle[:4]:
            s.sendall(b"GET /livez HTTP/1.1\r\nHost: t\r\n\r\n")
            check(s.recv(4096).startswith(b"HTTP/1.1 200"), "idle keep-alive after 1 s")
        for s in idle:
            s.close()
    finally:
        stop.set()
        stopped_clean(d)


@test("a body trickled past body_timeout_ms: 408 problem+json, logged, connection closed")
def _():
    d = Daemon(limits=SLOW_LIMITS)
    try:
        s = connect(d.port)
        began = time.monotonic()
        s.sendall(b"POST /v1/levels HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n"
                  b"X-Request-Id: trickle-1\r\n\r\n{")
        s.settimeout(0.2)
        answer = b""
        for _ in range(int(40 * SLACK)):
            try:
                s.send(b" ")
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
            except socket.timeout:
                continue
            except OSError:
                break
        took = time.monotonic() - began
        s.close()
        status, headers, body = parse(answer)
        problem(status, headers, body, 408)
        check(headers.get("connection") == "close", f"{headers}")
        check(took < 1.0 + 1.5 * SLACK, f"cut after {took:.2f} s")
        check(wait_until(lambda: any('"request_id":"trickle-1"' in l and '"status":408' in l
                                     for l in d.lines), 5), "no 408 request log line")
        check(d.stats()["connection_events"]["body_timeout"] == 1, "body_timeout not counted")
    finally:
        stopped_clean(d)


# ------------------------------------------------ 4: bytes queued to readers
# A job that keeps a worker busy a while (~0.3 s, 2 MB).
BIG = {"algorithm": "landmark", "seed": 11, "params": {"width": 1000, "height": 1000}}
# A big level that is cheap to make (~1 MB in a few ms, a few MB of working
# memory), so that what grows is what is queued to readers.
FLOOD = {"algorithm": "nonlinear", "seed": 5, "params": {"width": 1000, "height": 1000}}


@test("clients that never read big levels: stalled ones closed, the rest refused 503, RSS under the documented bound, others served")
def _():
    budget = 8 << 20
    # 100 readers from one address: it stands for 100 clients, so the
    # per-client bounds of issue 24 are lifted here.
    # MALLOC_PERTURB_ off: `meson test` sets it (to a random 1-255) for
    # every test, and then glibc fills each block it hands out, so every
    # byte allocated is resident, not only the pages used. A 1000x1000
    # generation allocates ~14.5 MiB but touches ~2.5 (its per-cell arrays are
    # written only at the walkable cells): with it on, the growth measured
    # here was 31-41 MiB instead of 14-16, which is not what an operator's
    # daemon does (docs/config.md, "Memory bound").
    d = Daemon(limits={"send_queue_bytes_max": budget, "send_stall_ms": 200,
                       "connections_per_ip_max": 0, "deadline_ms_default": 60000,
                       "client_workers_max": 2, "client_queued_cost_max": 1000000000000},
               env={"MALLOC_PERTURB_": "0"})
    readers = []
    try:
        body = json.dumps(FLOOD).encode()
        request = (b"POST /v1/levels HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                   b"Content-Length: %d\r\n\r\n" % len(body)) + body
        # Warm up: one big level read in full, so the baseline includes the
        # generator's and the allocator's working set.
        size = len(parse(raw(d.port, request, timeout=120))[2])
        check(size > 900_000, f"level of {size} bytes: too small for this test")
        baseline = d.rss_kb()
        peak = baseline
        for _ in range(100):
            s = connect(d.port, timeout=120, rcvbuf=4096)
            s.sendall(request)
            readers.append(s)
        end = time.monotonic() + 120 * SLACK
        while time.monotonic() < end:
            peak = max(peak, d.rss_kb())
            stats = d.stats()
            answered = stats["requests"]["by_status"].get("200", 0) + \
                stats["requests"]["by_status"].get("503", 0)
            if answered >= 101 and \
                    stats["workers"]["busy"] == 0 and stats["queues"]["interactive"]["depth"] == 0:
                break
            time.sleep(0.05)
        peak = max(peak, d.rss_kb())
        grown_mb = (peak - baseline) / 1024
        unchecked = " (not checked under AddressSanitizer)" if "ASAN_OPTIONS" in os.environ else ""
        print(f"# RSS grew {grown_mb:.1f} MiB over the idle daemon's {baseline / 1024:.1f} MiB"
              + unchecked, flush=True)
        # docs/config.md: RSS above the idle daemon's stays under
        # send_queue_bytes_max + workers x (a level's working memory: a few
        # MiB here) + 16 MiB. 100 levels held would be 100 MiB.
        bound_mb = budget / 2**20 + 2 * 8 + 16
        # Under AddressSanitizer freed memory waits in its quarantine (256 MiB
        # by default) and mallopt() does not apply: RSS says nothing there.
        if "ASAN_OPTIONS" not in os.environ:
            check(grown_mb < bound_mb, f"RSS grew {grown_mb:.1f} MiB, bound {bound_mb:.0f} MiB")
        stats = d.stats()
        # Stalled readers were closed to make room; levels that did not fit
        # beside readers not yet stalled were refused with 503.
        dropped = stats["connection_events"]["slow_reader"]
        refused = stats["rejections"]["send_queue_full"]
        # (How many of each depends on speed: with slow generation, as under
        # sanitizers, every reader has stalled before the next level comes.)
        check(dropped >= 1 and dropped + refused >= 100 - budget // size - 2,
              f"slow readers closed {dropped}, levels refused {refused}")
        answers = []
        for s in readers:
            s.settimeout(0.5)
            try:
                answers.append(s.recv(4096))
            except OSError:
                pass
        refusals = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        check(len(refusals) == refused and all(b"Retry-After: 1\r\n" in a for a in refusals),
              f"503s without Retry-After: {refusals[:1]}")
        # Readers younger than send_stall_ms are not stalled yet; the sweep
        # closes them once they are, down to the budget.
        check(wait_until(lambda: d.stats()["send_queue_bytes"] <= budget, 5 * SLACK),
              f"queued {d.stats()['send_queue_bytes']} > {budget}")
        check(d.events("slow_reader"), "no slow_reader log line")
        status, _, _ = get(d.port, "/v1/algorithms")
        check(status == 200, f"others: {status}")
        # Once the held levels' readers have stalled (send_stall_ms), a new
        # level makes room by closing them.
        time.sleep(0.5)
        status, _, level = parse(raw(d.port, request, timeout=120))
        check(status == 200 and len(level) == size, f"a reader that reads: {status} {level[:200]!r}")
    finally:
        for s in readers:
            s.close()
        stopped_clean(d)


# -------------------------------------------------------------- 5: the drain
@test("SIGTERM while a client trickles a body: new connections answered, readyz 503, exit 0 by drain_timeout_ms")
def _():
    drain_ms = 1500
    d = Daemon(limits={"drain_timeout_ms": drain_ms, "header_timeout_ms": 3600000,
                       "body_timeout_ms": 3600000, "retry_after_s": 3})
    s = connect(d.port, timeout=30)
    stop = threading.Event()
    answer = []
    try:
        s.sendall(b"POST /v1/levels HTTP/1.1\r\nHost: t\r\nContent-Length: 60000\r\n\r\n{")

        def dribble():
            s.settimeout(0.1)
            got = b""
            while not stop.is_set():
                try:
                    s.send(b" ")
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    got += chunk
                except socket.timeout:
                    continue
                except OSError:
                    break
            answer.append(got)
        t = threading.Thread(target=dribble)
        t.start()
        time.sleep(0.3)
        signalled = time.monotonic()
        d.proc.send_signal(signal.SIGTERM)
        check(wait_until(lambda: any('"event":"drain"' in l for l in d.lines), 5), "no drain line")
        status, headers, body = get(d.port, "/readyz")
        check(status == 503 and headers.get("retry-after") == "3", f"readyz {status} {headers}")
        check(json.loads(body)["status"] == "draining", f"{body}")
        status, headers, _ = get(d.port, "/livez")
        check(status == 200 and headers.get("connection") == "close", f"livez {status}")
        status, headers, _ = get(d.health_port, "/readyz")
        check(status == 503, f"health listener readyz {status}")
        status, headers, body = parse(raw(d.port, b"POST /v1/levels HTTP/1.1\r\nHost: t\r\n"
                                          b"Content-Length: 37\r\n\r\n"
                                          b'{"algorithm": "classic", "seed": 420}'))
        problem(status, headers, body, 503)
        check(headers.get("retry-after") == "3", f"Retry-After {headers.get('retry-after')}")
        code = d.proc.wait(timeout=30 * SLACK)
        took = time.monotonic() - signalled
        check(code == 0, f"exit status {code}")
        check(took < drain_ms / 1000 + 1.0 * SLACK, f"exited {took:.2f} s after SIGTERM")
        stop.set()
        t.join(10)
        check(answer and b" 503 " in answer[0].split(b"\r\n")[0],
              f"the trickler got {answer[0][:80] if answer else None!r}")
        check(d.events("drain_closed"), "no drain_closed line")
    finally:
        stop.set()
        s.close()
        stopped_clean(d)


# ------------------------------------------------------------ 6: 413 at once
@test("a chunked body over body_bytes_max: 413 at the limit, connection closed, little read")
def _():
    # After the 413 the daemon drains what the client still sends, so that
    # the client reads the answer instead of a reset (issue 24 item 5), up
    # to linger_bytes_max: kept small here, so "little read" still holds.
    d = Daemon(limits={"body_bytes_max": 65536, "linger_bytes_max": 1 << 20})
    try:
        s = connect(d.port, timeout=10)
        s.sendall(b"POST /v1/levels HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"10000\r\n" + b" " * 65536 + b"\r\n"
        sent = 0
        began = time.monotonic()
        try:
            while time.monotonic() - began < 10:
                s.sendall(chunk)
                sent += 65536
        except OSError:
            pass
        took = time.monotonic() - began
        answer = read_all(s)
        s.close()
        # Kernel buffers on both sides hold a few MiB; the daemon stops
        # reading at 64 KiB.
        check(sent < 32 << 20, f"{sent} bytes sent before the daemon stopped reading")
        check(took < 2 * SLACK, f"refused after {took:.2f} s")
        status, headers, body = parse(answer)
        problem(status, headers, body, 413)
        check(headers.get("connection") == "close", f"{headers}")
        check(d.stats()["rejections"]["too_large"] == 1, "too_large not counted")
        # An announced oversized body is refused before it is sent.
        s = connect(d.port, timeout=10)
        s.sendall(b"POST /v1/levels HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n")
        status, headers, body = parse(read_all(s))
        s.close()
        problem(status, headers, body, 413)
    finally:
        stopped_clean(d)


# ------------------------------------------------------------------ 7: paths
@test("invalid UTF-8, control characters, overlong paths: 400/414 problem+json and a log line")
def _():
    d = Daemon()
    try:
        cases = [(b"/\xff\xfe", 400, "/%FF%FE"), (b"/v1/%ff", 400, "/v1/%FF"),
                 (b"/a%01b", 400, "/a%01b"), (b"/" + "\u00e9".encode() * 4100 + b"x", 414, None),
                 (b"/v1/lobbies/" + b"a" * 8200, 414, None)]
        for path, expected, instance in cases:
            answer = raw(d.port, b"GET " + path + b" HTTP/1.1\r\nHost: t\r\nX-Request-Id: p-"
                         + str(expected).encode() + b"\r\n\r\n")
            status, headers, body = parse(answer)
            doc = problem(status, headers, body, expected)
            check(instance is None or doc["instance"] == instance, f"instance {doc['instance']}")
            check(len(doc["instance"].encode()) < 8192, "instance too long")
        check(wait_until(lambda: sum('"status":400' in l for l in d.lines) >= 3 and
                         sum('"status":414' in l for l in d.lines) >= 2, 5),
              "no log line for bad paths")
        line = [l for l in d.lines if '"status":400' in l][0]
        check(json.loads(line)["path"] == "/%FF%FE", line)
    finally:
        stopped_clean(d)


@test("a half-closed client (shutdown(SHUT_WR) after its request) gets its normal answer")
def _():
    d = Daemon(workers=1)
    try:
        body = b'{"algorithm": "classic", "seed": 42}'
        request = b"POST /v1/levels HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n%s" % (
            len(body), body)
        status, _, level = parse(raw(d.port, request, half_close=True, timeout=60))
        check(status == 200 and json.loads(level)["seed"] == 42, f"{status} {level[:200]!r}")
        # The same while it waits in the queue behind a slow job: its
        # half-close reaches the daemon while the request is suspended.
        slow = json.dumps(BIG).encode()
        for _ in range(3):
            blocker = threading.Thread(target=raw, args=(d.port, b"POST /v1/levels HTTP/1.1\r\n"
                                                         b"Host: t\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
                                                         b"%s" % (len(slow), slow), 120))
            blocker.start()
            check(d.wait_for(lambda s: s["workers"]["busy"] == 1, 30), "slow job never started")
            status, headers, level = parse(raw(d.port, request, half_close=True, timeout=120))
            blocker.join()
            check(status == 200 and json.loads(level)["seed"] == 42, f"queued: {status}")
            check(headers.get("connection") == "close" and "server-timing" in headers, f"{headers}")
        check(d.stats()["rejections"]["clients_gone"] == 0, "counted as gone")
        check(wait_until(lambda: sum('"status":200' in l and '"seed":42' in l
                                     for l in d.lines) == 4, 5), "log lines of the answers")
    finally:
        stopped_clean(d)


@test("every 503 carries Retry-After from config (queue full, lobbies full, draining, readyz)")
def _():
    d = Daemon(workers=1, limits={"retry_after_s": 7, "interactive_queue_max": 0,
                                  "lobbies_max": 0})
    try:
        slow = json.dumps(BIG).encode()
        blocker = threading.Thread(target=raw, args=(d.port, b"POST /v1/levels HTTP/1.1\r\n"
                                                     b"Host: t\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
                                                     % (len(slow), slow), 120))
        blocker.start()
        check(d.wait_for(lambda s: s["workers"]["busy"] == 1, 30), "slow job never started")
        status, headers, body = d.request("POST", "/v1/levels", {"algorithm": "classic"})
        problem(status, headers, body, 503)
        check(headers.get("retry-after") == "7", f"queue full: {headers.get('retry-after')}")
        blocker.join()
        status, headers, body = d.request("PUT", "/v1/lobbies/l1", {"algorithm": "classic"})
        problem(status, headers, body, 503)
        check(headers.get("retry-after") == "7", f"lobbies full: {headers.get('retry-after')}")
    finally:
        stopped_clean(d)


@test("every draining answer is one problem: POST, a queued job, lobby create and start, the raw close")
def _():
    # Issue 14 item 1: the draining 503 was built four ways. Now each path
    # (the level route, a queued job cancelled by the drain, a lobby that
    # would be created, a lobby start, and a half-sent request written to at
    # the drain timeout) answers the same type, title and detail.
    drain_ms = 2500
    roomsets = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config",
                            "roomsets")
    d = Daemon(workers=1, limits={"drain_timeout_ms": drain_ms, "retry_after_s": 4,
                                  "header_timeout_ms": 3600000, "body_timeout_ms": 3600000},
               extra={"roomsets_dir": roomsets})
    answers = {}
    threads = []

    def post(name, body):
        data = json.dumps(body).encode()
        answers[name] = parse(raw(d.port, b"POST /v1/levels HTTP/1.1\r\nHost: t\r\n"
                                  b"Connection: close\r\nContent-Length: %d\r\n\r\n%s"
                                  % (len(data), data), 60 * SLACK))
    try:
        check(d.request("PUT", "/v1/lobbies/keep", {"algorithm": "classic"})[0] == 201, "lobby")
        # One slow job holds the only worker; a second waits in the queue.
        threads.append(threading.Thread(target=post, args=("running", harness.SLOW)))
        threads[-1].start()
        check(d.wait_for(lambda st: st["workers"]["busy"] == 1, 30), "the slow job never started")
        threads.append(threading.Thread(target=post, args=("queued", {"algorithm": "classic",
                                                                      "seed": 3})))
        threads[-1].start()
        check(d.wait_for(lambda st: st["queues"]["interactive"]["depth"] == 1, 30),
              f"nothing queued: {d.stats()['queues']}")
        half = connect(d.port, timeout=60 * SLACK)
        half.sendall(b"POST /v1/levels HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n{")
        d.proc.send_signal(signal.SIGTERM)
        check(wait_until(lambda: any('"event":"drain"' in l for l in d.lines), 5 * SLACK),
              "no drain line")
        answers["post"] = parse(raw(d.port, b"POST /v1/levels HTTP/1.1\r\nHost: t\r\n"
                                    b"Content-Length: 22\r\n\r\n{\"algorithm\":\"classic\"}"))
        answers["create"] = parse(raw(d.port, b"PUT /v1/lobbies/new HTTP/1.1\r\nHost: t\r\n"
                                      b"Content-Length: 2\r\n\r\n{}"))
        answers["start"] = parse(raw(d.port, b"POST /v1/lobbies/keep/start HTTP/1.1\r\n"
                                     b"Host: t\r\nContent-Length: 0\r\n\r\n"))
        answers["half-sent"] = parse(read_all(half))
        half.close()
        for t in threads:
            t.join(60 * SLACK)
        code = d.proc.wait(timeout=30 * SLACK)
        check(code == 0, f"exit status {code}")
        seen = set()
        for name in ("queued", "post", "create", "start", "half-sent", "running"):
            status, headers, body = answers[name]
            if name == "running" and status == 200:
                continue  # finished before the drain timeout: nothing to compare
            doc = problem(status, headers, body, 503)
            check(headers.get("retry-after") == "4", f"{name}: Retry-After {headers}")
            seen.add((doc["type"], doc["title"], doc["detail"]))
        check(len(seen) == 1, f"draining answers differ: {seen}")
        check(seen.pop() == ("urn:dungeond:problem:draining", "Shutting down",
                             "the daemon is shutting down; retry elsewhere"), "wording")
    finally:
        if d.proc.poll() is None:
            stopped_clean(d)


@test("the Bearer scheme is case-insensitive (RFC 7235); other schemes are 401")
def _():
    token = "t0ken-for-the-hardening-tests"
    d = Daemon(extra={"auth_tokens": [token]})
    try:
        for scheme in ("Bearer ", "bearer ", "BEARER  ", "bEaReR\t"):
            status, _, _ = d.request("GET", "/v1/algorithms",
                                     headers={"Authorization": scheme + token})
            check(status == 200, f"{scheme!r}: {status}")
        for value in ("Bearer" + token, "Basic " + token, "Bearerx " + token):
            status, headers, body = d.request("GET", "/v1/algorithms",
                                              headers={"Authorization": value})
            problem(status, headers, body, 401)
    finally:
        stopped_clean(d)


def main():
    return harness.run_tests(TESTS, sys.argv)


if __name__ == "__main__":
    sys.exit(main())
