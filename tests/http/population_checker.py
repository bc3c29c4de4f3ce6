"""An independent checker of a level's population budgets (docs/population.md).

It trusts none of the pass's own figures. From a `dungeond.level/1` object
it reads the graph (nodes, edges and their lengths), the rooms (rectangles,
kinds), the doors, the grid (to walk from stairs forced into a corridor),
`features` (stairs and spawns), the progression's spheres and boss room,
and the effective parameters; from them it derives every room's walking
distance from the entrance, its threat budget from the documented pacing
curves (in floating point, not the pass's fixed point), its loot heat, tier
and share, and the curve achieved, and compares them with what the level
reports. It checks:

  (a) the entrance's and the spawns' rooms have threat 0;
  (b) distances are graph distances from the entrance's node, progress is
      distance over the farthest room's;
  (c) each threat is difficulty x 10 x pacing(progress) within 2 points,
      eased just past each lock, the boss room the level's peak;
  (d) heat, tier and loot shares follow the heat map, and the shares add
      up to params.loot;
  (e) the curve achieved and the rank correlation are what the rooms say;
  (f) with linear pacing, Spearman's rank correlation between distance and
      threat is at least 0.8 over the reachable rooms that follow the curve:
      all but the rooms the party arrives in, the eased ones and the boss
      room, the rules' deliberate departures from it, checked by (a) and
      (c) (levels with at least three distinct distances among them).

Python 3 standard library only.
"""
import heapq
import math

WALKABLE = {"floor", "corridor", "door", "secret_door", "secret_corridor", "chest", "stairs_up",
            "stairs_down", "locked_door", "key", "one_way_north", "one_way_east",
            "one_way_south", "one_way_west"}
TOLERANCE = 2  # points: the pass rounds in Q16 fixed point


class CheckFailed(Exception):
    pass


def need(condition, message):
    if not condition:
        raise CheckFailed(message)


def pacing_curve(pacing, t):
    if isinstance(pacing, list):
        # Control points [[x, y], ...] in percent: piecewise linear.
        at = t * 100
        for (x0, y0), (x1, y1) in zip(pacing, pacing[1:]):
            if at <= x1:
                return (y0 + (y1 - y0) * (at - x0) / (x1 - x0)) / 100
        return pacing[-1][1] / 100
    if pacing == "flat":
        return 1.0
    if pacing == "s_curve":
        return t * t * (3 - 2 * t)
    if pacing == "exponential":
        return (2 ** (4 * t) - 1) / 15
    return t


def room_at(level, x, y):
    for i, room in enumerate(level["rooms"]):
        if room["x"] <= x < room["x"] + room["width"] and room["y"] <= y < room["y"] + room["height"]:
            return i
    return -1


def dijkstra(level, source):
    nodes, edges = level["graph"]["nodes"], level["graph"]["edges"]
    adjacent = [[] for _ in nodes]
    for e in edges:
        adjacent[e["from"]].append((e["to"], e["length"]))
        adjacent[e["to"]].append((e["from"], e["length"]))
    distance = [None] * len(nodes)
    distance[source] = 0
    queue = [(0, source)]
    while queue:
        d, n = heapq.heappop(queue)
        if d != distance[n]:
            continue
        for m, length in adjacent[n]:
            if distance[m] is None or d + length < distance[m]:
                distance[m] = d + length
                heapq.heappush(queue, (d + length, m))
    return distance


def node_of_room(level):
    out = {}
    for i, node in enumerate(level["graph"]["nodes"]):
        if node.get("room", -1) >= 0 and node["room"] not in out:
            out[node["room"]] = i
    return out


def entrance_candidates(level, stairs, room_node):
    """The nodes the stairs up may belong to: a "stairs" node on their
    tile (stairs forced onto rock or a sealed closet, joined by a dug way);
    their room's; else the nodes a walk over the map meets first."""
    x, y = stairs["x"], stairs["y"]
    nodes = level["graph"]["nodes"]
    on_tile = [i for i, n in enumerate(nodes) if n.get("room", -1) < 0 and (n["x"], n["y"]) == (x, y)]
    if on_tile:
        return on_tile
    room = stairs["room"] if stairs.get("room", -1) >= 0 else room_at(level, x, y)
    if room >= 0 and room in room_node:
        return [room_node[room]]
    if "grid" not in level:
        return list(range(len(nodes)))
    legend, rows = level["grid"]["legend"], level["grid"]["rows"]
    height, width = len(rows), len(rows[0])
    node_tiles = {}
    for i, n in enumerate(nodes):
        if n.get("room", -1) < 0:
            node_tiles.setdefault((n["x"], n["y"]), []).append(i)
    seen = {(x, y)}
    frontier = [(x, y)]
    while frontier:
        found = []
        for (cx, cy) in frontier:
            r = room_at(level, cx, cy)
            if r >= 0 and r in room_node:
                found.append(room_node[r])
            found.extend(node_tiles.get((cx, cy), []))
        if found:
            return found
        nxt = []
        for (cx, cy) in frontier:
            for nx, ny in ((cx - 1, cy), (cx + 1, cy), (cx, cy - 1), (cx, cy + 1)):
                if 0 <= nx < width and 0 <= ny < height and (nx, ny) not in seen and \
                        legend.get(rows[ny][nx]) in WALKABLE:
                    seen.add((nx, ny))
                    nxt.append((nx, ny))
        frontier = nxt
    return list(range(len(nodes)))


def secret_room(level, r):
    if level["rooms"][r]["kind"] in ("closet", "secret"):
        return True
    doors = [d for d in level.get("doors", []) if d["room"] == r]
    return bool(doors) and all(d.get("secret") for d in doors)


def average_ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(xs, ys):
    rx, ry = average_ranks(xs), average_ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    if vx == 0 or vy == 0:
        return 0.0
    return cov / math.sqrt(vx * vy)


def check_level(level):
    """Checks (a)-(f); returns the level's Spearman figure (or None when it
    has too few distinct distances to say)."""
    need("population" in level, "no population member")
    pop, params = level["population"], level["params"]
    rooms = pop["rooms"]
    need(len(rooms) == len(level["rooms"]), "not one budget per room")
    need(pop["difficulty"] == params["difficulty"] and pop["pacing"] == params["pacing"],
         "population does not echo its parameters")
    room_node = node_of_room(level)
    features = level["features"]
    ups = [f for f in features if f["kind"] == "stairs_up"]
    downs = [f for f in features if f["kind"] == "stairs_down"]
    need(len(ups) == 1 and len(downs) == 1, "not one pair of stairs")
    # (a) where the party arrives.
    # A feature's room as placement wrote it (authored rooms on different
    # floors overlap on the map), else the room whose rectangle holds it.
    arrival = {f["room"] if f.get("room", -1) >= 0 else room_at(level, f["x"], f["y"])
               for f in features if f["kind"] in ("stairs_up", "spawn")}
    arrival.discard(-1)
    for r in arrival:
        need(rooms[r]["threat"] == 0, f"(a) room {r} holds the stairs up or a spawn, threat "
             f"{rooms[r]['threat']}")
    # (b) distances from some node the stairs up belong to.
    candidates = entrance_candidates(level, ups[0], room_node)
    reported = [r["distance"] for r in rooms]
    distance = None
    for source in candidates:
        d = dijkstra(level, source)
        mine = [d[room_node[r]] if r in room_node and d[room_node[r]] is not None else -1
                for r in range(len(rooms))]
        if mine == reported:
            distance = mine
            entrance = source
            break
    need(distance is not None, f"(b) distances {reported} are not graph distances from the "
         f"entrance's node (candidates {candidates})")
    reachable = [r for r in range(len(rooms)) if distance[r] >= 0]
    farthest = max([distance[r] for r in reachable], default=0)
    need(pop["farthest"] == farthest, f"(b) farthest {pop['farthest']}, not {farthest}")
    entrance_room = level["graph"]["nodes"][entrance].get("room", -1)
    if entrance_room >= 0:
        arrival.add(entrance_room)
        need(rooms[entrance_room]["threat"] == 0, f"(a) entrance room {entrance_room} has threat")
    for r in reachable:
        expected = distance[r] / farthest if farthest > 0 else 0
        need(abs(rooms[r]["progress"] - expected) <= 0.0011,
             f"(b) room {r} progress {rooms[r]['progress']}, not {expected:.4f}")
    # (c) threat from the curve, eased, boss.
    peak = params["difficulty"] * 10
    prog = level.get("progression")
    sphere_of = {}
    boss = -1
    if prog is not None:
        for sphere in prog.get("spheres", []):
            for r in sphere["rooms"]:
                sphere_of[r] = sphere["sphere"]
        boss = prog.get("boss_room")
        boss = -1 if boss is None else boss
    eased = set()
    if prog is not None and params["ease_after_locks"] > 0:
        for s in set(sphere_of.values()):
            if s < 1:
                continue
            members = [r for r in reachable if sphere_of.get(r) == s]
            if members:
                nearest = min(distance[r] for r in members)
                eased |= {r for r in members if distance[r] == nearest}
    for r in range(len(rooms)):
        got = rooms[r]["threat"]
        if r not in reachable:
            need(got == 0 and "unreachable" in rooms[r]["why"], f"(c) unreachable room {r}: {got}")
            continue
        if r in arrival:
            continue
        if r == boss:
            need(got == peak + peak // 4, f"(c) boss room {r} threat {got}, not {peak + peak // 4}")
            need(all(x["threat"] <= got for x in rooms), "(c) the boss room is not the peak")
            continue
        t = distance[r] / farthest if farthest > 0 else 0
        expected = peak * pacing_curve(params["pacing"], t)
        if r in eased:
            expected = expected * (100 - params["ease_after_locks"]) / 100
            need("eased" in rooms[r]["why"], f"(c) room {r} just past a lock is not eased")
        else:
            need("eased" not in rooms[r]["why"], f"(c) room {r} eased but not just past a lock")
        need(abs(got - expected) <= TOLERANCE,
             f"(c) room {r} threat {got}, expected {expected:.1f} ({params['pacing']}, t={t:.3f})")
    # (d) heat map and loot.
    degree = [0] * len(level["graph"]["nodes"])
    for e in level["graph"]["edges"]:
        if e["from"] != e["to"]:
            degree[e["from"]] += 1
            degree[e["to"]] += 1
    exit_room = downs[0]["room"] if downs[0].get("room", -1) >= 0 else \
        room_at(level, downs[0]["x"], downs[0]["y"])
    to_exit = dijkstra(level, room_node[exit_room]) if exit_room in room_node else None
    walk = distance[exit_room] if exit_room >= 0 else None
    total_heat = 0
    for r in reachable:
        h = 1
        node = room_node[r]
        h += 2 if degree[node] <= 1 else 0
        h += 3 if secret_room(level, r) else 0
        h += 2 if sphere_of.get(r, 0) > 0 else 0
        if to_exit is not None and walk is not None:
            on_walk = to_exit[node] is not None and distance[r] + to_exit[node] == walk
            h += 0 if on_walk else 1
        else:
            h = rooms[r]["heat"]  # no exit room to measure the walk from: trust, bounded
        if r in arrival:
            h = 1
        need(rooms[r]["heat"] == h, f"(d) room {r} heat {rooms[r]['heat']}, expected {h}")
        need(rooms[r]["loot_tier"] == min(4, h - 1), f"(d) room {r} tier {rooms[r]['loot_tier']}")
        total_heat += h
    loot = params["loot"]
    if total_heat > 0 and loot > 0:
        need(sum(r["loot"] for r in rooms) == loot == pop["loot_total"],
             f"(d) loot shares add up to {sum(r['loot'] for r in rooms)}, not {loot}")
        for r in reachable:
            exact = loot * rooms[r]["heat"] / total_heat
            need(math.floor(exact) <= rooms[r]["loot"] <= math.floor(exact) + 1,
                 f"(d) room {r} loot {rooms[r]['loot']}, its share is {exact:.2f}")
    need(pop["threat_total"] == sum(r["threat"] for r in rooms), "(d) threat_total")
    # (e) the curve achieved.
    buckets = [[] for _ in range(10)]
    for r in reachable:
        buckets[min(9, int(rooms[r]["progress"] * 1000 + 1e-6) // 100)].append(rooms[r]["threat"])
    curve = [sum(b) // len(b) if b else None for b in buckets]
    need(pop["curve"]["threat_by_tenth"] == curve,
         f"(e) curve {pop['curve']['threat_by_tenth']}, rooms say {curve}")
    rho = spearman([distance[r] for r in reachable], [rooms[r]["threat"] for r in reachable]) \
        if len(reachable) >= 2 else 0.0
    need(abs(pop["curve"]["rank_correlation"] - rho) <= 0.0015,
         f"(e) rank_correlation {pop['curve']['rank_correlation']}, rooms say {rho:.4f}")
    # (f) linear pacing rises with distance.
    on_curve = [r for r in reachable if r not in eased and r != boss and r not in arrival]
    if params["pacing"] != "linear" or len({distance[r] for r in on_curve}) < 3 or peak == 0:
        return None
    rho = spearman([distance[r] for r in on_curve], [rooms[r]["threat"] for r in on_curve])
    need(rho >= 0.8, f"(f) linear pacing: Spearman distance/threat {rho:.3f} < 0.8")
    return rho
