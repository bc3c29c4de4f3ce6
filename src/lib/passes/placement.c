/* The placement pass shared by every algorithm: an entrance (stairs up), an
 * exit (stairs down) far from it, and one spawn per player near the entrance
 * at similar distance to the exit. dg_generate runs it after the generator
 * and before the metrics; it reads only the level and the common parameters
 * (DG_COMMON_*), and draws from its own random stream, so the generators'
 * output is the same with or without it.
 *
 * Distances are graph distances: shortest paths over level->graph, whose
 * edge lengths are walking lengths in tiles, so a distance is the corridor
 * walk between rooms (walking inside a room counts nothing). The same pass
 * thus serves grid levels and levels without a grid alike, and costs a few
 * Dijkstra runs over tens of nodes instead of walks over every tile (two
 * tile walks cost classic a quarter of its generation time). On grid levels
 * the stairs then take a floor tile of their room, never a door. */
#include "passes/placement.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fp.h"
#include "core/heap.h"
#include "dungeon/rng.h"

/* The room whose floor rectangle holds (x, y), or -1. */
static int room_at(const dg_level *level, int x, int y) {
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    if (x >= room->x && y >= room->y && x < room->x + room->width && y < room->y + room->height)
      return r;
  }
  return -1;
}

static bool corridor_like(dg_tile tile) {
  return tile == DG_TILE_CORRIDOR || tile == DG_TILE_SECRET_CORRIDOR || tile == DG_TILE_CHEST;
}

/* Walkable-tile components (4-neighbour) into comp (-1 on solid tiles),
 * and in *main the main part of the level: the component holding tiles of
 * the most rooms (ties: the first found in row-major order), else the
 * largest. Forced stairs must join it, not a sealed closet. 0 or DG_ENOMEM. */
static int main_component(const dg_level *level, int *comp, int *main) {
  const dg_grid *grid = &level->grid;
  int width = grid->width;
  long cells = (long)width * grid->height;
  int *queue = malloc((size_t)(cells + 1) * sizeof *queue);
  int *size = malloc((size_t)(cells + 1) * sizeof *size);
  int *rooms = calloc((size_t)(cells + 1), sizeof *rooms);
  int *seen_by = malloc((size_t)(cells + 1) * sizeof *seen_by);
  int rc = DG_ENOMEM, count = 0;
  if (queue == NULL || size == NULL || rooms == NULL || seen_by == NULL)
    goto done;
  for (long i = 0; i < cells; i++)
    comp[i] = -1;
  for (long i = 0; i < cells; i++) {
    if (comp[i] >= 0 || !dg_tile_walkable((dg_tile)grid->tiles[i]))
      continue;
    int head = 0, tail = 0;
    comp[i] = count;
    queue[tail++] = (int)i;
    while (head < tail) {
      int p = queue[head++], x = p % width;
      int around[4] = {x > 0 ? p - 1 : -1, x + 1 < width ? p + 1 : -1, p >= width ? p - width : -1,
                       p + width < cells ? p + width : -1};
      for (int k = 0; k < 4; k++)
        if (around[k] >= 0 && comp[around[k]] < 0 &&
            dg_tile_walkable((dg_tile)grid->tiles[around[k]])) {
          comp[around[k]] = count;
          queue[tail++] = around[k];
        }
    }
    size[count] = tail;
    seen_by[count] = -1;
    count++;
  }
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    for (int y = room->y; y < room->y + room->height; y++)
      for (int x = room->x; x < room->x + room->width; x++) {
        int c = dg_grid_contains(grid, x, y) ? comp[(long)y * width + x] : -1;
        if (c >= 0 && seen_by[c] != r) {
          seen_by[c] = r;
          rooms[c]++;
        }
      }
  }
  *main = -1;
  for (int c = 0; c < count; c++)
    if (*main < 0 || rooms[c] > rooms[*main] ||
        (rooms[c] == rooms[*main] && rooms[c] == 0 && size[c] > size[*main]))
      *main = c;
  rc = 0;
done:
  free(queue);
  free(size);
  free(rooms);
  free(seen_by);
  return rc;
}

/* True when a walkable tile lies beside (x, y) (4-neighbour). */
static bool beside_walkable(const dg_grid *grid, int x, int y) {
  static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
  for (int d = 0; d < 4; d++)
    if (dg_grid_contains(grid, x + dx[d], y + dy[d]) &&
        dg_tile_walkable(dg_grid_get(grid, x + dx[d], y + dy[d])))
      return true;
  return false;
}

/* The scratch of one carve_connection search, per tile of the grid. */
typedef struct way_search {
  long *cost;   /* cheapest cost from start so far, LONG_MAX unreached */
  int *parent;  /* previous tile on the cheapest way, -1 at start */
  dg_heap open; /* tiles by cost */
} way_search;

/* Dijkstra from `start` to the nearest walkable tile of component `main`.
 * Output: *found, that tile, or -1 when none can be reached. 0 or
 * DG_ENOMEM. */
static int find_way(const dg_grid *grid, way_search *search, int start, const int *comp, int main,
                    int *found) {
  int width = grid->width;
  long cells = (long)width * grid->height;
  long *cost = search->cost;
  for (long i = 0; i < cells; i++)
    cost[i] = LONG_MAX;
  cost[start] = 0;
  search->parent[start] = -1;
  *found = -1;
  int rc = dg_heap_push(&search->open, 0, (uint32_t)start);
  if (rc != 0)
    return rc;
  uint64_t priority;
  uint32_t popped;
  while (dg_heap_pop(&search->open, &priority, &popped)) {
    int p = (int)popped;
    if ((long)priority != cost[p])
      continue;
    if (p != start && comp[p] == main) {
      *found = p;
      return 0;
    }
    /* Out of a wall only onto the floor behind it: one door, no L. */
    bool from_wall = p != start && grid->tiles[p] == DG_TILE_WALL;
    int x = p % width;
    int around[4] = {x > 0 ? p - 1 : -1, x + 1 < width ? p + 1 : -1, p >= width ? p - width : -1,
                     p + width < cells ? p + width : -1};
    for (int k = 0; k < 4; k++) {
      int n = around[k];
      if (n < 0)
        continue;
      dg_tile tile = (dg_tile)grid->tiles[n];
      if (from_wall && !dg_tile_walkable(tile))
        continue;
      if (tile == DG_TILE_WALL && !beside_walkable(grid, n % width, n / width))
        continue; /* a corner or a wall between walls: never a door */
      /* A walkable tile of the main part ends the search; stepping into it
       * from a wall is fine, along a wall is not (a wall tile costs 8). */
      long step = dg_tile_walkable(tile) ? 1 : tile == DG_TILE_WALL ? 8 : 1;
      if (cost[p] + step < cost[n]) {
        cost[n] = cost[p] + step;
        search->parent[n] = p;
        if ((rc = dg_heap_push(&search->open, (uint64_t)cost[n], (uint32_t)n)) != 0)
          return rc;
      }
    }
  }
  return 0;
}

/* Digs the way find_way found, from `found` back to `start` (neither
 * dug): stone becomes corridor, a wall a door of the room behind it. */
static int dig_way(dg_level *level, const int *parent, int start, int found) {
  dg_grid *grid = &level->grid;
  int width = grid->width;
  for (int p = parent[found]; p != start && p >= 0; p = parent[p]) {
    int x = p % width, y = p / width;
    if (grid->tiles[p] == DG_TILE_WALL) {
      /* Through a room's wall: a door of the room behind it. */
      int room = room_at(level, x, y - 1);
      room = room >= 0 ? room : room_at(level, x, y + 1);
      room = room >= 0 ? room : room_at(level, x - 1, y);
      room = room >= 0 ? room : room_at(level, x + 1, y);
      dg_grid_set(grid, x, y, DG_TILE_DOOR);
      dg_door door = {x, y, room >= 0 ? room : 0, false};
      int rc = dg_level_add_door(level, &door);
      if (rc != 0)
        return rc;
      level->placement.carved++;
    } else if (!dg_tile_walkable((dg_tile)grid->tiles[p])) {
      dg_grid_set(grid, x, y, DG_TILE_CORRIDOR);
      level->placement.carved++;
    }
  }
  return 0;
}

/* Digs from tile `start` to the nearest walkable tile of component `main`
 * (comp as main_component gives it), cheapest way through stone (walls cost
 * more, so a connection enters a room through one wall tile beside its
 * floor, which becomes a door, and never runs along walls or cuts a
 * corner). Walkable tiles of other components on the way are walked, not
 * dug. Returns the tile reached in *joined; tiles dug are counted in
 * level->placement.carved. 0, DG_ENOMEM or DG_EUNSAT (no way there). */
static int carve_connection(dg_level *level, int start, const int *comp, int main, int *joined) {
  long cells = (long)level->grid.width * level->grid.height;
  way_search search = {.cost = malloc((size_t)cells * sizeof *search.cost),
                       .parent = malloc((size_t)cells * sizeof *search.parent)};
  int found = -1, rc = DG_ENOMEM;
  if (search.cost == NULL || search.parent == NULL || dg_heap_init(&search.open, 256) != 0)
    goto done;
  if ((rc = find_way(&level->grid, &search, start, comp, main, &found)) != 0)
    goto done;
  rc = DG_EUNSAT;
  if (found < 0)
    goto done;
  if ((rc = dig_way(level, search.parent, start, found)) != 0)
    goto done;
  *joined = found;
done:
  free(search.cost);
  free(search.parent);
  dg_heap_close(&search.open);
  return rc;
}

/* The graph node of room `room` (node i is room i in every generator; the
 * scan covers a generator that numbers them otherwise), or -1. */
static int room_node(const dg_graph *graph, int room) {
  if (room < graph->node_count && graph->nodes[room].room == room)
    return room;
  for (int i = 0; i < graph->node_count; i++)
    if (graph->nodes[i].room == room)
      return i;
  return -1;
}

/* The graph node nearest (x, y): its room's node when it lies in a room,
 * else the closest node by grid distance, lowest index on ties. */
static int node_near(const dg_level *level, int x, int y) {
  const dg_graph *graph = &level->graph;
  int room = room_at(level, x, y);
  int node = room >= 0 ? room_node(graph, room) : -1;
  if (node >= 0)
    return node;
  long best_distance = LONG_MAX;
  for (int i = 0; i < graph->node_count; i++) {
    long d = labs((long)graph->nodes[i].x - x) + labs((long)graph->nodes[i].y - y);
    if (d < best_distance) {
      best_distance = d;
      node = i;
    }
  }
  return node;
}

/* The graph node a walker reaches first from tile `from` over walkable
 * tiles: the room it stands in, else the first room tile or node tile
 * (a junction's, a dead end's) on a breadth-first walk, counting only nodes
 * of the graph's main part (the component with the most rooms: a closet the
 * dug way passed is on the map now, but its node is not joined in the
 * graph); the steps to it in *steps. Falls back on the nearest node by grid
 * distance when the walk meets none (a level whose graph is not on its
 * tiles). 0 or DG_ENOMEM. */
static int node_reached(const dg_level *level, int from, int *node, int *steps) {
  const dg_grid *grid = &level->grid;
  const dg_graph *graph = &level->graph;
  int width = grid->width;
  long cells = (long)width * grid->height;
  int *node_at = malloc((size_t)(cells + 1) * sizeof *node_at);
  int *distance = malloc((size_t)(cells + 1) * sizeof *distance);
  int *queue = malloc((size_t)(cells + 1) * sizeof *queue);
  int *part = malloc((size_t)(graph->node_count + 1) * sizeof *part);
  int *part_rooms = calloc((size_t)(graph->node_count + 1), sizeof *part_rooms);
  int parts = 0, main_part = 0;
  int rc = DG_ENOMEM;
  if (node_at == NULL || distance == NULL || queue == NULL || part == NULL || part_rooms == NULL ||
      dg_graph_components(graph, part, &parts) != 0)
    goto done;
  for (int i = 0; i < graph->node_count; i++)
    part_rooms[part[i]] += graph->nodes[i].room >= 0;
  for (int c = 1; c < parts; c++)
    main_part = part_rooms[c] > part_rooms[main_part] ? c : main_part;
  for (long i = 0; i < cells; i++)
    node_at[i] = distance[i] = -1;
  for (int i = graph->node_count - 1; i >= 0; i--)
    if (graph->nodes[i].room < 0 && dg_grid_contains(grid, graph->nodes[i].x, graph->nodes[i].y))
      node_at[(long)graph->nodes[i].y * width + graph->nodes[i].x] = i;
  *node = -1;
  *steps = 0;
  int head = 0, tail = 0;
  distance[from] = 0;
  queue[tail++] = from;
  while (head < tail && *node < 0) {
    int p = queue[head++], x = p % width, y = p / width;
    int room = room_at(level, x, y);
    int found = room >= 0 ? room_node(graph, room) : node_at[p];
    if (found >= 0 && part[found] == main_part) {
      *node = found;
      *steps = distance[p];
      break;
    }
    int around[4] = {x > 0 ? p - 1 : -1, x + 1 < width ? p + 1 : -1, p >= width ? p - width : -1,
                     p + width < cells ? p + width : -1};
    for (int k = 0; k < 4; k++)
      if (around[k] >= 0 && distance[around[k]] < 0 &&
          dg_tile_walkable((dg_tile)grid->tiles[around[k]])) {
        distance[around[k]] = distance[p] + 1;
        queue[tail++] = around[k];
      }
  }
  if (*node < 0)
    *node = node_near(level, from % width, from / width);
  rc = 0;
done:
  free(node_at);
  free(distance);
  free(queue);
  free(part);
  free(part_rooms);
  return rc;
}

/* Forces the stairs up onto (x, y) of a level without a grid (authored
 * with grid=false). In a room, the stairs belong to its node. Outside
 * every room they stand where the floor above put its stairs down, and the
 * way from them goes straight to the nearest room of the graph's main part
 * (by distance to its rectangle, lowest room on ties): a "stairs" node with
 * a "stairs" edge that long to that room's node, as a dug way is on a map,
 * never a claim that they stand in a room (issue 23 item 3). The node the
 * stairs belong to goes to *node. 0 or DG_ENOMEM. */
static int force_entrance_gridless(dg_level *level, int x, int y, int *node) {
  const dg_graph *graph = &level->graph;
  int room = room_at(level, x, y);
  *node = room >= 0 ? room_node(graph, room) : -1;
  if (*node >= 0)
    return 0;
  int *part = malloc((size_t)(graph->node_count + 1) * sizeof *part);
  int *part_rooms = calloc((size_t)(graph->node_count + 1), sizeof *part_rooms);
  int parts = 0, main_part = 0, target = -1, rc = DG_ENOMEM;
  long best = LONG_MAX;
  if (part == NULL || part_rooms == NULL || dg_graph_components(graph, part, &parts) != 0)
    goto done;
  for (int i = 0; i < graph->node_count; i++)
    part_rooms[part[i]] += graph->nodes[i].room >= 0;
  for (int c = 1; c < parts; c++)
    main_part = part_rooms[c] > part_rooms[main_part] ? c : main_part;
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *box = &level->rooms[r];
    int candidate = room_node(graph, r);
    if (candidate < 0 || part[candidate] != main_part)
      continue;
    long dx = x < box->x                 ? box->x - x
              : x >= box->x + box->width ? x - (box->x + box->width - 1)
                                         : 0;
    long dy = y < box->y                  ? box->y - y
              : y >= box->y + box->height ? y - (box->y + box->height - 1)
                                          : 0;
    if (dx + dy < best) {
      best = dx + dy;
      target = candidate;
    }
  }
  rc = 0;
  if (target < 0)
    goto done; /* no room: the caller says the level cannot hold the stairs */
  if ((rc = dg_graph_add_node(&level->graph, "stairs", x, y, -1, node)) == 0)
    rc = dg_graph_add_edge(&level->graph, *node, target, "stairs", (int)best);
done:
  free(part);
  free(part_rooms);
  return rc;
}

/* Forces the stairs up onto tile (x, y) of the grid (multi-floor sets). A
 * tile that is not walkable ground of the level's main part (rock, a wall,
 * a sealed closet) is joined to that part by a dug connection, added to the
 * graph as a "stairs" node with a "stairs" edge to the node the connection
 * really reaches; a door or chest there stops being one. The graph node the
 * stairs belong to goes to *node. */
static int force_entrance(dg_level *level, int x, int y, int *node) {
  dg_grid *grid = &level->grid;
  int width = grid->width, at = y * width + x;
  long cells = (long)width * grid->height;
  dg_tile tile = (dg_tile)grid->tiles[at];
  for (int d = 0; d < level->door_count; d++)
    if (level->doors[d].x == x && level->doors[d].y == y) {
      memmove(&level->doors[d], &level->doors[d + 1],
              (size_t)(level->door_count - d - 1) * sizeof *level->doors);
      level->door_count--;
      break;
    }
  for (int o = 0; o < level->object_count; o++)
    if (level->objects[o].x == x && level->objects[o].y == y) {
      memmove(&level->objects[o], &level->objects[o + 1],
              (size_t)(level->object_count - o - 1) * sizeof *level->objects);
      level->object_count--;
      break;
    }
  /* The metrics must see the map as it is now. */
  level->grid_metrics_ready = false;
  int *comp = malloc((size_t)(cells + 1) * sizeof *comp);
  int main = -1, joined = -1, walked = 0, target = -1;
  int rc = comp != NULL ? main_component(level, comp, &main) : DG_ENOMEM;
  if (rc != 0)
    goto done;
  if (dg_tile_walkable(tile) && comp[at] == main) {
    dg_grid_set(grid, x, y, DG_TILE_STAIRS_UP);
    rc = node_reached(level, at, node, &walked);
    goto done;
  }
  if ((rc = carve_connection(level, at, comp, main, &joined)) != 0)
    goto done;
  dg_grid_set(grid, x, y, DG_TILE_STAIRS_UP);
  /* The node a walker from the stairs meets first, over the dug way. */
  if ((rc = node_reached(level, at, &target, &walked)) != 0 ||
      (rc = dg_graph_add_node(&level->graph, "stairs", x, y, -1, node)) != 0)
    goto done;
  if (target >= 0)
    rc = dg_graph_add_edge(&level->graph, *node, target, "stairs", walked > 0 ? walked : 1);
done:
  free(comp);
  return rc;
}

/* True when a door lies next to (x, y): stairs there would stand in the
 * doorway's landing, so the random tries avoid it. */
static bool beside_door(const dg_grid *grid, int x, int y) {
  static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
  for (int d = 0; d < 4; d++) {
    int nx = x + dx[d], ny = y + dy[d];
    if (dg_grid_contains(grid, nx, ny)) {
      dg_tile tile = dg_grid_get(grid, nx, ny);
      if (tile == DG_TILE_DOOR || tile == DG_TILE_SECRET_DOOR)
        return true;
    }
  }
  return false;
}

/* A place on the level: a grid tile, or level coordinates without a grid. */
typedef struct place {
  int x, y;
  bool set; /* false: no place */
} place;

static bool same_place(place a, place b) {
  return a.set && b.set && a.x == b.x && a.y == b.y;
}

/* A place in `room` for stairs: a random floor tile of its rectangle (a few
 * random tries, then the first floor tile in reading order; rooms of caverns
 * and shapes are not all floor), never `avoid`, by preference not beside a
 * door. Without a grid the room's node position. Unset when the room has no
 * floor tile to spare. */
static place room_place(const dg_level *level, int room, int node, place avoid, dg_rng *rng) {
  const dg_room *r = &level->rooms[room];
  if (!level->has_grid) {
    const dg_node *n = &level->graph.nodes[node];
    place at = {n->x, n->y, true};
    return same_place(at, avoid) ? (place){0} : at;
  }
  const dg_grid *grid = &level->grid;
  for (int tries = 0; tries < 8; tries++) {
    place at = {r->x + (int)dg_rng_below(rng, (uint32_t)r->width),
                r->y + (int)dg_rng_below(rng, (uint32_t)r->height), true};
    if (dg_grid_contains(grid, at.x, at.y) && !same_place(at, avoid) &&
        dg_grid_get(grid, at.x, at.y) == DG_TILE_FLOOR && !beside_door(grid, at.x, at.y))
      return at;
  }
  for (int y = r->y; y < r->y + r->height; y++)
    for (int x = r->x; x < r->x + r->width; x++) {
      place at = {x, y, true};
      if (dg_grid_contains(grid, x, y) && !same_place(at, avoid) &&
          dg_grid_get(grid, x, y) == DG_TILE_FLOOR)
        return at;
    }
  return (place){0};
}

/* The graph as adjacency lists with edge lengths, built once per level for
 * the pass's two shortest-path runs, and the heap they share. */
typedef struct graph_walk {
  int *offsets;  /* node i's entries: offsets[i] .. offsets[i + 1] - 1 */
  int *adjacent; /* the node at the other end of each entry */
  int *via;      /* the edge of each entry */
  dg_heap heap;  /* keys: distance << 32 | node, a total order */
} graph_walk;

static int graph_walk_init(graph_walk *g, const dg_graph *graph) {
  size_t ends = (size_t)graph->edge_count * 2 + 1;
  *g = (graph_walk){0};
  g->offsets = malloc(((size_t)graph->node_count + 1 + 2 * ends) * sizeof *g->offsets);
  if (g->offsets == NULL || dg_heap_init(&g->heap, 64) != 0)
    return DG_ENOMEM;
  g->adjacent = g->offsets + graph->node_count + 1;
  g->via = g->adjacent + ends;
  dg_graph_adjacency(graph, g->offsets, g->adjacent, g->via);
  return 0;
}

static void graph_walk_close(graph_walk *g) {
  free(g->offsets);
  dg_heap_close(&g->heap);
}

/* Dijkstra from `source`: the distance of every node (LONG_MAX when
 * unreachable). 0 or DG_ENOMEM. */
static int graph_distances(graph_walk *g, const dg_graph *graph, int source, long *distance) {
  for (int i = 0; i < graph->node_count; i++)
    distance[i] = LONG_MAX;
  distance[source] = 0;
  dg_heap_clear(&g->heap);
  int rc = dg_heap_push_key(&g->heap, (uint64_t)source, 0);
  uint64_t key;
  uint32_t unused;
  while (rc == 0 && dg_heap_pop_key(&g->heap, &key, &unused)) {
    int node = (int)(key & 0xffffffffu);
    long reached = (long)(key >> 32);
    if (reached != distance[node])
      continue;
    for (int k = g->offsets[node]; k < g->offsets[node + 1] && rc == 0; k++) {
      long through = reached + graph->edges[g->via[k]].length;
      int next = g->adjacent[k];
      if (through < distance[next]) {
        distance[next] = through;
        rc = dg_heap_push_key(&g->heap, (uint64_t)through << 32 | (uint32_t)next, 0);
      }
    }
  }
  return rc;
}

/* The first walkable tile, in reading order, that stairs may take (floor
 * or corridor, not `avoid`): the last resort of a level whose rooms have no
 * second floor tile. Without a grid, a corner of a room's rectangle. Unset
 * when there is none. */
static place any_free_place(const dg_level *level, place avoid) {
  if (!level->has_grid) {
    for (int r = 0; r < level->room_count; r++) {
      const dg_room *room = &level->rooms[r];
      place corner = {room->x + room->width - 1, room->y + room->height - 1, true};
      if (!same_place(corner, avoid))
        return corner;
    }
    return (place){0};
  }
  const dg_grid *grid = &level->grid;
  for (int y = 0; y < grid->height; y++)
    for (int x = 0; x < grid->width; x++) {
      dg_tile tile = dg_grid_get(grid, x, y);
      place at = {x, y, true};
      if (!same_place(at, avoid) && (tile == DG_TILE_FLOOR || tile == DG_TILE_CORRIDOR))
        return at;
    }
  return (place){0};
}

/* Spawn order among rooms: fairness first, then nearness, then index. */
typedef struct room_rank {
  long off;  /* |distance to exit - the entrance's| */
  long near; /* distance from the entrance */
  int node;  /* its graph node */
} room_rank;

static int by_rank(const void *a, const void *b) {
  const room_rank *x = a, *y = b;
  if (x->off != y->off)
    return x->off < y->off ? -1 : 1;
  if (x->near != y->near)
    return x->near < y->near ? -1 : 1;
  return (x->node > y->node) - (x->node < y->node);
}

/* Spawns of one room: its spare tiles (floor on grid levels, every tile of
 * the rectangle without a grid) nearest `anchor` first, reading order on
 * ties, until `wanted` spawns are placed. */
static int spawn_in_room(dg_level *level, int room, int distance, int anchor_x, int anchor_y,
                         const place *taken, int taken_count, int wanted) {
  const dg_room *r = &level->rooms[room];
  dg_placement *pl = &level->placement;
  long area = (long)r->width * r->height;
  uint64_t *keys = malloc((size_t)area * sizeof *keys);
  if (keys == NULL)
    return DG_ENOMEM;
  long count = 0;
  for (int y = r->y; y < r->y + r->height; y++)
    for (int x = r->x; x < r->x + r->width; x++) {
      place at = {x, y, true};
      if (level->has_grid && (!dg_grid_contains(&level->grid, x, y) ||
                              dg_grid_get(&level->grid, x, y) != DG_TILE_FLOOR))
        continue;
      bool used = false;
      for (int t = 0; t < taken_count && !used; t++)
        used = same_place(taken[t], at);
      if (used)
        continue;
      uint64_t near = (uint64_t)(abs(x - anchor_x) + abs(y - anchor_y));
      keys[count++] = near << 32 | (uint64_t)((y - r->y) * r->width + (x - r->x));
    }
  int rc = 0;
  while (pl->spawns_placed < wanted && count > 0 && rc == 0) {
    long best = 0;
    for (long i = 1; i < count; i++)
      if (keys[i] < keys[best])
        best = i;
    int offset = (int)(keys[best] & 0xffffffffu);
    keys[best] = keys[--count];
    int s = pl->spawns_placed;
    /* Spawn s is the s-th player in id order (issue 21, item 2). */
    const char *player_id = s < level->players.count ? level->players.id[s] : NULL;
    dg_feature spawn = {
        "spawn",   r->x + offset % r->width, r->y + offset / r->width, room, s, distance,
        .key = -1, .player_id = player_id};
    rc = dg_level_add_feature(level, &spawn);
    if (s == 0 || distance < pl->spawn_distance_min)
      pl->spawn_distance_min = distance;
    if (s == 0 || distance > pl->spawn_distance_max)
      pl->spawn_distance_max = distance;
    pl->spawns_placed++;
  }
  free(keys);
  return rc;
}

/* Places one stairs feature at `at`, drawing it on the grid. */
static int put_stairs(dg_level *level, const char *kind, place at, int room, int exit_distance) {
  int x = at.x, y = at.y;
  if (level->has_grid) {
    if (corridor_like(dg_grid_get(&level->grid, x, y)))
      level->grid_metrics_ready = false;
    dg_grid_set(&level->grid, x, y,
                strcmp(kind, "stairs_up") == 0 ? DG_TILE_STAIRS_UP : DG_TILE_STAIRS_DOWN);
  }
  dg_feature stairs = {kind, x, y, room, -1, exit_distance, .key = -1};
  return dg_level_add_feature(level, &stairs);
}

/* The pass's state while it places: the graph distances (one block holding
 * from_entrance, to_exit and ranks, n entries each) and the choices so far. */
typedef struct placing {
  dg_level *level;
  dg_rng *rng;
  graph_walk walk;
  void *block;
  long *from_entrance, *to_exit;
  room_rank *ranks;
  int entrance, exit; /* graph nodes, -1 before they are chosen */
  place up, down;     /* where the stairs go */
  long farthest;      /* the farthest reachable room's distance */
} placing;

/* Stairs up at (x, y) as the request forces them, joined to the level: on
 * grid levels by a dug way, without a grid by a stairs edge to the nearest
 * room when they stand in none. */
static int force_up(placing *p, int x, int y, dg_error *err) {
  dg_level *level = p->level;
  level->placement.stairs_forced = true;
  if (level->has_grid) {
    if (!dg_grid_contains(&level->grid, x, y))
      return dg_error_set(err, DG_EUNSAT, "params.stairs_up_x",
                          "params.stairs_up_x/y (%d, %d) lie outside this level's %dx%d map", x, y,
                          level->grid.width, level->grid.height);
    int rc = force_entrance(level, x, y, &p->entrance);
    if (rc != 0)
      return dg_error_set(err, rc, "params.stairs_up_x",
                          "cannot join the stairs up to the level: %s", dg_strerror(rc));
  } else {
    int rc = force_entrance_gridless(level, x, y, &p->entrance);
    if (rc != 0)
      return dg_error_set(err, rc, "params.stairs_up_x",
                          "cannot join the stairs up to the level: %s", dg_strerror(rc));
  }
  p->up = (place){x, y, true};
  return 0;
}

/* The node of the k-th room node (0 <= k < the number of room nodes). */
static int nth_room_node(const dg_graph *graph, int k) {
  for (int i = 0; i < graph->node_count; i++)
    if (graph->nodes[i].room >= 0 && k-- == 0)
      return i;
  return -1;
}

/* A random room with a floor tile to stand on for the stairs up; by
 * preference one whose rectangle also holds the spawns (authored levels
 * have 1x1 shims). */
static int choose_up(placing *p, int rooms, int spawns, dg_error *err) {
  const dg_graph *graph = &p->level->graph;
  int pick = (int)dg_rng_below(p->rng, (uint32_t)rooms);
  for (int pass = 0; pass < 2 && !p->up.set; pass++)
    for (int tried = 0; tried < rooms && !p->up.set; tried++) {
      int node = nth_room_node(graph, (pick + tried) % rooms);
      assert(node >= 0); /* the index is below `rooms`, the room node count */
      const dg_room *room = &p->level->rooms[graph->nodes[node].room];
      if (pass == 0 && (long)room->width * room->height < (long)spawns + 2)
        continue;
      p->up = room_place(p->level, graph->nodes[node].room, node, (place){0}, p->rng);
      p->entrance = node;
    }
  if (!p->up.set)
    return dg_error_set(err, DG_EUNSAT, "params.placement",
                        "no room has a floor tile for the stairs; set params.placement to false");
  return 0;
}

/* A room node other than the entrance, reachable, at least `threshold`
 * away: a candidate for the exit. */
static bool exit_candidate(const placing *p, int i, long threshold) {
  return i != p->entrance && p->level->graph.nodes[i].room >= 0 &&
         p->from_entrance[i] != LONG_MAX && p->from_entrance[i] >= threshold;
}

/* Exit: uniformly among the other reachable rooms at least `fraction` of
 * the farthest one's distance away (the farthest always qualifies); with
 * no other room to go to (a one-room level), the entrance's room. */
static int choose_down(placing *p, double fraction, dg_error *err) {
  const dg_graph *graph = &p->level->graph;
  int n = graph->node_count;
  p->farthest = -1;
  for (int i = 0; i < n; i++)
    if (exit_candidate(p, i, 0) && p->from_entrance[i] > p->farthest)
      p->farthest = p->from_entrance[i];
  long threshold =
      p->farthest >= 0 ? (long)ceil(dg_fp_mul(fraction, (double)p->farthest) - 1e-9) : 0;
  int candidates = 0;
  for (int i = 0; i < n; i++)
    candidates += exit_candidate(p, i, threshold);
  p->exit = p->entrance;
  if (candidates > 0) {
    int pick = (int)dg_rng_below(p->rng, (uint32_t)candidates);
    for (int tried = 0; tried < candidates && !p->down.set; tried++) {
      p->exit = -1;
      for (int i = 0, k = pick; i < n && p->exit < 0; i++)
        if (exit_candidate(p, i, threshold) && k-- == 0)
          p->exit = i;
      assert(p->exit >= 0); /* pick < candidates, the number that qualify */
      p->down = room_place(p->level, graph->nodes[p->exit].room, p->exit, p->up, p->rng);
      pick = (pick + 1) % candidates;
    }
  }
  if (p->down.set)
    return 0;
  p->exit = p->entrance;
  p->farthest = 0;
  if (graph->nodes[p->entrance].room >= 0)
    p->down = room_place(p->level, graph->nodes[p->entrance].room, p->entrance, p->up, p->rng);
  if (!p->down.set)
    p->down = any_free_place(p->level, p->up);
  if (!p->down.set)
    return dg_error_set(err, DG_EUNSAT, "params.placement",
                        "the level has no second place for the stairs down; set "
                        "params.placement to false");
  return 0;
}

/* Spawns: the entrance's room first (it is off by 0, and the stairs are
 * there), then, if it is full, rooms whose distance to the exit is closest
 * to the entrance's. */
static int place_spawns(placing *p, int spawns) {
  dg_level *level = p->level;
  const dg_graph *graph = &level->graph;
  int rc = graph_distances(&p->walk, graph, p->exit, p->to_exit);
  if (rc != 0)
    return rc;
  place taken[2] = {p->up, p->down};
  long target = p->to_exit[p->entrance];
  if (graph->nodes[p->entrance].room >= 0)
    rc = spawn_in_room(level, graph->nodes[p->entrance].room, (int)target, p->up.x, p->up.y, taken,
                       2, spawns);
  int ranked = 0;
  for (int i = 0; i < graph->node_count && level->placement.spawns_placed < spawns; i++)
    if (i != p->entrance && graph->nodes[i].room >= 0 && p->from_entrance[i] != LONG_MAX)
      p->ranks[ranked++] = (room_rank){labs(p->to_exit[i] - target), p->from_entrance[i], i};
  qsort(p->ranks, (size_t)ranked, sizeof *p->ranks, by_rank);
  for (int r = 0; r < ranked && level->placement.spawns_placed < spawns && rc == 0; r++) {
    const dg_node *node = &graph->nodes[p->ranks[r].node];
    rc = spawn_in_room(level, node->room, (int)p->to_exit[p->ranks[r].node], node->x, node->y,
                       taken, 2, spawns);
  }
  return rc;
}

static int place_all(dg_level *level, double fraction, int spawns, int forced_x, int forced_y,
                     dg_rng *rng, dg_error *err) {
  const dg_graph *graph = &level->graph;
  dg_placement *pl = &level->placement;
  placing p = {.level = level, .rng = rng, .entrance = -1, .exit = -1};
  int rc = 0;
  if (forced_x >= 0 && (rc = force_up(&p, forced_x, forced_y, err)) != 0)
    goto done;
  int n = graph->node_count, rooms = 0;
  for (int i = 0; i < n; i++)
    rooms += graph->nodes[i].room >= 0;
  if (rooms == 0 || (p.entrance < 0 && forced_x >= 0)) {
    rc = dg_error_set(err, DG_EUNSAT, "params.placement",
                      "the level has no room for the stairs; set params.placement to false");
    goto done;
  }
  if ((p.block = malloc((size_t)n * (2 * sizeof(long) + sizeof(room_rank)))) == NULL) {
    rc = DG_ENOMEM;
    goto done;
  }
  p.from_entrance = p.block;
  p.to_exit = p.from_entrance + n;
  p.ranks = (room_rank *)(p.to_exit + n);
  if ((p.entrance < 0 && (rc = choose_up(&p, rooms, spawns, err)) != 0) ||
      (rc = graph_walk_init(&p.walk, graph)) != 0 ||
      (rc = graph_distances(&p.walk, graph, p.entrance, p.from_entrance)) != 0 ||
      (rc = choose_down(&p, fraction, err)) != 0)
    goto done;
  pl->entrance_to_exit = (int)p.from_entrance[p.exit];
  pl->entrance_node = p.entrance;
  pl->exit_node = p.exit;
  pl->farthest = (int)p.farthest;
  /* Forced stairs name a room only when they stand in it. */
  int up_room = pl->stairs_forced ? room_at(level, p.up.x, p.up.y) : graph->nodes[p.entrance].room;
  if ((rc = put_stairs(level, "stairs_up", p.up, up_room, pl->entrance_to_exit)) != 0 ||
      (rc = put_stairs(level, "stairs_down", p.down, graph->nodes[p.exit].room, 0)) != 0)
    goto done;
  if (spawns > 0)
    rc = place_spawns(&p, spawns);
  /* The distances go to the population pass (level->walk_distances): the
   * graph does not change between the passes, and running both Dijkstras
   * again showed in classic's profile. */
  if (rc == 0) {
    level->walk_distances = p.from_entrance;
    level->walk_to_exit = spawns > 0;
    p.block = NULL;
  }
done:
  graph_walk_close(&p.walk);
  free(p.block);
  return rc;
}

int dg_placement_run(dg_level *level, dg_error *err) {
  const dg_algorithm *algorithm = level->algorithm;
  const dg_params *params = &level->params;
  level->placement = (dg_placement){.entrance_node = -1, .exit_node = -1};
  level->feature_count = 0;
  free(level->walk_distances);
  level->walk_distances = NULL;
  if (!dg_param_bool(params, dg_common_param(algorithm, DG_COMMON_PLACEMENT)))
    return 0;
  double fraction = dg_param_float(params, dg_common_param(algorithm, DG_COMMON_EXIT_DISTANCE));
  int spawns = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_SPAWNS));
  int x = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_STAIRS_UP_X));
  int y = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_STAIRS_UP_Y));
  dg_rng rng;
  dg_rng_seed(&rng, level->seed, DG_STREAM_PLACEMENT);
  level->placement.placed = true;
  level->placement.spawns_wanted = spawns;
  int rc = place_all(level, fraction, spawns, x, y, &rng, err);
  if (rc != 0 && err != NULL && err->code == 0)
    dg_error_from_code(err, rc);
  return rc;
}
