/* Internal: minimum spanning forest of a weighted undirected graph (Kruskal with a
 * union-find by size and path halving).
 *
 * Seed 001, step 2: "take the minimum spanning tree of that triangulation to
 * get the shortest set of edges that would connect all the rooms". Equal
 * weights are taken in edge order, so the result is deterministic. Pure and
 * thread-safe. */
#ifndef DUNGEON_MST_H
#define DUNGEON_MST_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dg_weighted_edge {
  int a, b;       /* node indices in [0, node_count) */
  int64_t weight; /* any value; smaller is preferred */
} dg_weighted_edge;

/* Marks in `in_tree` (edge_count bools, written) the edges of a minimum
 * spanning forest of the graph; the number chosen goes to *chosen (may be
 * NULL) and the number of trees (connected components) to *trees (may be
 * NULL). Returns 0, DG_EINVAL (negative count or an edge end out of range)
 * or DG_ENOMEM. Allocates its scratch itself and frees it. */
int dg_mst(int node_count, const dg_weighted_edge *edges, int edge_count, bool *in_tree,
           int *chosen, int *trees);

#ifdef __cplusplus
}
#endif
#endif
