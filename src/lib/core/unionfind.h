/* Internal: the library's union-find over a caller's int array (parent[i]
 * == i for a root). Path halving; the smaller index of two joined roots
 * becomes the root, so a set's root is its lowest element and results
 * do not depend on the order of unions. Inline: the grid metrics run it on
 * every tile of every level. Pure functions of the array; not thread-safe
 * on a shared array. */
#ifndef DUNGEON_CORE_UNIONFIND_H
#define DUNGEON_CORE_UNIONFIND_H

/* Makes parent[0 .. count) singletons. */
static inline void dg_uf_init(int *parent, int count) {
  for (int i = 0; i < count; i++)
    parent[i] = i;
}

/* The root of x's set. */
static inline int dg_uf_find(int *parent, int x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

/* Joins the sets of a and b; 1 when they were apart, 0 when already one. */
static inline int dg_uf_union(int *parent, int a, int b) {
  a = dg_uf_find(parent, a);
  b = dg_uf_find(parent, b);
  if (a == b)
    return 0;
  parent[a > b ? a : b] = a > b ? b : a;
  return 1;
}

#endif
