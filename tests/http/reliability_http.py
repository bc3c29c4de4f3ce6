#!/usr/bin/env python3
"""Reliability of dungeond under abuse and unlucky operation (issue 24): the
real daemon on loopback, spoken to over raw sockets from several source
addresses (127.0.0.2-127.0.0.9), paused with SIGSTOP/SIGCONT as a throttled
pod is, started with closed standard descriptors, FIFOs and file-size
limits. Every wait is bounded; every daemon must exit 0 on SIGTERM with no
sanitizer report.

Usage: reliability_http.py PATH/TO/dungeond [--only TEXT]
Prints TAP. Python 3 standard library only; reuses hardening_http.py's
Daemon (with a health listener) and raw-socket helpers.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
import hardening_http as hard  # noqa: E402
from dungeond_http import check, problem  # noqa: E402
from hardening_http import Daemon, SLACK, connect, get, parse, raw, read_all  # noqa: E402
from hardening_http import stopped_clean, wait_until  # noqa: E402

TESTS = []
# Ten thousand authored rooms with cycle closing: seconds of generation, far
# beyond the short lobby deadlines below, so only the deadline ends it.
HEAVY = {"algorithm": "authored", "params": {"rooms": 10000, "grid": False}}


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def here(*parts):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), *parts)


# ------------------------------------------------------- item 4: lobby clocks
@test("item 4: a lobby whose waiting start is answered 504 after a pause (SIGSTOP) stays for lobby_grace_ms")
def _():
    # Before: the tick that answered the waiter with 504 stamped the lobby's
    # clocks after its own `now`, `now - started_ns` wrapped, and the lobby
    # was deleted in that same tick (6 of 6 runs).
    d = harness.Daemon(workers=2, limits={"lobby_debounce_ms": 0, "lobby_grace_ms": 60000,
                                          "lobby_idle_ttl_ms": 600000},
                       extra={"roomsets_dir": here("..", "..", "config", "roomsets")})
    try:
        for round_ in range(3):
            lobby = f"paused{round_}"
            status = d.request("PUT", f"/v1/lobbies/{lobby}", dict(HEAVY, deadline_ms=800))[0]
            check(status in (200, 201), f"create: {status}")
            answer = {}

            def start():
                answer["start"] = d.request("POST", f"/v1/lobbies/{lobby}/start")

            waiter = threading.Thread(target=start)
            waiter.start()
            time.sleep(0.3 * SLACK)
            # The pod is throttled across the deadline: on SIGCONT the tick
            # finds the deadline passed and answers the waiter itself.
            d.proc.send_signal(signal.SIGSTOP)
            time.sleep(1.5 * SLACK)
            d.proc.send_signal(signal.SIGCONT)
            waiter.join(60 * SLACK)
            check("start" in answer, "the waiting start was never answered")
            problem(*answer["start"], 504, "deadline_ms")
            # Two ticks (250 ms each) later the lobby must still be there.
            time.sleep(0.6)
            status, _, body = d.request("GET", f"/v1/lobbies/{lobby}")
            check(status == 200, f"round {round_}: lobby gone after its 504: {status} {body[:200]!r}")
            check(d.stats()["lobbies"]["expired"] == 0, f"{d.stats()['lobbies']}")
    finally:
        stopped_clean(d)


def main():
    return harness.run_tests(TESTS, sys.argv)


if __name__ == "__main__":
    sys.exit(main())
