/* Level metrics, computed the same way for every algorithm: from the grid
 * when there is one (reachability, dead ends, double-wide corridors) and
 * from the graph (cycles, stretch of loop edges). */
#include <stdlib.h>

#include "dungeon/level.h"

static bool corridor_like(dg_tile tile) {
  return tile == DG_TILE_CORRIDOR || tile == DG_TILE_SECRET_CORRIDOR || tile == DG_TILE_CHEST;
}

static bool is_corridor(const dg_grid *grid, int x, int y) {
  return dg_grid_contains(grid, x, y) && dg_grid_get(grid, x, y) == DG_TILE_CORRIDOR;
}

/* Walkable-tile components; sets connected when every room's tiles share
 * one component. */
static int grid_metrics(dg_level *level, dg_metrics *m) {
  const dg_grid *grid = &level->grid;
  long cells = (long)grid->width * grid->height;
  int *component = malloc((size_t)cells * sizeof *component);
  int *queue = malloc((size_t)cells * sizeof *queue);
  if (component == NULL || queue == NULL) {
    free(component);
    free(queue);
    return DG_ENOMEM;
  }
  static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
  for (long i = 0; i < cells; i++)
    component[i] = -1;
  int components = 0;
  for (int y = 0; y < grid->height; y++)
    for (int x = 0; x < grid->width; x++) {
      dg_tile tile = dg_grid_get(grid, x, y);
      if (!dg_tile_walkable(tile))
        continue;
      m->walkable_tiles++;
      if (tile == DG_TILE_DOOR || tile == DG_TILE_SECRET_DOOR)
        m->doors++;
      int neighbours = 0;
      for (int d = 0; d < 4; d++) {
        int nx = x + dx[d], ny = y + dy[d];
        neighbours += dg_grid_contains(grid, nx, ny) && dg_tile_walkable(dg_grid_get(grid, nx, ny));
      }
      if (corridor_like(tile)) {
        m->corridor_tiles++;
        if (neighbours == 1)
          m->dead_ends++;
      }
      if (tile == DG_TILE_CORRIDOR) {
        /* Inside some 2x2 block of corridor: the "double-wide" ugliness the
         * seed's follow and cleanup styles exist to avoid. */
        bool wide = false;
        for (int cy = -1; cy <= 0 && !wide; cy++)
          for (int cx = -1; cx <= 0 && !wide; cx++)
            wide = is_corridor(grid, x + cx, y + cy) && is_corridor(grid, x + cx + 1, y + cy) &&
                   is_corridor(grid, x + cx, y + cy + 1) &&
                   is_corridor(grid, x + cx + 1, y + cy + 1);
        m->double_wide += wide;
      }
      long i = (long)y * grid->width + x;
      if (component[i] >= 0)
        continue;
      int head = 0, tail = 0;
      component[i] = components;
      queue[tail++] = (int)i;
      while (head < tail) {
        int c = queue[head++];
        int qx = c % grid->width, qy = c / grid->width;
        for (int d = 0; d < 4; d++) {
          int nx = qx + dx[d], ny = qy + dy[d];
          if (!dg_grid_contains(grid, nx, ny) || !dg_tile_walkable(dg_grid_get(grid, nx, ny)))
            continue;
          long n = (long)ny * grid->width + nx;
          if (component[n] < 0) {
            component[n] = components;
            queue[tail++] = (int)n;
          }
        }
      }
      components++;
    }
  m->components = components;
  m->connected = true;
  int first = -1;
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    int c = -1;
    for (int y = room->y; y < room->y + room->height && c < 0; y++)
      for (int x = room->x; x < room->x + room->width && c < 0; x++)
        if (dg_grid_contains(grid, x, y))
          c = component[(long)y * grid->width + x];
    if (c < 0 || (first >= 0 && c != first))
      m->connected = false;
    if (first < 0)
      first = c;
  }
  free(component);
  free(queue);
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
