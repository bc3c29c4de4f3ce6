/* The grid part of the level metrics (src/lib/passes/grid_metrics.h). */
#include "passes/grid_metrics.h"

#include <stdlib.h>

#include "core/unionfind.h"

bool dg_metrics_rooms_connected(const dg_level *level, const uint8_t *walk, int stride,
                                int *component) {
  const dg_grid *grid = &level->grid;
  bool connected = true;
  int first = -1;
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    int c = -1;
    for (int y = room->y; y < room->y + room->height && c < 0; y++)
      for (int x = room->x; x < room->x + room->width && c < 0; x++)
        if (dg_grid_contains(grid, x, y) && walk[(long)(y + 1) * stride + x + 1])
          c = dg_uf_find(component, (int)((long)(y + 1) * stride + x + 1));
    if (c < 0 || (first >= 0 && c != first))
      connected = false;
    if (first < 0)
      first = c;
  }
  return connected;
}

/* Walkable-tile components; sets connected when every room's tiles share
 * one component. Works in padded coordinates (a non-walkable border round
 * the map) so that neighbours are fixed offsets: this runs on every tile of
 * every level. */
int dg_grid_metrics_scan(const dg_level *level, const uint8_t *walk, int stride, const int *cells,
                         int count, dg_metrics *m) {
  const dg_grid *grid = &level->grid;
  int width = grid->width;
  long padded = (long)stride * (grid->height + 2);
  int *component = malloc((size_t)padded * sizeof *component); /* union-find parents */
  if (component == NULL)
    return DG_ENOMEM;
  int components = 0;
  m->walkable_tiles = count;
  m->doors = m->corridor_tiles = m->dead_ends = m->double_wide = 0;
  /* The cells come in reading order: the row advances, no division. */
  int row = 0;
  long row_end = 2 * (long)stride; /* first padded index past that row */
  for (int k = 0; k < count; k++) {
    long p = cells[k];
    while (p >= row_end) {
      row++;
      row_end += stride;
    }
    int y = row, x = (int)(p - (row_end - stride)) - 1;
    dg_metrics_tally_tile(m, grid->tiles + (long)y * width + x, width, walk, p, stride);
    /* Components by union-find over the west and north neighbours: one
     * sequential pass, no queue; each union that joins two sets removes
     * one component. */
    if (walk[p - 1]) {
      component[p] = dg_uf_find(component, (int)p - 1);
    } else {
      component[p] = (int)p;
      components++;
    }
    if (walk[p - stride])
      components -= dg_uf_union(component, (int)p, (int)(p - stride));
  }
  m->components = components;
  m->connected = dg_metrics_rooms_connected(level, walk, stride, component);
  free(component);
  return 0;
}
