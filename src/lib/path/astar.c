/* A* over a weighted 4-connected grid (include/dungeon/astar.h), used by the
 * `landmark` generator to dig tunnels (seed 001, step 3) and benchmarked
 * against libtcod's path finder. States are cells, or (cell, direction) pairs
 * when turns cost or straight-only cells exist; every per-state array is
 * preallocated in the workspace and reset by bumping a search id. */
#include "dungeon/astar.h"

#include <stdlib.h>

#include "dungeon/error.h"

#define NO_PARENT UINT32_MAX
#define SCORE_LIMIT 0x7fffffffu /* g beyond this is treated as unreachable */

static const int step_x[4] = {1, -1, 0, 0};
static const int step_y[4] = {0, 0, 1, -1};

int dg_astar_init(dg_astar *astar, int width, int height, bool directional) {
  *astar = (dg_astar){0};
  if (width < 1 || height < 1 || (long)width * height > (1L << 28))
    return DG_EINVAL;
  size_t states = (size_t)width * (size_t)height * (directional ? 4u : 1u);
  astar->width = width;
  astar->height = height;
  astar->score = malloc(states * sizeof *astar->score);
  astar->parent = malloc(states * sizeof *astar->parent);
  astar->stamp = calloc(states, sizeof *astar->stamp);
  if (astar->score == NULL || astar->parent == NULL || astar->stamp == NULL ||
      dg_heap_init(&astar->heap, 1024) != 0) {
    dg_astar_close(astar);
    return DG_ENOMEM;
  }
  astar->directional_states = directional;
  return 0;
}

void dg_astar_close(dg_astar *astar) {
  free(astar->score);
  free(astar->parent);
  free(astar->stamp);
  dg_heap_close(&astar->heap);
  *astar = (dg_astar){0};
}

static inline uint32_t manhattan(int width, int cell, int goal_x, int goal_y, uint32_t scale) {
  int x = cell % width, y = cell / width;
  int dx = x > goal_x ? x - goal_x : goal_x - x, dy = y > goal_y ? y - goal_y : goal_y - y;
  return (uint32_t)(dx + dy) * scale;
}

/* A new search id; on wrap-around the stamps are cleared once. */
static void next_search(dg_astar *astar, size_t states) {
  if (++astar->search == 0) {
    for (size_t i = 0; i < states; i++)
      astar->stamp[i] = 0;
    astar->search = 1;
  }
  dg_heap_clear(&astar->heap);
}

static inline uint64_t key_of(uint32_t f, uint32_t g) {
  return (uint64_t)f << 32 | (uint64_t)(UINT32_MAX - g);
}

/* Plain search: one state per cell. Returns the goal state or NO_PARENT. */
static int search_cells(dg_astar *astar, const dg_astar_query *q, uint32_t *found,
                        long *expanded) {
  const int width = astar->width, height = astar->height;
  const int goal_x = q->goal % width, goal_y = q->goal / width;
  const uint32_t scale = q->min_cost, id = astar->search;
  uint32_t *score = astar->score, *parent = astar->parent, *stamp = astar->stamp;
  score[q->start] = 0;
  parent[q->start] = NO_PARENT;
  stamp[q->start] = id;
  if (dg_heap_push_key(&astar->heap, key_of(manhattan(width, q->start, goal_x, goal_y, scale), 0),
                       (uint32_t)q->start) != 0)
    return DG_ENOMEM;
  uint64_t key;
  uint32_t cell;
  while (dg_heap_pop_key(&astar->heap, &key, &cell)) {
    uint32_t g = UINT32_MAX - (uint32_t)key;
    if (g != score[cell])
      continue; /* a stale entry: the cell was reached more cheaply since */
    ++*expanded;
    if ((int)cell == q->goal) {
      *found = cell;
      return 0;
    }
    int x = (int)cell % width, y = (int)cell / width;
    for (int d = 0; d < 4; d++) {
      int nx = x + step_x[d], ny = y + step_y[d];
      if (nx < 0 || ny < 0 || nx >= width || ny >= height)
        continue;
      uint32_t next = (uint32_t)(ny * width + nx);
      uint32_t enter = q->cost[next] & DG_ASTAR_COST_MASK;
      if (enter == 0)
        continue;
      uint32_t ng = g + enter;
      if (ng > SCORE_LIMIT || (stamp[next] == id && score[next] <= ng))
        continue;
      stamp[next] = id;
      score[next] = ng;
      parent[next] = cell;
      uint32_t f = ng + manhattan(width, (int)next, goal_x, goal_y, scale);
      if (dg_heap_push_key(&astar->heap, key_of(f, ng), next) != 0)
        return DG_ENOMEM;
    }
  }
  *found = NO_PARENT;
  return 0;
}

/* Directional search: state = cell * 4 + direction of arrival. */
static int search_directions(dg_astar *astar, const dg_astar_query *q, uint32_t *found,
                             long *expanded) {
  const int width = astar->width, height = astar->height;
  const int goal_x = q->goal % width, goal_y = q->goal / width;
  const uint32_t scale = q->min_cost, id = astar->search, turn = q->turn_cost;
  uint32_t *score = astar->score, *parent = astar->parent, *stamp = astar->stamp;
  uint32_t h0 = manhattan(width, q->start, goal_x, goal_y, scale);
  /* The start may be left in any direction without a turn: one state each. */
  for (uint32_t d = 0; d < 4; d++) {
    uint32_t state = (uint32_t)q->start * 4 + d;
    score[state] = 0;
    parent[state] = NO_PARENT;
    stamp[state] = id;
    if (dg_heap_push_key(&astar->heap, key_of(h0, 0), state) != 0)
      return DG_ENOMEM;
  }
  uint64_t key;
  uint32_t state;
  while (dg_heap_pop_key(&astar->heap, &key, &state)) {
    uint32_t g = UINT32_MAX - (uint32_t)key;
    if (g != score[state])
      continue;
    ++*expanded;
    int cell = (int)(state >> 2), dir = (int)(state & 3);
    if (cell == q->goal) {
      *found = state;
      return 0;
    }
    int x = cell % width, y = cell / width;
    bool straight = (q->cost[cell] & DG_ASTAR_STRAIGHT) != 0 && cell != q->start;
    for (int d = 0; d < 4; d++) {
      if (straight && d != dir)
        continue;
      int nx = x + step_x[d], ny = y + step_y[d];
      if (nx < 0 || ny < 0 || nx >= width || ny >= height)
        continue;
      int next_cell = ny * width + nx;
      uint32_t enter = q->cost[next_cell] & DG_ASTAR_COST_MASK;
      if (enter == 0)
        continue;
      uint32_t ng = g + enter + (d != dir ? turn : 0);
      uint32_t next = (uint32_t)next_cell * 4 + (uint32_t)d;
      if (ng > SCORE_LIMIT || (stamp[next] == id && score[next] <= ng))
        continue;
      stamp[next] = id;
      score[next] = ng;
      parent[next] = state;
      uint32_t f = ng + manhattan(width, next_cell, goal_x, goal_y, scale);
      if (dg_heap_push_key(&astar->heap, key_of(f, ng), next) != 0)
        return DG_ENOMEM;
    }
  }
  *found = NO_PARENT;
  return 0;
}

int dg_astar_find(dg_astar *astar, const dg_astar_query *query, int *path,
                  dg_astar_result *result) {
  long cells = (long)astar->width * astar->height;
  *result = (dg_astar_result){0};
  if (query->start < 0 || query->start >= cells || query->goal < 0 || query->goal >= cells ||
      query->min_cost < 1 || (query->cost[query->goal] & DG_ASTAR_COST_MASK) == 0)
    return DG_EINVAL;
  if (query->directional && !astar->directional_states)
    return DG_EINVAL;
  next_search(astar, (size_t)cells * (astar->directional_states ? 4u : 1u));
  uint32_t found = NO_PARENT;
  int rc = query->directional ? search_directions(astar, query, &found, &result->expanded)
                              : search_cells(astar, query, &found, &result->expanded);
  if (rc != 0)
    return rc;
  if (found == NO_PARENT)
    return DG_EUNSAT;
  result->total_cost = astar->score[found];
  int length = 0;
  for (uint32_t s = found; s != NO_PARENT; s = astar->parent[s])
    length++;
  result->length = length;
  if (path != NULL) {
    int at = length;
    int shift = query->directional ? 2 : 0;
    for (uint32_t s = found; s != NO_PARENT; s = astar->parent[s])
      path[--at] = (int)(s >> shift);
  }
  return 0;
}
