/* Level metrics, computed the same way for every algorithm: from the grid
 * when there is one (reachability, dead ends, double-wide corridors) and
 * from the graph (cycles, stretch of loop edges). */
#include <stdint.h>
#include <stdlib.h>

#include "dungeon/level.h"

static bool corridor_like(dg_tile tile) {
  return tile == DG_TILE_CORRIDOR || tile == DG_TILE_SECRET_CORRIDOR || tile == DG_TILE_CHEST;
}

/* Union-find root with path halving. */
static int root(int *parent, int node) {
  while (parent[node] != node)
    node = parent[node] = parent[parent[node]];
  return node;
}

/* Unites the sets of a and b; returns 1 if they were apart. */
static int join(int *parent, int a, int b) {
  a = root(parent, a);
  b = root(parent, b);
  if (a == b)
    return 0;
  parent[a > b ? a : b] = a > b ? b : a;
  return 1;
}

/* Walkable-tile components; sets connected when every room's tiles share
 * one component. Works in padded coordinates (a non-walkable border round
 * the map) so that neighbours are fixed offsets: this runs on every tile of
 * every level. */
static int grid_metrics(dg_level *level, dg_metrics *m) {
  const dg_grid *grid = &level->grid;
  int width = grid->width, height = grid->height, stride = width + 2;
  long padded = (long)stride * (height + 2);
  uint8_t *walk = calloc((size_t)padded, 1);                   /* 1 walkable */
  uint8_t *corridor = calloc((size_t)padded, 1);               /* 1 plain corridor */
  int *component = malloc((size_t)padded * sizeof *component); /* union-find parents */
  if (walk == NULL || corridor == NULL || component == NULL) {
    free(walk);
    free(corridor);
    free(component);
    return DG_ENOMEM;
  }
  /* One branch-free pass builds the maps and the list of walkable tiles;
   * the counting pass then visits only those (most tiles are stone). */
  int *walkable = malloc(((size_t)width * (size_t)height + 1) * sizeof *walkable);
  if (walkable == NULL) {
    free(walk);
    free(corridor);
    free(component);
    return DG_ENOMEM;
  }
  int count = 0;
  for (int y = 0; y < height; y++) {
    const uint8_t *row = grid->tiles + (long)y * width;
    long base = (long)(y + 1) * stride + 1;
    for (int x = 0; x < width; x++) {
      int walkable_here = dg_tile_walkable((dg_tile)row[x]);
      walk[base + x] = (uint8_t)walkable_here;
      corridor[base + x] = row[x] == DG_TILE_CORRIDOR;
      walkable[count] = (int)(base + x);
      count += walkable_here;
    }
  }
  int components = 0;
  m->walkable_tiles = count;
  for (int k = 0; k < count; k++) {
    long p = walkable[k];
    long y = p / stride - 1, x = p % stride - 1;
    dg_tile tile = (dg_tile)grid->tiles[y * width + x];
    if (tile == DG_TILE_DOOR || tile == DG_TILE_SECRET_DOOR)
      m->doors++;
    if (corridor_like(tile)) {
      m->corridor_tiles++;
      if (walk[p - 1] + walk[p + 1] + walk[p - stride] + walk[p + stride] == 1)
        m->dead_ends++;
    }
    /* Inside some 2x2 block of corridor: the "double-wide" ugliness the
     * seed's follow and cleanup styles exist to avoid. */
    if (corridor[p]) {
      bool up = corridor[p - stride], down = corridor[p + stride];
      bool left = corridor[p - 1], right = corridor[p + 1];
      m->double_wide += (up && left && corridor[p - stride - 1]) ||
                        (up && right && corridor[p - stride + 1]) ||
                        (down && left && corridor[p + stride - 1]) ||
                        (down && right && corridor[p + stride + 1]);
    }
    /* Components by union-find over the west and north neighbours: one
     * sequential pass, no queue; each union that joins two sets removes
     * one component. */
    if (walk[p - 1]) {
      component[p] = root(component, (int)p - 1);
    } else {
      component[p] = (int)p;
      components++;
    }
    if (walk[p - stride])
      components -= join(component, (int)p, (int)(p - stride));
  }
  free(walkable);
  m->components = components;
  m->connected = true;
  int first = -1;
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    int c = -1;
    for (int y = room->y; y < room->y + room->height && c < 0; y++)
      for (int x = room->x; x < room->x + room->width && c < 0; x++)
        if (dg_grid_contains(grid, x, y) && walk[(long)(y + 1) * stride + x + 1])
          c = root(component, (int)((long)(y + 1) * stride + x + 1));
    if (c < 0 || (first >= 0 && c != first))
      m->connected = false;
    if (first < 0)
      first = c;
  }
  free(walk);
  free(corridor);
  free(component);
  return 0;
}

static int graph_metrics(dg_level *level, dg_metrics *m) {
  dg_graph *graph = &level->graph;
  int rc = dg_graph_mark_cycles(graph);
  if (rc != 0)
    return rc;
  int *component = malloc((size_t)(graph->node_count + 1) * sizeof *component);
  if (component == NULL)
    return DG_ENOMEM;
  int count = 0;
  rc = dg_graph_components(graph, component, &count);
  if (rc == 0) {
    m->cycles = graph->edge_count - graph->node_count + count;
    if (!level->has_grid) {
      m->components = count;
      m->connected = true;
      for (int i = 0; i < graph->node_count; i++)
        if (graph->nodes[i].room >= 0 && component[i] != component[0])
          m->connected = false;
    }
  }
  free(component);
  if (rc != 0)
    return rc;
  double total = 0;
  int loops = 0;
  for (int e = 0; e < graph->edge_count; e++) {
    const dg_edge *edge = &graph->edges[e];
    if (!edge->cycle || edge->from == edge->to)
      continue;
    long detour;
    rc = dg_graph_shortest(graph, edge->from, edge->to, e, &detour);
    if (rc != 0)
      return rc;
    if (detour < 0)
      continue;
    double stretch = (double)detour / edge->length;
    total += stretch;
    loops++;
    if (stretch > m->stretch_max)
      m->stretch_max = stretch;
  }
  m->stretch_mean = loops > 0 ? total / loops : 0.0;
  return 0;
}

int dg_level_compute_metrics(dg_level *level) {
  dg_metrics m = {0};
  m.rooms = level->room_count;
  int rc = 0;
  if (level->has_grid)
    rc = grid_metrics(level, &m);
  if (rc == 0)
    rc = graph_metrics(level, &m);
  if (rc == 0)
    level->metrics = m;
  return rc;
}
