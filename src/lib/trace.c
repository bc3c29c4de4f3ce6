/* Grid to graph: rooms, junction blobs and dead ends become nodes; chains of
 * two-neighbour corridor tiles between them become edges. Scans run in
 * row-major order, so the graph is a deterministic function of the grid. */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

static const int step_x[4] = {0, 1, 0, -1};
static const int step_y[4] = {-1, 0, 1, 0};

/* Scratch for one trace. */
typedef struct tracer {
  dg_level *level;
  const dg_grid *grid;
  int *room_of;  /* tile -> room index or -1 */
  int *node_of;  /* tile -> node index, -1 for chain and non-walkable tiles */
  uint8_t *deg;  /* walkable 4-neighbours of each tile */
  int *queue;    /* flood-fill queue */
} tracer;

static bool walkable_at(const dg_grid *grid, int x, int y) {
  return dg_grid_contains(grid, x, y) && dg_tile_walkable(dg_grid_get(grid, x, y));
}

static void fill_rooms(tracer *t) {
  const dg_grid *grid = t->grid;
  long cells = (long)grid->width * grid->height;
  for (long i = 0; i < cells; i++)
    t->room_of[i] = -1;
  for (int r = 0; r < t->level->room_count; r++) {
    const dg_room *room = &t->level->rooms[r];
    for (int y = room->y; y < room->y + room->height; y++)
      for (int x = room->x; x < room->x + room->width; x++)
        if (dg_grid_contains(grid, x, y))
          t->room_of[(long)y * grid->width + x] = r;
  }
  for (int d = 0; d < t->level->door_count; d++) {
    const dg_door *door = &t->level->doors[d];
    if (dg_grid_contains(grid, door->x, door->y))
      t->room_of[(long)door->y * grid->width + door->x] = door->room;
  }
}

/* Adds an edge of length 1 between two node tiles side by side unless the
 * pair already has one (a wide junction may touch a door along two tiles). */
static int link_adjacent(dg_graph *graph, int a, int b, int first_direct_edge) {
  for (int e = first_direct_edge; e < graph->edge_count; e++) {
    const dg_edge *edge = &graph->edges[e];
    if ((edge->from == a && edge->to == b) || (edge->from == b && edge->to == a))
      return 0;
  }
  return dg_graph_add_edge(graph, a, b, "corridor", 1);
}

/* Walks a chain from `from` into `cur`; returns the node it ends at (or -2 if
 * it came back to `start`), the chain tiles walked added to *tiles. */
static int walk_chain(tracer *t, long start, long from, long cur, int *tiles, uint8_t *seen) {
  const dg_grid *grid = t->grid;
  for (;;) {
    if (t->node_of[cur] >= 0)
      return t->node_of[cur];
    if (cur == start)
      return -2;
    seen[cur] = 1;
    (*tiles)++;
    int x = (int)(cur % grid->width), y = (int)(cur / grid->width);
    long next = -1;
    for (int d = 0; d < 4; d++) {
      int nx = x + step_x[d], ny = y + step_y[d];
      if (!walkable_at(grid, nx, ny))
        continue;
      long n = (long)ny * grid->width + nx;
      if (n != from) {
        next = n;
        break;
      }
    }
    if (next < 0)
      return -1; /* cannot happen for a two-neighbour tile */
    from = cur;
    cur = next;
  }
}

int dg_trace_graph(dg_level *level, const int *room_of) {
  const dg_grid *grid = &level->grid;
  dg_graph *graph = &level->graph;
  long cells = (long)grid->width * grid->height;
  int rc = DG_ENOMEM;
  tracer t = {.level = level, .grid = grid};
  int *own_room_of = NULL;
  uint8_t *seen = NULL;
  t.node_of = malloc((size_t)cells * sizeof *t.node_of);
  t.deg = malloc((size_t)cells);
  t.queue = malloc((size_t)cells * sizeof *t.queue);
  seen = calloc((size_t)cells, 1);
  if (room_of == NULL) {
    own_room_of = malloc((size_t)cells * sizeof *own_room_of);
    t.room_of = own_room_of;
  } else {
    t.room_of = (int *)room_of;
  }
  if (t.node_of == NULL || t.deg == NULL || t.queue == NULL || seen == NULL ||
      t.room_of == NULL)
    goto done;
  if (own_room_of != NULL)
    fill_rooms(&t);

  dg_graph_clear(graph);
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    if (dg_graph_add_node(graph, "room", room->x + room->width / 2, room->y + room->height / 2,
                          r, NULL) != 0)
      goto done;
    memcpy(graph->nodes[r].label, room->label, DG_LABEL_MAX);
  }

  /* Degrees, and room tiles straight to their room's node. */
  for (int y = 0; y < grid->height; y++)
    for (int x = 0; x < grid->width; x++) {
      long i = (long)y * grid->width + x;
      t.node_of[i] = -1;
      t.deg[i] = 0;
      if (!dg_tile_walkable(dg_grid_get(grid, x, y)))
        continue;
      for (int d = 0; d < 4; d++)
        t.deg[i] += walkable_at(grid, x + step_x[d], y + step_y[d]);
      if (t.room_of[i] >= 0)
        t.node_of[i] = t.room_of[i];
    }

  /* Junction blobs and dead ends. */
  for (long i = 0; i < cells; i++) {
    int x = (int)(i % grid->width), y = (int)(i / grid->width);
    if (t.node_of[i] >= 0 || !dg_tile_walkable(dg_grid_get(grid, x, y)))
      continue;
    if (t.deg[i] <= 1) {
      if (dg_graph_add_node(graph, "dead_end", x, y, -1, &t.node_of[i]) != 0)
        goto done;
      continue;
    }
    if (t.deg[i] < 3)
      continue;
    int node;
    if (dg_graph_add_node(graph, "junction", x, y, -1, &node) != 0)
      goto done;
    int head = 0, tail = 0;
    t.node_of[i] = node;
    t.queue[tail++] = (int)i;
    while (head < tail) {
      long c = t.queue[head++];
      int cx = (int)(c % grid->width), cy = (int)(c / grid->width);
      for (int d = 0; d < 4; d++) {
        int nx = cx + step_x[d], ny = cy + step_y[d];
        if (!walkable_at(grid, nx, ny))
          continue;
        long n = (long)ny * grid->width + nx;
        if (t.node_of[n] < 0 && t.room_of[n] < 0 && t.deg[n] >= 3) {
          t.node_of[n] = node;
          t.queue[tail++] = (int)n;
        }
      }
    }
  }

  /* Chains between nodes. */
  for (long i = 0; i < cells; i++) {
    int x = (int)(i % grid->width), y = (int)(i / grid->width);
    if (t.node_of[i] >= 0 || seen[i] || !dg_tile_walkable(dg_grid_get(grid, x, y)))
      continue;
    long ends[2];
    int found = 0;
    for (int d = 0; d < 4 && found < 2; d++) {
      int nx = x + step_x[d], ny = y + step_y[d];
      if (walkable_at(grid, nx, ny))
        ends[found++] = (long)ny * grid->width + nx;
    }
    seen[i] = 1;
    int tiles = 1;
    int a = walk_chain(&t, i, i, ends[0], &tiles, seen);
    if (a == -2) {
      /* A closed ring touching nothing: give it a node and a loop edge. */
      int node;
      if (dg_graph_add_node(graph, "junction", x, y, -1, &node) != 0 ||
          dg_graph_add_edge(graph, node, node, "corridor", tiles) != 0)
        goto done;
      continue;
    }
    int b = walk_chain(&t, i, i, ends[1], &tiles, seen);
    if (a < 0 || b < 0) {
      rc = DG_EINTERNAL;
      goto done;
    }
    if (dg_graph_add_edge(graph, a, b, "corridor", tiles + 1) != 0)
      goto done;
  }

  /* Node tiles of different nodes side by side. */
  int first_direct_edge = graph->edge_count;
  for (int y = 0; y < grid->height; y++)
    for (int x = 0; x < grid->width; x++) {
      long i = (long)y * grid->width + x;
      if (t.node_of[i] < 0)
        continue;
      for (int d = 1; d <= 2; d++) { /* east and south: each pair once */
        int nx = x + step_x[d], ny = y + step_y[d];
        if (!dg_grid_contains(grid, nx, ny))
          continue;
        long n = (long)ny * grid->width + nx;
        if (t.node_of[n] >= 0 && t.node_of[n] != t.node_of[i] &&
            link_adjacent(graph, t.node_of[i], t.node_of[n], first_direct_edge) != 0)
          goto done;
      }
    }
  rc = 0;
done:
  free(t.node_of);
  free(t.deg);
  free(t.queue);
  free(seen);
  free(own_room_of);
  return rc;
}
