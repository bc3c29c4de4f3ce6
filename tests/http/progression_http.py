#!/usr/bin/env python3
"""The progression pass (issue 19) checked against the real dungeond by an
independent checker (progression_checker.py: reads the map and features
only, searches (place, keys, locks opened) states).

Usage: progression_http.py PATH/TO/dungeond [SEEDS]. SEEDS (default 500) is
the number of seeds per algorithm; each seed takes one of the twelve
combinations of locks 1, 2, 4 x key_kind reusable, consumable x one_way 0, 2
in turn, every other round of twelve with boss_room. meson passes 150 under
the sanitizers (the build-asan build, several times slower), 500 otherwise. Then multi-floor sets (every floor checked on its own), authored
levels without a grid (checked on the graph), the defaults (no progression
at all) and every new field's 422. Prints TAP, with the pass counts and how
often fewer locks than asked were placed, per algorithm, as comments.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check, problem  # noqa: E402
import progression_checker as checker  # noqa: E402

SEEDS = 500
BASE = {
    "classic": {"algorithm": "classic"},
    "landmark": {"algorithm": "landmark"},
    "nonlinear": {"algorithm": "nonlinear"},
    "authored": {"algorithm": "authored", "roomset": "crypt", "params": {"rooms": 40}},
}
# Multi-floor sets also without authored's top-down grid, where forced
# stairs up outside every room are their own graph node (issue 23 item 3).
FLOOR_BASES = dict(BASE, authored_gridless={"algorithm": "authored", "roomset": "sewer",
                                            "params": {"rooms": 30, "grid": False}})
COMBOS = [(locks, kind, one_way) for locks in (1, 2, 4) for kind in ("reusable", "consumable")
          for one_way in (0, 2)]
TESTS = []


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def request_body(algorithm, seed, locks, kind, one_way, **extra):
    body = json.loads(json.dumps(FLOOR_BASES[algorithm]))
    body["seed"] = seed
    body.setdefault("params", {}).update({"locks": locks, "key_kind": kind, "one_way": one_way})
    body["params"].update(extra.pop("params", {}))
    body.update(extra)
    return body


class Tally:
    def __init__(self):
        self.levels = self.passed = self.fewer = self.one_way_fewer = 0
        self.locks = 0
        self.failures = []
        self.by_ask = {}  # (locks, one_way) -> [levels, fewer]

    def add(self, level, where):
        self.levels += 1
        p = level["progression"]
        self.fewer += p["locks_placed"] < p["locks_wanted"]
        self.one_way_fewer += p["one_way_placed"] < p["one_way_wanted"]
        self.locks += p["locks_placed"]
        ask = self.by_ask.setdefault((p["locks_wanted"], p["one_way_wanted"]), [0, 0])
        ask[0] += 1
        ask[1] += p["locks_placed"] < p["locks_wanted"]
        try:
            checker.check_level(level)
            self.passed += 1
        except checker.CheckFailed as e:
            self.failures.append(f"{where}: {e}")

    def line(self, name):
        return (f"{name}: {self.passed}/{self.levels} levels pass; fewer locks than asked in "
                f"{self.fewer} ({100.0 * self.fewer / max(self.levels, 1):.1f}%), mean "
                f"{self.locks / max(self.levels, 1):.2f} locks placed; fewer one-way doors in "
                f"{self.one_way_fewer}; fewer locks by (locks, one_way): "
                + ", ".join(f"{k[0]},{k[1]}: {v[1]}/{v[0]}" for k, v in sorted(self.by_ask.items())))


def generate(d, conn, body):
    status, _, data = d.request("POST", "/v1/levels", body, conn=conn)
    check(status == 200, f"{body}: {status} {data[:300]!r}")
    return json.loads(data)


def per_algorithm(algorithm):
    def run(d):
        tally = Tally()
        conn = d.connection()
        started = time.monotonic()
        for seed in range(1, SEEDS + 1):
            locks, kind, one_way = COMBOS[seed % len(COMBOS)]
            # Every other round of the twelve asks for a boss room too, so
            # the roles check (e) sees boss rooms on every algorithm.
            boss = (seed // len(COMBOS)) % 2 == 1
            body = request_body(algorithm, seed, locks, kind, one_way,
                                params={"boss_room": boss})
            tally.add(generate(d, conn, body), json.dumps(body))
        conn.close()
        print(f"# {tally.line(algorithm)} ({time.monotonic() - started:.1f} s)", flush=True)
        check(not tally.failures, "\n".join(tally.failures[:10]))
        check(tally.levels == SEEDS, f"{tally.levels} levels")
    return run


for name in BASE:
    test(f"{name}: SEEDS seeds, locks 1/2/4, both key kinds, one_way 0/2, all pass "
         "the checker")(per_algorithm(name))


@test("multi-floor sets: every floor is self-contained and passes the checker")
def _(d):
    conn = d.connection()
    for algorithm in FLOOR_BASES:
        tally = Tally()
        for seed in range(1, max(SEEDS // 50, 4) + 1):
            locks, kind, one_way = COMBOS[seed % len(COMBOS)]
            body = request_body(algorithm, seed, locks, kind, one_way, floors=3)
            answer = generate(d, conn, body)
            check(answer["format"] == "dungeond.levelset/1", "not a level set")
            for floor in answer["floors"]:
                tally.add(floor["level"], f"{json.dumps(body)} floor {floor['floor']}")
                check(floor["request"]["params"]["locks"] == locks, "floor request lost locks")
        print(f"# {tally.line(algorithm + ' floors')}", flush=True)
        check(not tally.failures, "\n".join(tally.failures[:10]))
    conn.close()


@test("authored without a grid: locks on connections, checked on the graph")
def _(d):
    tally = Tally()
    conn = d.connection()
    for seed in range(1, max(SEEDS // 5, 8) + 1):
        locks, kind, one_way = COMBOS[seed % len(COMBOS)]
        body = request_body("authored", seed, locks, kind, one_way, params={"grid": False})
        level = generate(d, conn, body)
        check("grid" not in level, "a grid")
        tally.add(level, json.dumps(body))
    conn.close()
    print(f"# {tally.line('authored grid=false')}", flush=True)
    check(not tally.failures, "\n".join(tally.failures[:10]))
    check(tally.locks > 0, "no lock placed on any graph level")


@test("the checker rejects a level whose lock can be walked around or whose key is behind it")
def _(d):
    level = generate(d, None, request_body("classic", 3, 2, "reusable", 0))
    check(level["progression"]["locks_placed"] == 2, f"{level['progression']}")
    checker.check_level(level)
    # A lock whose door becomes plain floor: the exit no longer needs it.
    broken = json.loads(json.dumps(level))
    lock = [f for f in broken["features"] if f["kind"] == "locked_door"][0]
    rows = broken["grid"]["rows"]
    rows[lock["y"]] = rows[lock["y"]][:lock["x"]] + "+" + rows[lock["y"]][lock["x"] + 1:]
    broken["features"].remove(lock)
    try:
        checker.check_level(broken)
        raise AssertionError("a level with a lock removed passed")
    except checker.CheckFailed:
        pass
    # Keys swapped: key 1 before lock 0 and key 0 behind it, a reusable softlock.
    swapped = json.loads(json.dumps(level))
    keys = [f for f in swapped["features"] if f["kind"] == "key"]
    keys[0]["key"], keys[1]["key"] = keys[1]["key"], keys[0]["key"]
    try:
        checker.check_level(swapped)
        raise AssertionError("a level with its keys swapped passed")
    except checker.CheckFailed as e:
        check("(a)" in str(e) or "(c)" in str(e) or "(d)" in str(e), str(e))


@test("the checker rejects wrong roles: a boss not behind the last lock, a key room "
      "without its key, a role outside the set, a node unlike its room")
def _(d):
    level = generate(d, None, request_body("classic", 3, 2, "reusable", 0,
                                           params={"boss_room": True, "closet_chance": 1}))
    p = level["progression"]
    check(p["locks_placed"] >= 1 and p.get("boss_room") is not None, f"{p}")
    checker.check_level(level)

    def rejects(change, words):
        broken = json.loads(json.dumps(level))
        change(broken)
        try:
            checker.check_level(broken)
        except checker.CheckFailed as e:
            check("(e)" in str(e) and words in str(e), f"{words}: {e}")
            return
        raise AssertionError(f"a level with {words} passed")

    def boss_in_front(lv):
        front = next(r for r in lv["rooms"] if r["role"] == "ordinary")
        lv["rooms"][lv["progression"]["boss_room"]]["role"] = "ordinary"
        lv["progression"]["boss_room"] = front["id"]
        front["role"] = "boss"

    def key_room_emptied(lv):
        room = next(r for r in lv["rooms"] if r["role"] == "key")
        room["role"] = "ordinary"
        room.pop("key")

    rejects(boss_in_front, "not behind the last lock")
    rejects(key_room_emptied, "holds key")
    rejects(lambda lv: lv["rooms"][0].update(role="vault"), "role 'vault'")
    rejects(lambda lv: lv["graph"]["nodes"][0].update(role="treasure"), "its room")


@test("defaults: no progression member, parameters, tiles or legend entries")
def _(d):
    for algorithm in BASE:
        body = json.loads(json.dumps(BASE[algorithm]))
        body["seed"] = 5
        level = generate(d, None, body)
        check("progression" not in level, f"{algorithm}: progression member")
        check("locks" not in level["params"], f"{algorithm}: params.locks listed")
        legend = level.get("grid", {}).get("legend", {})
        check("locked_door" not in legend.values(), f"{algorithm}: legend lists locked_door")
        check(all(f["kind"] in ("stairs_up", "stairs_down", "spawn") for f in level["features"]),
              f"{algorithm}: progression features")


@test("targets locks_min retries seeds until the locks fit")
def _(d):
    body = request_body("classic", 11, 4, "reusable", 0,
                        targets={"locks_min": 4, "attempts_max": 32})
    level = generate(d, None, body)
    t = level["targets"]
    check(t["achieved"]["locks"] == level["progression"]["locks_placed"], f"{t}")
    check(t["met"] == (level["progression"]["locks_placed"] >= 4), f"{t}")


@test("bad input: 422 naming the field and the allowed range")
def _(d):
    cases = [
        ({"locks": 17}, "params.locks", "an integer from 0 to 16"),
        ({"locks": -1}, "params.locks", "an integer from 0 to 16"),
        ({"one_way": 99}, "params.one_way", "an integer from 0 to 16"),
        ({"key_kind": "skeleton"}, "params.key_kind", "one of reusable, consumable"),
        ({"boss_room": "yes"}, "params.boss_room", None),
        ({"locks": 2, "placement": False}, "params.locks", "placement"),
    ]
    for params, field, words in cases:
        status, headers, data = d.request("POST", "/v1/levels",
                                          {"algorithm": "classic", "seed": 1, "params": params})
        doc = problem(status, headers, data, 422, field)
        check(words is None or words in doc["detail"], f"{params}: {doc['detail']}")
    status, headers, data = d.request(
        "POST", "/v1/levels",
        {"algorithm": "classic", "seed": 1, "targets": {"locks_min": 3, "locks_max": 1}})
    problem(status, headers, data, 422, "targets.locks_min")


def main():
    global SEEDS
    harness.DAEMON = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2:
        SEEDS = int(sys.argv[2])
    d = harness.Daemon()
    plan = [(name, fn, d) for name, fn in TESTS]
    try:
        code = harness.run_plan(plan)
    finally:
        exit_code = d.stop()
    if exit_code != 0 or d.sanitizer_reports():
        print(f"# daemon exit {exit_code}: {''.join(d.sanitizer_reports())[:2000]}")
        code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
