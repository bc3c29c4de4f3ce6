#!/usr/bin/env python3
"""A light client's latency while another client floods the daemon with
heavy work (issue 24 item 3).

  bench/fairness.py [--build DIR] [--config FILE] [--requests N] [--flood C] [--rounds R]
                    [--json]

Starts the dungeond of the build (default ./build) with the default
configuration and 2 workers on a free loopback port. Then, R rounds (default
3) of: N (default 1000) sequential small requests (classic, seed i) from
127.0.0.3 on an idle daemon, then the same N while C connections (default
64) from 127.0.0.2 post landmark 1000x1000 maps with deadline_ms 60000 in a
loop (as fast as they are answered; after a 429 each waits its
Retry-After, 1 s, as HTTP clients that honour it do), then a wait until
the daemon has no job queued or running (the flood's queued maps outlive
it). Prints, per phase, the light client's p50/p99 latency (median over
rounds), its non-200 answers, the flood's answers by status, and the ratio
of loaded to idle p99 per round and its median; --json prints one JSON
object instead. The claim it checks: the ratio stays below 2. Loopback only, bounded in time (each round is N light
requests long; the flood stops with them).

The flood runs in a process of its own: its 64 threads reading megabytes
in this process would hold Python's lock for up to its 5 ms switch
interval while the light client's answer waits to be read, and the light
client's p99 would measure the benchmark, not the daemon. Both clients
read answers into a scratch buffer and keep only the status line.
"""
import argparse
import json
import multiprocessing
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HEAVY = {"algorithm": "landmark", "seed": 11, "deadline_ms": 60000,
         "params": {"width": 1000, "height": 1000}}


def start(build, config, log_path):
    binary = os.path.join(build, "src", "server", "dungeond")
    log = open(log_path, "w")
    proc = subprocess.Popen([binary, "--config", config, "--listen", "127.0.0.1:0",
                             "--workers", "2"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(400):
        with open(log_path) as f:
            m = re.search(r'"port":(\d+)', f.read())
        if m:
            return proc, int(m.group(1))
        time.sleep(0.05)
    proc.kill()
    sys.exit(f"fairness: {binary} did not start; see {log_path}")


def post(port, doc, source, timeout=120):
    """The status of one POST /v1/levels from `source` (read to the end)."""
    body = json.dumps(doc).encode()
    s = socket.socket()
    s.settimeout(timeout)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"POST /v1/levels HTTP/1.1\r\nHost: b\r\nConnection: close\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body) + body)
        # The status line, then the rest read into one scratch buffer and
        # dropped: a heavy answer is megabytes, and copying it around would
        # be the client's cost, not the daemon's.
        head, scratch = b"", bytearray(1 << 16)
        while len(head) < 12:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            head += chunk
        while s.recv_into(scratch):
            pass
        return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else "error"
    except OSError:
        return "error"
    finally:
        s.close()


def wait_idle(port, limit_s=120.0):
    """Until the daemon has no interactive job queued or running (the
    flood's queue outlives the flood), so the next idle phase is idle."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"GET /v1/stats HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n")
                answer = b""
                while chunk := s.recv(1 << 16):
                    answer += chunk
            stats = json.loads(answer.split(b"\r\n\r\n", 1)[1])
            if stats["queues"]["interactive"]["depth"] == 0 and stats["workers"]["busy"] == 0:
                return
        except (OSError, ValueError, KeyError, IndexError):
            pass
        time.sleep(0.1)
    sys.exit("fairness: the daemon did not become idle after the flood")


def light_run(port, requests, round_):
    latencies, failures = [], 0
    for i in range(requests):
        began = time.monotonic()
        status = post(port, {"algorithm": "classic", "seed": round_ * requests + i + 1},
                      "127.0.0.3")
        latencies.append((time.monotonic() - began) * 1000)
        failures += status != 200
    latencies.sort()
    return {"p50_ms": latencies[len(latencies) // 2],
            "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
            "non_200": failures}


def flood_process(port, flood, stop, results):
    """The flood, in a child process: `flood` threads posting HEAVY until
    `stop` is set, then their answers by status put on `results`."""
    answers = {}
    lock = threading.Lock()

    def flooder():
        while not stop.is_set():
            status = post(port, HEAVY, "127.0.0.2")
            with lock:
                answers[str(status)] = answers.get(str(status), 0) + 1
            if status == 429:
                stop.wait(1.0)  # Retry-After: 1, as a client that follows it
    threads = [threading.Thread(target=flooder, daemon=True) for _ in range(flood)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    results.put(answers)


def flooded_run(port, requests, flood, round_):
    context = multiprocessing.get_context("fork")
    stop, results = context.Event(), context.Queue()
    child = context.Process(target=flood_process, args=(port, flood, stop, results))
    child.start()
    time.sleep(1.0)  # the flood's queue fills
    result = light_run(port, requests, round_)
    stop.set()
    result["flood_answers"] = results.get(timeout=240)
    child.join(60)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--config", default=os.path.join(ROOT, "config", "dungeond.json"),
                        help="the daemon's configuration (default config/dungeond.json)")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--flood", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.requests < 10 or args.flood < 1 or args.rounds < 1:
        sys.exit("fairness: --requests must be >= 10, --flood and --rounds >= 1")
    with tempfile.TemporaryDirectory(prefix="dungeond-fairness-") as work:
        proc, port = start(args.build, args.config, os.path.join(work, "dungeond.log"))
        try:
            post(port, {"algorithm": "classic", "seed": 1}, "127.0.0.3")  # warm up
            idle, loaded = [], []
            progress = benchlib.Progress("fairness.py")
            for r in range(args.rounds):
                progress.step("round", r + 1, args.rounds, "idle daemon")
                idle.append(light_run(port, args.requests, r))
                progress.step("round", r + 1, args.rounds, f"under a {args.flood}-connection flood")
                loaded.append(flooded_run(port, args.requests, args.flood, r))
                wait_idle(port)  # the flood's queued jobs end before the next idle phase
            progress.end()
        finally:
            proc.terminate()
            proc.wait(timeout=120)

    def median(runs, key):
        return statistics.median(run[key] for run in runs)
    flood = {}
    for run in loaded:
        for status, count in run["flood_answers"].items():
            flood[status] = flood.get(status, 0) + count
    result = {
        "requests": args.requests, "flood_connections": args.flood, "rounds": args.rounds,
        "idle": {"p50_ms": median(idle, "p50_ms"), "p99_ms": median(idle, "p99_ms"),
                 "non_200": sum(run["non_200"] for run in idle)},
        "flooded": {"p50_ms": median(loaded, "p50_ms"), "p99_ms": median(loaded, "p99_ms"),
                    "non_200": sum(run["non_200"] for run in loaded)},
        "flood_answers": flood,
    }
    result["p99_ratio_per_round"] = [f["p99_ms"] / max(i["p99_ms"], 1e-9)
                                     for i, f in zip(idle, loaded)]
    result["p99_ratio"] = statistics.median(result["p99_ratio_per_round"])
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"light client: {args.requests} sequential classic requests, median of "
          f"{args.rounds} rounds; flood: {args.flood} connections of landmark 1000x1000")
    print(f"{'phase':<10} {'p50 ms':>9} {'p99 ms':>9} {'non-200':>8}")
    for phase in ("idle", "flooded"):
        row = result[phase]
        print(f"{phase:<10} {row['p50_ms']:>9.2f} {row['p99_ms']:>9.2f} {row['non_200']:>8}")
    print(f"p99 flooded / idle, median of rounds: {result['p99_ratio']:.2f} "
          f"[{', '.join(f'{x:.2f}' for x in result['p99_ratio_per_round'])}] (claim: below 2)")
    print("flood answers: " + ", ".join(f"{k}: {v}" for k, v in sorted(flood.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
