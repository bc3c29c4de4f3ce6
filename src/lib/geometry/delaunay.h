/* Internal: Delaunay triangulation of integer points, exact.
 *
 * A radial sweep: points are taken in order of exact squared distance from a
 * point near the middle of the set, each joined to the hull edges it sees,
 * then Lawson flips restore the empty-circumcircle property. Orientation and
 * in-circle tests are exact (a floating-point filter, then 128-bit integers),
 * so the result is a true Delaunay triangulation for every input, including
 * duplicate points (triangulated once, reported as aliases) and collinear
 * points (no triangles; dg_delaunay_edges then gives the chain along the
 * line). Seed 001, step 2 uses it to link each room to its neighbours.
 *
 * A dg_delaunay keeps its arrays between builds, so rebuilding allocates only
 * when a set outgrows every earlier one. Not thread-safe: one per thread. */
#ifndef DUNGEON_DELAUNAY_H
#define DUNGEON_DELAUNAY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DG_DELAUNAY_COORD_MAX 16777216 /* |x|, |y| at most 2^24 */

typedef struct dg_delaunay {
  int *triangles;     /* 3 * triangle_count point ids, each triangle counter-
                         clockwise (x right, y up) */
  int *halfedges;     /* 3 * triangle_count: the twin half-edge, -1 on the hull;
                         half-edge h runs from triangles[h] to the next corner */
  int triangle_count; /* 0 when fewer than 3 distinct or all collinear */
  int *alias;         /* point_count: the id a point duplicates, else itself */
  int *line;          /* collinear input: the distinct points in order along
                         the line (line_count of them), else unused */
  int line_count;     /* 0 unless the distinct points are all collinear */
  int point_count;    /* points of the last build */
  /* Scratch and capacities, owned. */
  int capacity;
  int *order, *order_tmp, *hull_next, *hull_prev, *hull_tri, *hull_hash, *stack;
  uint64_t *keys, *keys_tmp;
  double *fcoords;
} dg_delaunay;

/* An empty triangulation; allocates nothing. */
void dg_delaunay_init(dg_delaunay *delaunay);

/* Frees every array; safe on an initialised or zeroed one. */
void dg_delaunay_close(dg_delaunay *delaunay);

/* Triangulates `count` points given as x0, y0, x1, y1, ... Results replace
 * those of the previous build. Returns 0, DG_EINVAL (count < 0 or a
 * coordinate beyond DG_DELAUNAY_COORD_MAX), DG_ENOMEM, or DG_EINTERNAL if an
 * invariant failed (a bug). Deterministic: depends on the points only. */
int dg_delaunay_build(dg_delaunay *delaunay, const int32_t *coords, int count);

/* The undirected edges of the last build as pairs (a, b), a < b, into
 * `pairs` (room for 2 * dg_delaunay_edge_capacity ints); their number to
 * *count. Triangulation edges, or for collinear input the chain along the
 * line, plus one edge from each duplicate to the point it repeats, so that
 * the edges span every input point. Pure. */
void dg_delaunay_edges(const dg_delaunay *delaunay, int *pairs, int *count);

/* Upper bound of the edges dg_delaunay_edges can return for the last build. */
int dg_delaunay_edge_capacity(const dg_delaunay *delaunay);

/* Exact predicates on integer points within DG_DELAUNAY_COORD_MAX:
 * orientation is > 0 when a, b, c turn counter-clockwise, < 0 clockwise,
 * 0 when collinear; in-circle is > 0 when d lies strictly inside the circle
 * through the counter-clockwise a, b, c, 0 on it, < 0 outside. Pure. */
int dg_orient2d(const int32_t *a, const int32_t *b, const int32_t *c);
int dg_incircle(const int32_t *a, const int32_t *b, const int32_t *c, const int32_t *d);

#ifdef __cplusplus
}
#endif
#endif
