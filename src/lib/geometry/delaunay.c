/* Exact Delaunay triangulation of integer points (src/lib/geometry/delaunay.h).
 *
 * Why this shape: seed 001, step 2 triangulates one cell per room, and the
 * benchmark asks for more speed than the npm `delaunator` package. The sweep
 * here is radial like delaunator's, but exact: points are ordered by their
 * exact squared distance from a middle point i0, so every new point lies
 * outside the hull of those before it (the hull sits inside the disc through
 * the new point), and the predicates never err, so duplicates and collinear
 * runs are handled by rule rather than by epsilon. Written from the
 * textbook algorithm (sweep + Lawson flips); no code copied.
 *
 * Where the time goes (issue 7's benchmark, 10,000 random points): about
 * 94,000 in-circle tests and 37,000 flips, whose outcome no branch
 * predictor can guess. Choices made by measurement (perf, callgrind): the
 * flip loop tests about the inserted point, with four slots per triangle
 * and step tables instead of branches on h % 3, no per-call set-up, and no
 * stack round trip after a flip; the hull hash is computed once per point;
 * the radix sort uses wider digits for large sets. Measured and found to
 * make no difference: renumbering the points in sweep order (kept: it
 * makes the arrays contiguous) and storing corner coordinates per slot
 * (dropped); the loop is bound by mispredicted flips, not by loads. */
#include "geometry/delaunay.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/error.h"

__extension__ typedef __int128 wide;

/* ---- exact predicates ------------------------------------------------- */

static inline int sign_of_wide(wide v) {
  return (v > 0) - (v < 0);
}

static inline int orient_exact(const int32_t *a, const int32_t *b, const int32_t *c) {
  /* Differences < 2^26, products < 2^52: exact in 64 bits. */
  int64_t v = ((int64_t)b[0] - a[0]) * ((int64_t)c[1] - a[1]) -
              ((int64_t)b[1] - a[1]) * ((int64_t)c[0] - a[0]);
  return (v > 0) - (v < 0);
}

/* Exact in-circle on integer coordinates held as doubles (every integer
 * of magnitude <= 2^24 is a double, so the conversions are exact). */
__attribute__((noinline)) static int incircle_wide(const double *a, const double *b,
                                                   const double *c, const double *d) {
  int64_t adx = (int64_t)a[0] - (int64_t)d[0], ady = (int64_t)a[1] - (int64_t)d[1];
  int64_t bdx = (int64_t)b[0] - (int64_t)d[0], bdy = (int64_t)b[1] - (int64_t)d[1];
  int64_t cdx = (int64_t)c[0] - (int64_t)d[0], cdy = (int64_t)c[1] - (int64_t)d[1];
  int64_t alift = adx * adx + ady * ady, blift = bdx * bdx + bdy * bdy,
          clift = cdx * cdx + cdy * cdy;
  int64_t bc = bdx * cdy - cdx * bdy, ca = cdx * ady - adx * cdy, ab = adx * bdy - bdx * ady;
  wide exact = (wide)alift * bc + (wide)blift * ca + (wide)clift * ab;
  return sign_of_wide(exact);
}

/* Orientation on coordinates held as doubles: with |coordinates| <= 2^24
 * the differences (< 2^25) and products (< 2^50) and their difference
 * (< 2^51) are all exact, so this is exact too. */
static inline int orient_double(const double *a, const double *b, const double *c) {
  double v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  return (v > 0) - (v < 0);
}

/* In-circle on integer coordinates held as doubles: a floating-point
 * filter, then the exact 128-bit test when it is uncertain. With |coordinates| <= 2^24 every
 * difference, lift and cross product below is exact in a double (< 2^53);
 * only the three final products and two sums round, so an error bound far
 * above Shewchuk's iccerrboundA (about 2.2e-15) is safe. */
static inline int incircle_filtered(const double *fa, const double *fb, const double *fc,
                                    const double *fd) {
  double adx = fa[0] - fd[0], ady = fa[1] - fd[1];
  double bdx = fb[0] - fd[0], bdy = fb[1] - fd[1];
  double cdx = fc[0] - fd[0], cdy = fc[1] - fd[1];
  double alift = adx * adx + ady * ady, blift = bdx * bdx + bdy * bdy,
         clift = cdx * cdx + cdy * cdy;
  double bc = bdx * cdy - cdx * bdy, ca = cdx * ady - adx * cdy, ab = adx * bdy - bdx * ady;
  double det = alift * bc + blift * ca + clift * ab;
  double permanent = alift * fabs(bc) + blift * fabs(ca) + clift * fabs(ab);
  double bound = 1e-12 * permanent;
  if (det > bound)
    return 1;
  if (det < -bound)
    return -1;
  return incircle_wide(fa, fb, fc, fd);
}

/* The flip loop's test: in-circle of d against the counter-clockwise
 * a, b, c for the c it keeps fixed (the point being inserted, at px, py),
 * with one error bound for the whole point set, computed once from its
 * extent D (every difference is at most D, so every lift and every cross
 * product at most 2 D^2 and the permanent at most 12 D^4), so that the hot
 * loop skips the permanent. It is computed with c as the origin: swapping
 * the rows of c and d in the 4x4 in-circle determinant negates it, so the
 * sign sought is minus that of the 3x3 determinant of a - c, b - c, d - c.
 * The new point then stays in registers for the whole loop and one
 * coordinate load leaves the loop's dependency chain. Every quantity is of
 * the same kind as in incircle_filtered (differences <= D, lifts and cross
 * products exact, three rounded products and two rounded sums), so the
 * bound holds; within it the exact test decides, on the original order. */
static inline int incircle_apex(const double *fa, const double *fb, double px, double py,
                                const double *fd, double bound) {
  double adx = fa[0] - px, ady = fa[1] - py;
  double bdx = fb[0] - px, bdy = fb[1] - py;
  double ddx = fd[0] - px, ddy = fd[1] - py;
  double det = (adx * adx + ady * ady) * (bdx * ddy - ddx * bdy) +
               (bdx * bdx + bdy * bdy) * (ddx * ady - adx * ddy) +
               (ddx * ddx + ddy * ddy) * (adx * bdy - bdx * ady);
  if (det < -bound)
    return 1;
  if (det > bound)
    return -1;
  double fc[2] = {px, py};
  return incircle_wide(fa, fb, fc, fd);
}

int dg_orient2d(const int32_t *a, const int32_t *b, const int32_t *c) {
  return orient_exact(a, b, c);
}

int dg_incircle(const int32_t *a, const int32_t *b, const int32_t *c, const int32_t *d) {
  double fa[2] = {a[0], a[1]}, fb[2] = {b[0], b[1]}, fc[2] = {c[0], c[1]}, fd[2] = {d[0], d[1]};
  return incircle_filtered(fa, fb, fc, fd);
}

/* ---- storage ------------------------------------------------------------ */

void dg_delaunay_init(dg_delaunay *delaunay) {
  memset(delaunay, 0, sizeof *delaunay);
}

void dg_delaunay_close(dg_delaunay *delaunay) {
  free(delaunay->triangles);
  free(delaunay->halfedges);
  free(delaunay->alias);
  free(delaunay->line);
  free(delaunay->order);
  free(delaunay->order_tmp);
  free(delaunay->hull_next);
  free(delaunay->hull_prev);
  free(delaunay->hull_tri);
  free(delaunay->hull_hash);
  free(delaunay->stack);
  free(delaunay->keys);
  free(delaunay->keys_tmp);
  free(delaunay->fcoords);
  memset(delaunay, 0, sizeof *delaunay);
}

static int reserve(dg_delaunay *delaunay, int count) {
  if (count <= delaunay->capacity)
    return 0;
  int capacity = count < 16 ? 16 : count;
  /* Triangles take four slots during the sweep (see SLOTS). */
  size_t n = (size_t)capacity, tri = 4 * (2 * n);
  int *arrays[] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  arrays[0] = malloc(tri * sizeof(int));         /* triangles */
  arrays[1] = malloc(tri * sizeof(int));         /* halfedges */
  arrays[2] = malloc(n * sizeof(int));           /* alias */
  arrays[3] = malloc(n * sizeof(int));           /* line */
  arrays[4] = malloc(n * sizeof(int));           /* order */
  arrays[5] = malloc(n * sizeof(int));           /* order_tmp */
  arrays[6] = malloc(n * sizeof(int));           /* hull_next */
  arrays[7] = malloc(n * sizeof(int));           /* hull_prev */
  arrays[8] = malloc(n * sizeof(int));           /* hull_tri */
  arrays[9] = malloc((n + 1) * sizeof(int));     /* hull_hash (<= n) */
  arrays[10] = malloc((tri + 16) * sizeof(int)); /* flip stack */
  uint64_t *keys = malloc(n * sizeof *keys), *keys_tmp = malloc(n * sizeof *keys_tmp);
  double *fcoords = malloc(2 * n * sizeof *fcoords);
  bool ok = keys != NULL && keys_tmp != NULL && fcoords != NULL;
  for (int i = 0; i < 11; i++)
    ok = ok && arrays[i] != NULL;
  if (!ok) {
    for (int i = 0; i < 11; i++)
      free(arrays[i]);
    free(keys);
    free(keys_tmp);
    free(fcoords);
    return DG_ENOMEM;
  }
  dg_delaunay_close(delaunay); /* results are rebuilt by the caller anyway */
  delaunay->triangles = arrays[0];
  delaunay->halfedges = arrays[1];
  delaunay->alias = arrays[2];
  delaunay->line = arrays[3];
  delaunay->order = arrays[4];
  delaunay->order_tmp = arrays[5];
  delaunay->hull_next = arrays[6];
  delaunay->hull_prev = arrays[7];
  delaunay->hull_tri = arrays[8];
  delaunay->hull_hash = arrays[9];
  delaunay->stack = arrays[10];
  delaunay->keys = keys;
  delaunay->keys_tmp = keys_tmp;
  delaunay->fcoords = fcoords;
  delaunay->capacity = capacity;
  return 0;
}

/* ---- the sweep ---------------------------------------------------------- */

/* The sweep works on its own point ids: the distinct points renumbered in
 * sweep order, their coordinates copied as doubles into fcoords. The
 * points a step touches (the hull near the new point and the triangles
 * behind it) were then inserted shortly before it, so they sit close
 * together in memory rather than scattered over the caller's array; the
 * triangles are mapped back to the caller's ids at the end. */
typedef struct sweep {
  dg_delaunay *delaunay;
  const double *fcoords; /* x, y of sweep id i at 2 i, 2 i + 1 */
  int hash_size;
  double cx, cy; /* hash centre (the point i0) */
  double bound;  /* in-circle error bound for this point set */
  int *key_of;   /* hash bucket of each point (in delaunay->order_tmp, free after
                    the sort) */
  int stack_capacity;
} sweep;

static inline const double *fpt(const sweep *state, int i) {
  return state->fcoords + 2 * i;
}

/* During the sweep triangle t keeps its corners in slots 4 t .. 4 t + 2
 * (the fourth slot unused), so that the corner of half-edge h is h & 3
 * rather than h % 3, a multiply and shift on the flip loop's dependency
 * chain; the build packs the arrays to three slots at the end. The next
 * and previous half-edges are looked up rather than chosen: the corner is
 * random in the flip loop, and a branch on it mispredicted a third of the
 * time (callgrind --branch-sim put 40% of all mispredictions there). */
#define SLOTS 4
static const int8_t next_step[4] = {1, 1, -2, 0}, prev_step[4] = {2, -1, -1, 0};

/* Next half-edge in the packed (three-slot) result arrays. */
static inline int next_he(int h) {
  return h % 3 == 2 ? h - 2 : h + 1;
}

static inline void link(dg_delaunay *delaunay, int a, int b) {
  delaunay->halfedges[a] = b;
  if (b != -1)
    delaunay->halfedges[b] = a;
}

static int add_triangle(dg_delaunay *delaunay, int i0, int i1, int i2, int a, int b, int c) {
  int t = SLOTS * delaunay->triangle_count++;
  delaunay->triangles[t] = i0;
  delaunay->triangles[t + 1] = i1;
  delaunay->triangles[t + 2] = i2;
  link(delaunay, t, a);
  link(delaunay, t + 1, b);
  link(delaunay, t + 2, c);
  return t;
}

/* Pseudo-angle of p around the centre, bucketed: a starting guess for the
 * hull search only, so its rounding does not matter. Computed for every
 * point in one pass before the sweep (the loop then has no dependencies
 * and its divisions overlap) and looked up as key_of. */
static int hash_key(const sweep *state, int p) {
  double dx = fpt(state, p)[0] - state->cx, dy = fpt(state, p)[1] - state->cy;
  double sum = fabs(dx) + fabs(dy);
  double q = sum > 0 ? dx / sum : 0;
  double angle = (dy > 0 ? 3 - q : 1 + q) / 4; /* [0, 1] */
  int key = (int)(angle * state->hash_size);
  return key >= state->hash_size ? state->hash_size - 1 : key < 0 ? 0 : key;
}

/* Lawson flips from half-edge `a` until every edge touched is locally
 * Delaunay. Returns DG_EINTERNAL if the stack would overflow (cannot happen:
 * it holds every half-edge). */
__attribute__((always_inline)) static inline int legalize(sweep *state, int a, int p) {
  /* Locals rather than state->delaunay->...: the stores below are to int arrays, and
   * without them the compiler reloads every base pointer after each one. */
  int *restrict tri = state->delaunay->triangles, *restrict twin = state->delaunay->halfedges;
  int *restrict hull_tri = state->delaunay->hull_tri, *restrict stack = state->delaunay->stack;
  const double *restrict xy = state->fcoords;
  const double bound = state->bound, px = xy[2 * p], py = xy[2 * p + 1];
  int top = 0, capacity = state->stack_capacity;
  for (;;) {
    int b = twin[a];
    if (b == -1) {
      if (top == 0)
        break;
      a = stack[--top];
      continue;
    }
    int ra = a & 3, rb = b & 3;
    int an = a + next_step[ra], ap = a + prev_step[ra], bn = b + next_step[rb],
        bp = b + prev_step[rb];
    /* Every edge tested lies opposite the new point p: the first by the
     * caller's choice, and each flip below pushes the two edges opposite p
     * in the flipped pair. So the third corner of a is always p. */
    int va = tri[a], van = tri[an], vap = p, vbp = tri[bp];
    if (incircle_apex(xy + 2 * va, xy + 2 * van, px, py, xy + 2 * vbp, bound) <= 0) {
      if (top == 0)
        break;
      a = stack[--top];
      continue;
    }
    /* Flip: the diagonal a-an becomes ap-bp (see the slot mapping: A keeps
     * slots a, an, ap as (bp, an, ap), B keeps b, bn, bp as (ap, a, bp)). */
    int outer_a = twin[bp], outer_b = twin[ap];
    tri[a] = vbp;
    tri[b] = vap;
    /* A hull edge moved (its slot is recorded for its start vertex), or
     * an inner edge's twin updated: one store either way, its address
     * chosen without a branch, which mispredicted often near the hull. */
    *(outer_a == -1 ? &hull_tri[vbp] : &twin[outer_a]) = a;
    *(outer_b == -1 ? &hull_tri[vap] : &twin[outer_b]) = b;
    twin[a] = outer_a;
    twin[b] = outer_b;
    twin[ap] = bp;
    twin[bp] = ap;
    /* bn waits; a (same slot, new edge) is tested next, without the
     * round trip through the stack on the loop's dependency chain. */
    if (top + 1 > capacity)
      return DG_EINTERNAL;
    stack[top++] = bn;
  }
  return 0;
}

/* Radix sort of order[] by keys[] (LSD, 11-bit digits), then each run of
 * equal keys by (x, y) so that duplicates end up side by side. */
static void sort_points(dg_delaunay *delaunay, const int32_t *coords, int n, uint64_t max_key) {
  int *order = delaunay->order, *order_tmp = delaunay->order_tmp;
  uint64_t *keys = delaunay->keys, *keys_tmp = delaunay->keys_tmp;
  /* Digits of up to 11 bits, or 14 for large sets (three passes instead
   * of four for 2^20 coordinates), their counts then in the flip stack
   * (unused until the sweep; 8 n + 16 >= 2^14 ints once n >= 4096). Any
   * digit width gives the same stable order. */
  unsigned small_counts[2048];
  int bits = 0;
  while (bits < 64 && (max_key >> bits) != 0)
    bits++;
  int widest = n >= 4096 ? 14 : 11;
  int passes = (bits + widest - 1) / widest;
  int width = passes > 0 ? (bits + passes - 1) / passes : 0;
  unsigned *counts = n >= 4096 ? (unsigned *)delaunay->stack : small_counts, radix = 1u << width,
           mask = radix - 1;
  for (int shift = 0; shift < bits; shift += width) {
    memset(counts, 0, radix * sizeof *counts);
    for (int i = 0; i < n; i++)
      counts[(keys[i] >> shift) & mask]++;
    unsigned sum = 0;
    for (unsigned i = 0; i < radix; i++) {
      unsigned c = counts[i];
      counts[i] = sum;
      sum += c;
    }
    for (int i = 0; i < n; i++) {
      unsigned at = counts[(keys[i] >> shift) & mask]++;
      keys_tmp[at] = keys[i];
      order_tmp[at] = order[i];
    }
    uint64_t *kt = keys;
    keys = keys_tmp;
    keys_tmp = kt;
    int *ot = order;
    order = order_tmp;
    order_tmp = ot;
  }
  if (order != delaunay->order) {
    memcpy(delaunay->order, order, (size_t)n * sizeof *order);
    memcpy(delaunay->keys, keys, (size_t)n * sizeof *keys);
  }
  order = delaunay->order;
  keys = delaunay->keys;
  for (int i = 1; i < n; i++) {
    if (keys[i] != keys[i - 1])
      continue;
    int id = order[i], j = i;
    const int32_t *p = coords + 2 * id;
    while (j > 0 && keys[j - 1] == keys[i]) {
      const int32_t *q = coords + 2 * order[j - 1];
      if (q[0] < p[0] || (q[0] == p[0] && q[1] <= p[1]))
        break;
      order[j] = order[j - 1];
      j--;
    }
    order[j] = id;
  }
}

static int64_t along(const double *origin, const double *direction_end, const double *p) {
  int64_t ox = (int64_t)origin[0], oy = (int64_t)origin[1];
  return ((int64_t)direction_end[0] - ox) * ((int64_t)p[0] - ox) +
         ((int64_t)direction_end[1] - oy) * ((int64_t)p[1] - oy);
}

/* Writes the collinear sweep ids 0 .. count - 1 into line[] in order of
 * position along the line from point 0 through point 1. They come in
 * order of distance from point 0 (the sweep's order), so those behind it
 * are already sorted outwards, as are those ahead: reversing the first run
 * and appending the second sorts them in linear time (an insertion sort
 * here was quadratic: 30 ms for 10,000 collinear points and one more). */
static void order_chain(const sweep *state, int *line, int count) {
  int behind = 0;
  for (int i = 1; i < count; i++)
    behind += along(fpt(state, 0), fpt(state, 1), fpt(state, i)) < 0;
  int back = behind - 1, ahead = behind + 1;
  line[behind] = 0;
  for (int i = 1; i < count; i++)
    if (along(fpt(state, 0), fpt(state, 1), fpt(state, i)) < 0)
      line[back--] = i;
    else
      line[ahead++] = i;
}

/* Inserts point p, known to lie outside the current hull. */
static int insert_point(sweep *state, int p) {
  dg_delaunay *delaunay = state->delaunay;
  int *next = delaunay->hull_next, *prev = delaunay->hull_prev;
  const int *key_of = state->key_of;
  int key = key_of[p], start = -1;
  for (int j = 0; j < state->hash_size; j++) {
    start = delaunay->hull_hash[key];
    if (start != -1 && next[start] != start)
      break;
    key = key + 1 == state->hash_size ? 0 : key + 1;
  }
  if (start == -1 || next[start] == start)
    return DG_EINTERNAL;
  /* The bucket scan finds the nearest hull vertex counter-clockwise of p;
   * the edge into it is the one facing p, so start one vertex back or the
   * walk below would go round the whole hull. */
  start = prev[start];
  /* Find a hull edge e -> next[e] that sees p (p strictly on its right). */
  int e = start;
  while (orient_double(fpt(state, e), fpt(state, next[e]), fpt(state, p)) >= 0) {
    e = next[e];
    if (e == start)
      return DG_EINTERNAL; /* p inside the hull: the ordering invariant broke */
  }
  int n = next[e];
  int t = add_triangle(delaunay, e, p, n, -1, -1, delaunay->hull_tri[e]);
  delaunay->hull_tri[p] = t + 1; /* p -> n, provisional */
  delaunay->hull_tri[e] = t;     /* e -> p */
  int rc = legalize(state, t + 2, p);
  if (rc != 0)
    return rc;
  /* Forward: more edges n -> next[n] visible from p. */
  int q = next[n];
  while (orient_double(fpt(state, n), fpt(state, q), fpt(state, p)) < 0) {
    t = add_triangle(delaunay, n, p, q, delaunay->hull_tri[p], -1, delaunay->hull_tri[n]);
    delaunay->hull_tri[p] = t + 1;
    next[n] = n; /* n leaves the hull */
    if ((rc = legalize(state, t + 2, p)) != 0)
      return rc;
    n = q;
    q = next[n];
  }
  /* Backward: edges prev[e] -> e visible from p. */
  int r = prev[e];
  while (orient_double(fpt(state, r), fpt(state, e), fpt(state, p)) < 0) {
    t = add_triangle(delaunay, r, p, e, -1, delaunay->hull_tri[e], delaunay->hull_tri[r]);
    delaunay->hull_tri[r] = t; /* before the flips, which keep it up to date */
    next[e] = e;
    if ((rc = legalize(state, t + 2, p)) != 0)
      return rc;
    e = r;
    r = prev[e];
  }
  prev[p] = e;
  next[e] = p;
  prev[n] = p;
  next[p] = n;
  delaunay->hull_hash[key_of[p]] = p;
  delaunay->hull_hash[key_of[e]] = e;
  return 0;
}

/* Bounding box of the points: sets state->bound, the in-circle error bound
 * for their extent, and returns i0, the point nearest the middle of the
 * box (the sweep's centre). */
static int find_centre(sweep *state, const int32_t *coords, int count) {
  int32_t min_x = coords[0], max_x = coords[0], min_y = coords[1], max_y = coords[1];
  for (int i = 1; i < count; i++) {
    int32_t x = coords[2 * i], y = coords[2 * i + 1];
    min_x = x < min_x ? x : min_x;
    max_x = x > max_x ? x : max_x;
    min_y = y < min_y ? y : min_y;
    max_y = y > max_y ? y : max_y;
  }
  int64_t mid_x = ((int64_t)min_x + max_x) / 2, mid_y = ((int64_t)min_y + max_y) / 2;
  int64_t span_x = (int64_t)max_x - min_x, span_y = (int64_t)max_y - min_y;
  double extent = (double)(span_x > span_y ? span_x : span_y);
  /* Three rounded products and two sums: an error of a few units of 2^-53
   * of the permanent; 1e-14 leaves a wide margin. */
  state->bound = 1e-14 * 12.0 * extent * extent * extent * extent;
  int i0 = 0;
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < count; i++) {
    int64_t dx = coords[2 * i] - mid_x, dy = coords[2 * i + 1] - mid_y;
    uint64_t dist = (uint64_t)(dx * dx + dy * dy);
    if (dist < best) {
      best = dist;
      i0 = i;
    }
  }
  return i0;
}

/* Orders the points by squared distance from the centre (state->cx, state->cy),
 * aliases each duplicate to the first of its run, and renumbers the
 * distinct ones in sweep order with their coordinates copied as doubles.
 * Returns the number of distinct points. */
static int order_distinct(sweep *state, const int32_t *coords, int count) {
  dg_delaunay *delaunay = state->delaunay;
  uint64_t max_key = 0;
  for (int i = 0; i < count; i++) {
    int64_t dx = (int64_t)coords[2 * i] - state->cx, dy = (int64_t)coords[2 * i + 1] - state->cy;
    delaunay->keys[i] = (uint64_t)(dx * dx + dy * dy);
    delaunay->order[i] = i;
    max_key = delaunay->keys[i] > max_key ? delaunay->keys[i] : max_key;
  }
  sort_points(delaunay, coords, count, max_key);
  /* Duplicates sit side by side now: alias each to the first of its run. */
  for (int i = 0; i < count; i++)
    delaunay->alias[i] = i;
  int distinct = 0;
  for (int i = 0; i < count; i++) {
    int id = delaunay->order[i];
    if (distinct > 0) {
      int last = delaunay->order[distinct - 1];
      if (coords[2 * id] == coords[2 * last] && coords[2 * id + 1] == coords[2 * last + 1]) {
        delaunay->alias[id] = last;
        continue;
      }
    }
    delaunay->order[distinct++] = id;
  }
  /* From here on a point is named by its sweep id i (the caller's id is
   * order[i]). */
  const int *order = delaunay->order;
  for (int i = 0; i < distinct; i++) {
    delaunay->fcoords[2 * i] = coords[2 * order[i]];
    delaunay->fcoords[2 * i + 1] = coords[2 * order[i] + 1];
  }
  return distinct;
}

/* Fans the first point off the line, apex, to the chain line[0 .. chain
 * - 1] (the only triangulation of a line plus one point) and starts the
 * hull and its hash from that fan. */
static void fan_from_chain(sweep *state, int *line, int chain, int apex, int distinct) {
  dg_delaunay *delaunay = state->delaunay;
  if (orient_double(fpt(state, line[0]), fpt(state, line[chain - 1]), fpt(state, apex)) < 0)
    for (int i = 0, j = chain - 1; i < j; i++, j--) {
      int t = line[i];
      line[i] = line[j];
      line[j] = t;
    }
  int hash_size = 1;
  while (hash_size * hash_size < distinct)
    hash_size++;
  state->hash_size = hash_size;
  state->key_of = delaunay->order_tmp;
  for (int i = 0; i < distinct; i++)
    state->key_of[i] = hash_key(state, i);
  for (int i = 0; i < hash_size; i++)
    delaunay->hull_hash[i] = -1;
  for (int i = 0; i + 1 < chain; i++) {
    int previous_slot = i > 0 ? SLOTS * (i - 1) + 1 : -1;
    int t = add_triangle(delaunay, line[i], line[i + 1], apex, -1, -1, previous_slot);
    delaunay->hull_tri[line[i]] = t;
  }
  delaunay->hull_tri[line[chain - 1]] = SLOTS * (chain - 2) + 1;
  delaunay->hull_tri[apex] = 2;
  for (int i = 0; i < chain; i++) {
    delaunay->hull_next[line[i]] = i + 1 < chain ? line[i + 1] : apex;
    delaunay->hull_prev[line[i]] = i > 0 ? line[i - 1] : apex;
    delaunay->hull_hash[state->key_of[line[i]]] = line[i];
  }
  delaunay->hull_next[apex] = line[0];
  delaunay->hull_prev[apex] = line[chain - 1];
  delaunay->hull_hash[state->key_of[apex]] = apex;
}

/* Packs the triangles to three slots (in place: slot 3 t + j never lies
 * past 4 t + j) and maps them back to the caller's point ids. */
static void pack_triangles(dg_delaunay *delaunay) {
  int *tri = delaunay->triangles, *twin = delaunay->halfedges;
  const int *order = delaunay->order;
  for (int t = 0; t < delaunay->triangle_count; t++) {
    const int *from = tri + SLOTS * t, *from_twin = twin + SLOTS * t;
    int v0 = from[0], v1 = from[1], v2 = from[2];
    int h0 = from_twin[0], h1 = from_twin[1], h2 = from_twin[2];
    /* 4 (h / 4) + c becomes 3 (h / 4) + c = h - h / 4; -1 stays. */
    tri[3 * t] = order[v0];
    tri[3 * t + 1] = order[v1];
    tri[3 * t + 2] = order[v2];
    twin[3 * t] = h0 < 0 ? -1 : h0 - h0 / SLOTS;
    twin[3 * t + 1] = h1 < 0 ? -1 : h1 - h1 / SLOTS;
    twin[3 * t + 2] = h2 < 0 ? -1 : h2 - h2 / SLOTS;
  }
}

int dg_delaunay_build(dg_delaunay *delaunay, const int32_t *coords, int count) {
  if (count < 0)
    return DG_EINVAL;
  for (int i = 0; i < 2 * count; i++)
    if (coords[i] > DG_DELAUNAY_COORD_MAX || coords[i] < -DG_DELAUNAY_COORD_MAX)
      return DG_EINVAL;
  int rc = reserve(delaunay, count);
  if (rc != 0)
    return rc;
  delaunay->triangle_count = 0;
  delaunay->line_count = 0;
  delaunay->point_count = count;
  if (count == 0)
    return 0;
  sweep state = {.delaunay = delaunay,
                 .fcoords = delaunay->fcoords,
                 .stack_capacity = 3 * 2 * delaunay->capacity + 16};
  int i0 = find_centre(&state, coords, count);
  state.cx = coords[2 * i0];
  state.cy = coords[2 * i0 + 1];
  int distinct = order_distinct(&state, coords, count);
  /* The first distinct points collinear with the first two form a chain. */
  int k = 2;
  while (k < distinct && orient_double(fpt(&state, 0), fpt(&state, 1), fpt(&state, k)) == 0)
    k++;
  int *line = delaunay->line;
  int chain = k < distinct ? k : distinct;
  order_chain(&state, line, chain);
  if (k >= distinct) {
    for (int i = 0; i < distinct; i++)
      line[i] = delaunay->order[line[i]];
    delaunay->line_count = distinct; /* every distinct point lies on one line */
    return 0;
  }
  fan_from_chain(&state, line, chain, k, distinct);
  for (int i = k + 1; i < distinct; i++)
    if ((rc = insert_point(&state, i)) != 0)
      return rc;
  pack_triangles(delaunay);
  return 0;
}

int dg_delaunay_edge_capacity(const dg_delaunay *delaunay) {
  return 3 * delaunay->triangle_count + delaunay->point_count + 1;
}

void dg_delaunay_edges(const dg_delaunay *delaunay, int *pairs, int *count) {
  int n = 0;
  for (int h = 0; h < 3 * delaunay->triangle_count; h++) {
    int twin = delaunay->halfedges[h];
    if (twin != -1 && twin < h)
      continue;
    int a = delaunay->triangles[h], b = delaunay->triangles[next_he(h)];
    pairs[2 * n] = a < b ? a : b;
    pairs[2 * n + 1] = a < b ? b : a;
    n++;
  }
  for (int i = 0; i + 1 < delaunay->line_count; i++) {
    int a = delaunay->line[i], b = delaunay->line[i + 1];
    pairs[2 * n] = a < b ? a : b;
    pairs[2 * n + 1] = a < b ? b : a;
    n++;
  }
  for (int i = 0; i < delaunay->point_count; i++)
    if (delaunay->alias[i] != i) {
      int a = delaunay->alias[i];
      pairs[2 * n] = a < i ? a : i;
      pairs[2 * n + 1] = a < i ? i : a;
      n++;
    }
  *count = n;
}
