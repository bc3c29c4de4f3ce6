#!/usr/bin/env python3
"""Writes the room sets of config/roomsets/ (docs/roomset-format.md).

The rooms are authored here as a short list per biome rather than by hand in
JSON, so that wall thickness, doorway height and floor level stay consistent
across a biome: every room includes its walls, its floor is the block layer
y = 0 and its doorways stand on it at y = 1 (stair rooms also at y = 5 or
y = 9). Run `python3 config/roomsets/author.py` after editing; the JSON files
are committed and are what the daemon and the CLI load.
"""
import json
import os

H = 5  # ordinary room height: floor, three blocks of air, ceiling


def room(rid, size, connectors, weight=10, tags=(), boxes=None, note=None):
    r = {"id": rid, "weight": weight, "size": list(size)}
    if boxes is not None:
        r["boxes"] = [{"at": list(a), "size": list(s)} for a, s in boxes]
    r["connectors"] = [{"at": list(at), "facing": f} for at, f in connectors]
    if tags:
        r["tags"] = list(tags)
    if note:
        r["note"] = note
    return r


def corridor(rid, length, width=3, weight=10, tags=(), note=None):
    m = width // 2
    return room(rid, (width, H, length), [((m, 1, 0), "n"), ((m, 1, length - 1), "s")],
                weight, tags, note=note)


def shim(rid, length, weight=4):
    return corridor(rid, length, 3, weight, ("shim",),
                    note="narrow passage whose only job is to take up %d blocks" % length)


def corner(rid, width=5, weight=8, tags=()):
    m = width // 2
    return room(rid, (width, H, width), [((m, 1, 0), "n"), ((width - 1, 1, m), "e")], weight,
                tags)


def tee(rid, width=7, weight=8, tags=()):
    m = width // 2
    return room(rid, (width, H, width),
                [((m, 1, 0), "n"), ((width - 1, 1, m), "e"), ((0, 1, m), "w")], weight, tags)


def cross(rid, width=7, weight=6, tags=()):
    m = width // 2
    return room(rid, (width, H, width),
                [((m, 1, 0), "n"), ((width - 1, 1, m), "e"), ((m, 1, width - 1), "s"),
                 ((0, 1, m), "w")], weight, tags)


def dead_end(rid, w=5, d=5, weight=5, tags=("dead_end",)):
    return room(rid, (w, H, d), [((w // 2, 1, 0), "n")], weight, tags)


def hall(rid, w, h, d, sides, weight=6, tags=("hall",)):
    """A rectangular hall; `sides` maps a facing to the doorway offsets along
    that wall (from its west or north end)."""
    conns = []
    for f, offsets in sides.items():
        for o in offsets:
            at = {"n": (o, 1, 0), "s": (o, 1, d - 1), "w": (0, 1, o), "e": (w - 1, 1, o)}[f]
            conns.append((at, f))
    return room(rid, (w, h, d), conns, weight, tags)


def l_room(rid, weight=5):
    """An L of two boxes: a 9x9 block with a 5-wide arm to the east."""
    return room(rid, (15, H, 9), [((4, 1, 0), "n"), ((14, 1, 2), "e"), ((4, 1, 8), "s")],
                weight, ("hall",), boxes=[((0, 0, 0), (9, H, 9)), ((9, 0, 0), (6, H, 5))])


def stairs(rid, rise, run, weight=5, turn=False):
    """A straight (or turning) stair: enter at y = 1, leave `rise` blocks
    higher. Entering by the upper doorway goes down."""
    if turn:
        return room(rid, (7, rise + H, run), [((3, 1, 0), "n"), ((6, rise + 1, run - 2), "e")],
                    weight, ("stairs",))
    return room(rid, (5, rise + H, run), [((2, 1, 0), "n"), ((2, rise + 1, run - 1), "s")],
                weight, ("stairs",))


def landmark(rid, size, per_side, weight=2, height=10):
    offsets = [size // (per_side + 1) * (i + 1) for i in range(per_side)]
    return hall(rid, size, height, size, {f: offsets for f in "nesw"}, weight,
                ("landmark", "hall"))


def crypt():
    rooms = [
        hall("entrance_hall", 11, 6, 11, {f: [5] for f in "nesw"}, 1, ("start", "hall")),
        corridor("passage_5", 5), corridor("passage_7", 7, weight=12),
        corridor("passage_7_bones", 7, weight=6, note="passage_7 with bone piles"),
        corridor("passage_9", 9, weight=8), corridor("passage_13", 13, weight=4),
        corridor("gallery_9", 9, width=5, weight=5),
        corner("bend", weight=10), corner("bend_candles", weight=4),
        corner("bend_wide", width=7, weight=4),
        tee("junction_t", weight=8), tee("junction_t_ossuary", weight=3),
        cross("crossing", weight=6), cross("crossing_wide", width=9, weight=3),
        dead_end("alcove"), dead_end("sarcophagus_niche", 7, 7, 3),
        dead_end("collapsed_end", 5, 3, 4),
        hall("chapel", 9, 6, 13, {"n": [4], "s": [4], "e": [6]}),
        hall("tomb_hall", 13, 6, 9, {"n": [3, 9], "s": [6]}, 5),
        hall("burial_chamber", 9, 6, 9, {"n": [4], "w": [4]}, 6),
        hall("side_vault", 7, 5, 11, {"n": [3], "e": [3, 7]}, 5),
        l_room("l_catacomb"),
        hall("pillared_hall", 15, 7, 15, {"n": [7], "e": [4, 10], "s": [7], "w": [7]}, 3),
        landmark("great_ossuary", 25, 2),
        landmark("cathedral_nave", 31, 1, 1, 14),
        stairs("stair_up_4", 4, 9), stairs("stair_up_8", 8, 15, 3),
        stairs("stair_turn_4", 4, 9, 3, turn=True),
        room("stair_well", (7, 13, 7), [((3, 1, 0), "n"), ((3, 5, 6), "s"), ((0, 9, 3), "w")],
             2, ("stairs",)),
        shim("shim_2", 2), shim("shim_3", 3),
        shim("shim_2_cracked", 2, 2), shim("shim_3_roots", 3, 2),
        room("offset_passage", (5, H, 9), [((1, 1, 0), "n"), ((3, 1, 8), "s")], 6),
        room("zigzag", (9, H, 9), [((1, 1, 0), "n"), ((7, 1, 8), "s"), ((8, 1, 4), "e")], 4),
    ]
    return {"format": "dungeond.roomset/1", "name": "crypt", "biome": "crypt",
            "note": "Stone catacombs: narrow passages, ossuaries and a cathedral nave.",
            "rooms": rooms}


def sewer():
    rooms = [
        hall("outfall", 13, 7, 9, {"n": [6], "e": [4], "w": [4], "s": [3, 9]}, 1,
             ("start", "hall")),
        corridor("tunnel_4", 4), corridor("tunnel_6", 6, weight=12),
        corridor("tunnel_6_moss", 6, weight=5, note="tunnel_6 with moss and drips"),
        corridor("tunnel_10", 10, weight=8), corridor("canal_12", 12, width=7, weight=4),
        corridor("canal_8", 8, width=7, weight=5),
        corner("elbow", weight=10), corner("elbow_grate", weight=4),
        corner("elbow_wide", width=7, weight=4),
        tee("tee", weight=8), tee("tee_valve", weight=3), tee("tee_wide", 9, 3),
        cross("junction_box", weight=6), cross("junction_box_flooded", weight=2),
        dead_end("drain"), dead_end("grate_end", 5, 3, 4), dead_end("cistern_end", 9, 9, 2),
        hall("pump_room", 11, 7, 9, {"n": [5], "e": [4]}, 5),
        hall("settling_tank", 15, 8, 11, {"n": [4, 10], "s": [7], "w": [5]}, 4),
        hall("maintenance", 7, 5, 7, {"n": [3], "s": [3]}, 6),
        hall("overflow", 9, 6, 13, {"n": [4], "e": [3, 9], "w": [6]}, 4),
        l_room("bent_culvert"),
        landmark("great_cistern", 27, 2, 2, 12),
        landmark("storm_chamber", 21, 1, 2),
        stairs("ladder_up_4", 4, 7), stairs("ramp_up_4", 4, 11, 4),
        stairs("spiral_turn_4", 4, 9, 3, turn=True), stairs("shaft_up_8", 8, 13, 2),
        room("split_level", (9, 10, 9), [((4, 1, 0), "n"), ((8, 5, 4), "e"), ((4, 5, 8), "s")],
             2, ("stairs",)),
        shim("pipe_2", 2), shim("pipe_3", 3),
        shim("pipe_2_rusty", 2, 2), shim("pipe_3_leaky", 3, 2),
        room("offset_tunnel", (5, H, 7), [((1, 1, 0), "n"), ((3, 1, 6), "s")], 6),
        room("bypass", (11, H, 7), [((1, 1, 0), "n"), ((9, 1, 0), "n"), ((5, 1, 6), "s")], 4),
    ]
    return {"format": "dungeond.roomset/1", "name": "sewer", "biome": "sewer",
            "note": "Brick sewers: tunnels, canals, pump rooms and a great cistern.",
            "rooms": rooms}


def bench():
    """Comparable to the default biome of the article authored follows
    ("Building dungeon cycles from authored rooms"): 428 moves before grouping
    (107 connectors of rooms other than the start, x 4 rotations), with
    decorated duplicates of common shapes as an authored biome has."""
    rooms = crypt()["rooms"]
    rooms = [dict(r) for r in rooms]
    extra = [
        corridor("passage_7_torches", 7, weight=6, note="passage_7 with torches"),
        corner("bend_bones", weight=4), tee("junction_t_collapsed", weight=3),
        hall("reliquary", 11, 6, 7, {"n": [2, 8], "s": [5]}, 3),
        dead_end("collapsed_end_rubble", 5, 3, 2),
        room("crooked_passage", (7, H, 11), [((1, 1, 0), "n"), ((5, 1, 10), "s")], 5),
        room("crooked_junction", (9, H, 9), [((2, 1, 0), "n"), ((8, 1, 6), "e"), ((0, 1, 3), "w")],
             4),
        room("crooked_junction_lit", (9, H, 9),
             [((2, 1, 0), "n"), ((8, 1, 6), "e"), ((0, 1, 3), "w")], 2),
    ]
    rooms += extra
    return {"format": "dungeond.roomset/1", "name": "bench", "biome": "crypt",
            "note": "The benchmark set: the crypt biome plus decorated variants, 428 moves.",
            "rooms": rooms}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for s in (crypt(), sewer(), bench()):
        conns = sum(len(r["connectors"]) for r in s["rooms"])
        movable = sum(len(r["connectors"]) for r in s["rooms"] if "start" not in r.get("tags", ()))
        print("%-6s %2d rooms %3d connectors %3d moves" % (s["name"], len(s["rooms"]), conns,
                                                         movable * 4))
        with open(os.path.join(here, s["name"] + ".json"), "w") as f:
            json.dump(s, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
