/* The `nonlinear` algorithm (seeds/002, "Pre-Connecting Random Non-Linear
 * Dungeons, SubMethod II"): a dungeon grown door by door from a start room
 * in the middle of a coarse grid of areas, each corridor's destination
 * rolled relative to where it leaves (d12 clock or d8 tic-tac-toe), each
 * unmapped destination filled by a d10 (dead end, junction, room). This file
 * holds the parameter table, the checks and the order of the steps; dice.c
 * holds the tables, grow.c the growth, output.c the level's extension: the
 * labelled points in JSON and the ASCII legend. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/request.h"
#include "generators.h"
#include "nonlinear.h"

const char *const nl_method_names[] = {"clock", "grid", NULL};

/* Defaults: 8x6-tile areas make 9x6 areas on an 80x40 map (an area is the
 * seed's "about 40 feet" with 5-foot tiles, squashed vertically as terminal
 * glyphs are tall); the seed's own threshold of 6; its clock method. */
static const dg_param_def nonlinear_params[NL_P_COUNT] = {
    [NL_P_WIDTH] = {"width", DG_PARAM_INT, 120, 14, 1000, NULL, NULL, "map width in tiles",
                    DG_PARAM_ROLE_WIDTH},
    [NL_P_HEIGHT] = {"height", DG_PARAM_INT, 60, 14, 1000, NULL, NULL, "map height in tiles",
                     DG_PARAM_ROLE_HEIGHT},
    [NL_P_AREA_WIDTH] = {"area_width", DG_PARAM_INT, 8, 4, 40, NULL, NULL,
                         "width of one area of the coarse grid in tiles (rooms are at most "
                         "area_width - 3 wide)",
                         DG_PARAM_ROLE_NONE},
    [NL_P_AREA_HEIGHT] = {"area_height", DG_PARAM_INT, 6, 4, 40, NULL, NULL,
                          "height of one area in tiles (rooms are at most area_height - 3 high)",
                          DG_PARAM_ROLE_NONE},
    [NL_P_METHOD] = {"method", DG_PARAM_ENUM, NL_METHOD_CLOCK, 0, 0, nl_method_names, NULL,
                     "clock: a d12 picks one of twelve areas two steps away (12 north, 3 east); "
                     "grid: a d8 picks one of the eight neighbours, 1 north, clockwise",
                     DG_PARAM_ROLE_NONE},
    [NL_P_THRESHOLD] = {"threshold", DG_PARAM_INT, 6, 0, 9, NULL, NULL,
                        "d10 for an unmapped area: 0 dead end, 1..threshold junction, above a "
                        "room",
                        DG_PARAM_ROLE_NONE},
    [NL_P_ROOMS] =
        {"rooms", DG_PARAM_INT, 12, 1, 10000, NULL, NULL,
         "stop once this many rooms exist (rooms and junctions roll more exits when every "
         "exit is spent; fewer only when the map has no room left)",
         DG_PARAM_ROLE_ROOM_COUNT},
    [NL_P_START_EXITS] = {"start_exits", DG_PARAM_INT, 4, 1, 12, NULL, NULL,
                          "exits of the start room, each rolling a destination",
                          DG_PARAM_ROLE_NONE},
    [NL_P_ROOM_EXITS_MAX] = {"room_exits_max", DG_PARAM_INT, 3, 0, 12, NULL, NULL,
                             "a new room rolls d(room_exits_max) exits besides the way in "
                             "(0: none)",
                             DG_PARAM_ROLE_NONE},
    [NL_P_SUBLEVEL_CHANCE] = {"sublevel_chance", DG_PARAM_FLOAT, 0.2, 0, 1, NULL, NULL,
                              "chance that crossing a corridor takes stairs to a sublevel "
                              "instead of meeting it",
                              DG_PARAM_ROLE_NONE},
    [NL_P_ROOM_TABLE] = {"room_table", DG_PARAM_STRING, 0, 0, 0, NULL,
                         "3x2_4x2_5x2_3x3_4x3_5x3_5x3c_2x2",
                         "room sizes rolled with d(entries): WxH floor tiles, c for a cross "
                         "shape, joined by '_'; clamped to the area",
                         DG_PARAM_ROLE_NONE},
    DG_COMMON_PARAM_DEFS(NL_P_COMMON),
};

static int nonlinear_validate(const dg_params *params, dg_error *err) {
  int area_width = dg_param_int(params, NL_P_AREA_WIDTH);
  int area_height = dg_param_int(params, NL_P_AREA_HEIGHT);
  /* Three areas each way at least, so the start room has neighbours, plus
   * a border of stone. */
  if (dg_param_int(params, NL_P_WIDTH) < 3 * area_width + 2)
    return dg_error_set(err, DG_EINVAL, "params.width",
                        "params.width must be at least 3 * params.area_width + 2 (%d)",
                        3 * area_width + 2);
  if (dg_param_int(params, NL_P_HEIGHT) < 3 * area_height + 2)
    return dg_error_set(err, DG_EINVAL, "params.height",
                        "params.height must be at least 3 * params.area_height + 2 (%d)",
                        3 * area_height + 2);
  nl_room_table table;
  return nl_room_table_parse(dg_param_string(params, NL_P_ROOM_TABLE), &table, err);
}

/* --- the extension (output.c writes it) --- */

static void extension_free(void *data) {
  nl_extension *extension = data;
  if (extension != NULL)
    free(extension->points);
  free(extension);
}

/* Renumbers the graph so that node i is room i (docs/level-format.md: rooms
 * come first), the other points after them in the order they were rolled,
 * and the points (parallel to the nodes) with them. Growth numbers nodes as
 * the dice find them, junctions and rooms mixed. 0, DG_ENOMEM, or
 * DG_EINTERNAL if a room has no node (growth gives each one). */
static int rooms_first(dg_level *level, nl_point *points) {
  dg_graph *graph = &level->graph;
  int n = graph->node_count, rc = DG_ENOMEM;
  int *new_of = malloc((size_t)(n + 1) * sizeof *new_of);
  dg_node *nodes = malloc((size_t)(n + 1) * sizeof *nodes);
  nl_point *moved = malloc((size_t)(n + 1) * sizeof *moved);
  if (new_of == NULL || nodes == NULL || moved == NULL)
    goto done;
  for (int i = 0; i < n; i++)
    new_of[i] = -1;
  for (int i = 0; i < n; i++) {
    int room = graph->nodes[i].room;
    if (room >= 0 && room < level->room_count && new_of[i] < 0)
      new_of[i] = room;
  }
  int next = level->room_count;
  for (int i = 0; i < n; i++)
    if (new_of[i] < 0)
      new_of[i] = next++;
  rc = DG_EINTERNAL;
  if (next != n)
    goto done; /* a room without its node, or two nodes for one room */
  for (int i = 0; i < n; i++) {
    nodes[new_of[i]] = graph->nodes[i];
    moved[new_of[i]] = points[i];
  }
  memcpy(graph->nodes, nodes, (size_t)n * sizeof *nodes);
  memcpy(points, moved, (size_t)n * sizeof *moved);
  for (int e = 0; e < graph->edge_count; e++) {
    graph->edges[e].from = new_of[graph->edges[e].from];
    graph->edges[e].to = new_of[graph->edges[e].to];
  }
  rc = 0;
done:
  free(new_of);
  free(nodes);
  free(moved);
  return rc;
}

/* The growth's settings from the parameters, the areas laid out on a
 * width by height map, and the random streams seeded. */
static void read_settings(nl_state *state, const dg_params *p, uint64_t seed, int width,
                          int height) {
  state->method = dg_param_enum(p, NL_P_METHOD);
  state->threshold = dg_param_int(p, NL_P_THRESHOLD);
  state->rooms_target = dg_param_int(p, NL_P_ROOMS);
  state->start_exits = dg_param_int(p, NL_P_START_EXITS);
  state->room_exits_max = dg_param_int(p, NL_P_ROOM_EXITS_MAX);
  state->sublevel_chance = dg_param_float(p, NL_P_SUBLEVEL_CHANCE);
  state->area_width = dg_param_int(p, NL_P_AREA_WIDTH);
  state->area_height = dg_param_int(p, NL_P_AREA_HEIGHT);
  /* Keep at least one tile of stone round the areas, and centre them. */
  state->columns = (width - 2) / state->area_width;
  state->rows = (height - 2) / state->area_height;
  state->origin_x = (width - state->columns * state->area_width) / 2;
  state->origin_y = (height - state->rows * state->area_height) / 2;
  dg_rng_seed(&state->dice, seed, DG_STREAM_DICE);
  dg_rng_seed(&state->layout, seed, DG_STREAM_LAYOUT);
  dg_rng_seed(&state->crossing, seed, DG_STREAM_CONNECT);
}

/* The per-area arrays and the exit queue, from one arena (closed by the
 * caller in every case). 0 or DG_ENOMEM. */
static int allocate_areas(nl_state *state) {
  int cells = state->columns * state->rows;
  /* Every node owns an area, so nodes <= cells; each pushes at most this
   * many exits. */
  int most_exits =
      state->start_exits > state->room_exits_max ? state->start_exits : state->room_exits_max;
  most_exits = most_exits > 2 ? most_exits : 2;
  state->queue_capacity = cells * most_exits;
  dg_arena_init(&state->arena,
                (size_t)cells * (sizeof(nl_cell) + sizeof(nl_point) + 3 * sizeof(int)) +
                    (size_t)state->queue_capacity * sizeof(nl_exit) + 1024);
  state->cells = dg_arena_calloc(&state->arena, (size_t)cells, sizeof *state->cells);
  state->points = dg_arena_calloc(&state->arena, (size_t)cells, sizeof *state->points);
  state->letters = dg_arena_calloc(&state->arena, (size_t)cells + 2, sizeof *state->letters);
  state->pending = dg_arena_calloc(&state->arena, (size_t)cells, sizeof *state->pending);
  state->queue =
      dg_arena_calloc(&state->arena, (size_t)state->queue_capacity, sizeof *state->queue);
  if (state->cells == NULL || state->points == NULL || state->letters == NULL ||
      state->pending == NULL || state->queue == NULL)
    return DG_ENOMEM;
  for (int i = 0; i < cells; i++)
    state->cells[i] = (nl_cell){.node = -1, .edge = -1, .links = 0};
  return 0;
}

/* The growth's counters as the level's stats. */
static void set_growth_stats(dg_level *level, const nl_state *state) {
  dg_level_set_stat(level, "areas", state->columns * state->rows);
  dg_level_set_stat(level, "exits_rolled", state->exits_rolled);
  dg_level_set_stat(level, "exits_left_open", state->queue_tail - state->queue_head);
  dg_level_set_stat(level, "exits_along_existing_corridor", state->exits_merged);
  dg_level_set_stat(level, "exits_off_map", state->exits_off_map);
  dg_level_set_stat(level, "d10_dead_end", state->d10_counts[NL_DEAD_END]);
  dg_level_set_stat(level, "d10_junction", state->d10_counts[NL_JUNCTION]);
  dg_level_set_stat(level, "d10_room", state->d10_counts[NL_ROOM]);
  dg_level_set_stat(level, "junction_turns", state->turns);
  dg_level_set_stat(level, "junction_intersections", state->intersections);
  dg_level_set_stat(level, "joins", state->joins);
  dg_level_set_stat(level, "forks", state->forks);
  dg_level_set_stat(level, "crossings", state->crossings);
  dg_level_set_stat(level, "sublevels", state->sublevels);
  dg_level_set_stat(level, "exits_reopened", state->exits_reopened);
}

/* Fills the level's extension (owned by the caller) from the grown
 * state: the points with their graph labels and kinds, and the area
 * layout. 0 or DG_ENOMEM. */
static int fill_extension(nl_extension *extension, const nl_state *state, const dg_level *level) {
  int points = level->graph.node_count;
  extension->points = malloc((size_t)points * sizeof *extension->points);
  if (extension->points == NULL)
    return DG_ENOMEM;
  memcpy(extension->points, state->points, (size_t)points * sizeof *extension->points);
  for (int i = 0; i < points; i++) {
    memcpy(extension->points[i].label, level->graph.nodes[i].label, DG_LABEL_MAX);
    extension->points[i].kind = level->graph.nodes[i].kind;
  }
  extension->point_count = points;
  extension->method = state->method;
  extension->columns = state->columns;
  extension->rows = state->rows;
  extension->area_width = state->area_width;
  extension->area_height = state->area_height;
  extension->origin_x = state->origin_x;
  extension->origin_y = state->origin_y;
  extension->table = state->table;
  return 0;
}

static int nonlinear_generate(const dg_context *context, const dg_request *request,
                              dg_cancel *cancel, dg_level *level, dg_error *err) {
  (void)context;
  const dg_params *p = &request->params;
  nl_state state = {.level = level, .params = p};
  nl_extension *extension = NULL;
  int width = dg_param_int(p, NL_P_WIDTH), height = dg_param_int(p, NL_P_HEIGHT);
  int rc = nl_room_table_parse(dg_param_string(p, NL_P_ROOM_TABLE), &state.table, err);
  if (rc != 0)
    return rc; /* nothing allocated yet; err names the table */
  rc = dg_grid_init(&level->grid, width, height);
  if (rc != 0)
    return dg_error_set(err, rc, "params.width", "cannot allocate a %dx%d map", width, height);
  level->has_grid = true;
  read_settings(&state, p, request->seed, width, height);
  if ((rc = allocate_areas(&state)) != 0)
    goto fail;
  rc = DG_ENOMEM;
  if ((extension = calloc(1, sizeof *extension)) == NULL)
    goto fail;
  if ((rc = nl_grow(&state, cancel)) != 0 || (rc = rooms_first(level, state.points)) != 0)
    goto fail;
  set_growth_stats(level, &state);
  if ((rc = fill_extension(extension, &state, level)) != 0)
    goto fail;
  level->extension = (dg_level_extension){extension, extension_free, nl_write_json, nl_write_text};
  free(state.corner);
  dg_arena_close(&state.arena);
  return 0;
fail:
  extension_free(extension);
  free(state.corner);
  dg_arena_close(&state.arena);
  return dg_error_from_code(err, rc);
}

const dg_algorithm dg_algorithm_nonlinear = {
    .name = "nonlinear",
    .summary = "non-linear dungeon grown door by door: d12 clock or d8 tic-tac-toe "
               "destinations, a d10 for dead end / junction / room, corridor crossings "
               "that may take stairs to a sublevel",
    .source = "the tabletop article \"Pre-Connecting Random Non-Linear Dungeons, SubMethod II\": "
              "d12 clock / d8 tic-tac-toe destinations and the d10 room table",
    .params = nonlinear_params,
    .param_count = NL_P_COUNT,
    .validate = nonlinear_validate,
    .generate = nonlinear_generate,
};
