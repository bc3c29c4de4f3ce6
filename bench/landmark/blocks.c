/* Side-by-side timings of the `landmark` building blocks against the
 * libraries a game developer would otherwise use: libdungeon's A* against
 * libtcod's TCOD_path_compute (500x500, 20% obstacles, corner to corner,
 * 4-connected), its fBm noise against libtcod's Perlin fBm (4 octaves over
 * 200x200), and its Delaunay triangulation of 10,000 random points (the
 * npm `delaunator` side runs in node from the same points, written by
 * `--points FILE`). Prints one JSON object; bench/landmark/run.py makes the
 * table. Each figure is the median of many repetitions. */
#include <libtcod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/cancel.h"
#include "dungeon/rng.h"
#include "geometry/delaunay.h"
#include "noise/noise.h"
#include "path/astar.h"

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define REPS 31

static volatile float sink;

int main(int argc, char **argv) {
  const char *points_file = NULL;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--points") == 0 && i + 1 < argc)
      points_file = argv[++i];
  double t[REPS], ours, theirs;
  printf("{");

  /* ---- Delaunay: 10,000 random integer points in [0, 2^20) ---- */
  enum { N = 10000 };
  static int32_t xy[2 * N];
  dg_rng rng;
  dg_rng_seed(&rng, 1, 99);
  for (int i = 0; i < 2 * N; i++)
    xy[i] = (int32_t)dg_rng_below(&rng, 1u << 20);
  if (points_file != NULL) {
    FILE *f = fopen(points_file, "w");
    if (f == NULL)
      return 1;
    for (int i = 0; i < 2 * N; i++)
      fprintf(f, "%d\n", xy[i]);
    fclose(f);
  }
  dg_delaunay d;
  dg_delaunay_init(&d);
  for (int r = 0; r < REPS; r++) {
    uint64_t a = dg_monotonic_ns();
    if (dg_delaunay_build(&d, xy, N) != 0)
      return 1;
    t[r] = (double)(dg_monotonic_ns() - a) / 1e6;
  }
  ours = median(t, REPS);
  printf("\"delaunay_points\":%d,\"delaunay_triangles\":%d,\"delaunay_ms\":%.4f,", N,
         d.triangle_count, ours);
  dg_delaunay_close(&d);

  /* ---- A*: 500x500, 20% obstacles, (0,0) to (499,499) ---- */
  enum { W = 500, H = 500 };
  static uint16_t cost[W * H];
  TCOD_map_t map = TCOD_map_new(W, H);
  dg_rng_seed(&rng, 2, 99);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      bool open = dg_rng_below(&rng, 100) >= 20 || (x == 0 && y == 0) || (x == W - 1 && y == H - 1);
      cost[y * W + x] = open ? 1 : 0;
      TCOD_map_set_properties(map, x, y, open, open);
    }
  dg_astar astar;
  if (dg_astar_init(&astar, W, H, false) != 0)
    return 1;
  static int path[W * H];
  dg_astar_query q = {.cost = cost, .start = 0, .goal = W * H - 1, .min_cost = 1};
  dg_astar_result result = {0};
  for (int r = 0; r < REPS; r++) {
    uint64_t a = dg_monotonic_ns();
    if (dg_astar_find(&astar, &q, path, &result) != 0)
      return 1;
    t[r] = (double)(dg_monotonic_ns() - a) / 1e6;
  }
  ours = median(t, REPS);
  /* diagonalCost 0: libtcod then moves in 4 directions only, as ours does. */
  TCOD_path_t tpath = TCOD_path_new_using_map(map, 0.0f);
  int tcod_length = 0;
  for (int r = 0; r < REPS; r++) {
    uint64_t a = dg_monotonic_ns();
    if (!TCOD_path_compute(tpath, 0, 0, W - 1, H - 1))
      return 1;
    t[r] = (double)(dg_monotonic_ns() - a) / 1e6;
  }
  tcod_length = TCOD_path_size(tpath);
  theirs = median(t, REPS);
  printf("\"astar_ms\":%.4f,\"astar_steps\":%d,\"astar_expanded\":%ld,\"tcod_path_ms\":%.4f,"
         "\"tcod_path_steps\":%d,",
         ours, result.length - 1, result.expanded, theirs, tcod_length);
  TCOD_path_delete(tpath);
  TCOD_map_delete(map);
  dg_astar_close(&astar);

  /* ---- fBm noise: 4 octaves over 200x200 ---- */
  enum { NW = 200, NH = 200 };
  static float field[NW * NH];
  static char scratch[NW * 16];
  dg_noise noise;
  dg_noise_init(&noise, 7, 4, 1.0f / 32, 2.0f, 0.5f);
  for (int r = 0; r < REPS; r++) {
    uint64_t a = dg_monotonic_ns();
    dg_noise_fill(&noise, field, NW, NH, scratch);
    t[r] = (double)(dg_monotonic_ns() - a) / 1e6;
  }
  ours = median(t, REPS);
  sink = field[NW * NH / 2];
  TCOD_noise_t tnoise =
      TCOD_noise_new(2, TCOD_NOISE_DEFAULT_HURST, TCOD_NOISE_DEFAULT_LACUNARITY, NULL);
  TCOD_noise_set_type(tnoise, TCOD_NOISE_PERLIN);
  for (int r = 0; r < REPS; r++) {
    uint64_t a = dg_monotonic_ns();
    for (int y = 0; y < NH; y++)
      for (int x = 0; x < NW; x++) {
        float f[2] = {(float)x / 32.0f, (float)y / 32.0f};
        field[y * NW + x] = TCOD_noise_get_fbm(tnoise, f, 4.0f);
      }
    t[r] = (double)(dg_monotonic_ns() - a) / 1e6;
  }
  theirs = median(t, REPS);
  sink = field[NW * NH / 2];
  TCOD_noise_delete(tnoise);
  printf("\"noise_ms\":%.4f,\"tcod_noise_ms\":%.4f}\n", ours, theirs);
  return 0;
}
