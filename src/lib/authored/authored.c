/* The `authored` algorithm (seed 003): a dungeon assembled from hand-built
 * rooms of a room set, grown as a tree from a start room by precomputed
 * moves (grow.c) with cycles closed while it grows and after (cycles.c).
 * This file drives them: the parameter table, the order of the steps (it
 * hands the cycle pass to growth as a hook, so neither calls the other),
 * and the level: the graph of placed rooms, a top-down grid so that the
 * ASCII map works for it too, and the output output.c writes (placements,
 * connections, cycles). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cycles.h"
#include "dungeon/request.h"
#include "generators.h"
#include "grow.h"
#include "model/context_internal.h"
#include "output.h"
#include "state.h"

static const char *const cycle_modes[] = {"chains", "corridors", "none", NULL};

static const dg_param_def authored_params[AUTHORED_P_COUNT] = {
    [AUTHORED_P_ROOMSET] = {"roomset", DG_PARAM_STRING, 0, 0, 0, NULL, "crypt",
                            "name of a loaded room set (config/roomsets/*.json)",
                            DG_PARAM_ROLE_ROOMSET},
    [AUTHORED_P_ROOMS] =
        {"rooms", DG_PARAM_INT, 100, 1, 20000, NULL, NULL,
         "tree rooms to place, chain rooms come on top (fewer when nothing more fits; "
         "stats say so)",
         DG_PARAM_ROLE_ROOM_COUNT},
    [AUTHORED_P_TRIES] = {"tries", DG_PARAM_INT, 1, 1, 100000, NULL, NULL,
                          "move groups tried at one open connector before it is closed",
                          DG_PARAM_ROLE_NONE},
    [AUTHORED_P_VERTICAL_LIMIT] =
        {"vertical_limit", DG_PARAM_INT, 32, 4, 1024, NULL, NULL,
         "blocks above or below the start room's floor that rooms may reach", DG_PARAM_ROLE_NONE},
    [AUTHORED_P_GRID] = {"grid", DG_PARAM_BOOL, 1, 0, 1, NULL, NULL,
                         "also draw a top-down tile grid (for ASCII maps and grid metrics)",
                         DG_PARAM_ROLE_NONE},
    [AUTHORED_P_CYCLES] = {"cycles", DG_PARAM_ENUM, AUTHORED_CYCLES_CHAINS, 0, 0, cycle_modes, NULL,
                           "chains: close cycles with chains of authored rooms; corridors: with "
                           "procedural corridors (the old method); none: leave the tree",
                           DG_PARAM_ROLE_NONE},
    [AUTHORED_P_WEIGHT] = {"w", DG_PARAM_FLOAT, 3.0, 1.0, 10.0, NULL, NULL,
                           "weighted A* inflation: f = g + w h (1 finds the cheapest chain)",
                           DG_PARAM_ROLE_NONE},
    /* 256: the point of the cutoff curve over seeds 1-8 at 1,000 rooms
     * where most failed-search time is saved (92%) and fewer real successes
     * are clipped (15%, against 24% at 64); seed 003, "Measuring instead of
     * guessing" picks the cutoff that way. */
    [AUTHORED_P_STALL_CUTOFF] =
        {"stall_cutoff", DG_PARAM_INT, 256, 1, 1000000, NULL, NULL,
         "abandon a cycle search after this many expansions without getting "
         "closer to the goal",
         DG_PARAM_ROLE_NONE},
    [AUTHORED_P_EXPANSIONS_MAX] = {"expansions_max", DG_PARAM_INT, 20000, 1, 10000000, NULL, NULL,
                                   "hard limit on expansions of one cycle search",
                                   DG_PARAM_ROLE_NONE},
    [AUTHORED_P_CANDIDATE_DISTANCE] = {"candidate_distance", DG_PARAM_INT, 48, 1, 96, NULL, NULL,
                                       "largest distance in blocks between two doorways to join",
                                       DG_PARAM_ROLE_NONE},
    [AUTHORED_P_HOP_CAP] = {"hop_cap", DG_PARAM_INT, 8, 2, 64, NULL, NULL,
                            "rooms two doorways must be apart through the dungeon to be joined",
                            DG_PARAM_ROLE_NONE},
    [AUTHORED_P_MIN_STRETCH] =
        {"min_stretch", DG_PARAM_FLOAT, 0.5, 0.0, 1000.0, NULL, NULL,
         "least tree distance (rooms) per block of distance for a candidate pair",
         DG_PARAM_ROLE_NONE},
    [AUTHORED_P_CHAIN_MAX] = {"chain_max", DG_PARAM_INT, 8, 1, 32, NULL, NULL,
                              "most rooms in one cycle's chain", DG_PARAM_ROLE_NONE},
    [AUTHORED_P_SHIMS] = {"shims", DG_PARAM_BOOL, 1, 0, 1, NULL, NULL,
                          "let chains use shims (rooms tagged shim)", DG_PARAM_ROLE_NONE},
    [AUTHORED_P_SPACING] =
        {"spacing", DG_PARAM_INT, 0, 0, 16, NULL, NULL,
         "blocks the tree keeps between a new room and every room but its parent "
         "(room for cycles)",
         DG_PARAM_ROLE_NONE},
    [AUTHORED_P_CYCLE_INTERVAL] = {"cycle_interval", DG_PARAM_INT, 20, 0, 20000, NULL, NULL,
                                   "close cycles every this many tree rooms while growing (0: only "
                                   "once the tree is grown)",
                                   DG_PARAM_ROLE_NONE},
    [AUTHORED_P_FAILURES_MAX] = {"failures_max", DG_PARAM_INT, 3, 1, 1000, NULL, NULL,
                                 "failed cycle searches after which a doorway is paired only with "
                                 "doorways that failed fewer times",
                                 DG_PARAM_ROLE_NONE},
    [AUTHORED_P_GROUPING] =
        {"grouping", DG_PARAM_BOOL, 1, 0, 1, NULL, NULL,
         "search move groups (same geometry) once instead of every room's moves",
         DG_PARAM_ROLE_NONE},
    DG_COMMON_PARAM_DEFS(AUTHORED_P_COMMON),
};

/* The placement's footprint seen from above, in world x and z. */
static void footprint(const authored_state *state, const authored_placement *p, int *x0, int *z0,
                      int *x1, int *z1) {
  const authored_box *first = &state->occupancy.boxes.items[p->box_first];
  *x0 = first->x0, *z0 = first->z0, *x1 = first->x1, *z1 = first->z1;
  for (int b = 1; b < p->box_count; b++) {
    const authored_box *w = &state->occupancy.boxes.items[p->box_first + b];
    *x0 = w->x0 < *x0 ? w->x0 : *x0;
    *z0 = w->z0 < *z0 ? w->z0 : *z0;
    *x1 = w->x1 > *x1 ? w->x1 : *x1;
    *z1 = w->z1 > *z1 ? w->z1 : *z1;
  }
}

/* Where the world's x, z land on the top-down grid: one tile of border
 * round the extent, so world (min_x, min_z) is grid (1, 1). */
typedef struct grid_frame {
  int min_x, min_z;  /* world corner of the extent */
  int width, height; /* the grid's size in tiles */
} grid_frame;

static inline long frame_index(const grid_frame *frame, int x, int y) {
  assert(x >= 0 && y >= 0 && x < frame->width && y < frame->height);
  return (long)y * frame->width + x;
}

/* The grid's size: the extent and its border, grown to hold a forced
 * stairs-up tile. Multi-floor sets force the stairs up where the floor
 * above has its stairs down. Authored maps differ in size from seed to
 * seed, so the map grows (stone, and a border) to hold that tile; the
 * placement pass then digs the stairs a way to the rooms. Without this a
 * set failed when 16 seeds in a row drew a smaller map (2.5% of
 * four-floor sets). */
static void size_grid(const authored_state *state, grid_frame *frame, int max_x, int max_z) {
  const dg_level *level = state->level;
  frame->width = max_x - frame->min_x + 2;
  frame->height = max_z - frame->min_z + 2;
  int forced_x =
      dg_param_int(state->params, dg_common_param(level->algorithm, DG_COMMON_STAIRS_UP_X));
  int forced_y =
      dg_param_int(state->params, dg_common_param(level->algorithm, DG_COMMON_STAIRS_UP_Y));
  if (forced_x >= 0 && forced_y >= 0) {
    frame->width = forced_x + 2 > frame->width ? forced_x + 2 : frame->width;
    frame->height = forced_y + 2 > frame->height ? forced_y + 2 : frame->height;
  }
}

/* owner[] per tile: the placement whose boxes cover it, -1 for none, -2
 * for several (rooms stacked at different heights). */
static void mark_owners(const authored_state *state, const grid_frame *frame, int *owner) {
  long cells = (long)frame->width * frame->height;
  for (long i = 0; i < cells; i++)
    owner[i] = -1;
  for (int i = 0; i < state->placements.count; i++) {
    const authored_placement *p = &state->placements.items[i];
    for (int b = 0; b < p->box_count; b++) {
      const authored_box *w = &state->occupancy.boxes.items[p->box_first + b];
      for (int z = w->z0; z < w->z1; z++)
        for (int x = w->x0; x < w->x1; x++) {
          long at = frame_index(frame, x - frame->min_x + 1, z - frame->min_z + 1);
          owner[at] = owner[at] == -1 || owner[at] == i ? i : -2;
        }
    }
  }
}

/* Rooms: a tile next to another owner's (or to none) is rim and wall, the
 * rest floor; shared tiles (-2) are floor. */
static void draw_rooms(dg_grid *grid, const grid_frame *frame, const int *owner) {
  static const int dx[4] = {0, 1, 0, -1}, dz[4] = {-1, 0, 1, 0};
  int width = frame->width, height = frame->height;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int o = owner[(long)y * width + x];
      if (o == -1)
        continue;
      bool rim = false;
      for (int d = 0; d < 4 && o >= 0; d++) {
        int nx = x + dx[d], ny = y + dz[d];
        int n = nx < 0 || ny < 0 || nx >= width || ny >= height ? -1 : owner[(long)ny * width + nx];
        rim = rim || (n != o && n != -2);
      }
      dg_grid_set(grid, x, y, rim ? DG_TILE_WALL : DG_TILE_FLOOR);
    }
}

/* The inner blocks of carved corridors, where no room lies. */
static void draw_corridors(const authored_state *state, const grid_frame *frame, const int *owner) {
  for (int i = 0; i < state->connections.count; i++) {
    const authored_connection *c = &state->connections.items[i];
    for (int k = 1; k < c->path_count - 1; k++) {
      const authored_block *b = &state->path.items[c->path_first + k];
      int x = b->x - frame->min_x + 1, y = b->z - frame->min_z + 1;
      if (owner[frame_index(frame, x, y)] == -1)
        dg_grid_set(&state->level->grid, x, y, DG_TILE_CORRIDOR);
    }
  }
}

/* Both doorways of every connection as doors. The level's doors are the
 * grid's: one per door tile (doorways stacked at other heights share it),
 * on its connector's room. */
static int draw_doors(authored_state *state, const grid_frame *frame) {
  dg_level *level = state->level;
  for (int i = 0; i < state->connections.count; i++) {
    const authored_connector *ends[2] = {&state->connectors.items[state->connections.items[i].a],
                                         &state->connectors.items[state->connections.items[i].b]};
    for (int k = 0; k < 2; k++) {
      int x = ends[k]->x - frame->min_x + 1, y = ends[k]->z - frame->min_z + 1;
      if (dg_grid_get(&level->grid, x, y) == DG_TILE_DOOR)
        continue;
      dg_grid_set(&level->grid, x, y, DG_TILE_DOOR);
      dg_door door = {.x = x, .y = y, .room = ends[k]->placement, .secret = false};
      int rc = dg_level_add_door(level, &door);
      if (rc != 0)
        return rc;
    }
  }
  return 0;
}

/* The top-down grid: each room's footprint, its rim as wall and its inside
 * as floor, doorways of connections as doors, the blocks of carved
 * corridors (cycles=corridors) as corridor where no room lies above or
 * below them. Rooms stacked at different heights project onto the same
 * tiles; such shared tiles are drawn as floor so that the map never shows
 * a wall that is not there on some level. Returns 0, DG_ENOMEM or DG_EINVAL (too large a map). */
static int draw_grid(authored_state *state, int min_x, int min_z, int max_x, int max_z,
                     dg_error *err) {
  dg_level *level = state->level;
  grid_frame frame = {.min_x = min_x, .min_z = min_z};
  size_grid(state, &frame, max_x, max_z);
  int *owner = NULL;
  int rc = dg_grid_init(&level->grid, frame.width, frame.height);
  if (rc != 0) {
    rc = dg_error_set(err, rc, "params.rooms",
                      "the top-down map (%dx%d) is too large; "
                      "set params.grid to false",
                      frame.width, frame.height);
    goto done;
  }
  level->has_grid = true;
  /* Rooms stack and corridors cross at other heights: the top-down grid
   * draws the level, the graph is its connectivity. */
  level->grid_is_projection = true;
  owner = malloc((size_t)frame.width * (size_t)frame.height * sizeof *owner);
  rc = DG_ENOMEM;
  if (owner == NULL)
    goto done;
  mark_owners(state, &frame, owner);
  draw_rooms(&level->grid, &frame, owner);
  draw_corridors(state, &frame, owner);
  rc = draw_doors(state, &frame);
done:
  free(owner);
  return rc;
}

/* The world x, z extent (half-open) of everything drawn: the rooms'
 * footprints and the corridors' blocks. */
static void extent(const authored_state *state, int *min_x, int *min_z, int *max_x, int *max_z) {
  for (int i = 0; i < state->placements.count; i++) {
    int x0, z0, x1, z1;
    footprint(state, &state->placements.items[i], &x0, &z0, &x1, &z1);
    *min_x = i == 0 || x0 < *min_x ? x0 : *min_x;
    *min_z = i == 0 || z0 < *min_z ? z0 : *min_z;
    *max_x = i == 0 || x1 > *max_x ? x1 : *max_x;
    *max_z = i == 0 || z1 > *max_z ? z1 : *max_z;
  }
  for (int i = 0; i < state->path.count; i++) {
    const authored_block *b = &state->path.items[i];
    *min_x = b->x < *min_x ? b->x : *min_x;
    *min_z = b->z < *min_z ? b->z : *min_z;
    *max_x = b->x + 1 > *max_x ? b->x + 1 : *max_x;
    *max_z = b->z + 1 > *max_z ? b->z + 1 : *max_z;
  }
}

/* Rooms, graph and grid of the level from the placements. */
static int fill_level(authored_state *state, dg_error *err) {
  dg_level *level = state->level;
  int min_x = 0, min_z = 0, max_x = 0, max_z = 0;
  extent(state, &min_x, &min_z, &max_x, &max_z);
  bool grid = dg_param_bool(state->params, AUTHORED_P_GRID);
  for (int i = 0; i < state->placements.count; i++) {
    const authored_placement *p = &state->placements.items[i];
    int x0, z0, x1, z1;
    footprint(state, p, &x0, &z0, &x1, &z1);
    const authored_room *room = &state->set->rooms[p->room];
    /* dg_room is the floor inside the walls on the grid; rooms of the set
     * include their walls, hence the one-block inset where there is one. */
    int inset_x = x1 - x0 > 2, inset_z = z1 - z0 > 2;
    dg_room r = {.x = x0 - min_x + 1 + inset_x,
                 .y = z0 - min_z + 1 + inset_z,
                 .width = x1 - x0 - 2 * inset_x,
                 .height = z1 - z0 - 2 * inset_z,
                 .kind = i == 0                                 ? "start"
                         : (room->tag_bits & AUTHORED_TAG_SHIM) ? "shim"
                         : p->chain >= 0                        ? "chain"
                                                                : "room"};
    snprintf(r.label, sizeof r.label, "%d", i);
    int node;
    if (dg_level_add_room(level, &r, NULL) != 0 ||
        dg_graph_add_node(&level->graph, r.kind, (x0 + x1) / 2 - min_x + 1,
                          (z0 + z1) / 2 - min_z + 1, i, &node) != 0)
      return DG_ENOMEM;
    level->graph.nodes[node].depth = p->depth;
  }
  for (int i = 0; i < state->connections.count; i++) {
    const authored_connection *c = &state->connections.items[i];
    int a = state->connectors.items[c->a].placement, b = state->connectors.items[c->b].placement;
    const dg_node *na = &level->graph.nodes[a], *nb = &level->graph.nodes[b];
    /* A corridor's length is its walk (steps between its blocks). */
    int length = c->path_count > 1 ? c->path_count - 1 : abs(na->x - nb->x) + abs(na->y - nb->y);
    const char *kind = c->cycle < 0 ? "door" : c->kind;
    if (dg_graph_add_edge(&level->graph, a, b, kind, length > 0 ? length : 1) != 0)
      return DG_ENOMEM;
  }
  if (grid) {
    int rc = draw_grid(state, min_x, min_z, max_x, max_z, err);
    if (rc != 0)
      return rc;
  }
  return 0;
}

static int by_ns(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The cycle pass's deterministic figures as stats; the wall-clock cost of
 * failed searches (seed 003's "Failed connection cost" table) as timings. */
static void set_cycle_figures(dg_level *level, authored_cycles *cy) {
  dg_level_set_stat(level, "cycle_candidates", cy->candidates);
  dg_level_set_stat(level, "cycle_attempts", cy->attempts);
  dg_level_set_stat(level, "cycles_built", cy->built.count);
  dg_level_set_stat(level, "cycle_conversion_permille",
                    cy->attempts > 0 ? cy->built.count * 1000 / cy->attempts : 0);
  dg_level_set_stat(level, "cycle_rooms_added", cy->rooms_added);
  dg_level_set_stat(level, "cycle_cost_total", cy->cost_total);
  dg_level_set_stat(level, "cycle_skipped_shortened", cy->skipped_shortened);
  dg_level_set_stat(level, "cycle_skipped_used", cy->skipped_used);
  dg_level_set_stat(level, "cycle_failed_table", cy->failed_table);
  dg_level_set_stat(level, "cycle_failed_cutoff", cy->failed_cutoff);
  dg_level_set_stat(level, "cycle_failed_exhausted", cy->failed_exhausted);
  dg_level_set_stat(level, "cycle_expansions", cy->expansions);
  dg_level_set_stat(level, "cycle_failed_expansions", cy->failed_expansions);
  if (cy->fail_ns.count > 0) {
    qsort(cy->fail_ns.items, (size_t)cy->fail_ns.count, sizeof *cy->fail_ns.items, by_ns);
    static const char *const names[4] = {"fail_p50", "fail_p75", "fail_p90", "fail_p99"};
    static const int percent[4] = {50, 75, 90, 99};
    for (int i = 0; i < 4; i++)
      dg_level_set_timing(level, names[i],
                          cy->fail_ns.items[(int64_t)(cy->fail_ns.count - 1) * percent[i] / 100]);
  }
}

/* The growth's figures as the level's stats. */
static void set_growth_stats(const authored_state *state, int tree_rooms) {
  dg_level *level = state->level;
  int max_depth = 0;
  for (int i = 0; i < state->placements.count; i++)
    max_depth =
        state->placements.items[i].depth > max_depth ? state->placements.items[i].depth : max_depth;
  dg_level_set_stat(level, "rooms_requested", dg_param_int(state->params, AUTHORED_P_ROOMS));
  dg_level_set_stat(level, "rooms_placed", tree_rooms);
  dg_level_set_stat(level, "out_of_space", state->out_of_space);
  dg_level_set_stat(level, "tree_depth_max", max_depth);
  dg_level_set_stat(level, "fit_checks", state->fit_checks);
  dg_level_set_stat(level, "moves_rejected", state->rejected_moves);
  dg_level_set_stat(level, "connectors_closed", state->closed_connectors);
  dg_level_set_stat(level, "roomset_moves", state->set->move_count);
  dg_level_set_stat(level, "roomset_move_groups", state->set->group_count);
}

/* The level's authored extension: the set's names and rooms copied, the
 * state's arrays taken over (set to NULL in state, so that authored_state_close
 * frees only the rest). Output: *out_ptr, owned by the caller until the
 * level takes it; it is set even on failure so that it can be freed. */
static int build_output(authored_state *state, int min_x, int min_z, authored_output **out_ptr) {
  const authored_roomset *set = state->set;
  authored_output *out = *out_ptr = calloc(1, sizeof *out);
  if (out == NULL)
    return DG_ENOMEM;
  snprintf(out->roomset, sizeof out->roomset, "%s", set->name);
  memcpy(state->level->roomset_sha256, set->sha256, sizeof state->level->roomset_sha256);
  snprintf(out->biome, sizeof out->biome, "%s", set->biome);
  out->out_of_space = state->out_of_space;
  out->grid_origin[0] = min_x - 1;
  out->grid_origin[1] = min_z - 1;
  out->rooms = malloc((size_t)set->room_count * sizeof *out->rooms);
  if (out->rooms == NULL)
    return DG_ENOMEM;
  memcpy(out->rooms, set->rooms, (size_t)set->room_count * sizeof *out->rooms);
  out->placements = state->placements.items;
  out->placement_count = state->placements.count;
  out->connectors = state->connectors.items;
  out->connections = state->connections.items;
  out->connection_count = state->connections.count;
  out->boxes = state->occupancy.boxes.items;
  out->path = state->path.items;
  state->path.items = NULL;
  state->placements.items = NULL;
  state->connectors.items = NULL;
  state->connections.items = NULL;
  state->occupancy.boxes.items = NULL;
  out->cycles = state->cycles;
  state->cycles = NULL;
  return 0;
}

static int authored_generate(const dg_context *context, const dg_request *request,
                             dg_cancel *cancel, dg_level *level, dg_error *err) {
  const dg_params *p = &request->params;
  const char *name = dg_param_string(p, AUTHORED_P_ROOMSET);
  const authored_roomset *set = dg_context_find_roomset(context, name);
  if (set == NULL)
    return dg_error_set(err, DG_ENOENT, "params.roomset",
                        "params.roomset: no room set named '%s' is loaded (%d loaded)", name,
                        dg_context_roomset_count(context));
  authored_state state = {
      .set = set, .params = p, .level = level, .current_chain = -1, .cancel = cancel};
  authored_output *out = NULL;
  dg_rng_seed(&state.layout, request->seed, DG_STREAM_LAYOUT);
  dg_rng_seed(&state.choice, request->seed, DG_STREAM_CHOICE);
  int rc = authored_occ_init(&state.occupancy);
  if (rc != 0)
    goto fail;
  uint64_t started = dg_monotonic_ns();
  if ((rc = authored_grow(&state, cancel, authored_close_cycles)) != 0)
    goto fail;
  int tree_rooms = state.tree_count;
  if ((rc = authored_close_cycles(&state, cancel)) != 0)
    goto fail;
  /* Cycle passes run inside growth too: growth's own time is the rest. */
  dg_level_set_timing(level, "tree_growth", dg_monotonic_ns() - started - state.cycles->ns);
  dg_level_set_timing(level, "cycles", state.cycles->ns);
  set_cycle_figures(level, state.cycles);
  if ((rc = fill_level(&state, err)) != 0)
    goto fail;
  int min_x = 0, min_z = 0, max_x = 0, max_z = 0;
  extent(&state, &min_x, &min_z, &max_x, &max_z);
  set_growth_stats(&state, tree_rooms);
  if ((rc = build_output(&state, min_x, min_z, &out)) != 0)
    goto fail;
  level->extension = (dg_level_extension){out, authored_output_free, authored_write_json, NULL};
  level->storey_plan = authored_storey_plan;
  authored_search_free(&state);
  authored_state_close(&state);
  return 0;
fail:
  authored_output_free(out);
  authored_search_free(&state);
  authored_state_close(&state);
  if (err != NULL && err->code != 0)
    return err->code;
  return dg_error_from_code(err, rc);
}

const dg_algorithm dg_algorithm_authored = {
    .name = "authored",
    .summary = "dungeon assembled from hand-built rooms of a room set, grown as a tree from a "
               "start room by precomputed moves, nearest open connector first",
    .source = "the article \"Building dungeon cycles from authored rooms\" (a Minecraft dungeon "
              "crawler's generator): a radial tree, then cycles by weighted-A* room chains",
    .params = authored_params,
    .param_count = AUTHORED_P_COUNT,
    .validate = NULL,
    .generate = authored_generate,
};
