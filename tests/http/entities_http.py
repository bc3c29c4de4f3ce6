#!/usr/bin/env python3
"""Content tables and entities (issue 20 items 3, 5 and 7) against the real
dungeond, checked by an independent checker (entities_checker.py: reads only
the level and the table file).

Usage: entities_http.py PATH/TO/dungeond [SEEDS]. SEEDS (default 500) seeds
per algorithm (classic, landmark, nonlinear, authored, each small so that
the run stays short), each at difficulties 10, 50 and 90 with the example
fantasy table; one seed in three also with two locks and a boss room. Then
the same entities on 1, 2 and 16 workers, GET /v1/tables, a table whose
every entry lies outside the window (200, budgets unfilled with the reason),
control points for pacing, every bad input's 422 and a broken table file
stopping the daemon (exit 2 naming the file and the field). Prints TAP.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check, problem  # noqa: E402
import entities_checker as checker  # noqa: E402
import population_checker  # noqa: E402

SEEDS = 500
DIFFICULTIES = (10, 50, 90)
HERE = os.path.dirname(os.path.abspath(__file__))
FANTASY = os.path.join(HERE, "..", "..", "config", "tables", "fantasy.json")
with open(FANTASY) as f:
    TABLE = json.load(f)
# Every entry outside the window of difficulties above 5.
NARROW = {"name": "narrow", "encounters": [{"id": "rat", "cost": 5, "difficulty": [0, 5]}],
          "loot": [{"id": "coin", "tier": 0}]}
TABLES = {"fantasy": TABLE, "narrow": NARROW}
BASE = {
    "classic": {"algorithm": "classic", "params": {"width": 48, "height": 20}},
    "landmark": {"algorithm": "landmark", "params": {"width": 64, "height": 40}},
    "nonlinear": {"algorithm": "nonlinear", "params": {"width": 40, "height": 24}},
    "authored": {"algorithm": "authored", "roomset": "crypt", "params": {"rooms": 12}},
}
TESTS = []


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def request_body(algorithm, seed, difficulty, table="fantasy", **params):
    body = json.loads(json.dumps(BASE[algorithm]))
    body["seed"] = seed
    body["params"].update({"population": True, "difficulty": difficulty, "table": table})
    if seed % 3 == 0:
        body["params"].update({"locks": 2, "boss_room": True})
    body["params"].update(params)
    return body


def generate(d, conn, body):
    status, _, data = d.request("POST", "/v1/levels", body, conn=conn)
    check(status == 200, f"{json.dumps(body)}: {status} {data[:300]!r}")
    return json.loads(data)


def per_algorithm(algorithm):
    def run(d):
        conn = d.connection()
        started = time.monotonic()
        failures, levels, entities, unfilled = [], 0, 0, {}
        for seed in range(1, SEEDS + 1):
            for difficulty in DIFFICULTIES:
                body = request_body(algorithm, seed, difficulty)
                level = generate(d, conn, body)
                levels += 1
                try:
                    entities += checker.check_level(level, TABLE)
                except checker.CheckFailed as e:
                    failures.append(f"{json.dumps(body)}: {e}")
                for room in level["population"]["rooms"]:
                    if "unfilled" in room:
                        unfilled[room["unfilled"]] = unfilled.get(room["unfilled"], 0) + 1
        conn.close()
        print(f"# {algorithm}: {levels - len(failures)}/{levels} levels pass, {entities} "
              f"entities, unfilled budgets {unfilled} ({time.monotonic() - started:.1f} s)",
              flush=True)
        check(not failures, "\n".join(failures[:10]))
        check(entities > levels, f"only {entities} entities in {levels} levels")
    return run


for name in BASE:
    test(f"{name}: SEEDS seeds x difficulties 10/50/90 with the fantasy table pass the checker")(
        per_algorithm(name))


@test("the checker rejects entities on a forbidden tile or over the budget")
def _(d):
    level = generate(d, None, request_body("classic", 4, 70))
    checker.check_level(level, TABLE)
    spawn = [f for f in level["features"] if f["kind"] == "spawn"][0]
    broken = json.loads(json.dumps(level))
    broken["entities"][0].update({"x": spawn["x"], "y": spawn["y"], "w": 1, "h": 1})
    try:
        checker.check_level(broken, TABLE)
        raise AssertionError("an entity on a spawn passed")
    except checker.CheckFailed as e:
        check("(b)" in str(e) or "(c)" in str(e), str(e))
    broken = json.loads(json.dumps(level))
    room = broken["entities"][0]["room"]
    broken["population"]["rooms"][room]["threat"] = broken["population"]["rooms"][room]["spent"] - 1
    try:
        checker.check_level(broken, TABLE)
        raise AssertionError("spending over the budget passed")
    except checker.CheckFailed as e:
        check("(e)" in str(e), str(e))


@test("the same entities on 1, 2 and 16 workers")
def _(d):
    bodies = [request_body(algorithm, seed, difficulty) for algorithm in BASE
              for seed in (3, 7) for difficulty in (10, 90)]
    here = [generate(d, None, body) for body in bodies]
    for workers in (1, 16):
        other = harness.Daemon(workers=workers, extra={"tables_dir": d.tables_dir})
        try:
            there = [generate(other, None, body) for body in bodies]
        finally:
            code = other.stop()
        check(code == 0, f"{workers} workers: exit {code}")
        for body, a, b in zip(bodies, here, there):
            check(a["entities"] == b["entities"] and a["population"] == b["population"],
                  f"{workers} workers: {json.dumps(body)} differs")


@test("GET /v1/tables lists the loaded tables with their entry counts")
def _(d):
    status, _, data = d.request("GET", "/v1/tables")
    check(status == 200, f"{status}")
    listed = {t["name"]: t for t in json.loads(data)}
    check(set(listed) == set(TABLES), f"{sorted(listed)}")
    check(listed["fantasy"]["encounters"] == len(TABLE["encounters"]) and
          listed["fantasy"]["loot"] == len(TABLE["loot"]), f"{listed['fantasy']}")
    check(len(TABLE["encounters"]) + len(TABLE["loot"]) >= 40, "the example has under 40 entries")
    check(len(listed["fantasy"]["sha256"]) == 64, f"{listed['fantasy']}")


@test("a table with no entry in the window: 200, budgets unfilled with the reason")
def _(d):
    level = generate(d, None, request_body("classic", 5, 60, table="narrow"))
    rooms = level["population"]["rooms"]
    check(any(r["threat"] > 0 for r in rooms), "no budget to fill")
    for r in rooms:
        if r["threat"] > 0:
            check(r.get("unfilled") == "no entry in the difficulty window", f"{r}")
    check(all(e["kind"] == "loot" for e in level["entities"]), "an encounter outside the window")
    checker.check_level(level, NARROW)


@test("without a table: no entities member, no spent (the bytes of before)")
def _(d):
    body = request_body("classic", 5, 60)
    del body["params"]["table"]
    level = generate(d, None, body)
    check("entities" not in level, "entities without a table")
    check(all("spent" not in r for r in level["population"]["rooms"]), "spent without a table")
    check("table" not in level["params"], "params.table listed")


@test("pacing as control points: JSON pairs and query text give the curve")
def _(d):
    level = generate(d, None, request_body("classic", 5, 60, pacing=[[0, 0], [50, 80], [100, 100]]))
    check(level["params"]["pacing"] == [[0, 0], [50, 80], [100, 100]], f"{level['params']}")
    check(level["population"]["pacing"] == [[0, 0], [50, 80], [100, 100]], "population.pacing")
    for r in level["population"]["rooms"]:
        if r["why"] or r["progress"] is None:
            continue
        t = r["progress"] * 100
        y = 80 * t / 50 if t <= 50 else 80 + 20 * (t - 50) / 50
        check(abs(r["threat"] - 600 * y / 100) <= 2, f"room {r['room']}: {r['threat']} vs {y}")
    checker.check_level(level, TABLE)
    for seed in range(1, 40):
        population_checker.check_level(generate(d, None, request_body(
            "landmark", seed, 70, pacing=[[0, 10], [30, 90], [60, 20], [100, 100]])))
    status, _, data = d.request("GET", "/v1/levels?algorithm=classic&seed=5&width=48&height=20"
                                "&population=true&difficulty=60&table=fantasy"
                                "&pacing=0:0,50:80,100:100")
    check(status == 200, f"query: {status} {data[:200]!r}")
    same = json.loads(data)
    check(same["population"] == level["population"] and same["entities"] == level["entities"],
          "query and JSON points differ")
    linear = generate(d, None, request_body("classic", 5, 60, pacing=[[0, 0], [100, 100]]))
    plain = generate(d, None, request_body("classic", 5, 60, pacing="linear"))
    check([r["threat"] for r in linear["population"]["rooms"]] ==
          [r["threat"] for r in plain["population"]["rooms"]], "[[0,0],[100,100]] is not linear")


@test("bad input: 422 naming the field")
def _(d):
    points = "2 to 16 control points"
    cases = [
        ({"population": True, "table": "nope"}, "params.table", "unknown table 'nope'"),
        ({"table": "fantasy"}, "params.table", "needs params.population"),
        ({"population": True, "table": "bad name!"}, "params.table", None),
        ({"population": True, "difficulty": 101}, "params.difficulty", "from 0 to 100"),
        ({"population": True, "pacing": "steep"}, "params.pacing", points),
        ({"population": True, "pacing": [[0, 0]]}, "params.pacing", points),
        ({"population": True, "pacing": [[0, 0], [50, 10], [40, 20], [100, 0]]}, "params.pacing",
         points),
        ({"population": True, "pacing": [[0, 0], [100, 101]]}, "params.pacing", points),
        ({"population": True, "pacing": [[10, 0], [100, 100]]}, "params.pacing", points),
        ({"population": True, "pacing": [[0, 0]] + [[i, 0] for i in range(1, 17)] + [[100, 0]]},
         "params.pacing", points),
        ({"population": True, "pacing": [[0, "a"], [100, 0]]}, "params.pacing", points),
    ]
    for params, field, words in cases:
        status, headers, data = d.request("POST", "/v1/levels",
                                          {"algorithm": "classic", "seed": 1, "params": params})
        doc = problem(status, headers, data, 422, field)
        check(words is None or words in doc["detail"], f"{params}: {doc['detail']}")


@test("a broken table file stops the daemon: exit 2 naming the file and the field")
def _(d):
    broken_dir = tempfile.mkdtemp(prefix="tables-broken-")
    try:
        bad = json.loads(json.dumps(TABLE))
        bad["encounters"][3]["difficulty"] = [70, 20]
        with open(os.path.join(broken_dir, "fantasy.json"), "w") as f:
            json.dump(bad, f)
        config = os.path.join(broken_dir, "config.json")
        with open(config, "w") as f:
            json.dump({"tables_dir": broken_dir, "roomsets_dir": ""}, f)
        run = subprocess.run([harness.DAEMON, "--config", config, "--listen", "127.0.0.1:0"],
                             capture_output=True, text=True, timeout=60)
        check(run.returncode == 2, f"exit {run.returncode}")
        check("fantasy.json" in run.stderr and "encounters[3].difficulty" in run.stderr,
              run.stderr[:500])
    finally:
        shutil.rmtree(broken_dir)


def main():
    global SEEDS
    harness.DAEMON = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2:
        SEEDS = int(sys.argv[2])
    tables_dir = tempfile.mkdtemp(prefix="tables-")
    for name, table in TABLES.items():
        with open(os.path.join(tables_dir, name + ".json"), "w") as f:
            json.dump(table, f)
    d = harness.Daemon(extra={"tables_dir": tables_dir})
    d.tables_dir = tables_dir
    plan = [(name, fn, d) for name, fn in TESTS]
    try:
        code = harness.run_plan(plan)
    finally:
        exit_code = d.stop()
        shutil.rmtree(tables_dir)
    if exit_code != 0 or d.sanitizer_reports():
        print(f"# daemon exit {exit_code}: {''.join(d.sanitizer_reports())[:2000]}")
        code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
