#!/usr/bin/env python3
"""Two dungeond builds answer the same requests: are the answers the same bytes?

  bench/bytes_ab.py --a BUILD_DIR --b BUILD_DIR [--json] [--show N]

For a change that must not change behaviour (a move, a refactor, a speed
change): starts the dungeond of each build (default config) on a free
loopback port, sends both the same fixed list of requests (every
algorithm at several seeds and sizes, each representation, GET queries,
profiles and parties, floors, targets, errors, lobbies, the read-only
listings) and compares status, Content-Type and body byte for byte.
Problem bodies are compared without their `request_id` (each daemon draws
its own); headers are not compared. Prints one line per request and the count of
identical answers; exit 1 when any differs. --json prints one JSON object.
Loopback only, bounded (one request at a time, a few seconds in all).
"""
import argparse
import http.client
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

PROG = "bytes_ab"
JSON = "application/json"
SVG = "image/svg+xml"
TILED = "application/vnd.dungeond.tiled+json"
TEXT = "text/plain"


def body(**kw):
    return json.dumps(kw)


# (name, method, path, body or None, Accept). Lobby ids are fixed; every
# lobby names its seed so that both daemons pre-generate the same level.
REQUESTS = [
    ("classic seed 1", "POST", "/v1/levels", body(algorithm="classic", seed=1), JSON),
    ("classic seed 42", "POST", "/v1/levels", body(algorithm="classic", seed=42), JSON),
    ("classic 200x200", "POST", "/v1/levels",
     body(algorithm="classic", seed=7, params={"width": 200, "height": 200}), JSON),
    ("classic ascii", "POST", "/v1/levels", body(algorithm="classic", seed=42), TEXT),
    ("classic svg", "POST", "/v1/levels?svg_graph=1", body(algorithm="classic", seed=42), SVG),
    ("classic tiled", "POST", "/v1/levels", body(algorithm="classic", seed=42), TILED),
    ("landmark seed 3", "POST", "/v1/levels", body(algorithm="landmark", seed=3), JSON),
    ("landmark 200x200", "POST", "/v1/levels",
     body(algorithm="landmark", seed=24, params={"width": 200, "height": 200}), JSON),
    ("landmark svg", "POST", "/v1/levels", body(algorithm="landmark", seed=3), SVG),
    ("landmark tiled", "POST", "/v1/levels", body(algorithm="landmark", seed=3), TILED),
    ("nonlinear seed 5", "POST", "/v1/levels", body(algorithm="nonlinear", seed=5), JSON),
    ("nonlinear seed 77", "POST", "/v1/levels", body(algorithm="nonlinear", seed=77), JSON),
    ("nonlinear ascii", "POST", "/v1/levels", body(algorithm="nonlinear", seed=77), TEXT),
    ("authored crypt", "POST", "/v1/levels",
     body(algorithm="authored", seed=7, roomset="crypt", params={"rooms": 40}), JSON),
    ("authored sewer", "POST", "/v1/levels",
     body(algorithm="authored", seed=7, roomset="sewer", params={"rooms": 60}), JSON),
    ("authored svg", "POST", "/v1/levels",
     body(algorithm="authored", seed=3, roomset="crypt", params={"rooms": 30}), SVG),
    ("party profile", "POST", "/v1/levels",
     body(algorithm="classic", seed=11, players=[{"level": 12}, {"level": 7}]), JSON),
    ("party, explicit param wins", "POST", "/v1/levels",
     body(algorithm="classic", seed=11, players=[{"level": 3}], params={"width": 100}), JSON),
    ("classic 3 floors", "POST", "/v1/levels", body(algorithm="classic", seed=9, floors=3), JSON),
    ("landmark 2 floors", "POST", "/v1/levels", body(algorithm="landmark", seed=4, floors=2), JSON),
    ("authored 2 floors", "POST", "/v1/levels",
     body(algorithm="authored", seed=2, roomset="crypt", floors=2, params={"rooms": 25}), JSON),
    ("targets", "POST", "/v1/levels",
     body(algorithm="classic", seed=5, targets={"path_min": 50, "attempts_max": 32}), JSON),
    ("targets unmet", "POST", "/v1/levels",
     body(algorithm="classic", seed=5, targets={"path_min": 1000000, "attempts_max": 3}), JSON),
    ("forced stairs", "POST", "/v1/levels",
     body(algorithm="classic", seed=8, params={"stairs_up_x": 10, "stairs_up_y": 10}), JSON),
    ("GET query", "GET", "/v1/levels?algorithm=classic&seed=42&width=120", None, JSON),
    ("GET query landmark ascii", "GET", "/v1/levels?algorithm=landmark&seed=9", None, TEXT),
    ("error: width too small", "POST", "/v1/levels",
     body(algorithm="classic", params={"width": 5}), JSON),
    ("error: rooms over limit", "POST", "/v1/levels",
     body(algorithm="authored", roomset="crypt", params={"rooms": 100000}), JSON),
    ("error: unknown algorithm", "POST", "/v1/levels", body(algorithm="maze"), JSON),
    ("error: not an object", "POST", "/v1/levels", "[1,2]", JSON),
    ("error: bad JSON", "POST", "/v1/levels", "{", JSON),
    ("error: unknown member", "POST", "/v1/levels", body(algorithm="classic", colour=1), JSON),
    ("error: unknown room set", "POST", "/v1/levels",
     body(algorithm="authored", roomset="nowhere"), JSON),
    ("error: 406", "POST", "/v1/levels", body(algorithm="classic", seed=1), "image/png"),
    ("algorithms", "GET", "/v1/algorithms", None, JSON),
    ("roomsets", "GET", "/v1/roomsets", None, JSON),
    ("lobby create", "PUT", "/v1/lobbies/ab1", body(algorithm="classic", seed=123), JSON),
    ("lobby join ann", "PUT", "/v1/lobbies/ab1/players/ann", body(level=12), JSON),
    ("lobby join bob", "PUT", "/v1/lobbies/ab1/players/bob", body(level=7), JSON),
    ("lobby rejected change", "PUT", "/v1/lobbies/ab1/players/cat", body(level="x"), JSON),
    ("lobby start", "POST", "/v1/lobbies/ab1/start", "", JSON),
    ("lobby join after start", "PUT", "/v1/lobbies/ab1/players/dan", body(level=3), JSON),
    ("lobby unknown", "GET", "/v1/lobbies/none", None, JSON),
]

# A problem names the request's id, which each daemon draws at random;
# it is compared with that member removed.
VOLATILE = re.compile(rb'"request_id":"[^"]*"')


def ask(port, method, path, data, accept):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Accept": accept}
    if data is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data.encode() if data is not None else None,
                 headers=headers)
    resp = conn.getresponse()
    answer = (resp.status, resp.getheader("Content-Type"), VOLATILE.sub(b"", resp.read()))
    conn.close()
    return answer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", required=True, help="build directory of the reference")
    parser.add_argument("--b", required=True, help="build directory of the change")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    builds = {name: benchlib.require_build(PROG, getattr(args, name), ("dungeond",))
              for name in ("a", "b")}
    work = tempfile.mkdtemp(prefix="bytes-ab-")
    daemons = {}
    rows = []
    try:
        for name in ("a", "b"):
            # One key for both: level ids and lobby seeds then agree.
            daemons[name] = benchlib.Daemon(PROG, builds[name], os.path.join(work, f"{name}.log"),
                                            benchlib.shared_secret_config(work, builds[name]))
        for label, method, path, data, accept in REQUESTS:
            a = ask(daemons["a"].port, method, path, data, accept)
            b = ask(daemons["b"].port, method, path, data, accept)
            rows.append({"request": label, "status_a": a[0], "status_b": b[0],
                         "bytes_a": len(a[2]), "bytes_b": len(b[2]), "same": a == b})
        while daemons:
            daemons.popitem()[1].stop()
    finally:
        for daemon in daemons.values():
            daemon.kill()
    same = sum(r["same"] for r in rows)
    if args.json:
        print(json.dumps({"a": builds["a"], "b": builds["b"], "requests": len(rows),
                          "identical": same, "rows": rows}))
    else:
        print(f"{'request':<30} {'status':>9} {'bytes A':>8} {'bytes B':>8}  same")
        for r in rows:
            status = f"{r['status_a']}/{r['status_b']}"
            print(f"{r['request']:<30} {status:>9} {r['bytes_a']:>8} {r['bytes_b']:>8}  "
                  f"{'yes' if r['same'] else 'NO'}")
        print(f"{same}/{len(rows)} answers byte-identical (status, Content-Type, body)")
    return 0 if same == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
