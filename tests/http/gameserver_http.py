#!/usr/bin/env python3
"""Issue 21: what a game server needs from dungeond, over real HTTP.

- Lobbies that cannot silently go wrong: the whole-lobby PUT (idempotent),
  an ETag on every lobby answer, If-Match (412 on a stale or lost lobby),
  If-None-Match: * (create only), the start carrying its party (a miss that
  makes exactly the lost lobby's level; 409 naming the field when the party
  is not the lobby this replica knows).
- Spawns keyed by player id, whatever the join order.
- Through the shipped nginx site in front of two replicas: the lobby's
  replica is killed with SIGKILL between joins; the game server notices
  (412), re-sends the lobby, and the start gives the byte-identical level.

Usage: gameserver_http.py PATH/TO/dungeond PATH/TO/deploy/nginx/dungeond.conf
Prints TAP. Python 3 standard library only; reuses dungeond_http.py's
Daemon and nginx_http.py's Nginx.
"""
import base64
import hashlib
import hmac
import http.client
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
import nginx_http  # noqa: E402
from dungeond_http import check, problem  # noqa: E402

SECRET = "00112233445566778899aabbccddeeff"
PARTY = {"ann": {"level": 12}, "bob": {"level": 7}, "cat": {"level": 30}, "dan": {"level": 3}}
TESTS = []


def test(name):
    def wrap(fn):
        TESTS.append((name, fn))
        return fn
    return wrap


def spawns(body):
    level = json.loads(body)
    return [(f["player"], f.get("player_id"), f["x"], f["y"])
            for f in level["features"] if f["kind"] == "spawn"]


@test("[lobby] whole-lobby PUT is idempotent and every lobby answer has the state's ETag")
def whole_put(d):
    body = {"params": {"width": 70}, "players": PARTY}
    status, headers, first = d.request("PUT", "/v1/lobbies/w1", body)
    check(status == 201, f"first whole PUT {status} {first[:200]}")
    tag = headers.get("etag")
    check(tag and tag.startswith('"'), f"no ETag on the PUT: {headers}")
    status, headers, again = d.request("PUT", "/v1/lobbies/w1", body)
    check(status == 200 and headers.get("etag") == tag, f"second PUT {status} {headers}")
    check(json.loads(again)["players"] == PARTY, "the whole PUT did not set every player")
    status, headers, _ = d.request("GET", "/v1/lobbies/w1")
    check(status == 200 and headers.get("etag") == tag, f"GET {status} {headers.get('etag')}")
    # The whole PUT replaces: a player left out is gone, the tag moves.
    fewer = {k: v for k, v in PARTY.items() if k != "dan"}
    status, headers, doc = d.request("PUT", "/v1/lobbies/w1", {"players": fewer})
    check(status == 200 and set(json.loads(doc)["players"]) == set(fewer), f"{status} {doc[:200]}")
    check(headers.get("etag") != tag, "the tag did not change with the state")
    status, headers, _ = d.request("DELETE", "/v1/lobbies/w1/players/cat")
    check(status == 200 and headers.get("etag"), f"leave {status} {headers}")
    # The same state gives the same tag on another lobby object: rebuilt
    # lobbies keep their tag (it is of the state, not of this process).
    d.request("DELETE", "/v1/lobbies/w2")
    status, headers, _ = d.request("PUT", "/v1/lobbies/w1", body)
    status2, headers2, _ = d.request("PUT", "/v1/lobbies/w1", body)
    check(headers.get("etag") == tag == headers2.get("etag"), "tag not a function of the state")


@test("[lobby] If-Match: a stale or unknown lobby is 412, never a new lobby; If-None-Match: * creates only")
def conditional(d):
    status, headers, _ = d.request("PUT", "/v1/lobbies/c1", {"players": {"ann": {"level": 1}}},
                                   {"If-None-Match": "*"})
    check(status == 201, f"create-only PUT {status}")
    tag = headers["etag"]
    doc = problem(*d.request("PUT", "/v1/lobbies/c1", {"players": {}}, {"If-None-Match": "*"}),
                  412, "If-None-Match")
    check("exists" in doc["detail"], doc["detail"])
    status, headers, _ = d.request("PUT", "/v1/lobbies/c1/players/bob", {"level": 2},
                                   {"If-Match": tag})
    check(status == 200 and headers["etag"] != tag, f"join with the right tag {status}")
    fresh = headers["etag"]
    # The old tag is stale now: refused, the lobby unchanged, its tag shown.
    status, headers, body = d.request("PUT", "/v1/lobbies/c1/players/cat", {"level": 3},
                                      {"If-Match": tag})
    problem(status, headers, body, 412, "If-Match")
    check(headers.get("etag") == fresh, f"412 without the current tag: {headers}")
    check("cat" not in json.loads(d.request("GET", "/v1/lobbies/c1")[2])["players"],
          "a refused join changed the lobby")
    problem(*d.request("DELETE", "/v1/lobbies/c1/players/bob", None, {"If-Match": tag}), 412,
            "If-Match")
    # A join with If-Match to a replica that does not know the lobby (it
    # restarted): 412, and no lobby was created behind the client's back.
    doc = problem(*d.request("PUT", "/v1/lobbies/lost/players/ann", {"level": 1},
                             {"If-Match": tag}), 412, "If-Match")
    check("does not know" in doc["detail"], doc["detail"])
    check(d.request("GET", "/v1/lobbies/lost")[0] == 404, "a refused join created the lobby")
    status, _, _ = d.request("PUT", "/v1/lobbies/c1/players/cat", {"level": 3},
                             {"If-Match": f'"nope", {fresh}'})
    check(status == 200, f"If-Match list with the current tag: {status}")


@test("[lobby] a start with its party: 409 naming the member that differs, the level when it agrees")
def start_party(d):
    d.request("PUT", "/v1/lobbies/s1", {"params": {"width": 64}, "players": PARTY})
    whole = {"params": {"width": 64}, "players": PARTY}
    fewer = {"params": {"width": 64}, "players": {k: v for k, v in PARTY.items() if k != "bob"}}
    problem(*d.request("POST", "/v1/lobbies/s1/start", fewer), 409, "players.bob")
    more = {"params": {"width": 64}, "players": dict(PARTY, eve={"level": 1})}
    problem(*d.request("POST", "/v1/lobbies/s1/start", more), 409, "players.eve")
    other = {"params": {"width": 64}, "players": dict(PARTY, ann={"level": 13})}
    problem(*d.request("POST", "/v1/lobbies/s1/start", other), 409, "players.ann")
    problem(*d.request("POST", "/v1/lobbies/s1/start", {"players": PARTY}), 409, "params")
    problem(*d.request("POST", "/v1/lobbies/s1/start", dict(whole, seed=5)), 409, "seed")
    check(json.loads(d.request("GET", "/v1/lobbies/s1")[2])["started"] is False,
          "a refused start froze the lobby")
    status, headers, level = d.request("POST", "/v1/lobbies/s1/start", whole)
    check(status == 200, f"agreeing start {status} {level[:200]}")
    check(d.request("POST", "/v1/lobbies/s1/start")[2] == level, "a second start differs")


@test("[lobby] a start with its party on a replica that never knew the lobby is a miss with the same bytes")
def start_rebuilt(d):
    # The reference: the lobby made by joins on this daemon.
    for name, attributes in PARTY.items():
        d.request("PUT", "/v1/lobbies/ref1/players/" + name, attributes)
    reference = d.request("POST", "/v1/lobbies/ref1/start")[2]
    other = harness.Daemon(extra={"lobby_seed_secret": SECRET})
    try:
        status, headers, level = other.request("POST", "/v1/lobbies/ref1/start",
                                               {"players": PARTY})
        check(status == 200 and headers.get("x-pregen") == "miss",
              f"rebuilt start {status} {headers.get('x-pregen')} {level[:200]}")
        check(level == reference, "the rebuilt lobby made another level")
        check(sorted(p for _, p, _, _ in spawns(level)) == sorted(PARTY), spawns(level))
        # It is a lobby now: a second start gives the same bytes.
        check(other.request("POST", "/v1/lobbies/ref1/start")[2] == reference, "second start")
        # Bad parties are refused before anything is made.
        problem(*other.request("POST", "/v1/lobbies/x2/start", {"players": [1]}), 422, "players")
        problem(*other.request("POST", "/v1/lobbies/x2/start", {"players": {"a b": {}}}), 422,
                "players.a b")
        problem(*other.request("POST", "/v1/lobbies/x2/start",
                               {"players": {"a": {"level": "x"}}}), 422, "players.a")
        problem(*other.request("POST", "/v1/lobbies/x2/start", {"players": {}, "size": 3}), 422,
                "size")
        problem(*other.request("POST", "/v1/lobbies/x2/start", "{"), 400)
        check(other.request("GET", "/v1/lobbies/x2")[0] == 404, "a refused start made a lobby")
    finally:
        check(other.stop() == 0, "second daemon exit")


@test("[spawns] keyed by player id: the same party in any join order gives the same level")
def spawns_by_id(d):
    orders = [["ann", "bob", "cat", "dan"], ["dan", "cat", "bob", "ann"], ["cat", "ann", "dan", "bob"]]
    levels = []
    for i, order in enumerate(orders):
        d.request("PUT", f"/v1/lobbies/order{i}", {"seed": 77})
        for name in order:
            d.request("PUT", f"/v1/lobbies/order{i}/players/{name}", PARTY[name])
        levels.append(d.request("POST", f"/v1/lobbies/order{i}/start")[2])
    check(levels[0] == levels[1] == levels[2], "the join order changed the level")
    check([p for _, p, _, _ in spawns(levels[0])] == ["ann", "bob", "cat", "dan"],
          f"spawns not in id order: {spawns(levels[0])}")
    # POST /v1/levels: the array's order does not matter either.
    body = {"algorithm": "classic", "seed": 5,
            "players": [{"id": k, **v} for k, v in PARTY.items()]}
    direct = d.request("POST", "/v1/levels", body)[2]
    body["players"].reverse()
    check(d.request("POST", "/v1/levels", body)[2] == direct, "array order changed the level")
    problem(*d.request("POST", "/v1/levels", {"algorithm": "classic",
                                              "players": [{"id": "a"}, {"level": 1}]}),
            422, "players[1].id")
    doc = problem(*d.request("POST", "/v1/levels", {"algorithm": "classic",
                                                    "players": [{"id": "no spaces"}]}),
                  422, "players[0].id")
    check("[A-Za-z0-9._-]" in doc["detail"], doc["detail"])
    # A player id outside the pattern in a lobby path: 422 with the pattern, not 404.
    doc = problem(*d.request("PUT", "/v1/lobbies/order0/players/" + "x" * 65, {}), 422, "player")
    check("[A-Za-z0-9._-]" in doc["detail"], doc["detail"])


def identity_checked(body):
    """The level's level_id after checking its level_hash: SHA-256 of the
    body cut at ,"level_id": plus the closing brace."""
    level = json.loads(body)
    check("level_id" in level and "level_hash" in level, f"no identity: {list(level)[-3:]}")
    cut = body[:body.rindex(b',"level_id":')] + b"}"
    check(level["level_hash"] == "sha256:" + hashlib.sha256(cut).hexdigest(),
          "level_hash is not the SHA-256 of the level's bytes")
    return level["level_id"]


def signed_id(payload, secret=SECRET):
    """A level id as level_id.c makes it, for tests that need one it would
    not make (another version)."""
    packed = zlib.compress(payload.encode(), 9)
    tag = hmac.new(bytes.fromhex(secret), packed, hashlib.sha256).digest()[:16]
    b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
    return b64(packed) + "." + b64(tag)


@test("[level_id] every level names itself; any replica, after a restart, serves it by id with the same ETag")
def level_ids(d):
    body = {"algorithm": "landmark", "seed": 9, "params": {"width": 96, "height": 96},
            "players": [{"id": "ann"}, {"id": "bob"}]}
    status, headers, level = d.request("POST", "/v1/levels", body)
    check(status == 200, f"{status} {level[:200]}")
    level_id = identity_checked(level)
    check(len(level_id) < 1024, f"level id of {len(level_id)} characters")
    status, again, fetched = d.request("GET", "/v1/levels/" + level_id)
    check(status == 200 and fetched == level, f"GET by id {status}: other bytes")
    check(again.get("etag") == headers.get("etag") and again["etag"], "another ETag")
    check(d.request("GET", "/v1/levels/" + level_id, None,
                    {"If-None-Match": headers["etag"]})[0] == 304, "no 304 by id")
    # A lobby's start: the late joiner fetches the same bytes by its id.
    for name, attributes in PARTY.items():
        d.request("PUT", "/v1/lobbies/late1/players/" + name, attributes)
    start = d.request("POST", "/v1/lobbies/late1/start")[2]
    start_id = identity_checked(start)
    other = harness.Daemon(extra={"lobby_seed_secret": SECRET})
    try:
        status, answer, late = other.request("GET", "/v1/levels/" + start_id)
        check(status == 200 and late == start, f"late join on another replica: {status}")
        status, answer, late = other.request("GET", "/v1/levels/" + level_id)
        check(late == level and answer.get("etag") == headers["etag"], "another replica differs")
    finally:
        check(other.stop() == 0, "other replica exit")
    restarted = harness.Daemon(extra={"lobby_seed_secret": SECRET})
    try:
        check(restarted.request("GET", "/v1/levels/" + start_id)[2] == start, "after a restart")
    finally:
        check(restarted.stop() == 0, "restarted exit")
    # Another deployment (another secret) did not sign it: 404.
    foreign = harness.Daemon(extra={"lobby_seed_secret": "ff" * 16})
    try:
        problem(*foreign.request("GET", "/v1/levels/" + level_id), 404)
    finally:
        check(foreign.stop() == 0, "foreign exit")


@test("[level_id] truncated 400, forged 404, another version 410 naming it")
def level_id_errors(d):
    level_id = identity_checked(d.request("POST", "/v1/levels", {"algorithm": "classic",
                                                                 "seed": 3})[2])
    payload, tag = level_id.split(".")
    problem(*d.request("GET", "/v1/levels/" + level_id[:-2]), 400, "level_id")
    problem(*d.request("GET", "/v1/levels/" + payload), 400, "level_id")
    problem(*d.request("GET", "/v1/levels/" + payload + ".!!"), 400, "level_id")
    problem(*d.request("GET", "/v1/levels/"), 400, "level_id")
    flipped = ("B" if payload[3] == "A" else "A")
    problem(*d.request("GET", "/v1/levels/" + payload[:3] + flipped + payload[4:] + "." + tag),
            404)
    # Cut by a multiple of four characters, so the rest is still base64 of
    # some bytes: then only the signature can refuse it. (Six, as before,
    # left a length that is no base64 for one payload in four: a 400.)
    problem(*d.request("GET", "/v1/levels/" + payload[:-8] + "." + tag), 404)
    # The parameters cannot be changed by a client: a width edited into
    # the payload, re-deflated, keeps the old tag and is refused.
    text = zlib.decompress(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    edited = text.replace(b'"width":80', b'"width":81')
    check(edited != text, f"no width in {text[:200]!r}")
    packed = base64.urlsafe_b64encode(zlib.compress(edited, 9)).rstrip(b"=").decode()
    problem(*d.request("GET", "/v1/levels/" + packed + "." + tag), 404)
    # Level ids name the generator version (format 2): one signed by
    # another generator version is 410 naming both; a format-1 id (which
    # named the release) is 410 too.
    generator = json.loads(d.request("POST", "/v1/levels", {"algorithm": "classic",
                                                            "seed": 3})[2])["generator_version"]
    release = d.stats()["version"]
    other = signed_id(f'dungeond/level-id/2\n{generator - 1}\n\n{{"algorithm":"classic","seed":3}}')
    doc = problem(*d.request("GET", "/v1/levels/" + other), 410, "level_id")
    check(doc["type"] == "urn:dungeond:problem:level-version-gone", doc["type"])
    check(f"generator version {generator - 1}" in doc["detail"]
          and f"generator version {generator}" in doc["detail"], doc["detail"])
    old = signed_id('dungeond/level-id/1\n0.0.9\n{"algorithm":"classic","seed":3}')
    doc = problem(*d.request("GET", "/v1/levels/" + old), 410, "level_id")
    check("0.0.9" in doc["detail"] and f"generator version {generator}" in doc["detail"]
          and release in doc["detail"], doc["detail"])
    # Signed by this version: served (the test holds the secret).
    same = signed_id(f'dungeond/level-id/2\n{generator}\n\n{{"algorithm":"classic","seed":3}}')
    status, _, body = d.request("GET", "/v1/levels/" + same)
    check(status == 200 and json.loads(body)["seed"] == 3, f"{status} {body[:200]}")
    # A room-set digest that is not 64 hex digits: malformed, even signed.
    bad = signed_id(f'dungeond/level-id/2\n{generator}\nabc\n{{"algorithm":"classic"}}')
    problem(*d.request("GET", "/v1/levels/" + bad), 400, "level_id")
    problem(*d.request("POST", "/v1/levels/" + level_id, {}), 405)


def roomset_changed():
    """An authored level's id names the room set's digest: a replica whose
    set of that name has other contents (edited, then reloaded) cannot make
    its bytes, so GET by id is 410 level-roomset-gone naming the set."""
    work = tempfile.mkdtemp(prefix="dungeond-roomsets-")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config",
                          "roomsets")
    for name in os.listdir(source):
        if name.endswith(".json"):
            shutil.copy(os.path.join(source, name), work)
    d = harness.Daemon(extra={"lobby_seed_secret": SECRET, "roomsets_dir": work})
    others = []
    try:
        status, _, level = d.request("POST", "/v1/levels", {"algorithm": "authored", "seed": 5,
                                                            "roomset": "crypt"})
        check(status == 200, f"{status} {level[:200]}")
        level_id = identity_checked(level)
        digest = json.loads(level)["roomset_sha256"]
        status, _, again = d.request("GET", "/v1/levels/" + level_id)
        check(status == 200 and again == level, f"by id before the change: {status}")
        # Edit the set: one room's weight, a valid set with another digest.
        path = os.path.join(work, "crypt.json")
        with open(path) as f:
            crypt = json.load(f)
        crypt["rooms"][3]["weight"] = crypt["rooms"][3].get("weight", 1) + 1
        with open(path, "w") as f:
            json.dump(crypt, f)
        # Another replica loading the edited set.
        others.append(harness.Daemon(extra={"lobby_seed_secret": SECRET, "roomsets_dir": work}))
        sets = json.loads(others[0].request("GET", "/v1/roomsets")[2])
        now = [s["sha256"] for s in sets if s["name"] == "crypt"]
        check(now and now[0] != digest, f"the edit did not change the digest: {now} {digest}")
        doc = problem(*others[0].request("GET", "/v1/levels/" + level_id), 410, "level_id")
        check(doc["type"] == "urn:dungeond:problem:level-roomset-gone", doc["type"])
        check("'crypt'" in doc["detail"] and digest[:12] in doc["detail"]
              and now[0][:12] in doc["detail"], doc["detail"])
        # The same replica after SIGHUP reloads the edited set.
        before = len(d.lines)
        d.proc.send_signal(signal.SIGHUP)
        end = time.monotonic() + 60
        while time.monotonic() < end and not any('"config_reloaded"' in line
                                                 for line in d.lines[before:]):
            time.sleep(0.02)
        doc = problem(*d.request("GET", "/v1/levels/" + level_id), 410, "level_id")
        check(doc["type"] == "urn:dungeond:problem:level-roomset-gone", doc["type"])
        # A replica without the set at all.
        os.remove(path)
        others.append(harness.Daemon(extra={"lobby_seed_secret": SECRET, "roomsets_dir": work}))
        doc = problem(*others[1].request("GET", "/v1/levels/" + level_id), 410, "level_id")
        check("no longer loaded" in doc["detail"], doc["detail"])
    finally:
        for daemon in [d] + others:
            check(daemon.stop() == 0, "daemon exit")
        shutil.rmtree(work, ignore_errors=True)


def reload(d):
    """SIGHUP, then wait for the daemon to say it reloaded."""
    before = len(d.lines)
    d.proc.send_signal(signal.SIGHUP)
    end = time.monotonic() + 60
    while time.monotonic() < end and not any('"config_reloaded"' in line
                                             for line in d.lines[before:]):
        time.sleep(0.02)
    check(any('"config_reloaded"' in line for line in d.lines[before:]), "no config_reloaded")


def table_changed():
    """A level made with a content table: its id names the table's digest,
    so after a reload that changed the table GET by id is 410
    level-table-gone naming it, never a level with other entities; with
    the table's old contents back, the same bytes again. Ids of levels
    without a table do not care."""
    work = tempfile.mkdtemp(prefix="dungeond-tables-")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config",
                          "tables", "fantasy.json")
    path = os.path.join(work, "fantasy.json")
    shutil.copy(source, path)
    with open(path) as f:
        original = f.read()
    d = harness.Daemon(extra={"lobby_seed_secret": SECRET, "tables_dir": work})
    try:
        ids, levels = {}, {}
        for name, params in (("table", {"population": True, "table": "fantasy"}),
                             ("budgets", {"population": True})):
            status, _, level = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 5,
                                                                "params": params})
            check(status == 200, f"{status} {level[:200]}")
            ids[name], levels[name] = identity_checked(level), level
        check(json.loads(levels["table"])["entities"], "no entities with the table")
        status, _, again = d.request("GET", "/v1/levels/" + ids["table"])
        check(status == 200 and again == levels["table"], f"by id before the change: {status}")
        tables = json.loads(d.request("GET", "/v1/tables")[2])
        digest = [t["sha256"] for t in tables if t["name"] == "fantasy"][0]
        # Edit the table: one encounter's weight, a valid table with another digest.
        table = json.loads(original)
        table["encounters"][0]["weight"] = table["encounters"][0].get("weight", 1) + 7
        with open(path, "w") as f:
            json.dump(table, f)
        reload(d)
        tables = json.loads(d.request("GET", "/v1/tables")[2])
        now = [t["sha256"] for t in tables if t["name"] == "fantasy"][0]
        check(now != digest, f"the edit did not change the digest: {now}")
        doc = problem(*d.request("GET", "/v1/levels/" + ids["table"]), 410, "level_id")
        check(doc["type"] == "urn:dungeond:problem:level-table-gone", doc["type"])
        check("'fantasy'" in doc["detail"] and digest[:12] in doc["detail"]
              and now[:12] in doc["detail"], doc["detail"])
        status, _, again = d.request("GET", "/v1/levels/" + ids["budgets"])
        check(status == 200 and again == levels["budgets"], f"budgets only after the edit: {status}")
        with open(path, "w") as f:
            f.write(original)
        reload(d)
        status, _, again = d.request("GET", "/v1/levels/" + ids["table"])
        check(status == 200 and again == levels["table"], f"the table restored: {status}")
    finally:
        check(d.stop() == 0, "daemon exit")
        shutil.rmtree(work, ignore_errors=True)


def default_key():
    """Without lobby_seed_secret the key is random per process (the default
    was 16 public zero bytes, with which anyone could sign a level id for
    any parameters): a daemon serves its own ids, also after SIGHUP, but
    another default daemon (another replica, or this one restarted) refuses
    them (404) and gives a lobby another seed; a forged id under the zero
    key is refused. Sharing a configured key is what makes ids portable
    (the level_ids test)."""
    a, b = harness.Daemon(), harness.Daemon()
    try:
        body = {"algorithm": "classic", "seed": 11}
        level = a.request("POST", "/v1/levels", body)[2]
        level_id = identity_checked(level)
        check(a.request("GET", "/v1/levels/" + level_id)[2] == level, "own id")
        problem(*b.request("GET", "/v1/levels/" + level_id), 404)
        check(identity_checked(b.request("POST", "/v1/levels", body)[2]) != level_id,
              "two default daemons signed the same id")
        generator = json.loads(level)["generator_version"]
        zero = signed_id(f'dungeond/level-id/2\n{generator}\n\n{{"algorithm":"classic","seed":11}}',
                         secret="00" * 16)
        problem(*a.request("GET", "/v1/levels/" + zero), 404)
        check(any('"lobby_seed_secret_unset"' in line for line in a.lines),
              "no warning that lobby_seed_secret is unset")
        seeds = []
        for d in (a, b):
            d.request("PUT", "/v1/lobbies/dk1", {})
            seeds.append(json.loads(d.request("GET", "/v1/lobbies/dk1")[2])["seed"])
        check(seeds[0] != seeds[1], f"default daemons gave lobby dk1 one seed {seeds}")
        # A reload keeps the process's key: ids given out stay valid.
        before = len(a.lines)
        a.proc.send_signal(signal.SIGHUP)
        end = time.monotonic() + 60
        while time.monotonic() < end and not any('"config_reloaded"' in line
                                                 for line in a.lines[before:]):
            time.sleep(0.02)
        check(any('"config_reloaded"' in line for line in a.lines[before:]), "no reload")
        status, _, again = a.request("GET", "/v1/levels/" + level_id)
        check(status == 200 and again == level, f"after SIGHUP: {status}")
    finally:
        for d in (a, b):
            check(d.stop() == 0, "daemon exit")


def cors():
    """CORS for browser clients: preflights answered for configured origins
    only, Access-Control-* on every answer to them, nothing for others."""
    page = "http://game.example:8443"
    d = harness.Daemon(extra={"cors_allowed_origins": [page]})
    try:
        status, headers, body = d.request("OPTIONS", "/v1/lobbies/x/players/ann", None,
                                          {"Origin": page, "Access-Control-Request-Method": "PUT",
                                           "Access-Control-Request-Headers": "if-match"})
        check(status == 204, f"preflight {status} {body[:200]}")
        check(headers.get("access-control-allow-origin") == page, f"{headers}")
        check("PUT" in headers.get("access-control-allow-methods", ""), f"{headers}")
        check("If-Match" in headers.get("access-control-allow-headers", ""), f"{headers}")
        problem(*d.request("OPTIONS", "/v1/levels", None, {"Origin": "http://evil.example",
                                                           "Access-Control-Request-Method":
                                                           "POST"}), 403, "Origin")
        status, headers, _ = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 1},
                                       {"Origin": page})
        check(status == 200 and headers.get("access-control-allow-origin") == page, f"{headers}")
        check("ETag" in headers.get("access-control-expose-headers", ""), f"{headers}")
        status, headers, _ = d.request("GET", "/v1/lobbies/none", None, {"Origin": page})
        check(status == 404 and headers.get("access-control-allow-origin") == page,
              f"a problem answer without CORS headers: {headers}")
        status, headers, _ = d.request("GET", "/v1/algorithms", None,
                                       {"Origin": "http://evil.example"})
        check(status == 200 and "access-control-allow-origin" not in headers, f"{headers}")
    finally:
        check(d.stop() == 0, "cors daemon exit")
    # A malformed origin stops the daemon at start, naming the key.
    run = harness.subprocess.run([harness.DAEMON, "--check-config", "--config", "/dev/stdin"],
                                 input='{"cors_allowed_origins": ["game.example/"]}',
                                 capture_output=True, text=True, timeout=60)
    check(run.returncode != 0 and "cors_allowed_origins" in run.stderr, f"{run.returncode} {run.stderr}")


def ipv6_listen():
    """--listen [::1]:PORT serves over IPv6, and limits.connections_per_ip_max
    counts IPv6 peers (by /64: ::1 is one peer)."""
    import re
    import socket
    import subprocess
    import tempfile
    import time
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config",
                           "dungeond.json")) as f:
        config = json.load(f)
    config["limits"]["connections_per_ip_max"] = 2
    config["roomsets_dir"] = ""
    path = os.path.join(tempfile.mkdtemp(prefix="dungeond-v6-"), "dungeond.json")
    with open(path, "w") as f:
        json.dump(config, f)
    proc = subprocess.Popen([harness.DAEMON, "--config", path, "--listen", "[::1]:0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        match = re.search(r'"port":(\d+)', first)
        check(match, f"no start-up line: {first}")
        port = int(match.group(1))
        conn = http.client.HTTPConnection("::1", port, timeout=30)
        conn.request("GET", "/v1/algorithms")
        answer = conn.getresponse()
        check(answer.status == 200, f"over IPv6: {answer.status}")
        answer.read()
        held = [conn, socket.create_connection(("::1", port), timeout=10)]
        time.sleep(0.2)
        third = socket.create_connection(("::1", port), timeout=10)
        third.sendall(b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            data = third.recv(100)
        except (ConnectionResetError, socket.timeout):
            data = b""
        check(not data.startswith(b"HTTP/1.1 200"), f"a third IPv6 connection was served: {data}")
        third.close()
        for c in held:
            c.close()
        time.sleep(0.3)
        conn = http.client.HTTPConnection("::1", port, timeout=30)
        conn.request("GET", "/livez")
        check(conn.getresponse().status == 200, "not served again once the others closed")
        conn.close()
        bad = subprocess.run([harness.DAEMON, "--config", path, "--listen", "[::1x]:0"],
                             capture_output=True, text=True, timeout=30)
        check(bad.returncode != 0 and "IPv6" in bad.stderr, f"{bad.returncode} {bad.stderr}")
    finally:
        proc.terminate()
        check(proc.wait(timeout=60) == 0, "IPv6 daemon exit")


def front_request(front, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", front.port, timeout=120)
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    result = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    conn.close()
    return result


def nginx_kill_between_joins(shipped):
    """Two replicas behind the shipped nginx site, sharing lobby_seed_secret.
    The game server joins with If-Match; the lobby's replica gets SIGKILL
    after the second join; the third join (now reaching the survivor) is 412,
    so the game server re-sends the whole lobby; the start with the party
    gives the level a replica that never failed gives."""
    replicas = [harness.Daemon(extra={"lobby_seed_secret": SECRET}) for _ in range(2)]
    reference = harness.Daemon(extra={"lobby_seed_secret": SECRET})
    front = None
    try:
        front = nginx_http.Nginx(shipped, [r.port for r in replicas])
        names = list(PARTY)
        lobby = "match-9"
        tag = None
        for name in names[:2]:
            headers = {"If-Match": tag} if tag else {"If-None-Match": "*"}
            status, answer, body = front_request(front, "PUT",
                                                 f"/v1/lobbies/{lobby}/players/{name}",
                                                 PARTY[name], headers)
            check(status in (200, 201), f"join {name}: {status} {body[:200]}")
            tag = answer["etag"]
        holder = nginx_http.holders(replicas, lobby)
        check(len(holder) == 1, f"{lobby} on replicas {holder}")
        victim = replicas[holder[0]]
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait(timeout=30)
        # The third join reaches the survivor, which does not know the lobby.
        status, answer, body = front_request(front, "PUT", f"/v1/lobbies/{lobby}/players/cat",
                                             PARTY["cat"], {"If-Match": tag})
        problem(status, answer, body, 412, "If-Match")
        # The game server holds the whole lobby: it re-sends it, create-only.
        have = {k: PARTY[k] for k in names[:3]}
        status, answer, body = front_request(front, "PUT", f"/v1/lobbies/{lobby}",
                                             {"players": have}, {"If-None-Match": "*"})
        check(status == 201, f"re-created lobby {status} {body[:200]}")
        status, answer, body = front_request(front, "PUT", f"/v1/lobbies/{lobby}/players/dan",
                                             PARTY["dan"], {"If-Match": answer["etag"]})
        check(status == 200, f"fourth join {status} {body[:200]}")
        status, answer, level = front_request(front, "POST", f"/v1/lobbies/{lobby}/start",
                                              {"players": PARTY})
        check(status == 200, f"start through nginx {status} {level[:200]}")
        # A replica that never failed, the same joins, the plain start.
        for name in names:
            reference.request("PUT", f"/v1/lobbies/{lobby}/players/{name}", PARTY[name])
        expected = reference.request("POST", f"/v1/lobbies/{lobby}/start")[2]
        check(level == expected, "the level after the lost replica is not the lobby's level")
        check(len(spawns(level)) == 4, f"spawns {spawns(level)}")
        # Lost after every join: the start with the party alone is enough.
        lobby = "match-10"
        for name in names:
            front_request(front, "PUT", f"/v1/lobbies/{lobby}/players/{name}", PARTY[name])
            reference.request("PUT", f"/v1/lobbies/{lobby}/players/{name}", PARTY[name])
        survivor = replicas[1 - holder[0]]
        check(survivor.request("GET", f"/v1/lobbies/{lobby}")[0] == 200,
              "the survivor does not hold the second lobby")
        survivor.proc.send_signal(signal.SIGKILL)
        survivor.proc.wait(timeout=30)
        restarted = harness.Daemon(extra={"lobby_seed_secret": SECRET})
        replicas.append(restarted)
        status, answer, level = restarted.request("POST", f"/v1/lobbies/{lobby}/start",
                                                  {"players": PARTY})
        check(status == 200 and answer.get("x-pregen") == "miss", f"{status} {answer}")
        check(level == reference.request("POST", f"/v1/lobbies/{lobby}/start")[2],
              "the restarted replica made another level")
    finally:
        if front is not None:
            front.stop()
        for r in replicas + [reference]:
            if r.proc.poll() is None:
                check(r.stop() == 0, "replica exit")
            check(not r.sanitizer_reports(), "".join(r.sanitizer_reports()))


def main():
    harness.DAEMON = os.path.abspath(sys.argv[1])
    shipped = os.path.abspath(sys.argv[2])
    plan = [(name, fn) for name, fn in TESTS]
    print(f"1..{len(plan) + 6}", flush=True)
    tap = harness.Tap()
    d = harness.Daemon(extra={"lobby_seed_secret": SECRET})
    try:
        for name, fn in plan:
            tap.report(name, fn, d)
        tap.report("[level_id] an authored level's id names its room set: 410 level-roomset-gone "
                   "once the set changed", roomset_changed)
        tap.report("[level_id] a level made with a content table: 410 level-table-gone once the "
                   "table changed (SIGHUP), the same bytes once it is back", table_changed)
        tap.report("[level_id] no configured key: a random key per process, ids valid only there",
                   default_key)
        tap.report("[cors] preflights and Access-Control-* for configured origins only", cors)
        tap.report("[ipv6] --listen [::1]:PORT, per-IP limits on IPv6 peers", ipv6_listen)
        tap.report("[nginx] SIGKILL of the lobby's replica between joins: 412, re-sent, "
                   "byte-identical level", nginx_kill_between_joins, shipped)
    finally:
        code = d.stop()
        if code != 0 or d.sanitizer_reports():
            tap.failed += 1
            print(f"# daemon exit {code} " + "".join(d.sanitizer_reports()), flush=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
