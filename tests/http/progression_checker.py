"""An independent checker of a level's progression (docs/progression.md).

It trusts nothing the generator says about solvability. From a
`dungeond.level/1` object it reads only the map: the grid rows and legend
(or, for a level without a grid, the graph's nodes and edges), the room
rectangles (a floor tile inside one belongs to that room, as the witness
names rooms; corridors and doors belong to no room)
and `features` (where the stairs, keys, locked doors and one-way doors
are). Then it searches (place, keys picked up, locks opened) states from
the stairs up and checks:

  (a) the exit (stairs down) is reachable;
  (b) every lock is needed: with that door a wall, the exit is unreachable;
  (c) nothing softlocks: from every state reachable from the entrance the
      exit can still be reached, whatever order keys were picked up and
      (consumable keys) spent in, and whichever one-way doors were crossed;
  (d) the witness replays: its walk of rooms can be walked on the map in
      order, collecting the keys in its key order, and ends at the exit;
      its spheres are the rooms the keys of the spheres before open;
  (e) roles: every room and graph node has an allowed role, the entrance's
      and exit's rooms hold the stairs, key rooms their key, the boss room
      lies behind the last lock before the exit, treasure rooms are dead
      ends behind a lock, secret rooms are closets (check_roles).

Moves are the four neighbours on a grid. A locked door is entered with its
key (reusable) or by spending any key held (consumable; it stays open); a
key is picked up by stepping on it; a one-way door is entered only moving
in its direction and left only moving on in it (on a graph: from its edge's
`from` node to its `to` node). Python 3 standard library only.
"""

WALKABLE = {"floor", "corridor", "door", "secret_door", "secret_corridor", "chest", "stairs_up",
            "stairs_down", "locked_door", "key", "one_way_north", "one_way_east",
            "one_way_south", "one_way_west"}
# Tiles that are part of the room whose rectangle holds them (a key lies on
# a room's floor, or on a corridor's dead end outside every rectangle).
ROOM_TILES = {"floor", "stairs_up", "stairs_down", "key"}
STEP = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}


class CheckFailed(Exception):
    pass


def need(condition, message):
    if not condition:
        raise CheckFailed(message)


class Cells:
    """The map as cells: tiles (grid) or nodes and edges (graph). Each cell
    has neighbours, a room (or -1), and maybe a lock (key id), a key (key
    id) or a one-way rule (enter only from cell a, leave only to cell b)."""

    def __init__(self):
        self.neighbours = []
        self.room = []
        self.lock = {}     # cell -> key id
        self.key = {}      # cell -> key id
        self.one_way = {}  # cell -> (from cell, to cell)
        self.start = None
        self.goal = None

    def can_step(self, a, b):
        if b in self.one_way and self.one_way[b][0] != a:
            return False
        if a in self.one_way and self.one_way[a][1] != b:
            return False
        return True


def features_of(level, kind):
    return [f for f in level["features"] if f["kind"] == kind]


def room_index(level):
    """Tile -> room: the first room (lowest id) whose rectangle holds it."""
    owner = {}
    for room in reversed(level["rooms"]):
        for y in range(room["y"], room["y"] + room["height"]):
            for x in range(room["x"], room["x"] + room["width"]):
                owner[(x, y)] = room["id"]
    return owner


def cells_from_grid(level):
    grid = level["grid"]
    legend, rows = grid["legend"], grid["rows"]
    width, height = grid["width"], grid["height"]
    names = [[legend[c] for c in row] for row in rows]
    need(len(rows) == height and all(len(r) == width for r in rows), "grid rows have the wrong size")
    owner = room_index(level)
    cells = Cells()
    index = {}
    for y in range(height):
        for x in range(width):
            if names[y][x] in WALKABLE:
                index[(x, y)] = len(cells.room)
                # Only a room's floor is the room: a corridor or door inside
                # its rectangle (a tunnel crossing it) belongs to no room.
                in_room = names[y][x] in ROOM_TILES
                cells.room.append(owner.get((x, y), -1) if in_room else -1)
                cells.neighbours.append([])
    for (x, y), c in index.items():
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            n = index.get((x + dx, y + dy))
            if n is not None:
                cells.neighbours[c].append(n)

    def at(feature, tile):
        pos = (feature["x"], feature["y"])
        need(pos in index and names[pos[1]][pos[0]] == tile,
             f"{feature['kind']} at {pos} is not on a {tile} tile")
        return index[pos]

    cells.start = at(features_of(level, "stairs_up")[0], "stairs_up")
    cells.goal = at(features_of(level, "stairs_down")[0], "stairs_down")
    for f in features_of(level, "key"):
        cells.key[at(f, "key")] = f["key"]
    for f in features_of(level, "locked_door"):
        cells.lock[at(f, "locked_door")] = f["key"]
    for f in features_of(level, "one_way_door"):
        c = at(f, "one_way_" + f["direction"])
        dx, dy = STEP[f["direction"]]
        behind = index.get((f["x"] - dx, f["y"] - dy))
        ahead = index.get((f["x"] + dx, f["y"] + dy))
        need(behind is not None and ahead is not None, f"one-way door at {f['x']},{f['y']} "
             "does not lead anywhere")
        cells.one_way[c] = (behind, ahead)
    # Every progression tile on the map is one of the features, and back.
    counts = {"key": 0, "locked_door": 0, "one_way": 0}
    for row in names:
        for name in row:
            if name in ("key", "locked_door"):
                counts[name] += 1
            elif name.startswith("one_way_"):
                counts["one_way"] += 1
    need(counts["key"] == len(cells.key) and counts["locked_door"] == len(cells.lock)
         and counts["one_way"] == len(cells.one_way),
         f"tiles {counts} do not match the features")
    return cells


def cells_from_graph(level):
    graph = level["graph"]
    nodes, edges = graph["nodes"], graph["edges"]
    cells = Cells()
    for node in nodes:
        cells.room.append(node.get("room", -1))
        cells.neighbours.append([])
    edge_cell = {}
    for e, edge in enumerate(edges):
        if edge["from"] == edge["to"]:
            continue
        c = len(cells.room)
        edge_cell[e] = c
        cells.room.append(-1)
        cells.neighbours.append([edge["from"], edge["to"]])
        cells.neighbours[edge["from"]].append(c)
        cells.neighbours[edge["to"]].append(c)
    room_node = {}
    for i, node in enumerate(nodes):
        if node.get("room", -1) >= 0:
            room_node.setdefault(node["room"], i)
    # Stairs up outside every room (a multi-floor set's forced stairs) are
    # their own "stairs" node, joined to the room their way reaches.
    up = features_of(level, "stairs_up")[0]
    cells.start = (room_node[up["room"]] if up.get("room", -1) >= 0 else
                   next(i for i, node in enumerate(nodes) if node["kind"] == "stairs"
                        and (node["x"], node["y"]) == (up["x"], up["y"])))
    cells.goal = room_node[features_of(level, "stairs_down")[0]["room"]]
    for f in features_of(level, "key"):
        cells.key[room_node[f["room"]]] = f["key"]
    for f in features_of(level, "locked_door"):
        cells.lock[edge_cell[f["edge"]]] = f["key"]
    for f in features_of(level, "one_way_door"):
        edge = edges[f["edge"]]
        need({f["from"], f["to"]} == {edge["from"], edge["to"]}, "one-way door off its edge")
        cells.one_way[edge_cell[f["edge"]]] = (f["from"], f["to"])
    return cells


def compress(cells, by_room=False):
    """Regions: plain cells joined where a step is always allowed both
    ways (and, with by_room, only within one room or outside rooms); each
    lock, key and one-way cell stays a region of its own. Returns (region of
    each cell, directed region adjacency)."""
    special = set(cells.lock) | set(cells.key) | set(cells.one_way)
    region = [-1] * len(cells.room)
    count = 0
    for c in range(len(cells.room)):
        if region[c] >= 0:
            continue
        region[c] = count
        if c not in special:
            stack = [c]
            while stack:
                a = stack.pop()
                for b in cells.neighbours[a]:
                    if region[b] < 0 and b not in special and (
                            not by_room or cells.room[b] == cells.room[c]):
                        region[b] = count
                        stack.append(b)
        count += 1
    arcs = [set() for _ in range(count)]
    for a in range(len(cells.room)):
        for b in cells.neighbours[a]:
            if region[a] != region[b] and cells.can_step(a, b):
                arcs[region[a]].add(region[b])
    return region, [sorted(s) for s in arcs]


def region_view(cells):
    """The same map with each room's (and the corridors') plain cells merged
    into regions: a Cells whose steps are the regions' arcs, so that the
    witness replay moves over a few dozen places, not every tile."""
    region, arcs = compress(cells, by_room=True)
    view = Cells()
    view.neighbours = arcs
    view.room = [-1] * len(arcs)
    for c, r in enumerate(region):
        view.room[r] = cells.room[c]
    view.lock = {region[c]: k for c, k in cells.lock.items()}
    view.key = {region[c]: k for c, k in cells.key.items()}
    view.start, view.goal = region[cells.start], region[cells.goal]
    view.region = region  # cell -> region
    return view


class Search:
    """States (region, keys picked up as a bit mask, locks opened as a bit
    mask) reachable from the stairs up."""

    def __init__(self, cells, consumable, wall=None, regions=None):
        self.cells, self.consumable = cells, consumable
        self.region, self.arcs = regions or compress(cells)
        self.key_bit = {}
        for c, k in sorted(cells.key.items(), key=lambda item: item[1]):
            self.key_bit[self.region[c]] = 1 << len(self.key_bit)
        self.key_ids = {self.region[c]: k for c, k in cells.key.items()}
        self.lock_bit = {}
        for c, k in sorted(cells.lock.items(), key=lambda item: item[1]):
            self.lock_bit[self.region[c]] = 1 << len(self.lock_bit)
        self.lock_key = {self.region[c]: k for c, k in cells.lock.items()}
        self.wall = self.region[wall] if wall is not None else None
        self.goal = self.region[cells.goal]

    def held_ids(self, picked):
        return {self.key_ids[r] for r, bit in self.key_bit.items() if picked & bit}

    def enter(self, state, r):
        """The state after stepping into region r, or None if barred."""
        _, picked, opened = state
        if r == self.wall:
            return None
        if r in self.lock_bit:
            bit = self.lock_bit[r]
            if self.consumable:
                if not opened & bit:
                    held = bin(picked).count("1") - bin(opened).count("1")
                    if held <= 0:
                        return None
                    opened |= bit
            elif self.lock_key[r] not in self.held_ids(picked):
                return None
        if r in self.key_bit:
            picked |= self.key_bit[r]
        return (r, picked, opened)

    def run(self):
        start = self.enter((None, 0, 0), self.region[self.cells.start])
        self.states = {start: []}
        frontier = [start]
        while frontier:
            state = frontier.pop()
            for r in self.arcs[state[0]]:
                nxt = self.enter(state, r)
                if nxt is None:
                    continue
                self.states[state].append(nxt)
                if nxt not in self.states:
                    self.states[nxt] = []
                    frontier.append(nxt)
        return self

    def reaches_goal(self):
        return any(s[0] == self.goal for s in self.states)

    def stranded(self):
        """Reachable states from which no goal state can be reached."""
        back = {s: [] for s in self.states}
        for s, nexts in self.states.items():
            for n in nexts:
                back[n].append(s)
        good = {s for s in self.states if s[0] == self.goal}
        stack = list(good)
        while stack:
            s = stack.pop()
            for p in back[s]:
                if p not in good:
                    good.add(p)
                    stack.append(p)
        return [s for s in self.states if s not in good]


def rooms_open_with(cells, keys):
    """Rooms reachable from the stairs up with the locks of key ids `keys`
    open (one-way doors obeyed, other locks walls)."""
    return {cells.room[c] for c in cells_open_with(cells, keys) if cells.room[c] >= 0}


def cells_open_with(cells, keys):
    """Cells reachable from the stairs up with the locks of key ids `keys`
    open (one-way doors obeyed, other locks walls)."""
    seen = {cells.start}
    stack = [cells.start]
    while stack:
        a = stack.pop()
        for b in cells.neighbours[a]:
            if b in seen or not cells.can_step(a, b):
                continue
            if b in cells.lock and cells.lock[b] not in keys:
                continue
            seen.add(b)
            stack.append(b)
    return seen


def replay(cells, level, consumable):
    """Walks the witness: from the stairs up, room after room, each step
    through cells outside rooms (or in the two rooms) that the keys held
    allow; keys are picked up where the walk passes and in every room
    entered. Every way of walking it is followed (states: cell, keys in
    pickup order, locks opened), so a room of two parts or a choice of
    doors cannot make a good witness fail. Returns the pickup orders of the
    walks that end at the stairs down."""
    walk = level["progression"]["walk"]
    need(walk, "empty walk")

    def explore(states, allowed, stop=None):
        """Every state reachable from `states` through cells whose room is
        in `allowed`; with `stop`, states in that room are not left."""
        seen = set(states)
        queue = list(states)
        for cell, got, spent in queue:
            if stop is not None and cells.room[cell] == stop:
                continue
            for b in cells.neighbours[cell]:
                if cells.room[b] not in allowed or not cells.can_step(cell, b):
                    continue
                g2, s2 = got, spent
                if b in cells.lock and b not in spent:
                    if consumable:
                        if len(got) - len(spent) <= 0:
                            continue
                        s2 = spent | {b}
                    elif cells.lock[b] not in got:
                        continue
                if b in cells.key and cells.key[b] not in got:
                    g2 = got + (cells.key[b],)
                state = (b, g2, s2)
                if state not in seen:
                    seen.add(state)
                    queue.append(state)
        return seen

    first = (cells.start, (cells.key[cells.start],) if cells.start in cells.key else (),
             frozenset())
    current = cells.room[cells.start]
    states = {first}
    if current >= 0:
        states = explore(states, {current})
    steps = walk[1:] if walk[0] == current else walk
    for target in steps:
        # A step: to the target room through cells outside rooms (or in the
        # two rooms), then anywhere in the target room it can walk.
        arrived = {s for s in explore(states, {-1, current, target}, stop=target)
                   if cells.room[s[0]] == target}
        need(arrived, f"the walk cannot go from room {current} to room {target}")
        states = explore(arrived, {target})
        current = target
    ends = {s[1] for s in states if s[0] == cells.goal}
    need(ends, f"the walk ends in room {current}, not at the exit")
    return ends


ROLES = {"entrance", "exit", "key", "boss", "treasure", "secret", "ordinary"}
SECRET_TILES = {"secret_door", "secret_corridor", "chest"}


def check_roles(level, cells, view):
    """(e) Roles, from the map: every room and graph node has one of ROLES;
    the entrance's and exit's rooms hold the stairs; a key room holds its
    key (and every key on a room's floor makes its room a key room); the
    boss room lies behind the last lock, not in the exit's room; a treasure
    room is a dead end of the graph behind a lock; a secret room is a
    closet or reached only through secret doors, and a closet is secret
    unless it has a stronger role. `view` is region_view(cells)."""
    rooms, nodes = level["rooms"], level["graph"]["nodes"]
    for thing, items in (("room", rooms), ("node", nodes)):
        for item in items:
            need(item.get("role") in ROLES, f"(e) {thing} {item['id']} role {item.get('role')!r}")
    role = {r["id"]: r["role"] for r in rooms}
    goal_room = cells.room[cells.goal]
    # The stairs' room: one whose rectangle holds them (authored rooms'
    # rectangles overlap, and the map does not say whose floor a tile is),
    # or on a graph the stairs' node's room.
    for kind, stairs, cell in (("entrance", "stairs_up", cells.start),
                               ("exit", "stairs_down", cells.goal)):
        holders = {cells.room[cell]} - {-1}
        if "grid" in level:
            f = features_of(level, stairs)[0]
            holders |= {r["id"] for r in rooms if r["x"] <= f["x"] < r["x"] + r["width"]
                        and r["y"] <= f["y"] < r["y"] + r["height"]}
        named = [rid for rid, ro in role.items() if ro == kind]
        if kind == "exit" and holders & {rid for rid, ro in role.items() if ro == "entrance"}:
            continue  # the entrance's room holds both stairs: it is the entrance
        need(len(named) == (1 if holders else 0) and set(named) <= holders,
             f"(e) {kind} rooms {named}, rooms holding the {stairs} {sorted(holders)}")
    key_room = {}
    for c, k in cells.key.items():
        if cells.room[c] >= 0:
            key_room[cells.room[c]] = k
    for r in rooms:
        rid = r["id"]
        if role[rid] == "key":
            need(rid in key_room and r.get("key") == key_room[rid],
                 f"(e) key room {rid} (key {r.get('key')}) does not hold that key")
        elif rid in key_room:
            need(False, f"(e) room {rid} holds key {key_room[rid]} but is {role[rid]}")
    lock_keys = sorted(cells.lock.values())
    boss = level["progression"].get("boss_room")
    bosses = [rid for rid, ro in role.items() if ro == "boss"]
    need(bosses == ([boss] if boss is not None else []), f"(e) boss rooms {bosses}, "
         f"boss_room {boss}")
    if boss is not None:
        need(lock_keys, "(e) a boss room without a lock")
        behind = rooms_open_with(view, set(lock_keys)) - rooms_open_with(view, set(lock_keys[:-1]))
        need(boss in behind and boss != goal_room,
             f"(e) boss room {boss} is not behind the last lock before the exit")
    degree = {}
    for e in level["graph"]["edges"]:
        if e["from"] != e["to"]:
            degree[e["from"]] = degree.get(e["from"], 0) + 1
            degree[e["to"]] = degree.get(e["to"], 0) + 1
    open_regions = cells_open_with(view, set())
    open_rooms = {view.room[r] for r in open_regions if view.room[r] >= 0}
    node_of_room = {}
    for n in nodes:
        if n.get("room", -1) >= 0:
            node_of_room.setdefault(n["room"], n["id"])
            need(n["role"] == role[n["room"]], f"(e) node {n['id']} is {n['role']}, "
                 f"its room {n['room']} {role[n['room']]}")
    for r in rooms:
        rid = r["id"]
        if role[rid] == "treasure":
            need(rid not in open_rooms, f"(e) treasure room {rid} is not behind a lock")
            need(degree.get(node_of_room.get(rid), 0) == 1, f"(e) treasure room {rid} is not "
                 "a dead end of the graph")
        closet = r["kind"] in ("closet", "secret")
        if role[rid] == "secret":
            need(closet or hidden_room(level, cells, rid), f"(e) secret room {rid} "
                 f"({r['kind']}) is neither a closet nor behind secret doors")
        elif closet:
            need(role[rid] != "ordinary", f"(e) closet {rid} is ordinary, not secret")
    if "grid" not in level:
        return
    names = level["grid"]["legend"]
    rows = level["grid"]["rows"]
    index = tile_index(level)
    for n in nodes:
        if n.get("room", -1) >= 0:
            continue
        tile = names[rows[n["y"]][n["x"]]]
        if n["role"] == "secret":
            need(tile in SECRET_TILES, f"(e) secret node {n['id']} on a {tile} tile")
        elif n["role"] == "treasure":
            need(n["kind"] == "dead_end" and view.region[index[(n["x"], n["y"])]] not in open_regions,
                 f"(e) treasure node {n['id']} is not a dead end behind a lock")
        elif n["role"] == "key":
            need(index.get((n["x"], n["y"])) in cells.key, f"(e) key node {n['id']} holds no key")
        else:
            need(n["role"] == "ordinary", f"(e) node {n['id']} outside rooms is {n['role']}")


def tile_index(level):
    """(x, y) -> cell, numbered as cells_from_grid numbers them."""
    grid = level["grid"]
    index = {}
    for y, row in enumerate(grid["rows"]):
        for x, c in enumerate(row):
            if grid["legend"][c] in WALKABLE:
                index[(x, y)] = len(index)
    return index


def hidden_room(level, cells, rid):
    """Whether every way into room rid from outside it is a secret door or
    corridor (grid levels; a graph level has no doors to look at)."""
    if "grid" not in level:
        return False
    names = level["grid"]["legend"]
    rows = level["grid"]["rows"]
    index = tile_index(level)
    where = {c: xy for xy, c in index.items()}
    ways = set()
    for c, room in enumerate(cells.room):
        if room == rid:
            ways |= {b for b in cells.neighbours[c] if cells.room[b] != rid}
    return bool(ways) and all(names[rows[where[b][1]][where[b][0]]] in SECRET_TILES for b in ways)


def check_level(level):
    """Raises CheckFailed naming what is wrong; returns a small summary."""
    p = level.get("progression")
    need(p is not None, "no progression member")
    consumable = p["key_kind"] == "consumable"
    cells = cells_from_grid(level) if "grid" in level else cells_from_graph(level)
    locks = sorted(cells.lock.items(), key=lambda item: item[1])
    need(len(locks) == p["locks_placed"], f"{len(locks)} locks on the map, "
         f"locks_placed {p['locks_placed']}")
    need(sorted(cells.key.values()) == sorted(cells.lock.values()), "keys and locks differ")
    regions = compress(cells)
    search = Search(cells, consumable, regions=regions).run()
    need(search.reaches_goal(), "(a) the exit cannot be reached")
    for cell, key in locks:
        need(not Search(cells, consumable, wall=cell, regions=regions).run().reaches_goal(),
             f"(b) lock {key} is not needed: the exit is reachable without it")
    stranded = search.stranded()
    need(not stranded, f"(c) {len(stranded)} reachable states cannot reach the exit")
    view = region_view(cells)
    orders = replay(view, level, consumable)
    need(tuple(p["key_order"]) in orders,
         f"(d) keys picked up {sorted(orders)}, witness says {p['key_order']}")
    # Spheres: sphere 0 is what no key opens; sphere n+1 what the keys of
    # spheres 0..n open in addition.
    spheres = p["spheres"]
    keys = set()
    union = set()
    for n, sphere in enumerate(spheres):
        union |= set(sphere["rooms"])
        need(rooms_open_with(view, keys) == union,
             f"(d) sphere {n}: rooms open with keys {sorted(keys)} are not spheres 0..{n}")
        keys |= set(sphere["keys"])
    check_roles(level, cells, view)
    return {"locks": len(locks), "one_way": len(cells.one_way), "states": len(search.states)}
