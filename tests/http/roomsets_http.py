#!/usr/bin/env python3
"""HTTP tests of authored levels through dungeond (issue 5): room sets
loaded from the config's roomsets_dir, GET /v1/roomsets, POST /v1/levels
with algorithm authored (byte-identical to `dungeon generate`), the body's
top-level `roomset`, 422 on unknown names, 504 at the deadline, and a daemon
refusing to start on a broken room-set directory.

Usage: roomsets_http.py PATH/TO/dungeond PATH/TO/dungeon ROOMSETS_DIR
Prints TAP (meson runs it with protocol 'tap'). Python 3 standard library
only; reuses dungeond_http.py's Daemon.
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

CLI = None
ROOMSETS = None
TESTS = []
AUTHORED = {"algorithm": "authored", "seed": 11, "params": {"rooms": 60, "roomset": "sewer"}}


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def cli_figures():
    """`dungeon check` on each file: name -> (rooms, moves, move groups)."""
    figures = {}
    for name in sorted(os.listdir(ROOMSETS)):
        if not name.endswith(".json"):
            continue
        run = subprocess.run([CLI, "check", os.path.join(ROOMSETS, name)],
                             capture_output=True, text=True, timeout=120)
        check(run.returncode == 0, f"dungeon check {name}: {run.stdout} {run.stderr}")
        words = run.stdout.split()
        set_name = words[words.index("set") + 1].strip("'")
        figures[set_name] = (int(words[words.index("rooms,") - 1]),
                             int(words[words.index("moves,") - 1]),
                             int(words[words.index("after") - 1]))
    return figures


@test("GET /v1/roomsets lists every loaded set with the figures dungeon check gives")
def _(d):
    status, headers, body = d.request("GET", "/v1/roomsets")
    check(status == 200 and headers["content-type"] == "application/json", f"{status}")
    sets = json.loads(body)
    check([s["name"] for s in sets] == sorted(s["name"] for s in sets), "not in name order")
    expected = cli_figures()
    got = {s["name"]: (s["rooms"], s["moves"], s["move_groups"]) for s in sets}
    check(got == expected, f"daemon {got} != dungeon check {expected}")
    for s in sets:
        check(s["biome"] and s["connectors"] > s["rooms"] > 0, f"{s}")
        check(0 < s["move_groups"] < s["moves"], f"grouping {s}")
        check(s["table_states"] > 0 and s["table_bytes"] > 0, f"table {s}")
    check(400 <= got["bench"][1] <= 460, f"bench moves {got['bench']}")
    status, _, body = d.request("GET", "/readyz")
    check(status == 200 and json.loads(body)["status"] == "ready", f"readyz {status}")
    status, headers, _ = d.request("POST", "/v1/roomsets", {})
    check(status == 405 and headers.get("allow") == "GET, HEAD", f"POST: {status}")


@test("POST /v1/levels authored: 200, deterministic, equal to dungeon generate's bytes")
def _(d):
    status, headers, body = d.request("POST", "/v1/levels", AUTHORED)
    check(status == 200 and headers["content-type"] == "application/json", f"{status} {body[:300]}")
    again = d.request("POST", "/v1/levels", AUTHORED)[2]
    check(again == body, "two identical requests gave different bytes")
    level = json.loads(body)
    check(level["algorithm"] == "authored" and level["roomset"]["name"] == "sewer",
          f"{level['algorithm']} {level.get('roomset')}")
    tree = [p for p in level["placements"] if p["chain"] < 0]
    check(len(tree) == 60, f"{len(tree)} tree rooms")
    run = subprocess.run([CLI, "generate", "--algorithm", "authored", "--seed", "11",
                          "--param", "rooms=60", "--param", "roomset=sewer",
                          "--roomsets", ROOMSETS], capture_output=True, timeout=120)
    check(run.returncode == 0, run.stderr.decode())
    # The daemon's level ends with its identity (level_id, level_hash), which
    # needs the daemon's key; the bytes before it are the CLI's.
    cut = body[:body.rindex(b',"level_id":')] + b"}"
    check(run.stdout.rstrip(b"\n") == cut,
          f"daemon ({len(cut)} bytes) and CLI ({len(run.stdout)} bytes) differ")
    status, headers, text = d.request("POST", "/v1/levels", AUTHORED, {"Accept": "text/plain"})
    check(status == 200 and headers["content-type"].startswith("text/plain"), f"ascii {status}")
    check(text.decode().split("\n")[:-1] == level["grid"]["rows"], "ascii differs from the grid")


@test("top-level roomset is params.roomset; conflicts and other algorithms are 422")
def _(d):
    body = {"algorithm": "authored", "seed": 11, "roomset": "sewer", "params": {"rooms": 60}}
    direct = d.request("POST", "/v1/levels", AUTHORED)[2]
    status, _, shorthand = d.request("POST", "/v1/levels", body)
    check(status == 200 and shorthand == direct, f"{status}: differs from params.roomset")
    status, _, other = d.request("POST", "/v1/levels", dict(body, roomset="crypt"))
    check(status == 200 and json.loads(other)["roomset"]["name"] == "crypt", f"crypt {status}")
    status, _, nothing = d.request("POST", "/v1/levels", {"algorithm": "authored", "seed": 3,
                                                          "roomset": "bench"})
    check(status == 200 and json.loads(nothing)["params"]["roomset"] == "bench", f"{status}")
    doc = problem(*d.request("POST", "/v1/levels", {"algorithm": "classic", "roomset": "crypt"}),
                  422, "roomset")
    check("classic" in doc["errors"][0]["message"], doc["errors"][0]["message"])
    problem(*d.request("POST", "/v1/levels", {"algorithm": "authored", "roomset": "crypt",
                                              "params": {"roomset": "sewer"}}), 422, "roomset")
    problem(*d.request("POST", "/v1/levels", {"algorithm": "authored", "roomset": 7}), 422,
            "roomset")


@test("unknown room set: 422 on params.roomset naming the loaded sets")
def _(d):
    for body in ({"algorithm": "authored", "roomset": "lava"},
                 {"algorithm": "authored", "params": {"roomset": "lava"}}):
        doc = problem(*d.request("POST", "/v1/levels", body), 422, "params.roomset")
        message = doc["errors"][0]["message"]
        check("lava" in message and all(n in message for n in ("bench", "crypt", "sewer")),
              message)


@test("limits: rooms above limits.rooms_max is 422; a huge request ends in 504 at its deadline")
def _(d):
    doc = problem(*d.request("POST", "/v1/levels", {"algorithm": "authored",
                                                    "params": {"rooms": 501}}), 422,
                  "params.rooms")
    check("rooms_max" in doc["errors"][0]["message"], doc["errors"][0]["message"])
    huge = {"algorithm": "authored", "seed": 1, "roomset": "bench", "deadline_ms": 300,
            "params": {"rooms": 500, "expansions_max": 10000000, "stall_cutoff": 1000000,
                       "tries": 100000, "cycle_interval": 1}}
    start = time.monotonic()
    status, headers, body = d.request("POST", "/v1/levels", huge)
    elapsed = time.monotonic() - start
    problem(status, headers, body, 504)
    # Under ASan everything is slower; the bound is the cancel check working
    # at all (without it this request runs for minutes).
    check(elapsed < 10, f"504 after {elapsed:.1f} s")
    check(d.request("GET", "/livez")[0] == 200, "unhealthy after 504")


@test("lobbies take a roomset too, and check its name")
def _(d):
    status, _, _ = d.request("PUT", "/v1/lobbies/rs", {"algorithm": "authored", "roomset": "crypt",
                                                      "params": {"rooms": 30}, "seed": 5})
    check(status in (200, 201), f"PUT lobby {status}")
    status, _, body = d.request("POST", "/v1/lobbies/rs/start")
    check(status == 200, f"start {status} {body[:300]}")
    level = json.loads(body)
    check(level["roomset"]["name"] == "crypt" and level["seed"] == 5, f"{level['roomset']}")
    status, _, body = d.request("PUT", "/v1/lobbies/rs2", {"algorithm": "authored",
                                                           "roomset": "lava"})
    check(status == 422 and "params.roomset" in body.decode(), f"{status} {body[:300]}")


def start_fails(config_extra, expect_in_stderr):
    """dungeond (and --check-config) with this config must exit 2 naming
    `expect_in_stderr`, without ever listening."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "config", "dungeond.json")) as f:
        config = json.load(f)
    config.update(config_extra)
    work = tempfile.mkdtemp(prefix="dungeond-roomsets-")
    try:
        path = os.path.join(work, "dungeond.json")
        with open(path, "w") as f:
            json.dump(config, f)
        for extra in ([], ["--check-config"]):
            run = subprocess.run([harness.DAEMON, "--config", path, "--listen", "127.0.0.1:0"]
                                 + extra, capture_output=True, text=True, timeout=120)
            check(run.returncode == 2, f"{extra}: exit {run.returncode}: {run.stderr[-500:]}")
            check('"listening"' not in run.stderr, "it listened")
            for text in expect_in_stderr:
                check(text in run.stderr, f"{extra}: {text!r} not in {run.stderr[-800:]!r}")
            check("Sanitizer" not in run.stderr, run.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def broken_dir_test():
    """A directory with two broken files: both reported, exit 2."""
    broken = tempfile.mkdtemp(prefix="roomsets-broken-")
    try:
        for name in os.listdir(ROOMSETS):
            if name.endswith(".json"):
                shutil.copy(os.path.join(ROOMSETS, name), broken)
        with open(os.path.join(broken, "sewer.json")) as f:
            sewer = json.load(f)
        room = sewer["rooms"][1]
        room["weight"] = 0
        with open(os.path.join(broken, "sewer.json"), "w") as f:
            json.dump(sewer, f)
        with open(os.path.join(broken, "zz_syntax.json"), "w") as f:
            f.write('{"name": "oops", ')
        start_fails({"roomsets_dir": broken},
                    [os.path.join(broken, "sewer.json") + ": rooms[" + room["id"] + "].weight",
                     os.path.join(broken, "zz_syntax.json") + ":1:",
                     "2 of 4 room-set files"])
    finally:
        shutil.rmtree(broken, ignore_errors=True)


def missing_dir_test():
    start_fails({"roomsets_dir": "/nonexistent/roomsets"}, ["roomsets_dir '/nonexistent/roomsets'"])


def no_roomsets_test():
    """roomsets_dir "" starts with no sets: [] and 422 naming none."""
    d = harness.Daemon(extra={"roomsets_dir": ""})
    try:
        status, _, body = d.request("GET", "/v1/roomsets")
        check(status == 200 and json.loads(body) == [], f"{status} {body}")
        doc = problem(*d.request("POST", "/v1/levels", {"algorithm": "authored"}), 422,
                      "params.roomset")
        check("none loaded" in doc["errors"][0]["message"], doc["errors"][0]["message"])
        check(d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 1})[0] == 200,
              "classic without room sets")
    finally:
        code = d.stop()
    check(code == 0, f"exit {code}")
    check(not d.sanitizer_reports(), "".join(d.sanitizer_reports()))


def main():
    global CLI, ROOMSETS
    harness.DAEMON = os.path.abspath(sys.argv[1])
    CLI = os.path.abspath(sys.argv[2])
    ROOMSETS = os.path.abspath(sys.argv[3])
    print(f"1..{len(TESTS) + 5}", flush=True)
    tap = harness.Tap()
    report = tap.report

    d = harness.Daemon(limits={"rooms_max": 500})
    try:
        for name, fn in TESTS:
            report(name, fn, d)
    finally:
        code = d.stop()

    def stopped():
        check(code == 0, f"exit status {code}: {''.join(d.lines[-5:])}")
        check(not d.sanitizer_reports(), "".join(d.sanitizer_reports()))
    report("SIGTERM after authored requests: exit 0, no leak", stopped)
    report("a broken room-set file stops the daemon and --check-config (exit 2, each file named)",
           broken_dir_test)
    report("a roomsets_dir that does not exist stops the daemon (exit 2)", missing_dir_test)
    report("roomsets_dir \"\": no room sets, [] and 422 naming none", no_roomsets_test)
    report("--check-config prints the room sets", check_config_test)
    return 1 if tap.failed else 0


def check_config_test():
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp(prefix="dungeond-roomsets-")
    try:
        with open(os.path.join(here, "..", "..", "config", "dungeond.json")) as f:
            config = json.load(f)
        config["roomsets_dir"] = ROOMSETS
        path = os.path.join(work, "dungeond.json")
        with open(path, "w") as f:
            json.dump(config, f)
        run = subprocess.run([harness.DAEMON, "--check-config", "--config", path],
                             capture_output=True, text=True, timeout=120)
        check(run.returncode == 0, f"exit {run.returncode}: {run.stderr}")
        printed = json.loads(run.stdout)
        check(printed["roomsets_dir"] == ROOMSETS, printed["roomsets_dir"])
        check(sorted(s["name"] for s in printed["roomsets"]) == sorted(cli_figures()),
              f"{printed['roomsets']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
