#!/usr/bin/env python3
"""The population pass (issue 20) checked against the real dungeond by an
independent checker (population_checker.py: derives every budget from the
graph, rooms, features and parameters, and compares).

Usage: population_http.py PATH/TO/dungeond [SEEDS]. SEEDS (default 500) is
the number of seeds per algorithm, each generated at difficulties 10, 50
and 90; one seed in three also asks for two locks and a boss room (eased
rooms, the peak), one in six for ease_after_locks 0 with them, one in four
for a pacing other than linear. Then
multi-floor sets (every floor gets budgets, also those whose stairs up sit
in a corridor), authored levels without a grid, the same budgets on 1, 2
and 16 workers, a profile deriving difficulty and loot (direct and through a
lobby), the defaults (no population member or parameter: today's bytes) and
every new field's 422.
Prints TAP, with the Spearman figures per algorithm as comments.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check, problem  # noqa: E402
import population_checker as checker  # noqa: E402

SEEDS = 500
DIFFICULTIES = (10, 50, 90)
OTHER_PACING = ("flat", "s_curve", "exponential")
BASE = {
    "classic": {"algorithm": "classic"},
    "landmark": {"algorithm": "landmark"},
    "nonlinear": {"algorithm": "nonlinear"},
    "authored": {"algorithm": "authored", "roomset": "crypt", "params": {"rooms": 40}},
}
TESTS = []


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def request_body(algorithm, seed, difficulty, **extra):
    body = json.loads(json.dumps(BASE[algorithm]))
    body["seed"] = seed
    params = body.setdefault("params", {})
    params.update({"population": True, "difficulty": difficulty})
    if seed % 3 == 0:
        params.update({"locks": 2, "boss_room": True})
    if seed % 6 == 0:
        params["ease_after_locks"] = 0
    if seed % 4 == 0:
        params["pacing"] = OTHER_PACING[(seed // 4) % 3]
    params.update(extra.pop("params", {}))
    body.update(extra)
    return body


class Tally:
    def __init__(self):
        self.levels = self.passed = self.linear = 0
        self.rho = []
        self.all_rho = []  # the level's own figure over every reachable room, linear pacing
        self.eased = self.boss = 0
        self.failures = []

    def add(self, level, where):
        self.levels += 1
        try:
            rho = checker.check_level(level)
            self.passed += 1
            if rho is not None:
                self.rho.append(rho)
            rooms = level["population"]["rooms"]
            if level["params"]["pacing"] == "linear":
                self.all_rho.append(level["population"]["curve"]["rank_correlation"])
            self.eased += any("eased" in r["why"] for r in rooms)
            self.boss += any("boss" in r["why"] for r in rooms)
        except checker.CheckFailed as e:
            self.failures.append(f"{where}: {e}")

    def line(self, name):
        rho = sorted(self.rho)
        spread = (f"min {rho[0]:.3f}, median {rho[len(rho) // 2]:.3f}" if rho else "none")
        every = sorted(self.all_rho)
        below = sum(r < 0.8 for r in every)
        overall = (f"min {every[0]:.3f}, median {every[len(every) // 2]:.3f}, below 0.8 in "
                   f"{below}" if every else "none")
        return (f"{name}: {self.passed}/{self.levels} levels pass; linear-pacing Spearman over "
                f"{len(rho)} levels (rooms on the curve): {spread}; over every reachable room "
                f"(the level's rank_correlation, {len(every)} levels): {overall}; levels with "
                f"eased rooms {self.eased}, with a boss room {self.boss}")


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
            for difficulty in DIFFICULTIES:
                body = request_body(algorithm, seed, difficulty)
                tally.add(generate(d, conn, body), json.dumps(body))
        conn.close()
        print(f"# {tally.line(algorithm)} ({time.monotonic() - started:.1f} s)", flush=True)
        check(not tally.failures, "\n".join(tally.failures[:10]))
        check(tally.levels == SEEDS * len(DIFFICULTIES), f"{tally.levels} levels")
        check(len(tally.rho) > SEEDS, f"only {len(tally.rho)} levels tested Spearman")
    return run


for name in BASE:
    test(f"{name}: SEEDS seeds x difficulties 10/50/90, all pass the checker")(
        per_algorithm(name))


@test("multi-floor sets: every floor gets budgets, stairs up in a corridor included")
def _(d):
    conn = d.connection()
    corridor_floors = 0
    for algorithm in BASE:
        tally = Tally()
        for seed in range(1, max(SEEDS // 25, 4) + 1):
            body = request_body(algorithm, seed, 60, floors=3)
            answer = generate(d, conn, body)
            check(answer["format"] == "dungeond.levelset/1", "not a level set")
            for floor in answer["floors"]:
                level = floor["level"]
                where = f"{json.dumps(body)} floor {floor['floor']}"
                tally.add(level, where)
                check(floor["request"]["params"].get("population") is True,
                      f"{where}: the floor's request lost population")
                up = [f for f in level["features"] if f["kind"] == "stairs_up"][0]
                reachable = [r for r in level["population"]["rooms"] if r["distance"] >= 0]
                if checker.room_at(level, up["x"], up["y"]) < 0:
                    corridor_floors += 1
                if len({r["distance"] for r in reachable}) > 1:
                    check(level["population"]["threat_total"] > 0, f"{where}: no budgets")
        print(f"# {tally.line(algorithm + ' floors')}", flush=True)
        check(not tally.failures, "\n".join(tally.failures[:10]))
    print(f"# floors whose stairs up lie outside every room: {corridor_floors}", flush=True)
    check(corridor_floors > 0, "no floor had its stairs up in a corridor; the case went untested")
    conn.close()


@test("authored without a grid: budgets over the graph")
def _(d):
    tally = Tally()
    conn = d.connection()
    for seed in range(1, max(SEEDS // 10, 8) + 1):
        level = generate(d, conn, request_body("authored", seed, 70, params={"grid": False}))
        check("grid" not in level, "a grid")
        tally.add(level, f"authored grid=false seed {seed}")
    conn.close()
    print(f"# {tally.line('authored grid=false')}", flush=True)
    check(not tally.failures, "\n".join(tally.failures[:10]))


@test("the checker rejects budgets that ignore distance or arrival")
def _(d):
    level = generate(d, None, request_body("classic", 5, 80))
    checker.check_level(level)
    rooms = level["population"]["rooms"]
    entrance = [r for r in rooms if "entrance" in r["why"]][0]
    broken = json.loads(json.dumps(level))
    broken["population"]["rooms"][entrance["room"]]["threat"] = 50
    try:
        checker.check_level(broken)
        raise AssertionError("a level with a threatening entrance passed")
    except checker.CheckFailed as e:
        check("(a)" in str(e), str(e))
    reversed_ = json.loads(json.dumps(level))
    far = max(rooms, key=lambda r: r["distance"])
    reversed_["population"]["rooms"][far["room"]]["threat"] = 1
    try:
        checker.check_level(reversed_)
        raise AssertionError("a level whose farthest room is easy passed")
    except checker.CheckFailed as e:
        check("(c)" in str(e), str(e))


@test("same request, same budgets; difficulty scales them")
def _(d):
    body = request_body("landmark", 9, 40)
    first, second = generate(d, None, body), generate(d, None, body)
    check(first["population"] == second["population"], "two answers differ")
    harder = generate(d, None, request_body("landmark", 9, 80))
    check(harder["population"]["threat_total"] > first["population"]["threat_total"],
          "difficulty 80 is not harder than 40")
    check(harder["grid"] == first["grid"], "difficulty changed the map")


@test("the same budgets on 1, 2 and 16 workers")
def _(d):
    bodies = [request_body(algorithm, seed, 70) for algorithm in BASE for seed in (3, 6, 8)]
    here = [generate(d, None, body)["population"] for body in bodies]
    for workers in (1, 16):
        other = harness.Daemon(workers=workers)
        try:
            there = [generate(other, None, body)["population"] for body in bodies]
        finally:
            code = other.stop()
        check(code == 0, f"{workers} workers: exit {code}")
        for body, a, b in zip(bodies, here, there):
            check(a == b, f"{workers} workers: {json.dumps(body)} differs")


@test("defaults: no population member or parameters (today's bytes)")
def _(d):
    for algorithm in BASE:
        body = json.loads(json.dumps(BASE[algorithm]))
        body["seed"] = 5
        level = generate(d, None, body)
        check("population" not in level, f"{algorithm}: population member")
        for name in ("population", "difficulty", "pacing", "loot", "ease_after_locks"):
            check(name not in level["params"], f"{algorithm}: params.{name} listed")
        body.setdefault("params", {}).update({"locks": 2})
        level = generate(d, None, body)
        check("difficulty" not in level["params"], f"{algorithm}: locks listed difficulty")


@test("bad input: 422 naming the field and the allowed range")
def _(d):
    cases = [
        ({"population": True, "difficulty": 101}, "params.difficulty", "an integer from 0 to 100"),
        ({"population": True, "difficulty": -1}, "params.difficulty", "an integer from 0 to 100"),
        ({"population": True, "pacing": "steep"}, "params.pacing",
         "one of flat, linear, s_curve, exponential"),
        ({"population": True, "loot": 100001}, "params.loot", "an integer from 0 to 100000"),
        ({"population": True, "ease_after_locks": 150}, "params.ease_after_locks",
         "an integer from 0 to 100"),
        ({"population": "yes"}, "params.population", None),
        ({"population": True, "placement": False}, "params.population", "placement"),
    ]
    for params, field, words in cases:
        status, headers, data = d.request("POST", "/v1/levels",
                                          {"algorithm": "classic", "seed": 1, "params": params})
        doc = problem(status, headers, data, 422, field)
        check(words is None or words in doc["detail"], f"{params}: {doc['detail']}")


# A profile deriving the population's numbers from the party, as
# docs/population.md shows: difficulty 10 + 3 x mean level + 5 x players.
RAID = {"algorithm": "classic", "doc": "population scaled to the party",
        "params": {"difficulty": {"base": 10, "mean.level": 3, "players": 5, "min": 0, "max": 100},
                   "loot": {"base": 50, "players": 25}}}


@test("a profile derives difficulty and loot from the party, directly and through a lobby")
def _(d):
    party = [{"level": 10}, {"level": 12}, {"level": 14}, {"level": 12}]
    level = generate(d, None, {"algorithm": "classic", "seed": 4, "profile": "raid",
                               "players": party, "params": {"population": True}})
    check(level["params"]["difficulty"] == 66 and level["params"]["loot"] == 150,
          f"{level['params']}")
    check(level["population"]["difficulty"] == 66, f"{level['population']['difficulty']}")
    checker.check_level(level)
    status, _, _ = d.request("PUT", "/v1/lobbies/raid-1",
                             {"profile": "raid", "params": {"population": True}, "seed": 4})
    check(status in (200, 201), f"lobby: {status}")
    for i, member in enumerate(party):
        status, _, _ = d.request("PUT", f"/v1/lobbies/raid-1/players/p{i}", member)
        check(status in (200, 201), f"join {i}: {status}")
    status, _, body = d.request("POST", "/v1/lobbies/raid-1/start")
    check(status == 200, f"start: {status} {body[:200]!r}")
    started = json.loads(body)
    check(started["population"]["difficulty"] == 66, f"{started['params']}")
    checker.check_level(started)


def main():
    global SEEDS
    harness.DAEMON = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2:
        SEEDS = int(sys.argv[2])
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "config", "dungeond.json")) as f:
        profiles = json.load(f)["profiles"]
    profiles["raid"] = RAID
    d = harness.Daemon(extra={"profiles": profiles})
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
