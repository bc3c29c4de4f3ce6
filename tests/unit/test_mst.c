/* Kruskal's MST: its weight equals a brute-force Prim on random complete
 * graphs; it spans (V - 1 edges when connected); forests on disconnected
 * graphs; ties are deterministic; bad input rejected. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "dungeon/error.h"
#include "dungeon/rng.h"
#include "geometry/mst.h"

static int64_t prim(int n, const int64_t *w) {
  bool in[64] = {false};
  int64_t best[64], total = 0;
  for (int i = 0; i < n; i++)
    best[i] = INT64_MAX;
  best[0] = 0;
  for (int k = 0; k < n; k++) {
    int pick = -1;
    for (int i = 0; i < n; i++)
      if (!in[i] && (pick < 0 || best[i] < best[pick]))
        pick = i;
    in[pick] = true;
    total += best[pick];
    for (int i = 0; i < n; i++)
      if (!in[i] && w[pick * n + i] < best[i])
        best[i] = w[pick * n + i];
  }
  return total;
}

Test(mst, matches_prim_on_random_graphs) {
  dg_rng rng;
  dg_rng_seed(&rng, 77, 1);
  for (int round = 0; round < 50; round++) {
    int n = 2 + (int)dg_rng_below(&rng, 40);
    int64_t w[64 * 64];
    dg_weighted_edge edges[64 * 63 / 2];
    bool in_tree[64 * 63 / 2];
    int m = 0;
    for (int a = 0; a < n; a++)
      for (int b = a + 1; b < n; b++) {
        int64_t weight = (int64_t)dg_rng_below(&rng, 50); /* many ties */
        w[a * n + b] = w[b * n + a] = weight;
        edges[m++] = (dg_weighted_edge){a, b, weight};
      }
    int chosen = 0, trees = 0;
    cr_assert_eq(dg_mst(n, edges, m, in_tree, &chosen, &trees), 0);
    cr_assert_eq(chosen, n - 1);
    cr_assert_eq(trees, 1);
    int64_t total = 0;
    for (int i = 0; i < m; i++)
      total += in_tree[i] ? edges[i].weight : 0;
    cr_assert_eq(total, prim(n, w), "round %d", round);
  }
}

Test(mst, forest_on_disconnected_graph) {
  dg_weighted_edge edges[] = {{0, 1, 5}, {1, 2, 1}, {0, 2, 3}, {3, 4, 2}};
  bool in_tree[4];
  int chosen = 0, trees = 0;
  cr_assert_eq(dg_mst(6, edges, 4, in_tree, &chosen, &trees), 0);
  cr_assert_eq(chosen, 3);
  cr_assert_eq(trees, 3, "{0,1,2}, {3,4}, {5}");
  cr_assert(!in_tree[0] && in_tree[1] && in_tree[2] && in_tree[3]);
}

Test(mst, ties_take_the_earlier_edge) {
  dg_weighted_edge edges[] = {{0, 1, 1}, {1, 2, 1}, {0, 2, 1}};
  bool in_tree[3];
  cr_assert_eq(dg_mst(3, edges, 3, in_tree, NULL, NULL), 0);
  cr_assert(in_tree[0] && in_tree[1] && !in_tree[2]);
}

Test(mst, rejects_bad_edges) {
  dg_weighted_edge edges[] = {{0, 3, 1}};
  bool in_tree[1];
  cr_assert_eq(dg_mst(3, edges, 1, in_tree, NULL, NULL), DG_EINVAL);
  cr_assert_eq(dg_mst(-1, edges, 0, in_tree, NULL, NULL), DG_EINVAL);
  cr_assert_eq(dg_mst(0, edges, 0, in_tree, NULL, NULL), 0);
}
