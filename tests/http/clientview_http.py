#!/usr/bin/env python3
"""The client view (issue 20 items 4 and 5) checked against the real dungeond
by a checker that reads only the answers: "no secret in the client view".

Usage: clientview_http.py PATH/TO/dungeond [SEEDS]. SEEDS (default 500) per
algorithm (classic with many secret doors and closets, landmark, nonlinear,
authored), each at difficulties 10, 50 and 90 (issue 20 item 5: 500 seeds
per algorithm and three difficulties), with locks (1, 2 or 4), one-way
doors on every other seed and population on. For each seed the full level (JSON) and the client view
of the same request in every representation (JSON, ASCII, SVG, Tiled) are
fetched, and on the client view's bytes:

- no server-only member or name (seed, params, secret, key, entities,
  progression, population, placement, metrics, stats, closets, level_id...):
  the JSON's members are a whitelist, checked member by member;
- every tile the full level draws as a secret door is wall, every secret
  corridor stone, no key is marked (no key glyph, tile, marker or object),
  no closet's chest is shown behind a secret; every other tile is the full
  level's;
- level_hash is the same in both views and equals the SHA-256 the test
  computes itself from the full JSON's bytes.

Then: the same client views from a daemon with 1 worker as from one with 2;
multi-floor sets, lobby starts, GET /v1/levels/{level_id}, authored levels
without a grid; the default answer unchanged; and the 422s.
Prints TAP.
"""
import hashlib
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check, problem  # noqa: E402

SEEDS = 500
DIFFICULTIES = (10, 50, 90)
BASE = {
    "classic": {"algorithm": "classic",
                "params": {"secret_door_chance": 0.5, "closet_chance": 0.6}},
    "landmark": {"algorithm": "landmark", "params": {"width": 60, "height": 40}},
    "nonlinear": {"algorithm": "nonlinear", "params": {"width": 60, "height": 40, "rooms": 8}},
    "authored": {"algorithm": "authored", "roomset": "crypt", "params": {"rooms": 16}},
}
ACCEPT = {"json": "application/json", "ascii": "text/plain", "svg": "image/svg+xml",
          "tiled": "application/vnd.dungeond.tiled+json"}

# The client view's JSON, member by member (docs/level-format.md, "The
# client view"): anything else is a leak.
LEVEL_MEMBERS = {"format", "generator_version", "algorithm", "view", "grid", "rooms", "doors",
                 "objects", "features", "graph", "level_hash"}
ROOM_MEMBERS = {"id", "kind", "x", "y", "width", "height", "label"}
DOOR_MEMBERS = {"x", "y", "room"}
OBJECT_MEMBERS = {"kind", "x", "y"}
FEATURE_KINDS = {"stairs_up", "stairs_down", "spawn", "locked_door", "one_way_door"}
FEATURE_MEMBERS = {"kind", "player", "player_id", "x", "y", "room", "direction", "edge", "from",
                   "to"}
NODE_MEMBERS = {"id", "kind", "x", "y", "room", "depth", "label"}
EDGE_MEMBERS = {"from", "to", "kind", "length", "cycle"}
# Names no representation of a client view may hold at all.
FORBIDDEN = (b'"seed"', b'"params"', b'"secret', b'secret_door', b'secret_corridor', b'"key"',
             b'"key_id"', b'"entities"', b'"progression"', b'"population"', b'"placement"',
             b'"metrics"', b'"stats"', b'"targets"', b'"closets"', b'"level_id"', b'"role"',
             b'"exit_distance"', b'"gold"', b'"contents"', b'"roll"', b'"roomset_sha256"',
             b'data-seed', b'data-key', b'class="key', b'data-threat', b'threat',
             b'ent-encounter', b'ent-loot', b'"entity"')
# Tiled gids (tile + 1, include/dungeon/grid.h's order).
GID_STONE, GID_WALL, GID_SECRET_DOOR, GID_SECRET_CORRIDOR, GID_KEY = 1, 4, 6, 7, 13
TESTS = []


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def request_body(algorithm, seed, difficulty=50):
    body = json.loads(json.dumps(BASE[algorithm]))
    body["seed"] = seed
    body["params"].update({"locks": (1, 2, 4)[seed % 3], "one_way": seed % 2,
                           "population": True, "difficulty": difficulty})
    if seed % 2 == 0:
        # Every other seed filled from the example content table: the full
        # level then holds entities the client view must not.
        body["params"]["table"] = "fantasy"
    return body


def fetch(d, conn, path, body, form="json"):
    status, headers, data = d.request("POST", path, body, headers={"Accept": ACCEPT[form]},
                                      conn=conn)
    check(status == 200, f"{path} {json.dumps(body)} as {form}: {status} {data[:300]!r}")
    return data


def full_hash(full_bytes):
    """level_hash as the test computes it: SHA-256 of the full level's bytes
    before its identity members."""
    cut = full_bytes[:full_bytes.index(b',"level_id":')] + b"}"
    return "sha256:" + hashlib.sha256(cut).hexdigest()


def tile_names(level):
    """The grid as rows of tile names, through the level's own legend."""
    legend = level["grid"]["legend"]
    return [[legend[c] for c in row] for row in level["grid"]["rows"]]


def check_bytes(data, where):
    for name in FORBIDDEN:
        check(name not in data, f"{where}: holds {name.decode()}")


def check_members(client, where):
    check(set(client) <= LEVEL_MEMBERS, f"{where}: members {sorted(set(client) - LEVEL_MEMBERS)}")
    check(client["view"] == "client", f"{where}: view {client.get('view')}")
    for room in client["rooms"]:
        check(set(room) <= ROOM_MEMBERS, f"{where}: room {room}")
    for door in client["doors"]:
        check(set(door) == DOOR_MEMBERS, f"{where}: door {door}")
    for thing in client["objects"]:
        check(set(thing) == OBJECT_MEMBERS, f"{where}: object {thing}")
    for feature in client["features"]:
        check(feature["kind"] in FEATURE_KINDS, f"{where}: feature {feature}")
        check(set(feature) <= FEATURE_MEMBERS, f"{where}: feature {feature}")
    if "grid" in client:
        check("graph" not in client, f"{where}: a grid level's graph")
        names = set(client["grid"]["legend"].values())
        check(not names & {"secret_door", "secret_corridor", "key"}, f"{where}: legend {names}")
    else:
        for node in client["graph"]["nodes"]:
            check(set(node) <= NODE_MEMBERS, f"{where}: node {node}")
        for edge in client["graph"]["edges"]:
            check(set(edge) <= EDGE_MEMBERS, f"{where}: edge {edge}")


def check_tiles(full, client, where):
    """Secret doors are wall, secret corridors stone, keys unmarked; a
    corridor or chest may be hidden (cut off behind a secret), nothing else
    differs."""
    before, after = tile_names(full), tile_names(client)
    keys = {(f["x"], f["y"]) for f in full["features"] if f["kind"] == "key"}
    for y, (row, seen) in enumerate(zip(before, after)):
        for x, (tile, shown) in enumerate(zip(row, seen)):
            if tile == "secret_door":
                check(shown == "wall", f"{where}: secret door ({x}, {y}) drawn {shown}")
            elif tile == "secret_corridor":
                check(shown == "stone", f"{where}: secret corridor ({x}, {y}) drawn {shown}")
            elif tile == "key":
                check(shown in ("floor", "corridor", "stone"), f"{where}: key ({x}, {y}) {shown}")
            elif tile in ("corridor", "chest"):
                check(shown in (tile, "stone"), f"{where}: {tile} ({x}, {y}) drawn {shown}")
            else:
                check(shown == tile, f"{where}: ({x}, {y}) {tile} drawn {shown}")
    for closet in full.get("closets", []):
        at = (closet["chest_x"], closet["chest_y"])
        check(after[at[1]][at[0]] == "stone", f"{where}: closet chest {at} shown")
        check(all((o["x"], o["y"]) != at for o in client["objects"]), f"{where}: closet chest")
    secret_doors = {(door["x"], door["y"]) for door in full["doors"] if door["secret"]}
    for door in client["doors"]:
        check((door["x"], door["y"]) not in secret_doors, f"{where}: secret door {door}")
    for feature in client["features"]:
        check((feature["x"], feature["y"]) not in keys, f"{where}: feature on a key {feature}")
    return secret_doors, keys


BOX = re.compile(r"M(-?\d+) (-?\d+)h(\d+)v(\d+)H-?\d+z")


def svg_tiles(svg, name):
    """The tiles an SVG picture paints with class t-NAME."""
    match = re.search(rf'<path class="t-{name}" d="([^"]*)"', svg)
    tiles = set()
    for x, y, w, h in BOX.findall(match.group(1) if match else ""):
        x, y, w, h = int(x), int(y), int(w), int(h)
        tiles.update((x + i, y + j) for i in range(w) for j in range(h))
    return tiles


def check_pictures(full, client, pictures, secret_doors, keys, where):
    ascii_map, svg, tiled = pictures["ascii"], pictures["svg"], pictures["tiled"]
    for form, data in pictures.items():
        check_bytes(data, f"{where} {form}")
    # ASCII: the client's rows, no secret or key glyph.
    lines = ascii_map.decode().split("\n")
    check(lines[:-1] == client["grid"]["rows"], f"{where} ascii: not the client's rows")
    check(not re.search(r"[S=k]", ascii_map.decode()), f"{where} ascii: a secret or key glyph")
    # SVG: the hash, secret doors painted as wall, no key marker.
    text = svg.decode()
    check(f'data-level-hash="{client["level_hash"]}"' in text, f"{where} svg: level_hash")
    walls = svg_tiles(text, "wall")
    check(secret_doors <= walls, f"{where} svg: secret doors {sorted(secret_doors - walls)}")
    # Tiled: the hash as a map property, tiles by gid, objects' properties.
    tmj = json.loads(tiled)
    props = {p["name"]: p["value"] for p in tmj["properties"]}
    check(props.get("level_hash") == client["level_hash"], f"{where} tiled: level_hash {props}")
    check("seed" not in props, f"{where} tiled: seed")
    types = {t["type"] for t in tmj["tilesets"][0]["tiles"]}
    check(not types & {"secret_door", "secret_corridor", "key"}, f"{where} tiled: {types}")
    data = tmj["layers"][0]["data"]
    width = tmj["width"]
    check(not {GID_SECRET_DOOR, GID_SECRET_CORRIDOR, GID_KEY} & set(data),
          f"{where} tiled: a secret or key gid")
    for x, y in secret_doors:
        check(data[y * width + x] == GID_WALL, f"{where} tiled: secret door ({x}, {y})")
    for x, y in keys:
        check(data[y * width + x] != GID_KEY, f"{where} tiled: key ({x}, {y})")
    for thing in tmj["layers"][1]["objects"]:
        check(thing["type"] not in ("secret_door", "key"), f"{where} tiled: {thing['type']}")
        own = {p["name"] for p in thing.get("properties", [])}
        check(not own & {"secret", "key_id", "gold", "contents", "exit_distance"},
              f"{where} tiled: {thing['type']} has {own}")


class Tally:
    def __init__(self):
        self.levels = self.secret_doors = self.keys = self.closets = self.entities = 0


def check_seed(d, conn, algorithm, seed, difficulty, tally):
    body = request_body(algorithm, seed, difficulty)
    where = f"{algorithm} seed {seed} difficulty {difficulty}"
    full_bytes = fetch(d, conn, "/v1/levels", body)
    full = json.loads(full_bytes)
    tally.entities += len(full.get("entities", []))
    client_bytes = fetch(d, conn, "/v1/levels?view=client", body)
    check_bytes(client_bytes, where)
    client = json.loads(client_bytes)
    check_members(client, where)
    expected = full_hash(full_bytes)
    check(full["level_hash"] == expected, f"{where}: full level_hash is not its bytes' SHA-256")
    check(client["level_hash"] == expected, f"{where}: client level_hash differs from the full")
    secret_doors, keys = check_tiles(full, client, where)
    pictures = {form: fetch(d, conn, "/v1/levels?view=client", body, form)
                for form in ("ascii", "svg", "tiled")}
    check_pictures(full, client, pictures, secret_doors, keys, where)
    tally.levels += 1
    tally.secret_doors += len(secret_doors)
    tally.keys += len(keys)
    tally.closets += len(full.get("closets", []))


def seeds_test(algorithm):
    def run(d):
        tally = Tally()
        conn = d.connection()
        started = time.monotonic()
        try:
            for difficulty in DIFFICULTIES:
                for seed in range(1, SEEDS + 1):
                    check_seed(d, conn, algorithm, seed, difficulty, tally)
        finally:
            conn.close()
        print(f"# {algorithm}: {tally.levels} levels, {tally.secret_doors} secret doors, "
              f"{tally.keys} keys, {tally.closets} closets, {tally.entities} entities hidden "
              f"({time.monotonic() - started:.1f} s)", flush=True)
        levels = SEEDS * len(DIFFICULTIES)
        check(tally.levels == levels, f"{tally.levels} levels checked, not {levels}")
        if algorithm == "classic":
            check(tally.secret_doors > levels and tally.closets > levels // 2,
                  f"too few secrets to check: {tally.secret_doors} doors, {tally.closets} closets")
        check(tally.keys >= levels // 4, f"too few keys: {tally.keys}")
        check(tally.entities >= levels, f"too few entities to hide: {tally.entities}")
    return run


for _algorithm in BASE:
    test(f"{_algorithm}: SEEDS seeds x difficulties 10/50/90, every representation of the "
         "client view holds no secret, level_hash is the full level's")(seeds_test(_algorithm))


@test("the same client views on 1 and 2 workers")
def _(d):
    bodies = [request_body(algorithm, seed) for algorithm in BASE for seed in (1, 2, 3, 7)]
    forms = ("json", "ascii", "svg", "tiled")
    here = [[fetch(d, None, "/v1/levels?view=client", body, form) for form in forms]
            for body in bodies]
    other = harness.Daemon(workers=1)
    try:
        there = [[fetch(other, None, "/v1/levels?view=client", body, form) for form in forms]
                 for body in bodies]
    finally:
        code = other.stop()
    check(code == 0, f"1 worker: exit {code}")
    for body, a, b in zip(bodies, here, there):
        check(a == b, f"1 worker: {json.dumps(body)} differs")


@test("multi-floor sets: every floor's client view, no seed or request")
def _(d):
    for algorithm in BASE:
        body = dict(request_body(algorithm, 5), floors=3)
        full = json.loads(fetch(d, None, "/v1/levels", body))
        client_bytes = fetch(d, None, "/v1/levels?view=client", body)
        check_bytes(client_bytes, f"{algorithm} set")
        client = json.loads(client_bytes)
        check(set(client) == {"format", "view", "floors"}, f"{algorithm} set: {list(client)}")
        for floor, shown in zip(full["floors"], client["floors"]):
            check(set(shown) == {"floor", "level"}, f"{algorithm} set: floor {list(shown)}")
            level_bytes = json.dumps(floor["level"], separators=(",", ":")).encode()
            check_members(shown["level"], f"{algorithm} floor {floor['floor']}")
            check_tiles(floor["level"], shown["level"], f"{algorithm} floor {floor['floor']}")
            # A floor's bytes appear verbatim in the set, so its hash is theirs.
            check(shown["level"]["level_hash"] ==
                  "sha256:" + hashlib.sha256(level_bytes).hexdigest(),
                  f"{algorithm} floor {floor['floor']}: level_hash")
        for form in ("ascii", "svg", "tiled"):
            check_bytes(fetch(d, None, "/v1/levels?view=client", body, form),
                        f"{algorithm} set {form}")


@test("authored without a grid: the graph stays, without roles or dice")
def _(d):
    for seed in range(1, 21):
        body = request_body("authored", seed)
        body["params"]["grid"] = False
        full_bytes = fetch(d, None, "/v1/levels", body)
        client_bytes = fetch(d, None, "/v1/levels?view=client", body)
        check_bytes(client_bytes, f"gridless seed {seed}")
        client = json.loads(client_bytes)
        check_members(client, f"gridless seed {seed}")
        full = json.loads(full_bytes)
        check(len(client["graph"]["edges"]) == len(full["graph"]["edges"]), "edges dropped")
        check(client["level_hash"] == full_hash(full_bytes), f"gridless seed {seed}: level_hash")
        for form in ("ascii", "svg", "tiled"):
            check_bytes(fetch(d, None, "/v1/levels?view=client", body, form),
                        f"gridless seed {seed} {form}")


@test("lobby start and GET /v1/levels/{level_id} with view=client: the same client view")
def _(d):
    party = {"profile": "party", "players": {"ann": {"level": 4}, "bob": {"level": 6}}}
    status, _, full_bytes = d.request("POST", "/v1/lobbies/cv-1/start", party)
    check(status == 200, f"start: {status} {full_bytes[:200]!r}")
    full = json.loads(full_bytes)
    status, _, client_bytes = d.request("POST", "/v1/lobbies/cv-1/start?view=client", party)
    check(status == 200, f"client start: {status} {client_bytes[:200]!r}")
    check_bytes(client_bytes, "lobby start")
    client = json.loads(client_bytes)
    check_members(client, "lobby start")
    check(client["level_hash"] == full["level_hash"] == full_hash(full_bytes),
          "lobby start: level_hash")
    check(sorted(f["player_id"] for f in client["features"] if f["kind"] == "spawn") ==
          ["ann", "bob"], f"lobby start: spawns {client['features']}")
    # The member works as the query does, and is not part of the party.
    status, _, member = d.request("POST", "/v1/lobbies/cv-1/start", dict(party, view="client"))
    check(status == 200 and member == client_bytes, f"start with a view member: {status}")
    # Another replica state (a rebuilt lobby) gives the same client view.
    status, _, rebuilt = d.request("POST", "/v1/lobbies/cv-2/start", dict(party, view="client"))
    check(status == 200, f"rebuilt start: {status}")
    check_members(json.loads(rebuilt), "rebuilt start")
    # A late joiner: by id, full and client.
    status, _, by_id = d.request("GET", f"/v1/levels/{full['level_id']}")
    check(status == 200 and by_id == full_bytes, f"GET by id: {status}")
    status, _, by_id = d.request("GET", f"/v1/levels/{full['level_id']}?view=client")
    check(status == 200 and by_id == client_bytes, f"GET by id, client: {status}")
    for form in ("svg", "tiled", "ascii"):
        status, _, picture = d.request("GET", f"/v1/levels/{full['level_id']}?view=client",
                                       headers={"Accept": ACCEPT[form]})
        check(status == 200, f"GET by id as {form}: {status}")
        check_bytes(picture, f"GET by id as {form}")


@test("view=full and no view: the full level; no view keeps today's bytes")
def _(d):
    body = request_body("classic", 11)
    plain = fetch(d, None, "/v1/levels", body)
    check(b'"view"' not in plain and b'"level_id"' in plain, "default answer changed")
    check(fetch(d, None, "/v1/levels?view=full", body) == plain, "view=full JSON differs")
    check(fetch(d, None, "/v1/levels", dict(body, view="full")) == plain, "member view=full")
    level = json.loads(plain)
    svg = fetch(d, None, "/v1/levels?view=full", body, "svg").decode()
    check(f'data-level-hash="{level["level_hash"]}"' in svg, "full SVG: level_hash")
    check("data-level-hash" not in fetch(d, None, "/v1/levels", body, "svg").decode(),
          "default SVG changed")
    tmj = json.loads(fetch(d, None, "/v1/levels?view=full", body, "tiled"))
    props = {p["name"]: p["value"] for p in tmj["properties"]}
    check(props.get("level_hash") == level["level_hash"], f"full Tiled: {props}")


@test("bad view: 422 naming view and the values it takes")
def _(d):
    for path, body in (("/v1/levels?view=secret", {"algorithm": "classic"}),
                       ("/v1/levels", {"algorithm": "classic", "view": "server"}),
                       ("/v1/levels", {"algorithm": "classic", "view": 1}),
                       ("/v1/lobbies/cv-3/start?view=everything", {"players": {}})):
        status, headers, data = d.request("POST", path, body)
        doc = problem(status, headers, data, 422, field="view")
        check("full, client" in doc["detail"], f"{path}: {doc['detail']}")
    status, headers, data = d.request("GET", "/v1/levels?algorithm=classic&view=x")
    problem(status, headers, data, 422, field="view")


def main():
    global SEEDS
    harness.DAEMON = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2:
        SEEDS = int(sys.argv[2])
    d = harness.Daemon()
    try:
        code = harness.run_plan([(name.replace("SEEDS", str(SEEDS)), fn, d)
                                 for name, fn in TESTS])
    finally:
        stop = d.stop()
        reports = d.sanitizer_reports()
    if stop != 0 or reports:
        print(f"# daemon exit {stop}; sanitizer reports: {reports[:3]}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
