/* Connecting the `landmark` rooms (seed 001, steps 2 and 3). One random
 * floor tile per room; the Delaunay triangulation of those points; its
 * minimum spanning tree so that no room is left out; then further
 * triangulation edges, shortest first, until the mean degree reaches the
 * target ("I try to aim at each room having 2-3 connections"). Each edge is
 * then dug by A* over a cost field: rock whose hardness comes from fractal
 * noise (the "rock density layer" the seed plans), a dearer ring round each
 * room's walls ("to avoid the tunnels wrapping around the rooms"), a charge
 * per change of direction, cheap existing tunnels (reused when cheaper), and
 * doors where a tunnel crosses a wall. */
/* Floating-point results feed the level, so they must not depend on the
 * compiler fusing a * b + c into one rounding where the target has FMA
 * (clang does by default; GCC does not in ISO C mode). */
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#include <stdlib.h>
#include <string.h>

#include "core/fp.h"
#include "dungeon/request.h"
#include "geometry/delaunay.h"
#include "geometry/mst.h"
#include "landmark.h"
#include "noise/noise.h"

#define COST_MAX DG_ASTAR_COST_MASK

static uint16_t clamp_cost(long cost) {
  return (uint16_t)(cost < 1 ? 1 : cost > COST_MAX ? COST_MAX : cost);
}

static bool is_floor(const landmark_state *state, int x, int y) {
  return dg_grid_get(state->grid, x, y) == DG_TILE_FLOOR;
}
static bool is_wall(const landmark_state *state, int x, int y) {
  dg_tile t = dg_grid_get(state->grid, x, y);
  return t == DG_TILE_WALL || t == DG_TILE_DOOR;
}

/* A wall tile a tunnel may cross: floor on one side, open rock on the other,
 * and wall on both sides along the wall, so a tunnel entering it can only go
 * straight through (it is marked DG_ASTAR_STRAIGHT), never along the wall. */
static bool door_candidate(const landmark_state *state, int x, int y) {
  if (x < 1 || y < 1 || x >= state->width - 1 || y >= state->height - 1)
    return false;
  bool across_x =
      ((is_floor(state, x - 1, y) && !is_floor(state, x + 1, y) && !is_wall(state, x + 1, y)) ||
       (is_floor(state, x + 1, y) && !is_floor(state, x - 1, y) && !is_wall(state, x - 1, y))) &&
      is_wall(state, x, y - 1) && is_wall(state, x, y + 1);
  bool across_y =
      ((is_floor(state, x, y - 1) && !is_floor(state, x, y + 1) && !is_wall(state, x, y + 1)) ||
       (is_floor(state, x, y + 1) && !is_floor(state, x, y - 1) && !is_wall(state, x, y - 1))) &&
      is_wall(state, x - 1, y) && is_wall(state, x + 1, y);
  return across_x || across_y;
}

/* across[c]: a wall at tile c or beside it in its row, so that "a wall in
 * the 3x3 block round a tile" (the perimeter ring) is three reads. */
static void walls_across(const landmark_state *state, uint8_t *across) {
  const int width = state->width;
  for (int y = 0; y < state->height; y++) {
    const uint8_t *row = state->grid->tiles + (long)y * width;
    uint8_t *out = across + (long)y * width;
    for (int x = 0; x < width; x++)
      out[x] = row[x] == DG_TILE_WALL;
    /* Then the neighbours in the row, from a copy of the tile's own. */
    uint8_t left = 0;
    for (int x = 0; x < width; x++) {
      uint8_t here = out[x], right = x + 1 < width ? row[x + 1] == DG_TILE_WALL : 0;
      out[x] = (uint8_t)(here | left | right);
      left = here;
    }
  }
}

/* The entry cost of open rock from its noise value `density`: hardness
 * in [0, 1]. fBm rarely strays far from 0, so it is stretched (x1.5) and
 * clamped, which makes soft plains and hard clusters; squaring then keeps
 * soft rock common and the clusters dear, "clusters of hard rock that the
 * corridors have to surround". Dearer beside a wall (the perimeter ring). */
static inline uint16_t rock_cost(float density, long base, long weight, long perimeter,
                                 bool near_wall) {
  float h = 0.5f + dg_fp_mulf(1.5f, density);
  h = h < 0.0f ? 0.0f : h > 1.0f ? 1.0f : h;
  long cost = base + (long)(dg_fp_mulf((float)weight * h, h) + 0.5f);
  return clamp_cost(near_wall ? cost + perimeter : cost);
}

/* The cost field before any tunnel: noise-hardened rock, the perimeter
 * ring, door candidates; floors and everything outside the mask closed. */
static int build_costs(landmark_state *state, uint32_t *min_cost) {
  const dg_params *p = state->params;
  long base = dg_param_int(p, LANDMARK_P_ROCK_BASE),
       weight = dg_param_int(p, LANDMARK_P_ROCK_WEIGHT);
  long perimeter = dg_param_int(p, LANDMARK_P_PERIMETER_PENALTY),
       door = dg_param_int(p, LANDMARK_P_DOOR_COST);
  float *density = dg_arena_alloc_uninit(&state->arena, (size_t)state->cells * sizeof *density);
  void *scratch = dg_arena_alloc(&state->arena, dg_noise_scratch_size(state->width));
  uint8_t *across = dg_arena_alloc_uninit(&state->arena, (size_t)state->cells);
  if (density == NULL || scratch == NULL || across == NULL)
    return DG_ENOMEM;
  walls_across(state, across);
  int rc = dg_cancel_check(state->cancel);
  if (rc != 0)
    return rc;
  /* Only open rock reads the noise, but the fill computes four tiles at
   * once, so the whole field costs less than a mask of the rock. */
  dg_noise noise;
  rc = dg_noise_init(&noise, state->seed, dg_param_int(p, LANDMARK_P_ROCK_OCTAVES),
                     1.0f / (float)dg_param_int(p, LANDMARK_P_ROCK_SCALE), 2.0f, 0.5f);
  if (rc == 0)
    rc = dg_noise_fill_where_cancellable(&noise, density, state->width, state->height, NULL,
                                         scratch, state->cancel);
  if (rc != 0)
    return rc;
  *min_cost = (uint32_t)(base < door ? base : door);
  long tunnel = dg_param_int(p, LANDMARK_P_TUNNEL_COST);
  *min_cost = (uint32_t)tunnel < *min_cost ? (uint32_t)tunnel : *min_cost;
  if ((rc = dg_cancel_check(state->cancel)) != 0)
    return rc;
  const int width = state->width, height = state->height;
  const uint16_t door_cost = (uint16_t)(clamp_cost(door) | DG_ASTAR_STRAIGHT);
  for (int y = 0; y < height; y++) {
    const long row = (long)y * width;
    const uint8_t *tiles = state->grid->tiles + row, *inside = state->inside + row;
    const uint8_t *above = across + (y > 0 ? row - width : row);
    const uint8_t *below = across + (y + 1 < height ? row + width : row);
    uint16_t *cost = state->cost + row;
    for (int x = 0; x < width; x++) {
      dg_tile t = (dg_tile)tiles[x];
      if (!inside[x] || t == DG_TILE_FLOOR)
        cost[x] = 0;
      else if (t == DG_TILE_WALL)
        cost[x] = door_candidate(state, x, y) ? door_cost : 0;
      else
        cost[x] = rock_cost(density[row + x], base, weight, perimeter,
                            (across[row + x] | above[x] | below[x]) != 0);
    }
  }
  return 0;
}

static void set_room_floor_cost(landmark_state *state, int room, uint16_t cost) {
  for (int i = state->room_start[room]; i < state->room_start[room + 1]; i++)
    state->cost[state->room_cells[i]] = cost;
}

/* Digs one tunnel along state->path: rock becomes corridor, crossed walls
 * become doors; both then cost as little as a tunnel so later ones reuse
 * them. */
static int dig(landmark_state *state, int length, uint16_t tunnel) {
  for (int i = 0; i < length; i++) {
    int c = state->path[i], x = c % state->width, y = c / state->width;
    dg_tile t = dg_grid_get(state->grid, x, y);
    if (t == DG_TILE_WALL) {
      dg_grid_set(state->grid, x, y, DG_TILE_DOOR);
      state->cost[c] = (uint16_t)(tunnel | DG_ASTAR_STRAIGHT);
      dg_door door = {.x = x, .y = y, .room = -2 - state->room_of[c], .secret = false};
      int rc = dg_level_add_door(state->level, &door);
      if (rc != 0)
        return rc;
      state->doors_made++;
    } else if (t == DG_TILE_STONE) {
      dg_grid_set(state->grid, x, y, DG_TILE_CORRIDOR);
      state->cost[c] = tunnel;
      state->tunnel_tiles++;
    }
  }
  return 0;
}

typedef struct planned_edge {
  int a, b;        /* rooms */
  int64_t length2; /* squared distance between their chosen tiles */
  bool mst;        /* kind "mst", else "extra" */
} planned_edge;

static int by_length(const void *pa, const void *pb) {
  const planned_edge *a = pa, *b = pb;
  if (a->length2 != b->length2)
    return a->length2 < b->length2 ? -1 : 1;
  if (a->a != b->a)
    return a->a < b->a ? -1 : 1;
  return (a->b > b->b) - (a->b < b->b);
}

/* Step 2: "I take a random cell from each one." One draw per room, in room
 * order; the cell becomes the room's graph node and its Delaunay point. */
static int pick_room_cells(landmark_state *state, int32_t *points, int *node_cell) {
  dg_level *level = state->level;
  for (int r = 0; r < level->room_count; r++) {
    int count = state->room_start[r + 1] - state->room_start[r];
    int c = state->room_cells[state->room_start[r] +
                              (int)dg_rng_below(&state->connect, (uint32_t)count)];
    node_cell[r] = c;
    points[2 * r] = c % state->width;
    points[2 * r + 1] = c / state->width;
    const char *kind = strcmp(level->rooms[r].kind, "landmark") == 0 ? "landmark" : "room";
    int rc = dg_graph_add_node(&level->graph, kind, c % state->width, c / state->width, r, NULL);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* Appends to plan[planned..] the triangulation edges outside the tree,
 * shortest first, while the mean degree is below the target and both ends
 * are below its ceiling. extra[] (past the tree's edges in plan[]) is the
 * scratch they are sorted in. Returns the new number of planned edges. */
static int add_extra_edges(const landmark_state *state, const dg_weighted_edge *weighted,
                           const bool *in_tree, int pair_count, planned_edge *plan, int planned,
                           int *degree) {
  int rooms = state->level->room_count;
  planned_edge *extra = plan + planned;
  int extra_count = 0;
  for (int e = 0; e < pair_count; e++)
    if (!in_tree[e])
      extra[extra_count++] =
          (planned_edge){weighted[e].a, weighted[e].b, weighted[e].weight, false};
  qsort(extra, (size_t)extra_count, sizeof *extra, by_length);
  double target = dg_param_float(state->params, LANDMARK_P_TARGET_DEGREE);
  int cap = (int)target;
  cap += (double)cap < target ? 1 : 0;
  /* Chosen extras are appended to plan[] over extra[] itself: the write
   * index never passes the read index e, so nothing unread is lost. */
  for (int e = 0; e < extra_count && 2.0 * planned < target * rooms; e++) {
    planned_edge edge = extra[e];
    if (degree[edge.a] >= cap || degree[edge.b] >= cap)
      continue;
    degree[edge.a]++;
    degree[edge.b]++;
    plan[planned++] = edge;
  }
  return planned;
}

/* The edges to dig: the minimum spanning tree of the Delaunay
 * triangulation of points[] (so no room is left out), shortest first, then
 * the extras (add_extra_edges). Outputs: *plan_out (arena memory) and
 * *planned_out, its length. */
static int plan_edges(landmark_state *state, dg_delaunay *delaunay, const int32_t *points,
                      int *degree, planned_edge **plan_out, int *planned_out) {
  dg_level *level = state->level;
  int rooms = level->room_count;
  int rc = dg_delaunay_build(delaunay, points, rooms);
  if (rc != 0)
    return rc;
  int capacity = dg_delaunay_edge_capacity(delaunay), pair_count = 0;
  int *pairs = dg_arena_calloc(&state->arena, 2 * (size_t)capacity, sizeof *pairs);
  dg_weighted_edge *weighted =
      dg_arena_calloc(&state->arena, (size_t)capacity + 1, sizeof *weighted);
  bool *in_tree = dg_arena_calloc(&state->arena, (size_t)capacity + 1, sizeof *in_tree);
  planned_edge *plan = dg_arena_calloc(&state->arena, (size_t)capacity + 1, sizeof *plan);
  if (pairs == NULL || weighted == NULL || in_tree == NULL || plan == NULL)
    return DG_ENOMEM;
  dg_delaunay_edges(delaunay, pairs, &pair_count);
  for (int e = 0; e < pair_count; e++) {
    int a = pairs[2 * e], b = pairs[2 * e + 1];
    int64_t dx = points[2 * a] - points[2 * b], dy = points[2 * a + 1] - points[2 * b + 1];
    weighted[e] = (dg_weighted_edge){a, b, dx * dx + dy * dy};
  }
  int trees = 0;
  if ((rc = dg_mst(rooms, weighted, pair_count, in_tree, NULL, &trees)) != 0)
    return rc;
  int planned = 0;
  for (int e = 0; e < pair_count; e++)
    if (in_tree[e]) {
      plan[planned++] = (planned_edge){weighted[e].a, weighted[e].b, weighted[e].weight, true};
      degree[weighted[e].a]++;
      degree[weighted[e].b]++;
    }
  int mst_edges = planned;
  qsort(plan, (size_t)planned, sizeof *plan, by_length);
  planned = add_extra_edges(state, weighted, in_tree, pair_count, plan, planned, degree);
  dg_level_set_stat(level, "triangulation_edges", pair_count);
  dg_level_set_stat(level, "mst_edges", mst_edges);
  dg_level_set_stat(level, "extra_edges", planned - mst_edges);
  *plan_out = plan;
  *planned_out = planned;
  return 0;
}

/* Step 3: digs each planned edge in order by A* over the cost field, from
 * one room's chosen cell to the other's, and records it in the graph. An
 * edge A* cannot join is counted in tunnels_failed, not an error. */
static int dig_tunnels(landmark_state *state, dg_astar *astar, const planned_edge *plan,
                       int planned, const int *node_cell) {
  const dg_params *p = state->params;
  uint32_t min_cost = 1;
  int rc = build_costs(state, &min_cost);
  if (rc != 0)
    return rc;
  bool exact_turns = dg_param_bool(p, LANDMARK_P_EXACT_TURNS);
  if ((rc = dg_astar_init(astar, state->width, state->height, exact_turns)) != 0)
    return rc;
  uint16_t tunnel = clamp_cost(dg_param_int(p, LANDMARK_P_TUNNEL_COST));
  dg_astar_query query = {.cost = state->cost,
                          .turn_cost = (uint32_t)dg_param_int(p, LANDMARK_P_TURN_PENALTY),
                          .min_cost =
                              min_cost * (uint32_t)dg_param_int(p, LANDMARK_P_HEURISTIC_WEIGHT),
                          .directional = exact_turns};
  long expanded = 0;
  for (int e = 0; e < planned; e++) {
    if ((e & 15) == 0 && (rc = dg_cancel_check(state->cancel)) != 0)
      return rc;
    int a = plan[e].a, b = plan[e].b;
    /* Only the two rooms being joined are open: a tunnel never runs
     * through another room. */
    set_room_floor_cost(state, a, tunnel);
    set_room_floor_cost(state, b, tunnel);
    query.start = node_cell[a];
    query.goal = node_cell[b];
    dg_astar_result result;
    int found = dg_astar_find(astar, &query, state->path, &result);
    set_room_floor_cost(state, a, 0);
    set_room_floor_cost(state, b, 0);
    expanded += result.expanded;
    if (found == DG_EUNSAT) {
      state->tunnels_failed++;
      continue;
    }
    if ((rc = found) != 0)
      return rc;
    if ((rc = dig(state, result.length, tunnel)) != 0)
      return rc;
    if ((rc = dg_graph_add_edge(&state->level->graph, a, b, plan[e].mst ? "mst" : "extra",
                                result.length > 1 ? result.length - 1 : 1)) != 0)
      return rc;
  }
  dg_level_set_stat(state->level, "astar_expanded", expanded);
  return 0;
}

int landmark_connect(landmark_state *state) {
  int rooms = state->level->room_count, rc = DG_ENOMEM;
  dg_delaunay delaunay;
  dg_delaunay_init(&delaunay);
  dg_astar astar = {0};
  int32_t *points = dg_arena_calloc(&state->arena, 2 * (size_t)rooms + 2, sizeof *points);
  int *node_cell = dg_arena_calloc(&state->arena, (size_t)rooms + 1, sizeof *node_cell);
  int *degree = dg_arena_calloc(&state->arena, (size_t)rooms + 1, sizeof *degree);
  planned_edge *plan = NULL;
  int planned = 0;
  if (points == NULL || node_cell == NULL || degree == NULL)
    goto done;
  if ((rc = pick_room_cells(state, points, node_cell)) != 0 ||
      (rc = dg_cancel_check(state->cancel)) != 0)
    goto done;
  if ((rc = plan_edges(state, &delaunay, points, degree, &plan, &planned)) != 0 ||
      (rc = dg_cancel_check(state->cancel)) != 0)
    goto done;
  rc = dig_tunnels(state, &astar, plan, planned, node_cell);
done:
  dg_astar_close(&astar);
  dg_delaunay_close(&delaunay);
  return rc;
}
