#!/usr/bin/env python3
"""An independent checker of a level's entities (issue 20 items 3 and 5):
reads only the level's JSON (and the content table it names, as a game
would) and checks every promise docs/population.md makes about them:

  (a) ids e1, e2, ... in order; kind encounter or loot; entry in the table;
  (b) every tile of an entity's footprint lies in the grid, is plain floor
      ('.') of its own room, holds no feature (stairs, spawn, key, locked or
      one-way door) or object, is more than two tiles (Chebyshev) from every
      spawn, and is covered by no other entity;
  (c) an encounter's cost and footprint are its table entry's, and its
      difficulty window holds the level's difficulty;
  (d) a loot item's tier is its entry's and its room's loot tier;
  (e) per room, the encounters' costs add up to `spent`, which is at most
      the room's threat budget; the loot items number `loot_items`;
  (f) a budget left short says why: with no `unfilled`, what is left is
      below the cheapest encounter in the window; with no encounter in the
      window, `unfilled` says so.
"""


class CheckFailed(Exception):
    pass


def need(condition, message):
    if not condition:
        raise CheckFailed(message)


FORBIDDEN_FEATURES = ("stairs_up", "stairs_down", "spawn", "key", "locked_door", "one_way_door")


def check_level(level, table):
    pop = level["population"]
    difficulty = pop["difficulty"]
    entities = level.get("entities")
    need(isinstance(entities, list), "(a) no entities array")
    encounters = {e["id"]: e for e in table.get("encounters", [])}
    loot = {e["id"]: e for e in table.get("loot", [])}
    if "grid" not in level:
        # No tiles to stand on: nothing placed, every budget says why.
        need(entities == [], "(b) entities on a level without a grid")
        for r, budget in enumerate(pop["rooms"]):
            need(budget["threat"] == 0 or "unfilled" in budget, f"(f) room {r}: no reason")
        return 0
    rows = level["grid"]["rows"]
    height, width = len(rows), len(rows[0]) if rows else 0
    taken = set()
    for f in level["features"]:
        if f["kind"] in FORBIDDEN_FEATURES:
            taken.add((f["x"], f["y"]))
    for o in level.get("objects", []):
        taken.add((o["x"], o["y"]))
    spawns = [(f["x"], f["y"]) for f in level["features"] if f["kind"] == "spawn"]
    covered = set()
    spent = [0] * len(level["rooms"])
    items = [0] * len(level["rooms"])
    for i, e in enumerate(entities):
        where = f"entity {e.get('id')}"
        need(e["id"] == f"e{i + 1}", f"(a) {where}: expected id e{i + 1}")
        need(e["kind"] in ("encounter", "loot"), f"(a) {where}: kind {e['kind']}")
        entry = (encounters if e["kind"] == "encounter" else loot).get(e["entry"])
        need(entry is not None, f"(a) {where}: entry {e['entry']} not in the table")
        r = e["room"]
        need(0 <= r < len(level["rooms"]), f"(b) {where}: room {r}")
        room = level["rooms"][r]
        w, h = e.get("w", 1), e.get("h", 1)
        for y in range(e["y"], e["y"] + h):
            for x in range(e["x"], e["x"] + w):
                at = f"(b) {where} at ({x},{y})"
                need(0 <= x < width and 0 <= y < height, f"{at}: outside the grid")
                need(rows[y][x] == ".", f"{at}: on '{rows[y][x]}', not floor")
                need(room["x"] <= x < room["x"] + room["width"] and
                     room["y"] <= y < room["y"] + room["height"], f"{at}: outside room {r}")
                need((x, y) not in taken, f"{at}: on a feature or object")
                need(all(max(abs(x - sx), abs(y - sy)) > 2 for sx, sy in spawns),
                     f"{at}: within two tiles of a spawn")
                need((x, y) not in covered, f"{at}: on another entity")
                covered.add((x, y))
        if e["kind"] == "encounter":
            lo, hi = entry["difficulty"]
            need(lo <= difficulty <= hi, f"(c) {where}: {e['entry']} window [{lo},{hi}] "
                 f"misses difficulty {difficulty}")
            need(e["cost"] == entry["cost"], f"(c) {where}: cost {e['cost']} != {entry['cost']}")
            fw, fh = entry.get("footprint", [1, 1])
            need((w, h) == (fw, fh), f"(c) {where}: footprint {w}x{h} != {fw}x{fh}")
            need("tier" not in e, f"(c) {where}: an encounter with a tier")
            spent[r] += e["cost"]
        else:
            need(e["tier"] == entry["tier"], f"(d) {where}: tier {e['tier']} != {entry['tier']}")
            need(e["tier"] == pop["rooms"][r]["loot_tier"],
                 f"(d) {where}: tier {e['tier']} in a room of tier {pop['rooms'][r]['loot_tier']}")
            need("cost" not in e, f"(d) {where}: loot with a cost")
            items[r] += 1
    window = [e["cost"] for e in encounters.values()
              if e["difficulty"][0] <= difficulty <= e["difficulty"][1]]
    for r, budget in enumerate(pop["rooms"]):
        where = f"room {r}"
        need(budget["spent"] == spent[r], f"(e) {where}: spent {budget['spent']}, entities "
             f"cost {spent[r]}")
        need(spent[r] <= budget["threat"], f"(e) {where}: spent {spent[r]} over the budget "
             f"{budget['threat']}")
        need(budget["loot_items"] == items[r], f"(e) {where}: loot_items {budget['loot_items']}, "
             f"{items[r]} loot entities")
        left = budget["threat"] - spent[r]
        if budget["threat"] > 0 and not window:
            need(budget.get("unfilled") == "no entry in the difficulty window",
                 f"(f) {where}: no entry in the window but unfilled is {budget.get('unfilled')}")
        if "unfilled" not in budget and window:
            need(left < min(window), f"(f) {where}: {left} points left, the cheapest entry in "
                 f"the window costs {min(window)}, and no reason given")
    return len(entities)
