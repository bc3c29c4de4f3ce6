/* Corridor routing for `classic` (seeds/000): "draw a straight line between
 * those two points; route the line around intervening rooms if necessary".
 *
 * The line is walked in 4-connected steps (corridors are walked orthogonally).
 * When the next step would enter a room's wall box, the route follows the ring
 * of tiles just outside that box, the shorter way round, to where the line
 * comes out, and carries on along the line. Rooms keep at least one tile of
 * stone between their walls and from the map edge, so that ring is always
 * free. A route that crosses itself has the loop cut out. */
#include "classic.h"

bool classic_in_box(const dg_room *room, int x, int y) {
  return x >= room->x - 1 && x <= room->x + room->width && y >= room->y - 1 &&
         y <= room->y + room->height;
}

/* The 4-connected walk from (x0, y0) to (x1, y1), start excluded: at each
 * step, move along the axis whose next crossing of the ideal line comes
 * first (ties go vertical). Returns the number of tiles written. */
static int walk_line(const dg_grid *grid, int x0, int y0, int x1, int y1, int *out) {
  int dx = x1 > x0 ? x1 - x0 : x0 - x1, dy = y1 > y0 ? y1 - y0 : y0 - y1;
  int sx = x1 > x0 ? 1 : -1, sy = y1 > y0 ? 1 : -1;
  int ix = 0, iy = 0, x = x0, y = y0, count = 0;
  while (ix < dx || iy < dy) {
    if (iy >= dy || (ix < dx && (long)(1 + 2 * ix) * dy < (long)(1 + 2 * iy) * dx)) {
      x += sx;
      ix++;
    } else {
      y += sy;
      iy++;
    }
    out[count++] = cell_of(grid, x, y);
  }
  return count;
}

/* Appends a tile to the route, cutting out any loop it closes. */
static void append(classic_state *state, int cell) {
  classic_path *path = &state->path;
  if (state->stamp[cell] == state->stamp_now) {
    path->count = state->stamp_index[cell] + 1;
    return;
  }
  state->stamp[cell] = state->stamp_now;
  state->stamp_index[cell] = path->count;
  path->cells[path->count++] = cell;
}

/* Position of a ring tile, counted clockwise from the top-left corner. */
static int ring_index(int rx0, int ry0, int rx1, int ry1, int x, int y) {
  int w = rx1 - rx0, h = ry1 - ry0;
  if (y == ry0)
    return x - rx0;
  if (x == rx1)
    return w + (y - ry0);
  if (y == ry1)
    return w + h + (rx1 - x);
  return 2 * w + h + (ry1 - y);
}

static void ring_tile(int rx0, int ry0, int rx1, int ry1, int index, int *x, int *y) {
  int w = rx1 - rx0, h = ry1 - ry0;
  if (index < w) {
    *x = rx0 + index;
    *y = ry0;
  } else if (index < w + h) {
    *x = rx1;
    *y = ry0 + (index - w);
  } else if (index < 2 * w + h) {
    *x = rx1 - (index - w - h);
    *y = ry1;
  } else {
    *x = rx0;
    *y = ry1 - (index - 2 * w - h);
  }
}

/* Walks the ring round `room` from (x, y) to the ring tile `to`. */
static void go_round(classic_state *state, const dg_room *room, int x, int y, int to) {
  const dg_grid *grid = state->grid;
  int rx0 = room->x - 2, ry0 = room->y - 2;
  int rx1 = room->x + room->width + 1, ry1 = room->y + room->height + 1;
  int length = 2 * (rx1 - rx0) + 2 * (ry1 - ry0);
  int from_index = ring_index(rx0, ry0, rx1, ry1, x, y);
  int to_index = ring_index(rx0, ry0, rx1, ry1, to % grid->width, to / grid->width);
  int clockwise = ((to_index - from_index) % length + length) % length;
  int step = clockwise <= length - clockwise ? 1 : -1;
  int steps = step > 0 ? clockwise : length - clockwise;
  for (int k = 1; k <= steps; k++) {
    int tx, ty;
    ring_tile(rx0, ry0, rx1, ry1, ((from_index + step * k) % length + length) % length, &tx, &ty);
    append(state, cell_of(grid, tx, ty));
  }
}

int classic_route(classic_state *state, int x0, int y0, int x1, int y1) {
  const dg_grid *grid = state->grid;
  const dg_level *level = state->level;
  state->path.count = 0;
  if (++state->stamp_now == 0) { /* wrapped: forget every old mark */
    for (long i = 0; i < (long)grid->width * grid->height; i++)
      state->stamp[i] = 0;
    state->stamp_now = 1;
  }
  append(state, cell_of(grid, x0, y0));
  int count = walk_line(grid, x0, y0, x1, y1, state->line);
  int x = x0, y = y0;
  for (int i = 0; i < count; i++) {
    int cell = state->line[i];
    int cx = cell % grid->width, cy = cell / grid->width;
    int blocking = state->box_of[cell];
    if (blocking < 0) {
      append(state, cell);
      x = cx;
      y = cy;
      continue;
    }
    /* The line crosses a box in one stretch; come out where it leaves. */
    const dg_room *room = &level->rooms[blocking];
    int j = i;
    while (j < count &&
           classic_in_box(room, state->line[j] % grid->width, state->line[j] / grid->width))
      j++;
    if (j >= count)
      return DG_EINTERNAL; /* the end point lies outside every box */
    go_round(state, room, x, y, state->line[j]);
    state->detours++;
    x = state->line[j] % grid->width;
    y = state->line[j] / grid->width;
    i = j;
  }
  return 0;
}
