/* corridor_style=cleanup (seeds/000's second proposal): "remove all
 * unnecessary corridor spaces one by one until there are no more. An
 * unnecessary space is a CORR space where, for each pair of orthogonally
 * adjacent CORR spaces to it, the common corner of those spaces is itself a
 * CORR."
 *
 * Read literally the rule says nothing of two neighbours on opposite sides,
 * which share no corner; treating that pair as satisfied would delete every
 * straight corridor. So a pair on opposite sides counts as joined only when
 * one whole side (corner, middle, corner) is corridor: exactly when every
 * corridor neighbour stays reachable from every other through the eight
 * squares around, which is what keeps removal from ever disconnecting
 * anything. Squares next to a door, secret corridor or chest, and dead ends
 * (fewer than two corridor neighbours), are kept: those are the "odd
 * dead-end corridors" the seed warns may remain. */
#include "classic.h"

/* Ring of the eight neighbours, clockwise from north. Even indices are the
 * orthogonal ones. */
static const int ring_x[8] = {0, 1, 1, 1, 0, -1, -1, -1};
static const int ring_y[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

static bool removable(const dg_grid *grid, int x, int y) {
  bool corridor[8];
  int orthogonal = 0;
  for (int k = 0; k < 8; k++) {
    int nx = x + ring_x[k], ny = y + ring_y[k];
    dg_tile tile = dg_grid_contains(grid, nx, ny) ? dg_grid_get(grid, nx, ny) : DG_TILE_STONE;
    corridor[k] = tile == DG_TILE_CORRIDOR;
    if (k % 2 == 0) {
      if (dg_tile_walkable(tile) && tile != DG_TILE_CORRIDOR)
        return false; /* door, chest, secret corridor beside it */
      orthogonal += corridor[k];
    }
  }
  if (orthogonal < 2)
    return false;
  /* All orthogonal corridor neighbours must lie in one run of consecutive
   * corridor squares round the ring. Start the scan just after a gap. */
  int gap = -1;
  for (int k = 0; k < 8; k++)
    if (!corridor[k])
      gap = k;
  if (gap < 0)
    return true;
  int runs_with_neighbours = 0;
  bool in_run = false, run_has_neighbour = false;
  for (int step = 1; step <= 8; step++) {
    int k = (gap + step) % 8;
    if (corridor[k]) {
      if (!in_run) {
        in_run = true;
        run_has_neighbour = false;
      }
      if (k % 2 == 0)
        run_has_neighbour = true;
    }
    if ((!corridor[k] || step == 8) && in_run) {
      runs_with_neighbours += run_has_neighbour;
      in_run = false;
    }
  }
  return runs_with_neighbours == 1;
}

int classic_cleanup(classic_state *state, dg_cancel *cancel) {
  dg_grid *grid = state->grid;
  bool changed = true;
  while (changed) {
    int rc = dg_cancel_check(cancel);
    if (rc != 0)
      return rc;
    changed = false;
    for (int y = 0; y < grid->height; y++)
      for (int x = 0; x < grid->width; x++)
        if (dg_grid_get(grid, x, y) == DG_TILE_CORRIDOR && removable(grid, x, y)) {
          dg_grid_set(grid, x, y, DG_TILE_STONE);
          state->cleanup_removed++;
          changed = true;
        }
  }
  return 0;
}
