#!/usr/bin/env python3
"""POST /v1/audit and `dungeon audit` (issue 25 item 4) against the real
dungeond: one request over many seeds, per figure its quantiles and a
histogram, recomputed here from the levels themselves (fetched one by one
through POST /v1/levels), the same figures from the CLI, and every bad
member's 422 naming the field.

Usage: audit_http.py PATH/TO/dungeond PATH/TO/dungeon. Prints TAP.
"""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check, problem  # noqa: E402

TESTS = []
LIMITS = {"audit_seeds_max": 80}
FIGURES = ["rooms", "cycles", "dead_ends", "path", "floor_share", "locks", "spawn_spread",
           "generation_ms"]


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def audit(d, body):
    status, headers, data = d.request("POST", "/v1/audit", body)
    check(status == 200, f"{status}: {data[:300]!r}")
    check(headers["content-type"] == "application/json", headers["content-type"])
    check(headers.get("cache-control") == "no-store", f"cacheable: {headers}")
    return json.loads(data)


def nearest_rank(values, permille):
    ordered = sorted(values)
    rank = max(1, math.ceil(permille * len(values) / 1000))
    return ordered[rank - 1]


@test("an audit's figures are the levels' own: recomputed from each seed's level")
def _(d):
    request = {"algorithm": "classic", "params": {"locks": 1, "width": 60}}
    got = audit(d, dict(request, seeds=40, first_seed=11, bins=5))
    check(got["format"] == "dungeond.audit/1" and got["seeds"] == {"first": "11", "count": 40},
          f"{got['format']} {got['seeds']}")
    check(list(got["figures"]) == FIGURES, f"figures {list(got['figures'])}")
    levels = []
    for seed in range(11, 51):
        status, _, data = d.request("POST", "/v1/levels", dict(request, seed=seed))
        check(status == 200, f"seed {seed}: {status}")
        levels.append(json.loads(data))
    own = {"rooms": [l["metrics"]["rooms"] for l in levels],
           "cycles": [l["metrics"]["cycles"] for l in levels],
           "dead_ends": [l["metrics"]["dead_ends"] for l in levels],
           "path": [l["placement"]["entrance_to_exit"] for l in levels],
           "locks": [l["progression"]["locks_placed"] for l in levels],
           "floor_share": [l["metrics"]["walkable_tiles"] / (60 * 21) for l in levels]}
    for name, values in own.items():
        figure = got["figures"][name]
        for key, permille in (("p10", 100), ("p25", 250), ("p50", 500), ("p75", 750),
                              ("p90", 900), ("p99", 990)):
            want = nearest_rank(values, permille)
            check(abs(figure[key] - want) < 1e-9, f"{name}.{key}: {figure[key]}, levels say {want}")
        # Reals are printed with ten significant digits.
        check(abs(figure["min"] - min(values)) < 1e-9 and abs(figure["max"] - max(values)) < 1e-9,
              f"{name}: range {figure['min']}..{figure['max']}, levels {min(values)}..{max(values)}")
        check(abs(figure["mean"] - sum(values) / len(values)) < 1e-9, f"{name}: mean")
        bins = figure["histogram"]
        check(sum(b["count"] for b in bins) == 40, f"{name}: histogram holds {bins}")
        # Whole-number figures only: a real's bin edge is printed rounded.
        for b in bins[:-1] if name != "floor_share" else []:
            inside = sum(1 for v in values if b["from"] <= v < b["to"])
            check(inside == b["count"], f"{name}: bin {b} holds {inside}")
    short = sum(1 for l in levels if l["progression"]["locks_placed"] < 1)
    check(got["locks_short"] == short, f"locks_short {got['locks_short']}, levels say {short}")


@test("an audit is deterministic but for its generation times, and the CLI agrees")
def _(d):
    request = {"algorithm": "nonlinear", "seeds": 30, "targets": {"cycles_min": 20}}
    first, again = audit(d, request), audit(d, request)
    for doc in (first, again):
        del doc["figures"]["generation_ms"]
    check(first == again, "two audits of one request differ")
    check(first["targets"]["asked"] and 0 <= first["targets"]["missed"] <= 30, f"{first['targets']}")
    run = subprocess.run([CLI, "audit", "--algorithm", "nonlinear", "--seeds", "30", "--target",
                          "cycles_min=20", "--json"], capture_output=True, text=True, timeout=300)
    check(run.returncode == 0, f"dungeon audit: {run.returncode} {run.stderr[-300:]}")
    cli = json.loads(run.stdout)
    del cli["figures"]["generation_ms"]
    check(cli == first, "dungeon audit and POST /v1/audit differ")


@test("an audit through a profile: the party's parameters, as a level would get them")
def _(d):
    party = {"algorithm": "classic", "players": [{"level": 12}, {"level": 7}]}
    got = audit(d, dict(party, seeds=10))
    status, _, data = d.request("POST", "/v1/levels", dict(party, seed=1))
    check(status == 200, f"level {status}")
    level = json.loads(data)
    check(got["figures"]["spawn_spread"]["max"] >= 0, f"{got['figures']['spawn_spread']}")
    rooms = got["figures"]["rooms"]
    check(rooms["min"] <= level["metrics"]["rooms"] <= rooms["max"],
          f"seed 1's {level['metrics']['rooms']} rooms outside {rooms}")


@test("bad audits: 422 naming the field and its range; GET 405 with Allow: POST")
def _(d):
    base = {"algorithm": "classic"}
    problem(*d.request("POST", "/v1/audit", dict(base, seeds=0)), 422, "seeds")
    status, _, data = d.request("POST", "/v1/audit", dict(base, seeds=81))
    check(status == 422 and b"limits.audit_seeds_max" in data and b"from 1 to 80" in data,
          f"{status} {data[:300]!r}")
    problem(*d.request("POST", "/v1/audit", dict(base, seeds="10")), 422, "seeds")
    problem(*d.request("POST", "/v1/audit", dict(base, bins=65)), 422, "bins")
    problem(*d.request("POST", "/v1/audit", dict(base, first_seed=-1)), 422, "first_seed")
    problem(*d.request("POST", "/v1/audit", dict(base, seed=3)), 422, "seed")
    problem(*d.request("POST", "/v1/audit", dict(base, floors=2)), 422, "floors")
    problem(*d.request("POST", "/v1/audit", {"algorithm": "nope"}), 422, "algorithm")
    problem(*d.request("POST", "/v1/audit", dict(base, params={"width": 5})), 422, "params.width")
    problem(*d.request("POST", "/v1/audit", b"{not json"), 400)
    status, headers, _ = d.request("GET", "/v1/audit")
    check(status == 405 and headers.get("allow") == "POST", f"GET: {status} {headers.get('allow')}")


def main():
    global CLI
    harness.DAEMON = os.path.abspath(sys.argv[1])
    CLI = os.path.abspath(sys.argv[2])
    print(f"1..{len(TESTS) + 1}", flush=True)
    failed = 0
    d = harness.Daemon(limits=LIMITS)
    try:
        for number, (name, fn) in enumerate(TESTS, 1):
            try:
                fn(d)
                print(f"ok {number} - {name}", flush=True)
            except Exception as e:  # a failed check or an unexpected error
                failed += 1
                print(f"not ok {number} - {name}", flush=True)
                for line in str(e).splitlines() or [repr(e)]:
                    print(f"# {line}", flush=True)
    finally:
        code = d.stop()
    name = "SIGTERM: exit 0, no sanitizer report"
    if code == 0 and not d.sanitizer_reports():
        print(f"ok {len(TESTS) + 1} - {name}", flush=True)
    else:
        failed += 1
        print(f"not ok {len(TESTS) + 1} - {name}", flush=True)
        print(f"# exit {code}: {''.join(d.sanitizer_reports())[:2000]}", flush=True)
    return 1 if failed else 0


CLI = None

if __name__ == "__main__":
    sys.exit(main())
