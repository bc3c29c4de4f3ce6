/* Delaunay triangulation: the empty-circumcircle property checked by brute
 * force over random sets (with an independent 128-bit in-circle test),
 * Euler's count of triangles, orientation of every triangle, twin
 * consistency, and the degenerate inputs: duplicates, collinear points,
 * lattice grids full of co-circular points. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "dungeon/error.h"
#include "dungeon/rng.h"
#include "geometry/delaunay.h"

__extension__ typedef __int128 wide;

/* Independent exact in-circle: plain 128-bit arithmetic, no filter. */
static int incircle_reference(const int32_t *a, const int32_t *b, const int32_t *c,
                              const int32_t *d) {
  wide adx = a[0] - d[0], ady = a[1] - d[1], bdx = b[0] - d[0], bdy = b[1] - d[1];
  wide cdx = c[0] - d[0], cdy = c[1] - d[1];
  wide det = (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) +
             (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy) +
             (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady);
  return (det > 0) - (det < 0);
}

static int64_t orient_reference(const int32_t *a, const int32_t *b, const int32_t *c) {
  return ((int64_t)b[0] - a[0]) * ((int64_t)c[1] - a[1]) -
         ((int64_t)b[1] - a[1]) * ((int64_t)c[0] - a[0]);
}

/* Number of distinct points on the convex hull boundary (vertices only). */
static void check_triangulation(const int32_t *xy, int n, const dg_delaunay *d) {
  int t = d->triangle_count;
  for (int i = 0; i < t; i++) {
    const int *v = &d->triangles[3 * i];
    cr_assert_gt(orient_reference(&xy[2 * v[0]], &xy[2 * v[1]], &xy[2 * v[2]]), 0,
                 "triangle %d is not counter-clockwise", i);
    for (int p = 0; p < n; p++) {
      if (d->alias[p] != p)
        continue;
      cr_assert_leq(incircle_reference(&xy[2 * v[0]], &xy[2 * v[1]], &xy[2 * v[2]], &xy[2 * p]), 0,
                    "point %d (%d,%d) lies inside the circumcircle of triangle %d", p, xy[2 * p],
                    xy[2 * p + 1], i);
    }
  }
  int hull_edges = 0;
  for (int h = 0; h < 3 * t; h++) {
    int twin = d->halfedges[h];
    if (twin == -1) {
      hull_edges++;
      continue;
    }
    cr_assert_eq(d->halfedges[twin], h, "twins disagree at half-edge %d", h);
    int a = d->triangles[h], b = d->triangles[h % 3 == 2 ? h - 2 : h + 1];
    int ta = d->triangles[twin], tb = d->triangles[twin % 3 == 2 ? twin - 2 : twin + 1];
    cr_assert(a == tb && b == ta, "half-edge %d and its twin do not share ends", h);
  }
  if (t > 0) {
    int distinct = 0;
    for (int p = 0; p < n; p++)
      distinct += d->alias[p] == p;
    /* Euler: a triangulation of v points with h on the hull boundary
     * (collinear boundary points included) has 2v - h - 2 triangles. */
    cr_assert_eq(t, 2 * distinct - hull_edges - 2, "%d triangles for %d points, %d hull edges", t,
                 distinct, hull_edges);
  }
}

static void random_points(int32_t *xy, int n, int range, uint64_t seed) {
  dg_rng rng;
  dg_rng_seed(&rng, seed, 11);
  for (int i = 0; i < 2 * n; i++)
    xy[i] = (int32_t)dg_rng_below(&rng, (uint32_t)range);
}

Test(delaunay, random_sets_have_empty_circumcircles) {
  dg_delaunay d;
  dg_delaunay_init(&d);
  int32_t xy[2 * 300];
  for (uint64_t seed = 1; seed <= 60; seed++) {
    int n = 3 + (int)(seed * 5 % 297);
    int range = seed % 3 == 0 ? 20 : seed % 3 == 1 ? 1000 : DG_DELAUNAY_COORD_MAX;
    random_points(xy, n, range, seed);
    cr_assert_eq(dg_delaunay_build(&d, xy, n), 0, "seed %llu", (unsigned long long)seed);
    cr_assert_gt(d.triangle_count, 0);
    check_triangulation(xy, n, &d);
  }
  dg_delaunay_close(&d);
}

Test(delaunay, lattice_grid_cocircular) {
  dg_delaunay d;
  dg_delaunay_init(&d);
  int32_t xy[2 * 144];
  int n = 0;
  for (int y = 0; y < 12; y++)
    for (int x = 0; x < 12; x++) {
      xy[2 * n] = x * 3;
      xy[2 * n + 1] = y * 3;
      n++;
    }
  cr_assert_eq(dg_delaunay_build(&d, xy, n), 0);
  cr_assert_eq(d.triangle_count, 2 * 11 * 11, "a square lattice has two triangles per square");
  check_triangulation(xy, n, &d);
  dg_delaunay_close(&d);
}

Test(delaunay, duplicates_are_aliased) {
  dg_delaunay d;
  dg_delaunay_init(&d);
  int32_t xy[2 * 200];
  random_points(xy, 100, 50, 7);
  for (int i = 0; i < 100; i++) { /* every point twice */
    xy[200 + 2 * i] = xy[2 * i];
    xy[200 + 2 * i + 1] = xy[2 * i + 1];
  }
  cr_assert_eq(dg_delaunay_build(&d, xy, 200), 0);
  check_triangulation(xy, 200, &d);
  for (int i = 0; i < 200; i++) {
    int a = d.alias[i];
    cr_assert(xy[2 * a] == xy[2 * i] && xy[2 * a + 1] == xy[2 * i + 1]);
    cr_assert_eq(d.alias[a], a, "an alias points at a representative");
  }
  /* Edges span every point: a union-find over them gives one component. */
  int *pairs = malloc(2 * (size_t)dg_delaunay_edge_capacity(&d) * sizeof *pairs);
  int count = 0, parent[200];
  dg_delaunay_edges(&d, pairs, &count);
  for (int i = 0; i < 200; i++)
    parent[i] = i;
  for (int e = 0; e < count; e++) {
    int a = pairs[2 * e], b = pairs[2 * e + 1];
    while (parent[a] != a)
      a = parent[a];
    while (parent[b] != b)
      b = parent[b];
    parent[a] = b;
  }
  int roots = 0;
  for (int i = 0; i < 200; i++)
    roots += parent[i] == i;
  cr_assert_eq(roots, 1, "edges must connect every point, duplicates included");
  free(pairs);
  dg_delaunay_close(&d);
}

Test(delaunay, collinear_points_make_a_chain) {
  dg_delaunay d;
  dg_delaunay_init(&d);
  int32_t xy[2 * 10];
  for (int i = 0; i < 10; i++) { /* a diagonal line, shuffled */
    int k = (i * 7) % 10;
    xy[2 * i] = 5 + 2 * k;
    xy[2 * i + 1] = -3 + 3 * k;
  }
  cr_assert_eq(dg_delaunay_build(&d, xy, 10), 0);
  cr_assert_eq(d.triangle_count, 0);
  cr_assert_eq(d.line_count, 10);
  int pairs[2 * 32], count = 0;
  dg_delaunay_edges(&d, pairs, &count);
  cr_assert_eq(count, 9);
  for (int e = 0; e < count; e++) {
    int a = pairs[2 * e], b = pairs[2 * e + 1];
    int dx = abs(xy[2 * a] - xy[2 * b]);
    cr_assert_eq(dx, 2, "the chain joins neighbours along the line only");
  }
  /* Collinear then one point off the line: a fan. */
  int32_t fan[2 * 6] = {0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 2, 5};
  cr_assert_eq(dg_delaunay_build(&d, fan, 6), 0);
  cr_assert_eq(d.triangle_count, 4);
  check_triangulation(fan, 6, &d);
  dg_delaunay_close(&d);
}

Test(delaunay, tiny_and_invalid_inputs) {
  dg_delaunay d;
  dg_delaunay_init(&d);
  int32_t one[2] = {3, 4};
  cr_assert_eq(dg_delaunay_build(&d, one, 1), 0);
  cr_assert_eq(d.triangle_count, 0);
  cr_assert_eq(dg_delaunay_build(&d, one, 0), 0);
  int32_t far[6] = {0, 0, DG_DELAUNAY_COORD_MAX + 1, 0, 0, 1};
  cr_assert_eq(dg_delaunay_build(&d, far, 3), DG_EINVAL);
  cr_assert_eq(dg_delaunay_build(&d, far, -1), DG_EINVAL);
  dg_delaunay_close(&d);
}

Test(delaunay, predicates) {
  int32_t a[2] = {0, 0}, b[2] = {4, 0}, c[2] = {0, 4}, in[2] = {1, 1}, on[2] = {4, 4},
          out[2] = {5, 5};
  cr_assert_eq(dg_orient2d(a, b, c), 1);
  cr_assert_eq(dg_orient2d(a, c, b), -1);
  cr_assert_eq(dg_orient2d(a, b, (int32_t[]){8, 0}), 0);
  cr_assert_eq(dg_incircle(a, b, c, in), 1);
  cr_assert_eq(dg_incircle(a, b, c, on), 0);
  cr_assert_eq(dg_incircle(a, b, c, out), -1);
  /* Near-degenerate at the largest coordinates: the filter must defer. */
  int32_t m = DG_DELAUNAY_COORD_MAX;
  int32_t p[2] = {-m, -m}, q[2] = {m, -m}, r[2] = {m, m}, s[2] = {-m, m};
  cr_assert_eq(dg_incircle(p, q, r, s), 0, "four corners of a square are co-circular");
}

/* Every integer point on the circle x^2 + y^2 = 5525^2 (5525 = 5^2 13 17
 * has many representations), plus its centre, shifted next to the largest
 * coordinate allowed: dozens of co-circular points, where the flip loop's
 * floating-point filter must defer to the exact test, at the magnitudes
 * where its error bound is tightest. */
Test(delaunay, cocircular_points_at_large_coordinates) {
  enum { R = 5525 };
  int32_t xy[2 * 200];
  int n = 0;
  const int32_t cx = DG_DELAUNAY_COORD_MAX - R, cy = -DG_DELAUNAY_COORD_MAX + R;
  for (int64_t x = -R; x <= R; x++) {
    int64_t yy = (int64_t)R * R - x * x, y = 0;
    while ((y + 1) * (y + 1) <= yy)
      y++;
    if (y * y != yy)
      continue;
    cr_assert_lt(n + 2, 200);
    xy[2 * n] = (int32_t)(cx + x);
    xy[2 * n + 1] = (int32_t)(cy + y);
    n++;
    if (y != 0) {
      xy[2 * n] = (int32_t)(cx + x);
      xy[2 * n + 1] = (int32_t)(cy - y);
      n++;
    }
  }
  cr_assert_gt(n, 40, "the circle should hold many lattice points, got %d", n);
  xy[2 * n] = cx;
  xy[2 * n + 1] = cy;
  n++;
  dg_delaunay d;
  dg_delaunay_init(&d);
  cr_assert_eq(dg_delaunay_build(&d, xy, n), 0);
  check_triangulation(xy, n, &d);
  cr_assert_eq(d.triangle_count, n - 1, "the centre fans out to every point on the circle");
  /* Without the centre the whole set is co-circular: any triangulation of
   * the polygon is Delaunay, and it must still be a valid one. */
  cr_assert_eq(dg_delaunay_build(&d, xy, n - 1), 0);
  check_triangulation(xy, n - 1, &d);
  cr_assert_eq(d.triangle_count, n - 3);
  /* Nearly co-circular: every third point moved one unit towards the
   * centre's row, and a far corner that stretches the set to the full
   * range, so that the filter's bound (set by the extent) covers every
   * local test and the exact fallback decides them, signs included. */
  int m = n - 1;
  for (int i = 0; i < m; i += 3)
    xy[2 * i + 1] += xy[2 * i + 1] > cy ? -1 : 1;
  xy[2 * m] = -DG_DELAUNAY_COORD_MAX;
  xy[2 * m + 1] = DG_DELAUNAY_COORD_MAX;
  cr_assert_eq(dg_delaunay_build(&d, xy, m + 1), 0);
  check_triangulation(xy, m + 1, &d);
  dg_delaunay_close(&d);
}

/* A dg_delaunay reused across sets of different sizes (its arrays grow,
 * then are kept) gives exactly what a fresh one gives. */
Test(delaunay, rebuild_matches_fresh_build) {
  static int32_t big[2 * 2000], small[2 * 40];
  random_points(big, 2000, 1 << 16, 5);
  random_points(small, 40, 1 << 10, 6);
  dg_delaunay reused, fresh;
  dg_delaunay_init(&reused);
  const int32_t *sets[] = {small, big, small, big};
  const int sizes[] = {40, 2000, 40, 2000};
  for (int k = 0; k < 4; k++) {
    dg_delaunay_init(&fresh);
    cr_assert_eq(dg_delaunay_build(&reused, sets[k], sizes[k]), 0);
    cr_assert_eq(dg_delaunay_build(&fresh, sets[k], sizes[k]), 0);
    cr_assert_eq(reused.triangle_count, fresh.triangle_count);
    cr_assert_gt(fresh.triangle_count, 0);
    for (int h = 0; h < 3 * fresh.triangle_count; h++) {
      cr_assert_eq(reused.triangles[h], fresh.triangles[h], "build %d, half-edge %d", k, h);
      cr_assert_eq(reused.halfedges[h], fresh.halfedges[h], "build %d, half-edge %d", k, h);
    }
    dg_delaunay_close(&fresh);
  }
  dg_delaunay_close(&reused);
}

/* Large sets (the sort switches to wider digits from 4096 points): each
 * triangle counter-clockwise, twins consistent, and every inner edge
 * locally Delaunay (the far corner of the twin triangle not strictly
 * inside the circumcircle), which for a triangulation implies the global
 * empty-circumcircle property without the quadratic check. */
Test(delaunay, large_sets_are_locally_delaunay) {
  enum { N = 6000 };
  static int32_t xy[2 * N];
  dg_delaunay d;
  dg_delaunay_init(&d);
  for (uint64_t seed = 1; seed <= 3; seed++) {
    random_points(xy, N, seed == 3 ? 300 : 1 << 20, seed); /* 300: many duplicates */
    cr_assert_eq(dg_delaunay_build(&d, xy, N), 0);
    int t = d.triangle_count, hull_edges = 0, distinct = 0;
    for (int p = 0; p < N; p++)
      distinct += d.alias[p] == p;
    for (int h = 0; h < 3 * t; h++) {
      const int *v = &d.triangles[3 * (h / 3)];
      if (h % 3 == 0)
        cr_assert_gt(orient_reference(&xy[2 * v[0]], &xy[2 * v[1]], &xy[2 * v[2]]), 0);
      int twin = d.halfedges[h];
      if (twin == -1) {
        hull_edges++;
        continue;
      }
      cr_assert_eq(d.halfedges[twin], h);
      int far = d.triangles[twin % 3 == 0 ? twin + 2 : twin - 1];
      cr_assert_leq(incircle_reference(&xy[2 * v[0]], &xy[2 * v[1]], &xy[2 * v[2]], &xy[2 * far]),
                    0, "seed %llu: edge %d is not locally Delaunay", (unsigned long long)seed, h);
    }
    cr_assert_eq(t, 2 * distinct - hull_edges - 2);
  }
  dg_delaunay_close(&d);
}

/* Long collinear runs, shuffled, with the middle point among them (the
 * chain is then ordered from both sides of the sweep's first point): alone
 * they give the chain joining neighbours only; with one point off the line
 * they give the fan, one triangle per segment. */
Test(delaunay, long_collinear_runs) {
  enum { N = 3001 };
  static int32_t xy[2 * (N + 1)];
  for (int i = 0; i < N; i++) {
    int k = (int)((int64_t)i * 1237 % N); /* 1237 is prime to N: a permutation */
    xy[2 * i] = -4000 + 3 * k;
    xy[2 * i + 1] = 1000 - 2 * k;
  }
  dg_delaunay d;
  dg_delaunay_init(&d);
  cr_assert_eq(dg_delaunay_build(&d, xy, N), 0);
  cr_assert_eq(d.triangle_count, 0);
  cr_assert_eq(d.line_count, N);
  for (int i = 0; i + 1 < N; i++) {
    int a = d.line[i], b = d.line[i + 1];
    cr_assert_eq(abs(xy[2 * a] - xy[2 * b]), 3, "the chain joins neighbours (at %d)", i);
  }
  xy[2 * N] = 17;
  xy[2 * N + 1] = 9999;
  cr_assert_eq(dg_delaunay_build(&d, xy, N + 1), 0);
  cr_assert_eq(d.triangle_count, N - 1);
  check_triangulation(xy, N + 1, &d);
  dg_delaunay_close(&d);
}
