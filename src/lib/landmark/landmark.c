/* The `landmark` algorithm (seeds/001): levels in a shape chosen from a set
 * of masks, with one or two large landmark rooms painted first, medium and
 * small rooms packed round them, a connectivity graph from the Delaunay
 * triangulation of the rooms (its minimum spanning tree plus extra edges up
 * to a target degree), and tunnels dug along that graph by A* over a
 * noise-based rock-cost field. This file holds the parameter table and the
 * order of the steps; rooms.c paints, connect.c joins, output.c writes the
 * mask and landmarks into the level JSON. */
#include "landmark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/request.h"
#include "generators.h"

const char *const landmark_mask_names[] = {"random", "box", "cross", "t", "l", "ring", NULL};
const char *const landmark_style_names[] = {"random", "rectangles", "round", "cavern", NULL};

/* Defaults give a 100x60 level with one or two landmarks, a few dozen
 * rooms, and each room joined to two or three others (the seed's aim). */
static const dg_param_def landmark_params[LANDMARK_P_COUNT] = {
    [LANDMARK_P_WIDTH] = {"width", DG_PARAM_INT, 100, 32, 1000, NULL, NULL, "map width in tiles",
                          DG_PARAM_ROLE_WIDTH},
    [LANDMARK_P_HEIGHT] = {"height", DG_PARAM_INT, 60, 32, 1000, NULL, NULL, "map height in tiles",
                           DG_PARAM_ROLE_HEIGHT},
    [LANDMARK_P_MASK] = {"mask", DG_PARAM_ENUM, LANDMARK_MASK_RANDOM, 0, 0, landmark_mask_names,
                         NULL, "outline of the level: box, cross, t, l, ring, or random among them",
                         DG_PARAM_ROLE_NONE},
    [LANDMARK_P_LANDMARKS_MIN] = {"landmarks_min", DG_PARAM_INT, 1, 0, 2, NULL, NULL,
                                  "fewest landmark rooms (fewer when they do not fit)",
                                  DG_PARAM_ROLE_NONE},
    [LANDMARK_P_LANDMARKS_MAX] = {"landmarks_max", DG_PARAM_INT, 2, 0, 2, NULL, NULL,
                                  "most landmark rooms", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_LANDMARK_STYLE] =
        {"landmark_style", DG_PARAM_ENUM, LANDMARK_STYLE_RANDOM, 0, 0, landmark_style_names, NULL,
         "how landmarks are painted: overlapping rectangles, round, cavern, "
         "or random per landmark",
         DG_PARAM_ROLE_NONE},
    [LANDMARK_P_LANDMARK_SIZE_MIN] = {"landmark_size_min", DG_PARAM_INT, 12, 6, 200, NULL, NULL,
                                      "smallest landmark canvas side in tiles", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_LANDMARK_SIZE_MAX] = {"landmark_size_max", DG_PARAM_INT, 20, 6, 200, NULL, NULL,
                                      "largest landmark canvas side in tiles", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_LANDMARK_ATTEMPTS] = {"landmark_attempts", DG_PARAM_INT, 100, 1, 10000, NULL, NULL,
                                      "random positions tried per landmark before giving up on it",
                                      DG_PARAM_ROLE_NONE},
    [LANDMARK_P_ROOM_CHANCE] = {"room_chance", DG_PARAM_FLOAT, 0.15, 0, 1, NULL, NULL,
                                "chance that an odd cell tries to start a room",
                                DG_PARAM_ROLE_NONE},
    [LANDMARK_P_MEDIUM_CHANCE] = {"medium_chance", DG_PARAM_FLOAT, 0.35, 0, 1, NULL, NULL,
                                  "chance that a room tried is medium rather than small",
                                  DG_PARAM_ROLE_NONE},
    [LANDMARK_P_SMALL_SIZE_MIN] = {"small_size_min", DG_PARAM_INT, 3, 1, 100, NULL, NULL,
                                   "smallest side of a small room's floor", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_SMALL_SIZE_MAX] = {"small_size_max", DG_PARAM_INT, 5, 1, 100, NULL, NULL,
                                   "largest side of a small room's floor", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_MEDIUM_SIZE_MIN] = {"medium_size_min", DG_PARAM_INT, 6, 1, 100, NULL, NULL,
                                    "smallest side of a medium room's floor", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_MEDIUM_SIZE_MAX] = {"medium_size_max", DG_PARAM_INT, 10, 1, 100, NULL, NULL,
                                    "largest side of a medium room's floor", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_ROOM_GAP] =
        {"room_gap", DG_PARAM_INT, 2, 1, 20, NULL, NULL,
         "least rock between two rooms' walls, and between a wall and the mask edge",
         DG_PARAM_ROLE_NONE},
    [LANDMARK_P_ROOMS_MAX] = {"rooms_max", DG_PARAM_INT, 20000, 1, 100000, NULL, NULL,
                              "most rooms in a level, landmarks included",
                              DG_PARAM_ROLE_ROOM_COUNT},
    [LANDMARK_P_TARGET_DEGREE] = {"target_degree", DG_PARAM_FLOAT, 2.5, 1, 6, NULL, NULL,
                                  "mean connections per room that extra edges aim at",
                                  DG_PARAM_ROLE_NONE},
    [LANDMARK_P_TURN_PENALTY] = {"turn_penalty", DG_PARAM_INT, 3, 0, 1000, NULL, NULL,
                                 "tunnel cost added per change of direction", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_EXACT_TURNS] = {"exact_turns", DG_PARAM_BOOL, 0, 0, 1, NULL, NULL,
                                "search tiles by direction so turn penalties are charged exactly "
                                "(slower); otherwise against each tile's best arrival",
                                DG_PARAM_ROLE_NONE},
    [LANDMARK_P_HEURISTIC_WEIGHT] = {"heuristic_weight", DG_PARAM_INT, 2, 1, 10, NULL, NULL,
                                     "A* heuristic weight: 1 digs cheapest tunnels, w digs tunnels "
                                     "costing at most w times that, faster",
                                     DG_PARAM_ROLE_NONE},
    [LANDMARK_P_PERIMETER_PENALTY] = {"perimeter_penalty", DG_PARAM_INT, 12, 0, 10000, NULL, NULL,
                                      "extra cost of rock touching a room's wall",
                                      DG_PARAM_ROLE_NONE},
    [LANDMARK_P_DOOR_COST] = {"door_cost", DG_PARAM_INT, 4, 1, 10000, NULL, NULL,
                              "cost of cutting a door through a wall", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_TUNNEL_COST] = {"tunnel_cost", DG_PARAM_INT, 1, 1, 1000, NULL, NULL,
                                "cost of walking an existing tunnel or room floor",
                                DG_PARAM_ROLE_NONE},
    [LANDMARK_P_ROCK_BASE] = {"rock_base", DG_PARAM_INT, 3, 1, 1000, NULL, NULL,
                              "cost of digging the softest rock", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_ROCK_WEIGHT] = {"rock_weight", DG_PARAM_INT, 14, 0, 10000, NULL, NULL,
                                "extra cost of digging the hardest rock (noise-driven)",
                                DG_PARAM_ROLE_NONE},
    [LANDMARK_P_ROCK_SCALE] = {"rock_scale", DG_PARAM_INT, 24, 2, 1024, NULL, NULL,
                               "size in tiles of the largest rock clusters", DG_PARAM_ROLE_NONE},
    [LANDMARK_P_ROCK_OCTAVES] = {"rock_octaves", DG_PARAM_INT, 4, 1, 8, NULL, NULL,
                                 "octaves of the fractal rock noise", DG_PARAM_ROLE_NONE},
    DG_COMMON_PARAM_DEFS(LANDMARK_P_COMMON),
};

static int landmark_validate(const dg_params *p, dg_error *err) {
  static const int pairs[][2] = {{LANDMARK_P_LANDMARKS_MIN, LANDMARK_P_LANDMARKS_MAX},
                                 {LANDMARK_P_LANDMARK_SIZE_MIN, LANDMARK_P_LANDMARK_SIZE_MAX},
                                 {LANDMARK_P_SMALL_SIZE_MIN, LANDMARK_P_SMALL_SIZE_MAX},
                                 {LANDMARK_P_MEDIUM_SIZE_MIN, LANDMARK_P_MEDIUM_SIZE_MAX}};
  char field[DG_ERROR_FIELD_MAX];
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    int lo = pairs[i][0], hi = pairs[i][1];
    if (dg_param_int(p, lo) <= dg_param_int(p, hi))
      continue;
    snprintf(field, sizeof field, "params.%s", landmark_params[lo].name);
    return dg_error_set(err, DG_EINVAL, field, "params.%s must be at most params.%s (%d)",
                        landmark_params[lo].name, landmark_params[hi].name, dg_param_int(p, hi));
  }
  /* A landmark or a room, its walls and its gap on both sides must fit in
   * the narrower side of the map. */
  int side = dg_param_int(p, LANDMARK_P_WIDTH) < dg_param_int(p, LANDMARK_P_HEIGHT)
                 ? dg_param_int(p, LANDMARK_P_WIDTH)
                 : dg_param_int(p, LANDMARK_P_HEIGHT);
  int margin = 2 * (dg_param_int(p, LANDMARK_P_ROOM_GAP) + 1) + 2;
  static const int sizes[] = {LANDMARK_P_LANDMARK_SIZE_MAX, LANDMARK_P_MEDIUM_SIZE_MAX,
                              LANDMARK_P_SMALL_SIZE_MAX};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    if (dg_param_int(p, sizes[i]) + margin <= side)
      continue;
    snprintf(field, sizeof field, "params.%s", landmark_params[sizes[i]].name);
    return dg_error_set(err, DG_EINVAL, field,
                        "params.%s must be at most %d (the narrower map side, %d, less walls "
                        "and twice params.room_gap + 1)",
                        landmark_params[sizes[i]].name, side - margin, side);
  }
  return 0;
}

static int landmark_generate(const dg_context *context, const dg_request *request,
                             dg_cancel *cancel, dg_level *level, dg_error *err) {
  (void)context;
  const dg_params *p = &request->params;
  landmark_state state = {
      .level = level, .grid = &level->grid, .params = p, .cancel = cancel, .seed = request->seed};
  state.width = dg_param_int(p, LANDMARK_P_WIDTH);
  state.height = dg_param_int(p, LANDMARK_P_HEIGHT);
  state.cells = (long)state.width * state.height;
  int rc = dg_grid_init(&level->grid, state.width, state.height);
  if (rc != 0)
    return dg_error_set(err, rc, "params.width", "cannot allocate a %dx%d map", state.width,
                        state.height);
  level->has_grid = true;
  dg_rng_seed(&state.shape, request->seed, DG_STREAM_SHAPE);
  dg_rng_seed(&state.layout, request->seed, DG_STREAM_LAYOUT);
  dg_rng_seed(&state.connect, request->seed, DG_STREAM_CONNECT);
  dg_arena_init(&state.arena, (size_t)state.cells * 20 + 65536);
  landmark_extension *extension = calloc(1, sizeof *extension);
  /* Only `taken` is read before it is written whole (the mask writes
   * every tile of `inside`, room_of is set to -1 below, build_costs writes
   * every cost and A* the path before either is read): zeroing the rest
   * was half a megabyte of stores per 200x200 level. */
  state.inside = dg_arena_alloc_uninit(&state.arena, (size_t)state.cells);
  state.taken = dg_arena_alloc(&state.arena, (size_t)state.cells);
  state.room_of = dg_arena_alloc_uninit(&state.arena, (size_t)state.cells * sizeof *state.room_of);
  state.cost = dg_arena_alloc_uninit(&state.arena, (size_t)state.cells * sizeof *state.cost);
  state.path = dg_arena_alloc_uninit(&state.arena, (size_t)state.cells * sizeof *state.path);
  rc = DG_ENOMEM;
  if (extension == NULL || state.inside == NULL || state.taken == NULL || state.room_of == NULL ||
      state.cost == NULL || state.path == NULL)
    goto fail;
  for (long i = 0; i < state.cells; i++)
    state.room_of[i] = -1;
  if ((rc = dg_cancel_check(cancel)) != 0)
    goto fail;
  landmark_make_mask(&state);
  /* Checks between the steps bound the time between two polls of
   * `cancel` (its deadline, and the daemon's pause hook) to a few ms at
   * 1000x1000. */
  if ((rc = dg_cancel_check(cancel)) != 0 || (rc = landmark_place_landmarks(&state)) != 0 ||
      (rc = dg_cancel_check(cancel)) != 0 || (rc = landmark_pack_rooms(&state)) != 0 ||
      (rc = dg_cancel_check(cancel)) != 0 || (rc = landmark_finish_rooms(&state)) != 0 ||
      (rc = dg_cancel_check(cancel)) != 0 || (rc = landmark_connect(&state)) != 0 ||
      (rc = dg_cancel_check(cancel)) != 0)
    goto fail;
  /* Nothing outside the mask: it is void, not rock. */
  for (long i = 0; i < state.cells; i++)
    if (!state.inside[i])
      level->grid.tiles[i] = DG_TILE_VOID;
  /* The rooms' tiles for the passes after us: floors, and wall tiles (of
   * which the walkable ones are the doors cut) by the room they enclose. */
  for (long i = 0; i < state.cells; i++)
    state.room_of[i] = state.room_of[i] <= -2 ? -2 - state.room_of[i] : state.room_of[i];
  if ((rc = dg_level_keep_room_of(level, state.room_of)) != 0)
    goto fail;
  dg_level_set_stat(level, "landmarks", state.extension.shape_count);
  dg_level_set_stat(level, "landmark_attempts", state.landmark_attempts);
  dg_level_set_stat(level, "rooms_tried", state.rooms_tried);
  dg_level_set_stat(level, "tunnel_tiles", state.tunnel_tiles);
  dg_level_set_stat(level, "doors", state.doors_made);
  dg_level_set_stat(level, "tunnels_failed", state.tunnels_failed);
  *extension = state.extension;
  level->extension = (dg_level_extension){extension, free, landmark_write_json, NULL};
  dg_arena_close(&state.arena);
  return 0;
fail:
  free(extension);
  dg_arena_close(&state.arena);
  return dg_error_from_code(err, rc);
}

const dg_algorithm dg_algorithm_landmark = {
    .name = "landmark",
    .summary = "Landmark rooms and packed rooms in a masked outline, joined along a Delaunay "
               "MST plus extra edges by A* tunnels over noise-hardened rock",
    .source = "a game developer's write-up of landmark rooms, room packing, Delaunay + MST links "
              "and A* tunnels over a noise cost field",
    .params = landmark_params,
    .param_count = LANDMARK_P_COUNT,
    .validate = landmark_validate,
    .generate = landmark_generate,
};
