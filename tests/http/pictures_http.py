#!/usr/bin/env python3
"""HTTP tests of level representations (issue 13, docs/pictures.md): Accept
with q-values (SVG, Tiled, ASCII, JSON; 406 listing what is available),
gzip from Accept-Encoding, strong ETags and Cache-Control for explicit
seeds with If-None-Match (304), GET /v1/levels, the SVG options, the Tiled
map parsed back, the viewer page at /, and lobby starts.

Usage: pictures_http.py PATH/TO/dungeond
Prints TAP. Python 3 standard library only; reuses dungeond_http.py's Daemon.
"""
import gzip
import json
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check, problem  # noqa: E402

TESTS = []
SVG_NS = "{http://www.w3.org/2000/svg}"
JSON = "application/json"
ASCII = "text/plain; charset=utf-8"
SVG = "image/svg+xml"
TILED = "application/vnd.dungeond.tiled+json"
CLASSIC = {"algorithm": "classic", "seed": 42}
# Big enough to be compressed (gzip_min_bytes is 3000 in this daemon's config).
BIG = {"algorithm": "classic", "seed": 7, "params": {"width": 120, "height": 40}}


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


@test("Accept: media ranges and q-values choose the representation; 406 lists them")
def _(d):
    cases = [
        (None, JSON), ("*/*", JSON), ("text/*", ASCII), ("image/*", SVG),
        ("image/svg+xml", SVG), (TILED, TILED), ("application/*", JSON),
        ("text/plain;q=0.5, image/svg+xml", SVG), ("text/plain, application/json", ASCII),
        ("*/*;q=0.1, application/json;q=0", ASCII), ("image/*;q=0, */*", JSON),
        ("image/*;q=0.4, image/svg+xml", SVG),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", JSON),
        ("image/svg+xml; q=0.5, application/vnd.dungeond.tiled+json; q=0.6", TILED),
    ]
    for accept, expected in cases:
        headers = {"Accept": accept} if accept else {}
        status, got, body = d.request("POST", "/v1/levels", CLASSIC, headers)
        check(status == 200, f"Accept {accept!r}: status {status} {body[:200]!r}")
        check(got["content-type"] == expected,
              f"Accept {accept!r}: {got['content-type']}, expected {expected}")
        check(got.get("vary") == "Accept, Accept-Encoding", f"Vary {got.get('vary')}")
    for accept in ("image/png", "image/svg+xml;q=0", "*/*;q=0", "text/html"):
        doc = problem(*d.request("POST", "/v1/levels", CLASSIC, {"Accept": accept}), 406,
                      "Accept")
        for media in (JSON, "text/plain", SVG, TILED):
            check(media in doc["detail"] and media in doc["errors"][0]["message"],
                  f"406 does not list {media}: {doc}")


@test("image/svg+xml: a well-formed SVG of the level, options from the query")
def _(d):
    level = json.loads(d.request("POST", "/v1/levels", CLASSIC)[2])
    status, headers, body = d.request("POST", "/v1/levels", CLASSIC, {"Accept": SVG})
    check(status == 200 and headers["content-type"] == SVG, f"{status}")
    root = ET.fromstring(body)
    check(root.tag == SVG_NS + "svg", root.tag)
    check(root.get("viewBox") == "0 0 80 21" and root.get("width") == "960", root.attrib)
    labels = root.findall(f"{SVG_NS}g[@class='labels']/{SVG_NS}text")
    check(len(labels) == len(level["rooms"]), f"{len(labels)} labels, {len(level['rooms'])} rooms")
    check(root.find(f"{SVG_NS}g[@class='graph']") is None, "graph drawn by default")
    status, _, body = d.request("POST", "/v1/levels?svg_graph=1&svg_labels=0&svg_tile=4", CLASSIC,
                                {"Accept": SVG})
    root = ET.fromstring(body)
    check(root.get("width") == "320", root.get("width"))
    graph = root.find(f"{SVG_NS}g[@class='graph']")
    check(graph is not None, "no graph with svg_graph=1")
    check(len(graph.findall(f"{SVG_NS}circle")) == len(level["graph"]["nodes"]), "graph nodes")
    check(len(graph.findall(f"{SVG_NS}line")) == len(level["graph"]["edges"]), "graph edges")
    cycles = sum(1 for e in level["graph"]["edges"] if e["cycle"])
    check(len(graph.findall(f"{SVG_NS}line[@class='e c']")) == cycles, "cycle edges")
    check(root.find(f"{SVG_NS}g[@class='labels']") is None, "labels with svg_labels=0")
    # Placement's stairs and spawns, by kind, where the level's features say.
    party = dict(CLASSIC, players=3)
    features = json.loads(d.request("POST", "/v1/levels", party)[2])["features"]
    root = ET.fromstring(d.request("POST", "/v1/levels", party, {"Accept": SVG})[2])
    drawn = root.findall(f"{SVG_NS}g[@class='objects']/*")
    check(sorted(e.get("data-kind") for e in drawn) == sorted(f["kind"] for f in features),
          f"drawn {[e.get('data-kind') for e in drawn]}, features {features}")
    spawns = [e for e in drawn if e.get("data-kind") == "spawn"]
    check(sorted(int(e.get("data-player")) for e in spawns) == [0, 1, 2], "spawn players")
    for e, f in zip(spawns, [f for f in features if f["kind"] == "spawn"]):
        check((e.get("cx"), e.get("cy")) == (f"{f['x']}.5", f"{f['y']}.5"), f"spawn at {f}")
    problem(*d.request("POST", "/v1/levels?svg_tile=65", CLASSIC, {"Accept": SVG}), 422,
            "svg_tile")
    problem(*d.request("POST", "/v1/levels?svg_graph=maybe", CLASSIC, {"Accept": SVG}), 422,
            "svg_graph")


AUTHORED = {"algorithm": "authored", "seed": 1, "params": {"roomset": "bench", "rooms": 60}}


def storeys_of(level):
    """The viewer page's rule: a placement is on each storey one of its
    connected doorways opens at (one below the doorway block), else on its
    boxes' heights."""
    found = set()
    for placement in level["placements"]:
        doors = {c["at"][1] - 1 for c in placement["connectors"] if c["state"] == "connected"}
        found |= doors or {box["at"][1] for box in placement["boxes"]}
    return sorted(found)


@test("storey=: an authored level's SVG by storey, side by side, and 422 for one it lacks")
def _(d):
    level = json.loads(d.request("POST", "/v1/levels", AUTHORED)[2])
    storeys = storeys_of(level)
    check(len(storeys) > 1, f"storeys {storeys}: the test needs several")
    root = ET.fromstring(d.request("POST", "/v1/levels?storey=all", AUTHORED, {"Accept": SVG})[2])
    nested = root.findall(f"{SVG_NS}svg")
    check([int(n.get("data-storey")) for n in nested] == storeys,
          f"side by side {[n.get('data-storey') for n in nested]}, storeys {storeys}")
    captions = [t.text for t in root.findall(f"{SVG_NS}text[@class='storey-title']")]
    check(captions == [f"y = {s}" for s in storeys], f"captions {captions}")
    top = storeys[-1]
    status, _, body = d.request("POST", f"/v1/levels?storey={top}", AUTHORED, {"Accept": SVG})
    root = ET.fromstring(body)
    check(status == 200 and root.get("data-storey") == str(top), f"{status} {root.attrib}")
    # Only stairs down lead off the top storey, each to a storey that exists.
    marks = root.findall(f"{SVG_NS}g[@class='stairs']/{SVG_NS}path")
    check(marks and all(m.get("class") == "down" and int(m.get("data-to")) in storeys
                        for m in marks), f"stairs on the top storey: {[m.attrib for m in marks]}")
    check(root.find(f"{SVG_NS}path[@class='ghost']").get("d"), "no other storey outlined")
    doc = problem(*d.request("POST", "/v1/levels?storey=3", AUTHORED, {"Accept": SVG}), 422,
                  "storey")
    check(all(str(s) in doc["detail"] for s in storeys), f"storeys not named: {doc['detail']}")
    problem(*d.request("GET", "/v1/levels?algorithm=classic&seed=1&storey=up",
                       None, {"Accept": SVG}), 422, "storey")
    # A level without storeys is the one storey 0.
    status, _, body = d.request("POST", "/v1/levels?storey=0", CLASSIC, {"Accept": SVG})
    check(status == 200 and ET.fromstring(body).get("data-storey") == "0", f"{status}")
    problem(*d.request("POST", "/v1/levels?storey=4", CLASSIC, {"Accept": SVG}), 422, "storey")


def check_tiled(tmj, level):
    """The Tiled JSON map format's structure, and the map equal to the level."""
    check(tmj["type"] == "map" and tmj["orientation"] == "orthogonal", "not an orthogonal map")
    check(tmj["infinite"] is False and tmj["renderorder"] == "right-down", "map flags")
    w, h = tmj["width"], tmj["height"]
    check((w, h) == (level["grid"]["width"], level["grid"]["height"]), f"size {w}x{h}")
    check(len(tmj["tilesets"]) == 1, "one embedded tileset")
    ts = tmj["tilesets"][0]
    for key in ("firstgid", "tilewidth", "tileheight", "tilecount", "columns", "image",
                "imagewidth", "imageheight"):
        check(key in ts, f"tileset lacks {key}")
    check(ts["imagewidth"] == ts["columns"] * ts["tilewidth"], "image width")
    names = {t["id"]: t["type"] for t in ts["tiles"]}
    tiles, objects = tmj["layers"]
    check(tiles["type"] == "tilelayer" and (tiles["width"], tiles["height"]) == (w, h), "layer")
    check(len(tiles["data"]) == w * h, f"{len(tiles['data'])} gids for {w}x{h}")
    legend = level["grid"]["legend"]
    rows = level["grid"]["rows"]
    for i, gid in enumerate(tiles["data"]):
        check(ts["firstgid"] <= gid < ts["firstgid"] + ts["tilecount"], f"gid {gid} at {i}")
        check(names[gid - ts["firstgid"]] == legend[rows[i // w][i % w]], f"tile {i}")
    check(objects["type"] == "objectgroup", objects["type"])
    ids = [o["id"] for o in objects["objects"]]
    check(len(set(ids)) == len(ids) and tmj["nextobjectid"] > max(ids), "object ids")
    check(sum(o["type"] == "room" for o in objects["objects"]) == len(level["rooms"]), "rooms")
    kinds = sorted(o["kind"] for o in level["objects"] + level.get("features", []))
    points = sorted(o["type"] for o in objects["objects"] if o.get("point"))
    check(points == kinds, f"point objects {points}, level objects {kinds}")
    for o in objects["objects"]:
        check(0 <= o["x"] <= o["x"] + o["width"] <= w * tmj["tilewidth"], f"object {o['id']} x")
        check(0 <= o["y"] <= o["y"] + o["height"] <= h * tmj["tileheight"], f"object {o['id']} y")


@test("application/vnd.dungeond.tiled+json: a Tiled map that parses back into the level")
def _(d):
    for request in (CLASSIC, {"algorithm": "landmark", "seed": 3},
                    {"algorithm": "classic", "seed": 11, "params": {"closet_chance": 1}}):
        level = json.loads(d.request("POST", "/v1/levels", request)[2])
        status, headers, body = d.request("POST", "/v1/levels", request, {"Accept": TILED})
        check(status == 200 and headers["content-type"] == TILED, f"{status}")
        check_tiled(json.loads(body), level)


@test("gzip when Accept-Encoding allows it (q-values), not for small bodies")
def _(d):
    identity = d.request("POST", "/v1/levels", BIG)[2]
    cases = [("gzip", True), ("x-gzip", True), ("*", True), ("gzip;q=0", False),
             ("br, deflate", False), ("identity;q=1, gzip;q=0.5", False),
             ("gzip;q=0.5, identity;q=0.2", True), ("*;q=0", False), (None, False)]
    for accept_encoding, compressed in cases:
        headers = {"Accept-Encoding": accept_encoding} if accept_encoding else {}
        status, got, body = d.request("POST", "/v1/levels", BIG, headers)
        check(status == 200, f"{accept_encoding}: {status}")
        check((got.get("content-encoding") == "gzip") == compressed,
              f"Accept-Encoding {accept_encoding!r}: Content-Encoding "
              f"{got.get('content-encoding')}")
        check(got.get("vary") == "Accept, Accept-Encoding", f"Vary {got.get('vary')}")
        plain = gzip.decompress(body) if compressed else body
        check(plain == identity, f"{accept_encoding}: body differs from the identity body")
        if compressed:
            check(len(body) * 3 < len(identity), f"gzip {len(body)} of {len(identity)}")
    again = d.request("POST", "/v1/levels", BIG, {"Accept-Encoding": "gzip"})[2]
    check(again == d.request("POST", "/v1/levels", BIG, {"Accept-Encoding": "gzip"})[2],
          "gzip bytes differ between two requests")
    # The ASCII map of 80x21 (1701 bytes) is under gzip_min_bytes (3000): sent as is.
    status, got, body = d.request("POST", "/v1/levels", CLASSIC,
                                  {"Accept": "text/plain", "Accept-Encoding": "gzip"})
    check(status == 200 and "content-encoding" not in got and len(body) == 81 * 21,
          f"small body compressed: {got.get('content-encoding')} {len(body)}")


@test("explicit seed: strong ETag per representation and encoding, immutable; 304")
def _(d):
    tags = {}
    for accept in (JSON, "text/plain", SVG, TILED):
        for encoding in (None, "gzip"):
            headers = {"Accept": accept}
            if encoding:
                headers["Accept-Encoding"] = encoding
            status, got, body = d.request("POST", "/v1/levels", BIG, headers)
            etag = got.get("etag", "")
            check(re.fullmatch(r'"[0-9a-f]{16}"', etag), f"{accept} {encoding}: ETag {etag!r}")
            check(got.get("cache-control") == "public, max-age=31536000, immutable",
                  f"Cache-Control {got.get('cache-control')}")
            tags[(accept, encoding)] = (etag, body)
    # One tag per distinct body: a body under gzip_min_bytes is the same
    # bytes, and so the same tag, whether gzip was accepted or not.
    for a, (tag_a, body_a) in tags.items():
        for b, (tag_b, body_b) in tags.items():
            check((tag_a == tag_b) == (body_a == body_b), f"{a} {tag_a} vs {b} {tag_b}")
    check(len({t for t, _ in tags.values()}) >= 7, f"{tags.keys()}")
    etag, body = tags[(JSON, None)]
    check(d.request("POST", "/v1/levels", BIG)[1]["etag"] == etag, "the tag changes")
    for if_none_match in (etag, f'"nope", {etag}', f"W/{etag}", "*"):
        status, got, body = d.request("POST", "/v1/levels", BIG, {"If-None-Match": if_none_match})
        check(status == 304 and body == b"", f"If-None-Match {if_none_match}: {status}")
        check(got.get("etag") == etag, f"304 ETag {got.get('etag')}")
        check(got.get("cache-control", "").endswith("immutable"), "304 Cache-Control")
    status, _, body = d.request("POST", "/v1/levels", BIG, {"If-None-Match": '"0000000000000000"'})
    check(status == 200 and len(body) > 0, f"non-matching tag: {status}")
    gz_tag = tags[(JSON, "gzip")][0]
    status, _, _ = d.request("POST", "/v1/levels", BIG, {"If-None-Match": gz_tag})
    check(status == 200, f"the gzip tag matched the identity body: {status}")
    status, _, _ = d.request("POST", "/v1/levels", BIG,
                             {"If-None-Match": gz_tag, "Accept-Encoding": "gzip"})
    check(status == 304, f"the gzip tag did not match the gzip body: {status}")


@test("a seed chosen by the daemon is not cacheable: no ETag, no-store, never 304")
def _(d):
    status, headers, _ = d.request("POST", "/v1/levels", {"algorithm": "classic"},
                                   {"If-None-Match": "*"})
    check(status == 200, f"status {status}")
    check("etag" not in headers, f"ETag {headers.get('etag')}")
    check(headers.get("cache-control") == "no-store", f"Cache-Control {headers.get('cache-control')}")


def query(**fields):
    return "/v1/levels?" + urllib.parse.urlencode(fields)


@test("GET /v1/levels?algorithm=..&seed=..&param=..: the same bytes as POST")
def _(d):
    pairs = [
        (query(algorithm="classic", seed=42), CLASSIC),
        (query(algorithm="classic", seed=9, width=120, corridor_style="cleanup",
               closet_chance=0.5),
         {"algorithm": "classic", "seed": 9,
          "params": {"width": 120, "corridor_style": "cleanup", "closet_chance": 0.5}}),
        (query(algorithm="landmark", seed=4, exact_turns="true", mask="cross"),
         {"algorithm": "landmark", "seed": 4, "params": {"exact_turns": True, "mask": "cross"}}),
        (query(algorithm="authored", seed=5, roomset="crypt", rooms=20, grid="false"),
         {"algorithm": "authored", "seed": 5, "roomset": "crypt",
          "params": {"rooms": 20, "grid": False}}),
    ]
    for path, body in pairs:
        got = d.request("GET", path)
        posted = d.request("POST", "/v1/levels", body)
        check(got[0] == 200 and posted[0] == 200, f"{path}: {got[0]} {got[2][:200]!r}")
        check(got[2] == posted[2], f"{path}: GET and POST bodies differ")
        check(got[1]["etag"] == posted[1]["etag"], f"{path}: tags differ")
    status, headers, body = d.request("HEAD", query(algorithm="classic", seed=42))
    check(status == 200 and body == b"" and headers.get("etag"), f"HEAD: {status}")
    status, _, body = d.request("GET", query(algorithm="classic", seed=18446744073709551615))
    check(status == 200 and json.loads(body)["seed"] == "18446744073709551615", f"{status}")
    status, headers, body = d.request("GET", query(algorithm="classic", seed=3), None,
                                      {"Accept": SVG})
    check(status == 200 and headers["content-type"] == SVG, f"GET svg {status}")
    # Multi-floor sets: GET takes floors too; a set is JSON or text, never one picture.
    got = d.request("GET", query(algorithm="classic", seed=9, floors=2), None,
                    {"Accept-Encoding": "gzip"})
    posted = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 9, "floors": 2})
    check(got[0] == 200 and got[1].get("content-encoding") == "gzip", f"floors GET {got[0]}")
    check(gzip.decompress(got[2]) == posted[2], "GET floors differs from POST floors")
    check(json.loads(posted[2])["format"] == "dungeond.levelset/1", "not a level set")


def floor_svg_body(svg_text):
    """A single level's SVG as the set nests it: no XML declaration, no end newline."""
    text = svg_text.decode()
    return text[text.index("<svg ") + len("<svg "):].rstrip("\n")


@test("multi-floor sets as one SVG (floors side by side, stairs joined) and one Tiled map (a group per floor)")
def _(d):
    for body in ({"algorithm": "classic", "seed": 9, "floors": 3},
                 {"algorithm": "landmark", "seed": 3, "floors": 2},
                 {"algorithm": "authored", "seed": 3, "roomset": "sewer", "floors": 2,
                  "params": {"rooms": 30}}):
        name = body["algorithm"]
        status, _, data = d.request("POST", "/v1/levels", body)
        check(status == 200, f"{name} set: {status}")
        floors = json.loads(data)["floors"]
        status, headers, svg = d.request("POST", "/v1/levels", body, {"Accept": SVG})
        check(status == 200 and headers["content-type"] == SVG, f"{name} set svg {status}")
        root = ET.fromstring(svg)
        check(root.get("data-floors") == str(body["floors"]), f"{name}: {root.attrib}")
        nested = root.findall(f"{SVG_NS}svg")
        check(len(nested) == body["floors"], f"{name}: {len(nested)} floor pictures")
        titles = [t.text for t in root.findall(f"{SVG_NS}text")]
        check(titles == [f"floor {k + 1} of {body['floors']}, seed {f['request']['seed']}"
                         for k, f in enumerate(floors)], f"{name}: titles {titles}")
        # Each floor is drawn exactly as it is alone: its own picture, nested.
        text = svg.decode()
        for k, floor in enumerate(floors):
            alone = d.request("POST", "/v1/levels", floor["request"], {"Accept": SVG})[2]
            check(floor_svg_body(alone) in text, f"{name} floor {k}: not its picture alone")
        # The stairs: floor k's stairs down joined to floor k+1's stairs up.
        xs = [int(n.get("x")) for n in nested]
        tile = int(nested[0].get("width")) // int(nested[0].get("viewBox").split()[2])
        for k in range(body["floors"] - 1):
            link = root.find(f"{SVG_NS}g[@class='stair-link-{k + 1}']")
            check(link is not None, f"{name}: no stair link {k + 1}")
            down = [f for f in floors[k]["level"]["features"] if f["kind"] == "stairs_down"][0]
            up = [f for f in floors[k + 1]["level"]["features"] if f["kind"] == "stairs_up"][0]
            ends = [(int(c.get("cx")), int(c.get("cy"))) for c in link.findall(f"{SVG_NS}circle")]
            x0 = [int(n.get("viewBox").split()[0]) for n in nested]
            y0 = [int(n.get("viewBox").split()[1]) for n in nested]
            y = int(nested[0].get("y"))
            want = [(xs[k] + (down["x"] - x0[k]) * tile + tile // 2,
                     y + (down["y"] - y0[k]) * tile + tile // 2),
                    (xs[k + 1] + (up["x"] - x0[k + 1]) * tile + tile // 2,
                     y + (up["y"] - y0[k + 1]) * tile + tile // 2)]
            check(ends == want, f"{name} link {k + 1}: ends {ends}, stairs at {want}")
        # Tiled: one group per floor, each floor's tiles and objects inside.
        status, headers, tmj = d.request("POST", "/v1/levels", body, {"Accept": TILED})
        check(status == 200, f"{name} set tiled {status}")
        tmap = json.loads(tmj)
        groups = tmap["layers"]
        check([g["type"] for g in groups] == ["group"] * body["floors"], f"{name}: {groups[:1]}")
        check([g["visible"] for g in groups] == [True] + [False] * (body["floors"] - 1),
              f"{name}: only floor 1 visible when opened")
        ids = []
        for k, group in enumerate(groups):
            alone = json.loads(d.request("POST", "/v1/levels", floor_request := floors[k]["request"],
                                         {"Accept": TILED})[2])
            # An authored floor on several storeys holds its storeys' groups, as alone.
            check([g["name"] for g in group["layers"] if g["type"] == "group"] ==
                  [g["name"] for g in alone["layers"] if g["type"] == "group"],
                  f"{name} floor {k}: storey groups differ from the floor alone")
            pairs = ([(g["layers"], a["layers"]) for g, a in zip(group["layers"], alone["layers"])]
                     if group["layers"][0]["type"] == "group" else
                     [(group["layers"], alone["layers"])])
            for (tiles, objects, *_), alone_layers in pairs:
                check(len(tiles["data"]) == tmap["width"] * tmap["height"], f"{name}: layer size")
                rows = [tiles["data"][y * tmap["width"]:y * tmap["width"] + alone["width"]]
                        for y in range(alone["height"])]
                check(sum(rows, []) == alone_layers[0]["data"],
                      f"{name} floor {k}: tiles differ from the floor alone "
                      f"({floor_request['seed']})")
                check([o["type"] for o in objects["objects"]] ==
                      [o["type"] for o in alone_layers[1]["objects"]],
                      f"{name} floor {k}: objects")
                ids += [o["id"] for o in objects["objects"]]
        check(ids == list(range(1, len(ids) + 1)) and tmap["nextobjectid"] == len(ids) + 1,
              f"{name}: object ids must run on across floors")


@test("GET /v1/levels errors name the field: type, range, repeats, algorithm")
def _(d):
    problem(*d.request("GET", query(algorithm="classic", seed=1, width="abc")), 422,
            "params.width")
    problem(*d.request("GET", query(algorithm="classic", seed=1, width=5)), 422, "params.width")
    problem(*d.request("GET", query(algorithm="classic", seed=1, wdth=80)), 422, "params.wdth")
    problem(*d.request("GET", "/v1/levels?algorithm=classic&seed=1&seed=2"), 422, "seed")
    problem(*d.request("GET", query(algorithm="nope")), 422, "algorithm")
    problem(*d.request("GET", query(algorithm="classic", seed="x")), 422, "seed")
    problem(*d.request("GET", query(algorithm="classic"), None, {"Accept": "image/png"}), 406,
            "Accept")
    problem(*d.request("DELETE", "/v1/levels"), 405)


@test("GET / serves the viewer page from the binary")
def _(d):
    status, headers, body = d.request("GET", "/")
    check(status == 200 and headers["content-type"] == "text/html; charset=utf-8", f"{status}")
    page = body.decode()
    check("<title>dungeond viewer</title>" in page, "not the viewer page")
    check("/v1/algorithms" in page and "/v1/levels" in page, "the page does not call the API")
    status, headers, body = d.request("HEAD", "/")
    check(status == 200 and body == b"", f"HEAD / {status}")
    problem(*d.request("POST", "/", "{}"), 405)


@test("lobby starts: SVG on request (no-store), JSON hits unchanged, 406 listed")
def _(d):
    d.request("PUT", "/v1/lobbies/pic/players/ann", {"level": 3})
    status, headers, body = d.request("POST", "/v1/lobbies/pic/start", None, {"Accept": SVG})
    check(status == 200 and headers["content-type"] == SVG, f"{status} {body[:200]!r}")
    check(ET.fromstring(body).tag == SVG_NS + "svg", "not SVG")
    check(headers.get("cache-control") == "no-store", headers.get("cache-control"))
    check("etag" not in headers, "a lobby's level is not named by its request")
    status, headers, body = d.request("POST", "/v1/lobbies/pic/start?svg_graph=1", None,
                                      {"Accept": SVG})
    check(ET.fromstring(body).find(f"{SVG_NS}g[@class='graph']") is not None, "no graph")
    problem(*d.request("POST", "/v1/lobbies/pic/start?svg_tile=0", None, {"Accept": SVG}), 422,
            "svg_tile")
    status, headers, body = d.request("POST", "/v1/lobbies/pic/start")
    check(status == 200 and headers["content-type"] == JSON, f"{status}")
    check(headers.get("cache-control") == "no-store", f"{headers}")
    check(headers.get("vary") == "Accept, Accept-Encoding", f"{headers}")
    # A pre-generated level goes out as stored, even to a gzip client.
    status, headers, body = d.request("POST", "/v1/lobbies/pic/start", None,
                                      {"Accept-Encoding": "gzip"})
    check(headers.get("x-pregen") == "hit", f"{headers}")
    check("content-encoding" not in headers and json.loads(body)["format"] == "dungeond.level/1",
          f"{headers}")
    problem(*d.request("POST", "/v1/lobbies/pic/start", None, {"Accept": "image/png"}), 406,
            "Accept")


def main():
    harness.DAEMON = os.path.abspath(sys.argv[1])
    print(f"1..{len(TESTS) + 1}", flush=True)
    tap = harness.Tap()
    d = harness.Daemon(extra={"compression": {"gzip_level": 6, "gzip_min_bytes": 3000}})
    try:
        for name, fn in TESTS:
            tap.report(name, fn, d)
    finally:
        code = d.stop()

    def stopped():
        check(code == 0, f"exit status {code}: {''.join(d.lines[-5:])}")
        check(not d.sanitizer_reports(), "".join(d.sanitizer_reports()))
    tap.report("SIGTERM: exit 0, no leak", stopped)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
