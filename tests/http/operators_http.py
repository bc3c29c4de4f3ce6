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
import sys
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


if __name__ == "__main__":
    sys.exit(harness.run_tests(TESTS, sys.argv))
