/* Shapes and rooms of the `landmark` generator (seed 001): the mask that
 * gives the level its outline, the landmark rooms painted first (step 0:
 * overlapping rectangles as the seed shows, and the round rooms and caverns
 * it plans), and the medium and small rooms packed over the odd cells
 * (step 1). Rooms keep `room_gap` tiles of stone from each other's walls and
 * from the mask's edge, so that tunnels can always pass round them. */
#include <stdlib.h>
#include <string.h>

#include "dungeon/request.h"
#include "landmark.h"

/* ---- masks ------------------------------------------------------------ */

void landmark_make_mask(landmark_state *state) {
  int mask = dg_param_enum(state->params, LANDMARK_P_MASK);
  if (mask == LANDMARK_MASK_RANDOM)
    mask = LANDMARK_MASK_BOX + (int)dg_rng_below(&state->shape, LANDMARK_MASK_COUNT - 1);
  bool flip_x = dg_rng_below(&state->shape, 2) != 0, flip_y = dg_rng_below(&state->shape, 2) != 0;
  state->extension.mask = mask;
  state->extension.flip_x = flip_x;
  state->extension.flip_y = flip_y;
  int w = state->width, h = state->height;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      /* Work in a frame flipped at random so that T and L point anywhere. */
      int fx = flip_x ? w - 1 - x : x, fy = flip_y ? h - 1 - y : y;
      bool mid_x = fx >= w / 3 && fx < w - w / 3, mid_y = fy >= h / 3 && fy < h - h / 3;
      bool in = true;
      switch (mask) {
      case LANDMARK_MASK_CROSS: in = mid_x || mid_y; break;
      case LANDMARK_MASK_T: in = fy < h * 2 / 5 || mid_x; break;
      case LANDMARK_MASK_L: in = fx < w * 2 / 5 || fy >= h - h * 2 / 5; break;
      case LANDMARK_MASK_RING: in = !(mid_x && mid_y); break;
      default: break;
      }
      /* The map's own edge is never inside: walls need a tile beyond. */
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        in = false;
      state->inside[cell_at(state, x, y)] = in;
    }
}

/* ---- placement checks --------------------------------------------------- */

/* True when every tile of [x0, x1] x [y0, y1] is inside the mask and free. */
static bool box_free(const landmark_state *state, int x0, int y0, int x1, int y1) {
  if (x0 < 0 || y0 < 0 || x1 >= state->width || y1 >= state->height)
    return false;
  for (int y = y0; y <= y1; y++) {
    const uint8_t *in = state->inside + (long)y * state->width,
                  *tk = state->taken + (long)y * state->width;
    for (int x = x0; x <= x1; x++)
      if (!in[x] || tk[x])
        return false;
  }
  return true;
}

/* Paints a floor tile of room `room` and marks it and its wall ring taken. */
static void paint_floor(landmark_state *state, int x, int y, int room) {
  state->room_of[cell_at(state, x, y)] = room;
  dg_grid_set(state->grid, x, y, DG_TILE_FLOOR);
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      state->taken[cell_at(state, x + dx, y + dy)] = 1;
}

static int add_room(landmark_state *state, int x, int y, int w, int h, const char *kind,
                    int *index) {
  dg_room room = {.x = x, .y = y, .width = w, .height = h, .kind = kind};
  return dg_level_add_room(state->level, &room, index);
}

/* ---- landmark painters (step 0) ----------------------------------------- */

/* Overlapping rectangles on a size x size canvas: each new one covers a
 * tile of those before, so the union stays in one piece. */
static void paint_rectangles(landmark_state *state, uint8_t *canvas, int size,
                             landmark_shape *shape) {
  int count = dg_rng_range(&state->shape, 3, LANDMARK_RECTS_MAX);
  int w = dg_rng_range(&state->shape, size / 3 + 1, size * 2 / 3);
  int h = dg_rng_range(&state->shape, size / 3 + 1, size * 2 / 3);
  int x = (size - w) / 2, y = (size - h) / 2;
  shape->rect_count = 0;
  for (int r = 0; r < count; r++) {
    if (r > 0) {
      const int *base = shape->rects[dg_rng_below(&state->shape, (uint32_t)shape->rect_count)];
      int ax = base[0] + dg_rng_range(&state->shape, 0, base[2] - 1);
      int ay = base[1] + dg_rng_range(&state->shape, 0, base[3] - 1);
      w = dg_rng_range(&state->shape, size / 4 + 1, size / 2 + 1);
      h = dg_rng_range(&state->shape, size / 4 + 1, size / 2 + 1);
      x = ax - dg_rng_range(&state->shape, 0, w - 1);
      y = ay - dg_rng_range(&state->shape, 0, h - 1);
      /* Clamping keeps the anchor tile inside (see the docs). */
      x = x < 0 ? 0 : x > size - w ? size - w : x;
      y = y < 0 ? 0 : y > size - h ? size - h : y;
    }
    int *rect = shape->rects[shape->rect_count++];
    rect[0] = x;
    rect[1] = y;
    rect[2] = w;
    rect[3] = h;
    for (int yy = y; yy < y + h; yy++)
      memset(canvas + (long)yy * size + x, 1, (size_t)w);
  }
}

/* An ellipse filling the canvas width and a random share of its height. */
static void paint_round(landmark_state *state, uint8_t *canvas, int size) {
  int64_t rx2 = size - 1, ry2 = dg_rng_range(&state->shape, size * 2 / 3, size) - 1;
  if (ry2 < 2)
    ry2 = 2;
  for (int y = 0; y < size; y++)
    for (int x = 0; x < size; x++) {
      /* Doubled coordinates keep the half-tile centre exact. */
      int64_t dx = 2 * x - (size - 1), dy = 2 * y - (size - 1);
      canvas[(long)y * size + x] =
          dx * dx * ry2 * ry2 + dy * dy * rx2 * rx2 <= rx2 * rx2 * ry2 * ry2;
    }
}

/* Breadth-first spread over the size x size canvas from the `tail` tiles
 * already queued (and marked): each 4-neighbour with mark 0, and with
 * canvas set when `canvas` is not NULL, gets `value` and is queued. Returns
 * the queue's final length, i.e. how many tiles were reached. */
static int spread(const uint8_t *canvas, int size, int *queue, int tail, uint8_t *mark,
                  uint8_t value) {
  static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
  for (int head = 0; head < tail; head++) {
    int c = queue[head], x = c % size, y = c / size;
    for (int d = 0; d < 4; d++) {
      int nx = x + dx[d], ny = y + dy[d];
      if (nx < 0 || ny < 0 || nx >= size || ny >= size)
        continue;
      int nc = ny * size + nx;
      if (mark[nc] == 0 && (canvas == NULL || canvas[nc])) {
        mark[nc] = value;
        queue[tail++] = nc;
      }
    }
  }
  return tail;
}

/* Keeps the largest 4-connected blob of the canvas and fills its holes.
 * Returns the blob's size. `queue` holds size * size ints, `mark` bytes. */
static int keep_largest_blob(uint8_t *canvas, int size, int *queue, uint8_t *mark) {
  long n = (long)size * size;
  memset(mark, 0, (size_t)n);
  long best_start = -1;
  int best_size = 0;
  for (long i = 0; i < n; i++) {
    if (!canvas[i] || mark[i])
      continue;
    queue[0] = (int)i;
    mark[i] = 1;
    int reached = spread(canvas, size, queue, 1, mark, 1);
    if (reached > best_size) {
      best_size = reached;
      best_start = i;
    }
  }
  if (best_start < 0)
    return 0;
  /* Mark 2 = the kept blob; then flood the outside (non-blob) from the
   * border: whatever it cannot reach is a hole, and becomes floor. */
  memset(mark, 0, (size_t)n);
  queue[0] = (int)best_start;
  mark[best_start] = 2;
  spread(canvas, size, queue, 1, mark, 2);
  int tail = 0;
  for (int i = 0; i < size; i++) {
    int border[4] = {i, (size - 1) * size + i, i * size, i * size + size - 1};
    for (int b = 0; b < 4; b++)
      if (mark[border[b]] == 0) {
        mark[border[b]] = 1;
        queue[tail++] = border[b];
      }
  }
  spread(NULL, size, queue, tail, mark, 1);
  int kept = 0;
  for (long i = 0; i < n; i++) {
    canvas[i] = mark[i] != 1;
    kept += canvas[i];
  }
  return kept;
}

/* A cavern: noise inside an ellipse smoothed by a cellular automaton (a
 * tile is floor when at least 5 of its 3x3 block are), the largest blob
 * kept and its holes filled. Falls back to the plain ellipse when the blob
 * comes out small. */
static int paint_cavern(landmark_state *state, uint8_t *canvas, int size, int *style) {
  long n = (long)size * size;
  uint8_t *ellipse = dg_arena_alloc(&state->arena, (size_t)n);
  uint8_t *next = dg_arena_alloc(&state->arena, (size_t)n);
  uint8_t *mark = dg_arena_alloc(&state->arena, (size_t)n);
  int *queue = dg_arena_calloc(&state->arena, (size_t)n, sizeof *queue);
  if (ellipse == NULL || next == NULL || mark == NULL || queue == NULL)
    return DG_ENOMEM;
  for (int attempt = 0; attempt < 4; attempt++) {
    paint_round(state, ellipse, size);
    for (long i = 0; i < n; i++)
      canvas[i] = ellipse[i] && dg_rng_below(&state->shape, 100) < 58;
    for (int round = 0; round < 4; round++) {
      for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
          int count = 0;
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
              int nx = x + dx, ny = y + dy;
              if (nx >= 0 && ny >= 0 && nx < size && ny < size)
                count += canvas[ny * size + nx];
            }
          next[(long)y * size + x] = ellipse[(long)y * size + x] && count >= 5;
        }
      memcpy(canvas, next, (size_t)n);
    }
    if (keep_largest_blob(canvas, size, queue, mark) * 4 >= n) {
      *style = LANDMARK_STYLE_CAVERN;
      return 0;
    }
  }
  paint_round(state, canvas, size);
  *style = LANDMARK_STYLE_ROUND;
  return 0;
}

int landmark_place_landmarks(landmark_state *state) {
  const dg_params *p = state->params;
  int count = dg_rng_range(&state->layout, dg_param_int(p, LANDMARK_P_LANDMARKS_MIN),
                           dg_param_int(p, LANDMARK_P_LANDMARKS_MAX));
  int gap = dg_param_int(p, LANDMARK_P_ROOM_GAP), reach = gap + 1;
  int attempts = dg_param_int(p, LANDMARK_P_LANDMARK_ATTEMPTS);
  int max_size = dg_param_int(p, LANDMARK_P_LANDMARK_SIZE_MAX);
  uint8_t *canvas = dg_arena_alloc(&state->arena, (size_t)max_size * max_size);
  if (canvas == NULL)
    return DG_ENOMEM;
  for (int l = 0; l < count; l++) {
    int size = dg_rng_range(&state->shape, dg_param_int(p, LANDMARK_P_LANDMARK_SIZE_MIN), max_size);
    int style = dg_param_enum(p, LANDMARK_P_LANDMARK_STYLE);
    if (style == LANDMARK_STYLE_RANDOM)
      style =
          LANDMARK_STYLE_RECTANGLES + (int)dg_rng_below(&state->shape, LANDMARK_STYLE_COUNT - 1);
    landmark_shape shape = {.style = style};
    memset(canvas, 0, (size_t)size * size);
    if (style == LANDMARK_STYLE_RECTANGLES)
      paint_rectangles(state, canvas, size, &shape);
    else if (style == LANDMARK_STYLE_ROUND)
      paint_round(state, canvas, size);
    else {
      int rc = paint_cavern(state, canvas, size, &shape.style);
      if (rc != 0)
        return rc;
    }
    /* Random positions until the canvas box, grown by wall and gap, fits
     * inside the mask and clear of the landmark before. */
    for (int a = 0; a < attempts; a++) {
      state->landmark_attempts++;
      int x = dg_rng_range(&state->layout, reach, state->width - size - reach);
      int y = dg_rng_range(&state->layout, reach, state->height - size - reach);
      if (!box_free(state, x - reach, y - reach, x + size - 1 + reach, y + size - 1 + reach))
        continue;
      int index = 0, rc = add_room(state, x, y, size, size, "landmark", &index);
      if (rc != 0)
        return rc;
      int min_x = size, min_y = size, max_x = -1, max_y = -1;
      for (int yy = 0; yy < size; yy++)
        for (int xx = 0; xx < size; xx++)
          if (canvas[yy * size + xx]) {
            paint_floor(state, x + xx, y + yy, index);
            min_x = xx < min_x ? xx : min_x;
            min_y = yy < min_y ? yy : min_y;
            max_x = xx > max_x ? xx : max_x;
            max_y = yy > max_y ? yy : max_y;
          }
      dg_room *room = &state->level->rooms[index];
      room->x = x + min_x;
      room->y = y + min_y;
      room->width = max_x - min_x + 1;
      room->height = max_y - min_y + 1;
      for (int r = 0; r < shape.rect_count; r++) {
        shape.rects[r][0] += x;
        shape.rects[r][1] += y;
      }
      shape.room = index;
      state->extension.shapes[state->extension.shape_count++] = shape;
      break;
    }
  }
  return 0;
}

/* ---- packed rooms (step 1) ---------------------------------------------- */

int landmark_pack_rooms(landmark_state *state) {
  const dg_params *p = state->params;
  int reach = dg_param_int(p, LANDMARK_P_ROOM_GAP) + 1,
      rooms_max = dg_param_int(p, LANDMARK_P_ROOMS_MAX);
  double chance = dg_param_float(p, LANDMARK_P_ROOM_CHANCE),
         medium = dg_param_float(p, LANDMARK_P_MEDIUM_CHANCE);
  /* "I visit every odd-column cell in the map and do a random check. If it
   * passes, I try to paint a room. If I can't ... I move on. The process is
   * repeated for each odd-row." */
  for (int y = 1; y < state->height; y += 2) {
    for (int x = 1; x < state->width && state->level->room_count < rooms_max; x += 2) {
      if (!dg_rng_chance(&state->layout, chance))
        continue;
      state->rooms_tried++;
      bool big = dg_rng_chance(&state->layout, medium);
      int lo = dg_param_int(p, big ? LANDMARK_P_MEDIUM_SIZE_MIN : LANDMARK_P_SMALL_SIZE_MIN);
      int hi = dg_param_int(p, big ? LANDMARK_P_MEDIUM_SIZE_MAX : LANDMARK_P_SMALL_SIZE_MAX);
      int w = dg_rng_range(&state->layout, lo, hi), h = dg_rng_range(&state->layout, lo, hi);
      if (!box_free(state, x - reach, y - reach, x + w - 1 + reach, y + h - 1 + reach))
        continue;
      int index = 0, rc = add_room(state, x, y, w, h, big ? "medium" : "small", &index);
      if (rc != 0)
        return rc;
      for (int yy = y; yy < y + h; yy++)
        for (int xx = x; xx < x + w; xx++)
          paint_floor(state, xx, yy, index);
    }
    int rc = y % 32 == 1 ? dg_cancel_check(state->cancel) : 0;
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* ---- walls and cell lists ----------------------------------------------- */

int landmark_finish_rooms(landmark_state *state) {
  int room_count = state->level->room_count;
  state->room_start =
      dg_arena_calloc(&state->arena, (size_t)room_count + 1, sizeof *state->room_start);
  /* Written before read: the floor list below, then the rooms' cells. */
  state->room_cells =
      dg_arena_alloc_uninit(&state->arena, ((size_t)state->cells + 1) * sizeof *state->room_cells);
  if (state->room_start == NULL || state->room_cells == NULL)
    return DG_ENOMEM;
  /* Floor tiles are a minority: one scan lists them (in reading order),
   * then the counts and the lists come from that list alone. */
  int *floors = state->room_cells, floor_count = 0;
  for (long c = 0; c < state->cells; c++) {
    floors[floor_count] = (int)c;
    floor_count += state->room_of[c] >= 0;
  }
  for (int k = 0; k < floor_count; k++)
    state->room_start[state->room_of[floors[k]] + 1]++;
  for (int r = 0; r < room_count; r++)
    state->room_start[r + 1] += state->room_start[r];
  int *fill = dg_arena_calloc(&state->arena, (size_t)room_count + 1, sizeof *fill);
  int *listed = dg_arena_alloc_uninit(&state->arena, ((size_t)floor_count + 1) * sizeof *listed);
  if (fill == NULL || listed == NULL)
    return DG_ENOMEM;
  memcpy(listed, floors, (size_t)floor_count * sizeof *listed);
  memcpy(fill, state->room_start, (size_t)room_count * sizeof *fill);
  for (int k = 0; k < floor_count; k++)
    state->room_cells[fill[state->room_of[listed[k]]]++] = listed[k];
  /* A wall on every non-floor tile touching a floor, even diagonally; it
   * belongs to that floor's room (gaps keep rooms' walls apart). */
  for (int y = 1; y < state->height - 1; y++)
    for (int x = 1; x < state->width - 1; x++) {
      int c = cell_at(state, x, y);
      /* Untaken tiles have no floor within one step (paint_floor takes
       * the ring round every floor tile): most of the map. */
      if (state->room_of[c] >= 0 || !state->taken[c])
        continue;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int n = cell_at(state, x + dx, y + dy);
          if (dg_grid_get(state->grid, x + dx, y + dy) == DG_TILE_FLOOR) {
            dg_grid_set(state->grid, x, y, DG_TILE_WALL);
            state->room_of[c] = -2 - state->room_of[n]; /* walls: -2 - room */
          }
        }
    }
  return 0;
}
