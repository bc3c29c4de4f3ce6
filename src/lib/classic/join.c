/* Joining rooms for `classic`, step by step as seeds/000 says:
 *
 *   pick one random room as the connected set; until every room is in it,
 *   pick a random room inside and one outside, a random point in each, draw
 *   a straight line, route it around intervening rooms, dig, make doors where
 *   the line crosses the rooms' outer walls (shifted off corners), add the
 *   room to the set.
 *
 * What is dug depends on corridor_style:
 *   plain   - "if the line intersects with an existing corridor, dig only the
 *             part from that intersection up to the unconnected room": the
 *             first meeting walking from the connected room.
 *   follow  - the seed's first proposal: plan the corridor without digging,
 *             find every square where it meets or runs beside an existing
 *             corridor, and dig only the stretches between successive such
 *             points that are not yet connected (reachability by union-find,
 *             which is what the proposal's path-finding answers).
 *   cleanup - dig as plain; classic_cleanup() prunes afterwards.
 * Closets ("sometimes, if there is space and there is no intersection with
 * another corridor") extend two squares back from an end of the corridor.
 *
 * Doors sit where the straight line between the two random points leaves
 * each room; the corridor then runs between the squares just outside those
 * two doors, which is the same line shifted by at most a tile at each end.
 *
 * Every corridor dug so far is joined to the connected set, so in practice
 * follow digs either the whole plan or only the stretch from the last
 * existing corridor it meets or runs beside up to the new room: the general
 * pairwise rule reduces to that, and stays general for safety. */
#include <stdlib.h>

#include "classic.h"
#include "core/unionfind.h"
#include "core/vec.h"
#include "dungeon/request.h"

static const int step_x[4] = {0, 1, 0, -1};
static const int step_y[4] = {-1, 0, 1, 0};

void classic_dig(classic_state *state, int x, int y, dg_tile tile) {
  dg_grid *grid = state->grid;
  int cell = cell_of(grid, x, y);
  if (dg_grid_get(grid, x, y) == DG_TILE_STONE)
    state->tiles_dug++;
  dg_grid_set(grid, x, y, tile);
  for (int d = 0; d < 4; d++) {
    int nx = x + step_x[d], ny = y + step_y[d];
    if (dg_grid_contains(grid, nx, ny) && dg_tile_walkable(dg_grid_get(grid, nx, ny)))
      dg_uf_union(state->parent, cell, cell_of(grid, nx, ny));
  }
}

/* A door where the line from (px, py) inside `room` towards (qx, qy) first
 * leaves the floor. A corner is shifted to the adjacent wall square on the
 * side the line mostly travels through. Outputs the door and its outward
 * direction. */
static void find_door(const dg_room *room, int px, int py, int qx, int qy, int *door_x, int *door_y,
                      int *out_x, int *out_y) {
  int dx = abs(qx - px), dy = abs(qy - py);
  int sx = qx > px ? 1 : -1, sy = qy > py ? 1 : -1;
  int err = dx - dy, x = px, y = py;
  /* Bresenham until the first square off the floor: it is on the wall box. */
  while (x >= room->x && x < room->x + room->width && y >= room->y && y < room->y + room->height) {
    int e2 = 2 * err;
    if (e2 > -dy) {
      err -= dy;
      x += sx;
    }
    if (e2 < dx) {
      err += dx;
      y += sy;
    }
  }
  int left = room->x - 1, right = room->x + room->width;
  int top = room->y - 1, bottom = room->y + room->height;
  bool vertical_wall = x == left || x == right;
  bool horizontal_wall = y == top || y == bottom;
  if (vertical_wall && horizontal_wall) {
    if (dx > dy) { /* leave through the side wall */
      y += y == top ? 1 : -1;
      horizontal_wall = false;
    } else {
      x += x == left ? 1 : -1;
      vertical_wall = false;
    }
  }
  *door_x = x;
  *door_y = y;
  *out_x = vertical_wall ? (x == left ? -1 : 1) : 0;
  *out_y = horizontal_wall ? (y == top ? -1 : 1) : 0;
}

static int make_door(classic_state *state, int room, int x, int y) {
  dg_tile tile = dg_grid_get(state->grid, x, y);
  if (tile == DG_TILE_DOOR || tile == DG_TILE_SECRET_DOOR)
    return 0;
  bool secret =
      dg_rng_chance(&state->detail, dg_param_float(state->params, CLASSIC_P_SECRET_DOOR_CHANCE));
  state->secret_doors += secret;
  state->room_of[cell_of(state->grid, x, y)] = room;
  classic_dig(state, x, y, secret ? DG_TILE_SECRET_DOOR : DG_TILE_DOOR);
  dg_door door = {.x = x, .y = y, .room = room, .secret = secret};
  return dg_level_add_door(state->level, &door);
}

static void dig_stretch(classic_state *state, int from, int to) {
  const classic_path *path = &state->path;
  for (int i = from; i <= to; i++) {
    int cell = path->cells[i];
    int x = cell % state->grid->width, y = cell / state->grid->width;
    /* Existing walkable squares (chests, secret corridors) stay as they are. */
    dg_tile tile = dg_grid_get(state->grid, x, y);
    if (!dg_tile_walkable(tile))
      classic_dig(state, x, y, DG_TILE_CORRIDOR);
  }
}

/* The existing corridor a planned square meets (itself or a neighbour), or
 * -1. Only plain corridor counts: a sealed closet's chest is not connected. */
static int meeting(classic_state *state, int cell) {
  const dg_grid *grid = state->grid;
  int x = cell % grid->width, y = cell / grid->width;
  if (dg_grid_get(grid, x, y) == DG_TILE_CORRIDOR)
    return cell;
  for (int d = 0; d < 4; d++) {
    int nx = x + step_x[d], ny = y + step_y[d];
    if (dg_grid_contains(grid, nx, ny) && dg_grid_get(grid, nx, ny) == DG_TILE_CORRIDOR)
      return cell_of(grid, nx, ny);
  }
  return -1;
}

/* Digs the planned path for `follow`. Returns whether the start stretch (at
 * the connected room's door) was dug; *met says whether the plan met or ran
 * beside any existing corridor. */
static bool dig_follow(classic_state *state, int start_room_cell, int end_room_cell, bool *met) {
  const classic_path *path = &state->path;
  int previous_index = -1, previous_set = start_room_cell;
  bool start_dug = false;
  *met = false;
  for (int i = 0; i <= path->count; i++) {
    int set;
    if (i == path->count) {
      set = end_room_cell;
    } else {
      set = meeting(state, path->cells[i]);
      if (set < 0)
        continue;
      *met = true;
    }
    if (dg_uf_find(state->parent, previous_set) != dg_uf_find(state->parent, set)) {
      int from = previous_index < 0 ? 0 : previous_index;
      int to = i == path->count ? path->count - 1 : i;
      dig_stretch(state, from, to);
      if (previous_index < 0)
        start_dug = true;
    }
    previous_index = i;
    previous_set = set;
  }
  return start_dug;
}

/* Seed 000: "a closet will extend 2 more spaces back (for a total length of
 * 3). The middle space will be a secret corridor (or sometimes plain stone),
 * and the second space will be a regular corridor with a chest". Tries to
 * extend from the corridor end `end` away from its neighbour `inner`. */
static int try_closet(classic_state *state, int end, int inner) {
  dg_grid *grid = state->grid;
  int ex = end % grid->width, ey = end / grid->width;
  int dx = ex - inner % grid->width, dy = ey - inner / grid->width;
  if (dg_grid_get(grid, ex, ey) != DG_TILE_CORRIDOR)
    return 0;
  for (int k = 1; k <= 2; k++) {
    int x = ex + k * dx, y = ey + k * dy;
    if (!dg_grid_contains(grid, x, y) || dg_grid_get(grid, x, y) != DG_TILE_STONE)
      return 0;
    if (state->box_of[cell_of(grid, x, y)] >= 0)
      return 0;
    /* Only the closet's own squares may touch it: it must stay a dead end. */
    for (int d = 0; d < 4; d++) {
      int nx = x + step_x[d], ny = y + step_y[d];
      if ((nx == x - dx && ny == y - dy) || !dg_grid_contains(grid, nx, ny))
        continue;
      /* Walls may flank it (a closet along a room is still closed); any
       * walkable square would open it. */
      if (dg_tile_walkable(dg_grid_get(grid, nx, ny)))
        return 0;
    }
  }
  bool sealed =
      dg_rng_chance(&state->detail, dg_param_float(state->params, CLASSIC_P_CLOSET_STONE_CHANCE));
  if (!sealed)
    classic_dig(state, ex + dx, ey + dy, DG_TILE_SECRET_CORRIDOR);
  classic_dig(state, ex + 2 * dx, ey + 2 * dy, DG_TILE_CHEST);
  static const char *const treasure[] = {"potion", "scroll", "ring",   "wand",  "amulet",   "gem",
                                         "tool",   "food",   "weapon", "armor", "spellbook"};
  dg_object chest = {.x = ex + 2 * dx, .y = ey + 2 * dy, .kind = "chest"};
  chest.gold = dg_rng_chance(&state->detail, 0.5) ? dg_rng_range(&state->detail, 1, 150) : 0;
  chest.item_count = dg_rng_range(&state->detail, 0, 3);
  for (int i = 0; i < chest.item_count; i++)
    chest.items[i] = treasure[dg_rng_below(&state->detail, sizeof treasure / sizeof treasure[0])];
  if (dg_level_add_object(state->level, &chest) != 0)
    return DG_ENOMEM;
  if (dg_vec_grow(&state->closets.items, &state->closet_capacity, state->closets.count + 1,
                  sizeof *state->closets.items) != 0)
    return DG_ENOMEM;
  state->closets.items[state->closets.count++] =
      (classic_closet){.x = ex, .y = ey, .dx = dx, .dy = dy, .sealed = sealed};
  return 1;
}

/* One step of the seed's loop: join room b (outside) from room a (inside). */
static int join(classic_state *state, int a, int b) {
  const dg_room *ra = &state->level->rooms[a], *rb = &state->level->rooms[b];
  const dg_grid *grid = state->grid;
  int pax = dg_rng_range(&state->connect, ra->x, ra->x + ra->width - 1);
  int pay = dg_rng_range(&state->connect, ra->y, ra->y + ra->height - 1);
  int pbx = dg_rng_range(&state->connect, rb->x, rb->x + rb->width - 1);
  int pby = dg_rng_range(&state->connect, rb->y, rb->y + rb->height - 1);
  int door_ax, door_ay, out_ax, out_ay, door_bx, door_by, out_bx, out_by;
  find_door(ra, pax, pay, pbx, pby, &door_ax, &door_ay, &out_ax, &out_ay);
  find_door(rb, pbx, pby, pax, pay, &door_bx, &door_by, &out_bx, &out_by);
  int rc =
      classic_route(state, door_ax + out_ax, door_ay + out_ay, door_bx + out_bx, door_by + out_by);
  if (rc != 0)
    return rc;
  const classic_path *path = &state->path;
  int style = dg_param_enum(state->params, CLASSIC_P_CORRIDOR_STYLE);
  bool start_dug;
  if (style == CLASSIC_STYLE_FOLLOW) {
    bool met;
    start_dug = dig_follow(state, cell_of(grid, ra->x, ra->y), cell_of(grid, rb->x, rb->y), &met);
    state->intersections += met;
  } else {
    int first = 0;
    while (first < path->count && dg_grid_get(grid, path->cells[first] % grid->width,
                                              path->cells[first] / grid->width) != DG_TILE_CORRIDOR)
      first++;
    start_dug = first == path->count;
    state->intersections += !start_dug;
    dig_stretch(state, start_dug ? 0 : first, path->count - 1);
  }
  if (start_dug && (rc = make_door(state, a, door_ax, door_ay)) != 0)
    return rc;
  if ((rc = make_door(state, b, door_bx, door_by)) != 0)
    return rc;
  /* A closet only where the corridor met nothing and was dug whole. It is
   * built after every corridor is dug (classic_make_closets), so that no
   * later corridor can break into it. */
  if (start_dug && path->count >= 2 &&
      dg_rng_chance(&state->detail, dg_param_float(state->params, CLASSIC_P_CLOSET_CHANCE))) {
    if (state->site_count == state->site_capacity) {
      int capacity = state->site_capacity != 0 ? state->site_capacity * 2 : 8;
      classic_closet_site *sites =
          dg_arena_alloc_uninit(&state->arena, (size_t)capacity * sizeof *sites);
      if (sites == NULL)
        return DG_ENOMEM;
      for (int i = 0; i < state->site_count; i++)
        sites[i] = state->sites[i];
      state->sites = sites;
      state->site_capacity = capacity;
    }
    state->sites[state->site_count++] = (classic_closet_site){
        path->cells[0], path->cells[1], path->cells[path->count - 1], path->cells[path->count - 2]};
  }
  return 0;
}

int classic_make_closets(classic_state *state) {
  for (int i = 0; i < state->site_count; i++) {
    const classic_closet_site *site = &state->sites[i];
    int rc = try_closet(state, site->start, site->start_inner);
    if (rc == 0)
      rc = try_closet(state, site->end, site->end_inner);
    if (rc < 0)
      return rc;
  }
  return 0;
}

int classic_join_rooms(classic_state *state, dg_cancel *cancel) {
  int count = state->level->room_count;
  if (count < 2)
    return 0;
  /* connected[0..joined) are in the set; the rest wait, order shuffled by
   * the random picks below. */
  int *order = dg_arena_calloc(&state->arena, (size_t)count, sizeof *order);
  if (order == NULL)
    return DG_ENOMEM;
  for (int i = 0; i < count; i++)
    order[i] = i;
  int first = (int)dg_rng_below(&state->connect, (uint32_t)count);
  order[0] = first;
  order[first] = 0;
  for (int joined = 1; joined < count; joined++) {
    int inside = order[dg_rng_below(&state->connect, (uint32_t)joined)];
    int pick = joined + (int)dg_rng_below(&state->connect, (uint32_t)(count - joined));
    int outside = order[pick];
    order[pick] = order[joined];
    order[joined] = outside;
    int rc = dg_cancel_check(cancel);
    if (rc == 0)
      rc = join(state, inside, outside);
    if (rc != 0)
      return rc;
  }
  return 0;
}
