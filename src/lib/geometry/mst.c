/* Kruskal's minimum spanning forest (src/lib/geometry/mst.h): edges sorted by
 * (weight, index), the library's union-find (core/unionfind.h) decides
 * which edges join two trees. Used by the `landmark` generator (seed 001, step 2)
 * on the Delaunay edges between rooms. */
#include "geometry/mst.h"

#include <stdlib.h>

#include "core/unionfind.h"
#include "dungeon/error.h"

typedef struct sort_entry {
  int64_t weight;
  int index;
} sort_entry;

static int by_weight(const void *pa, const void *pb) {
  const sort_entry *a = pa, *b = pb;
  if (a->weight != b->weight)
    return a->weight < b->weight ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

int dg_mst(int node_count, const dg_weighted_edge *edges, int edge_count, bool *in_tree,
           int *chosen, int *trees) {
  if (node_count < 0 || edge_count < 0)
    return DG_EINVAL;
  for (int i = 0; i < edge_count; i++)
    if (edges[i].a < 0 || edges[i].a >= node_count || edges[i].b < 0 || edges[i].b >= node_count)
      return DG_EINVAL;
  int rc = DG_ENOMEM;
  sort_entry *sorted = malloc(((size_t)edge_count + 1) * sizeof *sorted);
  int *parent = malloc(((size_t)node_count + 1) * sizeof *parent);
  if (sorted == NULL || parent == NULL)
    goto fail;
  for (int i = 0; i < edge_count; i++) {
    sorted[i] = (sort_entry){edges[i].weight, i};
    in_tree[i] = false;
  }
  qsort(sorted, (size_t)edge_count, sizeof *sorted, by_weight);
  dg_uf_init(parent, node_count);
  int joined = 0;
  for (int i = 0; i < edge_count && joined + 1 < node_count; i++) {
    const dg_weighted_edge *e = &edges[sorted[i].index];
    if (!dg_uf_union(parent, e->a, e->b))
      continue;
    in_tree[sorted[i].index] = true;
    joined++;
  }
  if (chosen != NULL)
    *chosen = joined;
  if (trees != NULL)
    *trees = node_count - joined;
  rc = 0;
fail:
  free(sorted);
  free(parent);
  return rc;
}
