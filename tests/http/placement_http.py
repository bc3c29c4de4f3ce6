#!/usr/bin/env python3
"""HTTP tests of placement, multi-floor sets and structural targets (issue 13)
against the real dungeond: stairs and spawns in every level, players setting
the spawn count, `floors` answering a dungeond.levelset/1 whose stairs line
up and whose floors regenerate alone byte for byte, `targets` met and missed,
504 rather than a timing-dependent answer, and every new field's 422.

Usage: placement_http.py PATH/TO/dungeond. Prints TAP. Python 3 standard
library only; reuses dungeond_http.py's Daemon.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check, problem  # noqa: E402

TESTS = []
LIMITS = {"floors_max": 4, "target_attempts_max": 20}


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def post(d, body, headers=None):
    return d.request("POST", "/v1/levels", body, headers)


def level_of(d, body):
    status, headers, data = post(d, body)
    check(status == 200, f"{status}: {data[:300]!r}")
    return json.loads(data), data


@test("every algorithm's level has stairs up, stairs down and a spawn")
def _(d):
    for body in ({"algorithm": "classic", "seed": 4},
                 {"algorithm": "landmark", "seed": 4, "params": {"width": 80, "height": 50}},
                 {"algorithm": "nonlinear", "seed": 4},
                 {"algorithm": "authored", "seed": 4, "roomset": "sewer",
                  "params": {"rooms": 30}},
                 {"algorithm": "authored", "seed": 4, "roomset": "sewer",
                  "params": {"rooms": 30, "grid": False}}):
        level, _ = level_of(d, body)
        kinds = [f["kind"] for f in level["features"]]
        check(kinds == ["stairs_up", "stairs_down", "spawn"], f"{body}: {kinds}")
        check(level["placement"]["spawns_placed"] == 1, f"{level['placement']}")
        if "grid" in level:
            up, down = level["features"][0], level["features"][1]
            rows = level["grid"]["rows"]
            check(rows[up["y"]][up["x"]] == "<", f"{body['algorithm']}: no < at the stairs up")
            check(rows[down["y"]][down["x"]] == ">", f"{body['algorithm']}: no > at the stairs down")
        check(level["placement"]["entrance_to_exit"] >= 0.7 * level["placement"]["farthest"],
              f"exit too near: {level['placement']}")


@test("players set the spawn count; params.spawns wins over them")
def _(d):
    level, _ = level_of(d, {"algorithm": "classic", "seed": 4, "players": 3})
    spawns = [f for f in level["features"] if f["kind"] == "spawn"]
    check(len(spawns) == 3 and [s["player"] for s in spawns] == [0, 1, 2], f"{spawns}")
    check(level["params"]["spawns"] == 3, f"params.spawns {level['params']['spawns']}")
    level, _ = level_of(d, {"algorithm": "classic", "seed": 4,
                            "players": [{"level": 3}, {"level": 5}]})
    check(level["params"]["spawns"] == 2, "two players, two spawns")
    level, _ = level_of(d, {"algorithm": "classic", "seed": 4, "players": 3,
                            "params": {"spawns": 1}})
    check(level["params"]["spawns"] == 1, "explicit spawns lost to players")


@test("floors: stairs line up, each floor regenerates alone byte for byte")
def _(d):
    for body in ({"algorithm": "classic", "seed": 21, "floors": 4, "players": 2},
                 {"algorithm": "nonlinear", "seed": 8, "floors": 3},
                 {"algorithm": "authored", "seed": 3, "roomset": "sewer", "floors": 2,
                  "params": {"rooms": 30}}):
        status, headers, data = post(d, body)
        check(status == 200, f"{status}: {data[:300]!r}")
        check(headers["content-type"] == "application/json", headers["content-type"])
        levelset = json.loads(data)
        check(levelset["format"] == "dungeond.levelset/1", levelset["format"])
        floors = levelset["floors"]
        check(len(floors) == body["floors"], f"{len(floors)} floors")
        check(floors[0]["request"]["seed"] == body["seed"], "floor 0 keeps the request's seed")
        for k, floor in enumerate(floors):
            check(floor["floor"] == k, f"floor {floor['floor']} at {k}")
            if k + 1 < len(floors):
                down = floor["level"]["features"][1]
                up = floors[k + 1]["level"]["features"][0]
                check((down["kind"], up["kind"]) == ("stairs_down", "stairs_up"), "kinds")
                check((down["x"], down["y"]) == (up["x"], up["y"]),
                      f"floor {k}: down {down}, up {up}")
                check(floors[k + 1]["level"]["placement"]["stairs_forced"], "not forced")
            alone_status, _, alone = post(d, floor["request"])
            check(alone_status == 200, f"floor {k} alone: {alone_status} {alone[:200]!r}")
            # Alone, a floor ends with its own identity (level_id, level_hash);
            # the bytes before it are the set's floor.
            alone = alone[:alone.rindex(b',"level_id":')] + b"}"
            check(alone in data, f"{body['algorithm']} floor {k}: its bytes are not in the set")
            check(json.loads(alone) == floor["level"], f"floor {k} differs alone")
        again = post(d, body)[2]
        check(again == data, "the same set request gave other bytes")


@test("floors as text/plain: one map per floor")
def _(d):
    status, headers, data = post(d, {"algorithm": "classic", "seed": 21, "floors": 3},
                                 {"Accept": "text/plain"})
    check(status == 200, f"{status}")
    check(headers["content-type"].startswith("text/plain"), headers["content-type"])
    text = data.decode()
    for k in (1, 2, 3):
        check(f"floor {k} of 3 (seed " in text, f"no header for floor {k}")
    check(text.count("<") >= 3 and text.count(">") >= 3, "stairs missing from the maps")


@test("floors out of range, of the wrong type, or without placement: 422")
def _(d):
    for floors in (0, 5, "2", True, 1.5):
        problem(*post(d, {"algorithm": "classic", "floors": floors}), 422, "floors")
    doc = problem(*post(d, {"algorithm": "classic", "floors": 5}), 422, "floors")
    check("1 to 4" in doc["errors"][0]["message"] and "floors_max" in doc["errors"][0]["message"],
          doc["errors"][0]["message"])
    problem(*post(d, {"algorithm": "classic", "floors": 2, "params": {"placement": False}}), 422,
            "params.placement")
    level, _ = level_of(d, {"algorithm": "classic", "seed": 3, "floors": 1})
    check(level["format"] == "dungeond.level/1", "floors 1 is a plain level")


@test("targets met: reported with attempts and achieved values, same bytes twice")
def _(d):
    plain, _ = level_of(d, {"algorithm": "classic", "seed": 12})
    wanted = plain["placement"]["entrance_to_exit"] + 1
    body = {"algorithm": "classic", "seed": 12, "targets": {"path_min": wanted}}
    level, data = level_of(d, body)
    targets = level["targets"]
    check(level["seed"] == 12, "the level keeps the request's seed")
    check(targets["wanted"] == {"path_min": wanted}, f"{targets}")
    check(targets["attempts_max"] == 16, "default attempts_max")
    if targets["met"]:
        check(targets["chosen"] >= 1 and targets["achieved"]["path"] >= wanted, f"{targets}")
        check(level["placement"]["entrance_to_exit"] == targets["achieved"]["path"], "path")
        check(targets["missed"] == [], f"{targets}")
    else:
        check(targets["attempts"] == 16 and targets["missed"] == ["path_min"], f"{targets}")
    check(post(d, body)[2] == data, "targets: the same request gave other bytes")


@test("targets missed: the level says which, with the best candidate")
def _(d):
    level, _ = level_of(d, {"algorithm": "landmark", "seed": 3,
                            "params": {"width": 60, "height": 40},
                            "targets": {"path_min": 1000000, "cycles_min": 0,
                                        "attempts_max": 3}})
    targets = level["targets"]
    check(targets["met"] is False and targets["missed"] == ["path_min"], f"{targets}")
    check(targets["attempts"] == 3, f"{targets}")
    check(set(targets["achieved"]) == {"path", "cycles"}, f"{targets['achieved']}")


@test("targets: bad names, values and limits are 422 naming the field")
def _(d):
    problem(*post(d, {"algorithm": "classic", "targets": {"nope": 1}}), 422, "targets.nope")
    problem(*post(d, {"algorithm": "classic", "targets": {"path_min": -1}}), 422,
            "targets.path_min")
    problem(*post(d, {"algorithm": "classic", "targets": {"rooms_min": "3"}}), 422,
            "targets.rooms_min")
    problem(*post(d, {"algorithm": "classic", "targets": [1]}), 422, "targets")
    problem(*post(d, {"algorithm": "classic", "targets": {"cycles_min": 4, "cycles_max": 1}}),
            422, "targets.cycles_min")
    doc = problem(*post(d, {"algorithm": "classic", "targets": {"attempts_max": 21}}), 422,
                  "targets.attempts_max")
    check("target_attempts_max" in doc["errors"][0]["message"], doc["errors"][0]["message"])
    problem(*post(d, {"algorithm": "classic", "params": {"placement": False},
                      "targets": {"path_min": 3}}), 422, "targets")


@test("placement parameters are validated with their ranges")
def _(d):
    doc = problem(*post(d, {"algorithm": "classic", "params": {"exit_distance": 1.5}}), 422,
                  "params.exit_distance")
    check("from 0 to 1" in doc["errors"][0]["message"], doc["errors"][0]["message"])
    problem(*post(d, {"algorithm": "classic", "params": {"spawns": 65}}), 422, "params.spawns")
    problem(*post(d, {"algorithm": "classic", "params": {"stairs_up_x": 5}}), 422,
            "params.stairs_up_y")
    problem(*post(d, {"algorithm": "classic",
                      "params": {"stairs_up_x": 80, "stairs_up_y": 5}}), 422,
            "params.stairs_up_x")
    algorithms = json.loads(d.request("GET", "/v1/algorithms")[2])
    for algorithm in algorithms:
        names = [p["name"] for p in algorithm["params"]][-15:]
        check(names == ["placement", "exit_distance", "spawns", "stairs_up_x", "stairs_up_y",
                        "locks", "key_kind", "one_way", "boss_room", "population",
                        "difficulty", "pacing", "loot", "ease_after_locks", "table"],
              f"{algorithm['name']}: {names}")


@test("a deadline hit while trying candidates or floors is 504, never a partial answer")
def _(d):
    problem(*post(d, {"algorithm": "classic", "seed": 1, "deadline_ms": 1,
                      "params": {"width": 1000, "height": 1000, "rooms_max": 400},
                      "targets": {"path_min": 1000000, "attempts_max": 20}}), 504)
    problem(*post(d, {"algorithm": "classic", "seed": 1, "deadline_ms": 1, "floors": 4,
                      "params": {"width": 1000, "height": 1000, "rooms_max": 400}}), 504)


def main():
    harness.DAEMON = os.path.abspath(sys.argv[1])
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


if __name__ == "__main__":
    sys.exit(main())
