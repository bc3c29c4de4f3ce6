/* The `classic` algorithm (seeds/000): NetHack-style levels. Rooms are
 * placed at random without overlap, joined one by one into a connected set
 * by straight corridors routed around rooms, with doors, closets, and one
 * of three corridor styles. This file holds the parameter table, room
 * placement and the order of the steps; join.c and route.c dig, cleanup.c
 * prunes, output.c writes the closets into the level JSON. */
#include "classic.h"

#include <stdlib.h>
#include <string.h>

#include "dungeon/request.h"
#include "generators.h"
#include "passes/trace.h"

static const char *const style_names[] = {"follow", "cleanup", "plain", NULL};

/* Defaults follow NetHack's ordinary levels: an 80x21 map, 6-9 rooms whose
 * floors are 3-14 wide and 2-5 high; doors secret one time in eight. */
static const dg_param_def classic_params[CLASSIC_P_COUNT] = {
    [CLASSIC_P_WIDTH] = {"width", DG_PARAM_INT, 80, 20, 1000, NULL, NULL, "map width in tiles",
                         DG_PARAM_ROLE_WIDTH},
    [CLASSIC_P_HEIGHT] = {"height", DG_PARAM_INT, 21, 10, 1000, NULL, NULL, "map height in tiles",
                          DG_PARAM_ROLE_HEIGHT},
    [CLASSIC_P_ROOMS_MIN] = {"rooms_min", DG_PARAM_INT, 6, 1, 2000, NULL, NULL,
                             "fewest rooms wanted (fewer when they do not fit)",
                             DG_PARAM_ROLE_NONE},
    [CLASSIC_P_ROOMS_MAX] = {"rooms_max", DG_PARAM_INT, 9, 1, 2000, NULL, NULL, "most rooms placed",
                             DG_PARAM_ROLE_ROOM_COUNT},
    [CLASSIC_P_ROOM_WIDTH_MIN] = {"room_width_min", DG_PARAM_INT, 3, 1, 100, NULL, NULL,
                                  "narrowest room floor in tiles", DG_PARAM_ROLE_NONE},
    [CLASSIC_P_ROOM_WIDTH_MAX] = {"room_width_max", DG_PARAM_INT, 14, 1, 100, NULL, NULL,
                                  "widest room floor in tiles", DG_PARAM_ROLE_NONE},
    [CLASSIC_P_ROOM_HEIGHT_MIN] = {"room_height_min", DG_PARAM_INT, 2, 1, 100, NULL, NULL,
                                   "lowest room floor in tiles", DG_PARAM_ROLE_NONE},
    [CLASSIC_P_ROOM_HEIGHT_MAX] = {"room_height_max", DG_PARAM_INT, 5, 1, 100, NULL, NULL,
                                   "highest room floor in tiles", DG_PARAM_ROLE_NONE},
    [CLASSIC_P_ROOM_GAP] = {"room_gap", DG_PARAM_INT, 2, 1, 10, NULL, NULL,
                            "least stone between two rooms' walls", DG_PARAM_ROLE_NONE},
    [CLASSIC_P_PLACEMENT_ATTEMPTS] = {"placement_attempts", DG_PARAM_INT, 60, 1, 10000, NULL, NULL,
                                      "random positions tried per room before giving up on it",
                                      DG_PARAM_ROLE_NONE},
    [CLASSIC_P_CORRIDOR_STYLE] =
        {"corridor_style", DG_PARAM_ENUM, CLASSIC_STYLE_FOLLOW, 0, 0, style_names, NULL,
         "follow: dig only stretches not yet connected; cleanup: dig, then "
         "prune unnecessary squares; plain: dig every line",
         DG_PARAM_ROLE_NONE},
    [CLASSIC_P_CLOSET_CHANCE] = {"closet_chance", DG_PARAM_FLOAT, 0.2, 0, 1, NULL, NULL,
                                 "chance that a corridor dug whole gets a closet with a chest",
                                 DG_PARAM_ROLE_NONE},
    [CLASSIC_P_CLOSET_STONE_CHANCE] =
        {"closet_stone_chance", DG_PARAM_FLOAT, 0.25, 0, 1, NULL, NULL,
         "chance that a closet's middle square is stone, not secret corridor", DG_PARAM_ROLE_NONE},
    [CLASSIC_P_SECRET_DOOR_CHANCE] = {"secret_door_chance", DG_PARAM_FLOAT, 0.125, 0, 1, NULL, NULL,
                                      "chance that a door is secret", DG_PARAM_ROLE_NONE},
    DG_COMMON_PARAM_DEFS(CLASSIC_P_COMMON),
};

static int classic_validate(const dg_params *params, dg_error *err) {
  int width = dg_param_int(params, CLASSIC_P_WIDTH),
      height = dg_param_int(params, CLASSIC_P_HEIGHT);
  if (dg_param_int(params, CLASSIC_P_ROOMS_MIN) > dg_param_int(params, CLASSIC_P_ROOMS_MAX))
    return dg_error_set(err, DG_EINVAL, "params.rooms_min",
                        "params.rooms_min must be at most params.rooms_max (%d)",
                        dg_param_int(params, CLASSIC_P_ROOMS_MAX));
  if (dg_param_int(params, CLASSIC_P_ROOM_WIDTH_MIN) >
      dg_param_int(params, CLASSIC_P_ROOM_WIDTH_MAX))
    return dg_error_set(err, DG_EINVAL, "params.room_width_min",
                        "params.room_width_min must be at most params.room_width_max (%d)",
                        dg_param_int(params, CLASSIC_P_ROOM_WIDTH_MAX));
  if (dg_param_int(params, CLASSIC_P_ROOM_HEIGHT_MIN) >
      dg_param_int(params, CLASSIC_P_ROOM_HEIGHT_MAX))
    return dg_error_set(err, DG_EINVAL, "params.room_height_min",
                        "params.room_height_min must be at most params.room_height_max (%d)",
                        dg_param_int(params, CLASSIC_P_ROOM_HEIGHT_MAX));
  /* A room's walls keep one tile from the map edge, so corridors can pass
   * round it on every side. */
  if (dg_param_int(params, CLASSIC_P_ROOM_WIDTH_MAX) + 4 > width)
    return dg_error_set(err, DG_EINVAL, "params.room_width_max",
                        "params.room_width_max must be at most params.width - 4 (%d)", width - 4);
  if (dg_param_int(params, CLASSIC_P_ROOM_HEIGHT_MAX) + 4 > height)
    return dg_error_set(err, DG_EINVAL, "params.room_height_max",
                        "params.room_height_max must be at most params.height - 4 (%d)",
                        height - 4);
  return 0;
}

static void closets_free(void *data) {
  classic_closets *closets = data;
  if (closets != NULL)
    free(closets->items);
  free(closets);
}

/* Room boxes (floor plus walls) must stay room_gap tiles apart. */
static bool fits(const dg_level *level, int x, int y, int w, int h, int gap) {
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *r = &level->rooms[i];
    if (x - 1 - gap <= r->x + r->width && r->x - 1 - gap <= x + w &&
        y - 1 - gap <= r->y + r->height && r->y - 1 - gap <= y + h)
      return false;
  }
  return true;
}

static int by_x(const void *a, const void *b) {
  const dg_room *ra = a, *rb = b;
  if (ra->x != rb->x)
    return ra->x < rb->x ? -1 : 1;
  return ra->y < rb->y ? -1 : ra->y > rb->y;
}

/* Places up to a random target count of rooms at random positions. Rooms
 * are then numbered left to right, as NetHack sorts them. */
static int place_rooms(classic_state *state, dg_cancel *cancel) {
  const dg_params *p = state->params;
  int width = state->grid->width, height = state->grid->height;
  int target = dg_rng_range(&state->layout, dg_param_int(p, CLASSIC_P_ROOMS_MIN),
                            dg_param_int(p, CLASSIC_P_ROOMS_MAX));
  int attempts = dg_param_int(p, CLASSIC_P_PLACEMENT_ATTEMPTS),
      gap = dg_param_int(p, CLASSIC_P_ROOM_GAP);
  int64_t tried = 0;
  for (int n = 0; n < target; n++) {
    /* Up to rooms_max x placement_attempts tries: poll the deadline. */
    int rc = dg_cancel_check(cancel);
    if (rc != 0)
      return rc;
    for (int a = 0; a < attempts; a++) {
      tried++;
      int w = dg_rng_range(&state->layout, dg_param_int(p, CLASSIC_P_ROOM_WIDTH_MIN),
                           dg_param_int(p, CLASSIC_P_ROOM_WIDTH_MAX));
      int h = dg_rng_range(&state->layout, dg_param_int(p, CLASSIC_P_ROOM_HEIGHT_MIN),
                           dg_param_int(p, CLASSIC_P_ROOM_HEIGHT_MAX));
      /* Floor from 2 to size - 3 - extent: walls stay off the map edge. */
      int x = dg_rng_range(&state->layout, 2, width - 2 - w);
      int y = dg_rng_range(&state->layout, 2, height - 2 - h);
      if (!fits(state->level, x, y, w, h, gap))
        continue;
      dg_room room = {.x = x, .y = y, .width = w, .height = h, .kind = "room"};
      if (dg_level_add_room(state->level, &room, NULL) != 0)
        return DG_ENOMEM;
      break;
    }
  }
  qsort(state->level->rooms, (size_t)state->level->room_count, sizeof(dg_room), by_x);
  dg_level_set_stat(state->level, "rooms_target", target);
  dg_level_set_stat(state->level, "rooms_placed", state->level->room_count);
  dg_level_set_stat(state->level, "placement_attempts", tried);
  return 0;
}

/* Paints floors and walls, and seeds the union-find with each room. */
static void paint_rooms(classic_state *state) {
  dg_grid *grid = state->grid;
  for (int r = 0; r < state->level->room_count; r++) {
    const dg_room *room = &state->level->rooms[r];
    int anchor = cell_of(grid, room->x, room->y);
    for (int y = room->y - 1; y <= room->y + room->height; y++)
      for (int x = room->x - 1; x <= room->x + room->width; x++) {
        bool floor =
            x >= room->x && x < room->x + room->width && y >= room->y && y < room->y + room->height;
        dg_grid_set(grid, x, y, floor ? DG_TILE_FLOOR : DG_TILE_WALL);
        state->box_of[cell_of(grid, x, y)] = r;
        if (floor) {
          state->room_of[cell_of(grid, x, y)] = r;
          state->parent[cell_of(grid, x, y)] = anchor;
        }
      }
  }
}

static int classic_generate(const dg_context *context, const dg_request *request, dg_cancel *cancel,
                            dg_level *level, dg_error *err) {
  (void)context;
  const dg_params *p = &request->params;
  classic_state state = {.level = level, .grid = &level->grid, .params = p};
  int width = dg_param_int(p, CLASSIC_P_WIDTH), height = dg_param_int(p, CLASSIC_P_HEIGHT);
  long cells = (long)width * height;
  int rc = dg_grid_init(&level->grid, width, height);
  if (rc != 0)
    return dg_error_set(err, rc, "params.width", "cannot allocate a %dx%d map", width, height);
  level->has_grid = true;
  dg_rng_seed(&state.layout, request->seed, DG_STREAM_LAYOUT);
  dg_rng_seed(&state.connect, request->seed, DG_STREAM_CONNECT);
  dg_rng_seed(&state.detail, request->seed, DG_STREAM_DETAIL);
  dg_arena_init(&state.arena, (size_t)cells * 28 + (size_t)(width + height) * 8 + 4096);
  /* Only the stamps need zeroing; every other array is filled before use. */
  state.parent = dg_arena_alloc_uninit(&state.arena, (size_t)cells * sizeof *state.parent);
  state.room_of = dg_arena_alloc_uninit(&state.arena, (size_t)cells * sizeof *state.room_of);
  state.box_of = dg_arena_alloc_uninit(&state.arena, (size_t)cells * sizeof *state.box_of);
  state.stamp = dg_arena_calloc(&state.arena, (size_t)cells, sizeof *state.stamp);
  state.stamp_index =
      dg_arena_alloc_uninit(&state.arena, (size_t)cells * sizeof *state.stamp_index);
  state.line =
      dg_arena_alloc_uninit(&state.arena, ((size_t)(width + height) * 2 + 8) * sizeof *state.line);
  state.path.cells =
      dg_arena_alloc_uninit(&state.arena, ((size_t)cells + 1) * sizeof *state.path.cells);
  classic_closets *closets = calloc(1, sizeof *closets);
  rc = DG_ENOMEM;
  if (state.parent == NULL || state.room_of == NULL || state.box_of == NULL ||
      state.stamp == NULL || state.stamp_index == NULL || state.line == NULL ||
      state.path.cells == NULL || closets == NULL)
    goto fail;
  for (long i = 0; i < cells; i++)
    state.parent[i] = (int)i;
  /* All bits set is -1 in two's complement: "no room". */
  memset(state.room_of, 0xff, (size_t)cells * sizeof *state.room_of);
  memset(state.box_of, 0xff, (size_t)cells * sizeof *state.box_of);
  if ((rc = place_rooms(&state, cancel)) != 0)
    goto fail;
  paint_rooms(&state);
  if ((rc = dg_cancel_check(cancel)) != 0)
    goto fail;
  if ((rc = classic_join_rooms(&state, cancel)) != 0)
    goto fail;
  if (dg_param_enum(p, CLASSIC_P_CORRIDOR_STYLE) == CLASSIC_STYLE_CLEANUP &&
      (rc = classic_cleanup(&state, cancel)) != 0)
    goto fail;
  if ((rc = classic_make_closets(&state)) != 0)
    goto fail;
  if ((rc = dg_cancel_check(cancel)) != 0)
    goto fail;
  if ((rc = dg_trace_graph(level, state.room_of)) != 0 ||
      (rc = dg_level_keep_room_of(level, state.room_of)) != 0)
    goto fail;
  dg_level_set_stat(level, "joins", level->room_count > 0 ? level->room_count - 1 : 0);
  dg_level_set_stat(level, "joins_meeting_corridors", state.intersections);
  dg_level_set_stat(level, "detours", state.detours);
  dg_level_set_stat(level, "tiles_dug", state.tiles_dug);
  dg_level_set_stat(level, "secret_doors", state.secret_doors);
  dg_level_set_stat(level, "closets", state.closets.count);
  dg_level_set_stat(level, "cleanup_removed", state.cleanup_removed);
  closets->items = state.closets.items;
  closets->count = state.closets.count;
  state.closets.items = NULL;
  level->extension = (dg_level_extension){closets, closets_free, classic_write_json, NULL};
  dg_arena_close(&state.arena);
  return 0;
fail:
  free(closets);
  free(state.closets.items);
  dg_arena_close(&state.arena);
  return dg_error_from_code(err, rc);
}

const dg_algorithm dg_algorithm_classic = {
    .name = "classic",
    .summary = "NetHack-style rooms joined one by one by straight corridors routed around "
               "rooms, with doors, closets and corridor following or cleanup",
    .source = "NetHack's proposed room-joining algorithm for the Dungeons of Doom, with its two "
              "corridor proposals (following, cleanup)",
    .params = classic_params,
    .param_count = CLASSIC_P_COUNT,
    .validate = classic_validate,
    .generate = classic_generate,
};
