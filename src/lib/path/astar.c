/* A* over a weighted 4-connected grid (src/lib/path/astar.h), used by the
 * `landmark` generator to dig tunnels (seed 001, step 3) and benchmarked
 * against libtcod's path finder. States are cells, or (cell, direction) pairs
 * when turns cost or straight-only cells exist; every per-state array is
 * preallocated in the workspace and reset by bumping a search id. */
#include "path/astar.h"

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
  astar->node = calloc(states, sizeof *astar->node);
  if (astar->node == NULL || dg_heap_init(&astar->open, 1024) != 0) {
    dg_astar_close(astar);
    return DG_ENOMEM;
  }
  astar->directional_states = directional;
  /* Division by the width as a multiply: with n * width <= 2^shift for
   * every cell n, ceil(2^shift / width) rounds no quotient up (its error
   * stays below 1 / width), and n times it stays below 2^64 since cells
   * are at most 2^28. */
  uint64_t cells = (uint64_t)width * (uint64_t)height, span = cells * (uint64_t)width;
  unsigned shift = 0;
  while ((1ull << shift) < span)
    shift++;
  astar->row_shift = shift;
  astar->row_magic = ((1ull << shift) + (uint64_t)width - 1) / (uint64_t)width;
  return 0;
}

void dg_astar_close(dg_astar *astar) {
  free(astar->node);
  dg_heap_close(&astar->open);
  *astar = (dg_astar){0};
}

static inline uint32_t manhattan(int x, int y, int goal_x, int goal_y, uint32_t scale) {
  int dx = x > goal_x ? x - goal_x : goal_x - x, dy = y > goal_y ? y - goal_y : goal_y - y;
  return (uint32_t)(dx + dy) * scale;
}

/* A new search id; when the 16-bit stamps run out they are cleared once. */
static void next_search(dg_astar *astar, size_t states) {
  if (++astar->search > 0xffffu) {
    for (size_t i = 0; i < states; i++)
      astar->node[i].stamp = 0;
    astar->search = 1;
  }
  dg_heap_clear(&astar->open);
}

/* The fewest turns any path needs from (x, y) heading `dir` to the goal on
 * an open grid (a reversal is one turn, as the search charges it): exact
 * there, so a lower bound here, and consistent with the turn charges. */
static inline uint32_t turns_needed(int x, int y, int dir, int goal_x, int goal_y) {
  int toward_x = goal_x > x ? 0 : 1, toward_y = goal_y > y ? 2 : 3;
  bool need_x = x != goal_x, need_y = y != goal_y;
  if (need_x && need_y)
    return dir == toward_x || dir == toward_y ? 1 : 2;
  if (need_x)
    return dir == toward_x ? 0 : 1;
  if (need_y)
    return dir == toward_y ? 0 : 1;
  return 0;
}

static inline uint64_t key_of(uint32_t f, uint32_t g) {
  return (uint64_t)f << 32 | (uint64_t)(UINT32_MAX - g);
}

/* What search_cells keeps for its whole run. */
typedef struct cell_search {
  const uint16_t *cost; /* the query's entry costs */
  dg_astar_node *node;  /* the workspace's states */
  dg_astar *astar;      /* the open set's owner */
  uint16_t id;          /* this search's stamp */
  uint32_t scale;       /* heuristic cost per step */
  int goal_x, goal_y;   /* the goal's coordinates */
} cell_search;

/* Offers `next` at (nx, ny), entered from `cell` whose score is g with
 * `turn` charged: kept when it beats what the state has. 0 or DG_ENOMEM. */
static inline int relax_cell(const cell_search *s, uint32_t next, unsigned step, int nx, int ny,
                             uint32_t g, uint32_t turn) {
  uint32_t enter = s->cost[next] & DG_ASTAR_COST_MASK;
  if (enter == 0)
    return 0;
  uint32_t ng = g + enter + turn;
  dg_astar_node *n = &s->node[next];
  if (ng > SCORE_LIMIT || (n->stamp == s->id && n->score <= ng))
    return 0;
  *n = (dg_astar_node){ng, s->id, (uint8_t)step, 0};
  uint32_t f = ng + manhattan(nx, ny, s->goal_x, s->goal_y, s->scale);
  return dg_heap_push_key(&s->astar->open, key_of(f, ng), next);
}

/* Search over cells: one state per cell. Turn charges and straight-only
 * cells are judged against each cell's best arrival so far. Returns the
 * goal state or NO_PARENT through *found. The four neighbours are written
 * out in the order of step_x/step_y (east, west, south, north) so that each
 * has one bounds test, and rows come from a multiply, not a division. */
static int search_cells(dg_astar *astar, const dg_astar_query *q, uint32_t *found, long *expanded) {
  const int width = astar->width, height = astar->height;
  const uint64_t magic = astar->row_magic;
  const unsigned shift = astar->row_shift;
  cell_search s = {.cost = q->cost,
                   .node = astar->node,
                   .astar = astar,
                   .id = (uint16_t)astar->search,
                   .scale = q->min_cost,
                   .goal_x = q->goal % width,
                   .goal_y = q->goal / width};
  dg_astar_node *node = astar->node;
  node[q->start] = (dg_astar_node){0, s.id, DG_ASTAR_NO_PARENT, 0};
  /* The steps as the parent's delta names them: +1 is 0, -1 is 1, then
   * +width 2 and -width 3, except on a one-column grid, where +width is
   * +1 (the direction a turn charge and a straight-only cell compare). */
  const unsigned south = width == 1 ? 0 : 2, north = width == 1 ? 1 : 3;
  uint32_t h0 = manhattan(q->start % width, q->start / width, s.goal_x, s.goal_y, s.scale);
  if (dg_heap_push_key(&astar->open, key_of(h0, 0), (uint32_t)q->start) != 0)
    return DG_ENOMEM;
  uint64_t key;
  uint32_t cell;
  while (dg_heap_pop_key(&astar->open, &key, &cell)) {
    uint32_t g = UINT32_MAX - (uint32_t)key;
    if (g != node[cell].score)
      continue; /* a stale entry: the cell was reached more cheaply since */
    ++*expanded;
    if ((int)cell == q->goal) {
      *found = cell;
      return 0;
    }
    int y = (int)(cell * magic >> shift), x = (int)cell - y * width;
    /* The direction of the best arrival, for turn charges and
     * straight-only cells; -1 at the start. */
    int arrival = node[cell].step == DG_ASTAR_NO_PARENT ? -1 : node[cell].step;
    bool straight = arrival >= 0 && (q->cost[cell] & DG_ASTAR_STRAIGHT) != 0;
    uint32_t turn = arrival >= 0 ? q->turn_cost : 0;
    int rc = 0;
    if ((!straight || arrival == 0) && x + 1 < width)
      rc = relax_cell(&s, cell + 1, 0, x + 1, y, g, arrival != 0 ? turn : 0);
    if (rc == 0 && (!straight || arrival == 1) && x > 0)
      rc = relax_cell(&s, cell - 1, 1, x - 1, y, g, arrival != 1 ? turn : 0);
    if (rc == 0 && (!straight || arrival == (int)south) && y + 1 < height)
      rc = relax_cell(&s, cell + (uint32_t)width, south, x, y + 1, g,
                      arrival != (int)south ? turn : 0);
    if (rc == 0 && (!straight || arrival == (int)north) && y > 0)
      rc = relax_cell(&s, cell - (uint32_t)width, north, x, y - 1, g,
                      arrival != (int)north ? turn : 0);
    if (rc != 0)
      return rc;
  }
  *found = NO_PARENT;
  return 0;
}

/* Directional search: state = cell * 4 + direction of arrival. */
static int search_directions(dg_astar *astar, const dg_astar_query *q, uint32_t *found,
                             long *expanded) {
  const int width = astar->width, height = astar->height;
  const int goal_x = q->goal % width, goal_y = q->goal / width;
  const uint32_t scale = q->min_cost, turn = q->turn_cost;
  const uint16_t id = (uint16_t)astar->search;
  dg_astar_node *node = astar->node;
  const int start_x = q->start % width, start_y = q->start / width;
  uint32_t h0 = manhattan(start_x, start_y, goal_x, goal_y, scale);
  /* The start may be left in any direction without a turn: one state each. */
  for (uint32_t d = 0; d < 4; d++) {
    uint32_t state = (uint32_t)q->start * 4 + d;
    node[state] = (dg_astar_node){0, id, DG_ASTAR_NO_PARENT, 0};
    uint32_t h = h0 + turn * turns_needed(start_x, start_y, (int)d, goal_x, goal_y);
    if (dg_heap_push_key(&astar->open, key_of(h, 0), state) != 0)
      return DG_ENOMEM;
  }
  uint64_t key;
  uint32_t state;
  while (dg_heap_pop_key(&astar->open, &key, &state)) {
    uint32_t g = UINT32_MAX - (uint32_t)key;
    if (g != node[state].score)
      continue;
    ++*expanded;
    int cell = (int)(state >> 2), dir = (int)(state & 3);
    if (cell == q->goal) {
      *found = state;
      return 0;
    }
    int x = cell % width, y = cell / width;
    bool straight = (q->cost[cell] & DG_ASTAR_STRAIGHT) != 0 && cell != q->start;
    bool at_start = cell == q->start;
    for (int d = 0; d < 4; d++) {
      /* Going straight back is never cheaper than turning one tile
       * earlier, and would let a path U-turn inside a straight-only cell. */
      if ((straight && d != dir) || (!at_start && d == (dir ^ 1)))
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
      if (ng > SCORE_LIMIT || (node[next].stamp == id && node[next].score <= ng))
        continue;
      node[next] = (dg_astar_node){ng, id, (uint8_t)dir, 0};
      uint32_t f = ng + manhattan(nx, ny, goal_x, goal_y, scale) +
                   turn * turns_needed(nx, ny, d, goal_x, goal_y);
      if (dg_heap_push_key(&astar->open, key_of(f, ng), next) != 0)
        return DG_ENOMEM;
    }
  }
  *found = NO_PARENT;
  return 0;
}

/* The state before `state` on its best path, NO_PARENT at a start: the
 * cell one step back, and for direction states the stored direction. */
static uint32_t parent_of(const dg_astar *astar, bool directional, uint32_t state) {
  const dg_astar_node *n = &astar->node[state];
  if (n->step == DG_ASTAR_NO_PARENT)
    return NO_PARENT;
  const int32_t back[4] = {-1, 1, -astar->width, astar->width};
  if (!directional)
    return (uint32_t)((int32_t)state + back[n->step]);
  uint32_t cell = (uint32_t)((int32_t)(state >> 2) + back[state & 3]);
  return cell * 4 + n->step;
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
  result->total_cost = astar->node[found].score;
  int length = 0;
  for (uint32_t s = found; s != NO_PARENT; s = parent_of(astar, query->directional, s))
    length++;
  result->length = length;
  if (path != NULL) {
    int at = length;
    int shift = query->directional ? 2 : 0;
    for (uint32_t s = found; s != NO_PARENT; s = parent_of(astar, query->directional, s))
      path[--at] = (int)(s >> shift);
  }
  return 0;
}
