/* Internal: A* shortest paths on a weighted 4-connected grid.
 *
 * Each cell has a cost to enter (0 = impassable) and may be marked
 * "straight-only": a path that enters it must leave in the same direction
 * (doors in walls: a tunnel crosses a wall, it never runs along it). An
 * optional turn cost is charged each time the path changes direction
 * (seed 001, step 3: "I also penalize changing directions"). With turns or
 * straight-only cells the search runs over (cell, direction) states, and a
 * path never steps straight back onto the tile it came from (that is never
 * cheaper than turning a tile earlier).
 *
 * All working memory (scores, parents, visit stamps, the binary heap over
 * packed entries) belongs to a dg_astar workspace sized once
 * for a grid; a search allocates nothing per node, and stamps make clearing
 * between searches free. Not thread-safe: one workspace per thread. */
#ifndef DUNGEON_ASTAR_H
#define DUNGEON_ASTAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DG_ASTAR_STRAIGHT 0x8000u  /* cost flag: leave the cell the way you came */
#define DG_ASTAR_COST_MASK 0x7fffu /* the cost bits of a cell's value */

/* What a search knows of one state, in 8 bytes so that a 200x200 grid's
 * states (320 KB) stay in a core's L2 cache with the costs: at 12 bytes
 * they did not, and A*'s neighbour tests waited on memory. The parent is
 * not stored, only the step that reached the state (its cell is one step
 * back) and, for direction states, the parent's direction. */
typedef struct dg_astar_node {
  uint32_t score; /* g: cheapest known cost from the start */
  uint16_t stamp; /* search id (low 16 bits) that last touched the state */
  uint8_t step;   /* cell search: 0 +1, 1 -1, 2 +width, 3 -width from the
                     parent cell; direction search: the parent's direction;
                     DG_ASTAR_NO_PARENT at a start */
  uint8_t unused;
} dg_astar_node;

#define DG_ASTAR_NO_PARENT 0xffu

typedef struct dg_astar {
  int width, height;       /* grid the workspace is sized for */
  dg_astar_node *node;     /* one per state, valid where stamp == search */
  uint32_t search;         /* current search id, 1..0xffff */
  bool directional_states; /* sized for (cell, direction) states */
  uint64_t row_magic;      /* cell / width == cell * row_magic >> row_shift, exact */
  unsigned row_shift;      /* for every cell (dg_astar_init) */
  dg_heap open;            /* open set, raw keys f << 32 | (UINT32_MAX - g) and states
                              (cell, or cell * 4 + direction); the order of equal keys
                              decides the tunnels */
} dg_astar;

/* One search. Cells are y * width + x. */
typedef struct dg_astar_query {
  const uint16_t *cost; /* width*height: entry cost (1..0x7fff) | flags, 0 = wall */
  int start, goal;      /* cells; start need not be passable, goal must be */
  uint32_t turn_cost;   /* added per change of direction */
  uint32_t min_cost;    /* a lower bound of every passable cell's cost (>= 1),
                           scales the Manhattan heuristic; 1 is always safe */
  bool directional;     /* search (cell, direction) states: exact for
                           turn_cost > 0 and DG_ASTAR_STRAIGHT cells. When
                           false, those are judged against each cell's best
                           arrival only: four times fewer states, the path
                           is valid and its cost exact, but it may cost more
                           than the optimum (equal when turn_cost is 0 and
                           no straight-only cell matters) */
} dg_astar_query;

/* What a search found. */
typedef struct dg_astar_result {
  uint32_t total_cost; /* sum of entry costs (start excluded) and turn costs */
  int length;          /* cells on the path, start and goal included */
  long expanded;       /* states taken from the open set */
} dg_astar_result;

/* Sizes `astar` for a width x height grid, with direction states when
 * `directional` may be asked for. Returns 0, DG_EINVAL (bad size) or
 * DG_ENOMEM. Free with dg_astar_close. */
int dg_astar_init(dg_astar *astar, int width, int height, bool directional);

/* Frees the workspace; safe on a zeroed one. */
void dg_astar_close(dg_astar *astar);

/* Finds a path for `query`. The cells, start first, go to `path`
 * (room for width*height ints; may be NULL) and the figures to *result.
 * Returns 0, DG_EUNSAT when the goal cannot be reached, DG_EINVAL for bad
 * cells or a directional query on a workspace sized without directions,
 * or DG_ENOMEM. The path is optimal when `directional` (or with no turn
 * cost and no straight-only cells): A* with an admissible, consistent
 * heuristic. Deterministic. */
int dg_astar_find(dg_astar *astar, const dg_astar_query *query, int *path, dg_astar_result *result);

#ifdef __cplusplus
}
#endif
#endif
