/* The libtcod peer of the classic generator: rooms and corridors by BSP,
 * as libtcod's own C sample builds them (TCOD_bsp_split_recursive, then an
 * inverted level-order traversal that digs a room in each leaf and joins
 * the two halves of every split with a straight or Z-shaped corridor).
 * bench/peers.py compiles it against Debian's libtcod-dev and runs it
 * beside `dungeon bench --algorithm classic`.
 *
 *   libtcod_bsp --width W --height H --depth D [--seconds S] [--runs N]
 *   libtcod_bsp --width W --height H --depth D --print SEED
 *
 * Each level gets its own Mersenne Twister seeded with the level's seed
 * (dungeon bench also seeds every level), a fresh tree and a cleared map;
 * all of that is timed. D is the recursion depth: at most 2^D rooms, so
 * the caller picks it to match the room count of the classic level it is
 * set beside. Prints one JSON object: the median levels/s over N runs of S
 * seconds (wall clock), and the mean rooms and floor tiles per level.
 * --print draws the level of SEED instead ('#' rock, '.' floor), so a
 * reader can see what the peer makes. */
#include <libtcod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIN_ROOM 4 /* the sample's smallest room side */

typedef struct {
  char *tiles;       /* width*height, '#' rock or '.' floor */
  int width;         /* map width */
  int height;        /* map height */
  int rooms;         /* leaves dug so far */
  TCOD_random_t rng; /* the level's own generator */
} dig_map;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int imin(int a, int b) {
  return a < b ? a : b;
}
static int imax(int a, int b) {
  return a > b ? a : b;
}

static char *tile(dig_map *m, int x, int y) {
  return &m->tiles[(size_t)y * (size_t)m->width + (size_t)x];
}

/* Corridors run until they meet floor, as in the sample. */
static void vline(dig_map *m, int x, int y1, int y2) {
  for (int y = imin(y1, y2); y <= imax(y1, y2); y++)
    *tile(m, x, y) = '.';
}
static void vline_up(dig_map *m, int x, int y) {
  for (; y >= 0 && *tile(m, x, y) != '.'; y--)
    *tile(m, x, y) = '.';
}
static void vline_down(dig_map *m, int x, int y) {
  for (; y < m->height && *tile(m, x, y) != '.'; y++)
    *tile(m, x, y) = '.';
}
static void hline(dig_map *m, int x1, int y, int x2) {
  for (int x = imin(x1, x2); x <= imax(x1, x2); x++)
    *tile(m, x, y) = '.';
}
static void hline_left(dig_map *m, int x, int y) {
  for (; x >= 0 && *tile(m, x, y) != '.'; x--)
    *tile(m, x, y) = '.';
}
static void hline_right(dig_map *m, int x, int y) {
  for (; x < m->width && *tile(m, x, y) != '.'; x++)
    *tile(m, x, y) = '.';
}

/* A leaf: a random room inside it (walls kept), the node shrunk to it. */
static void dig_room(dig_map *m, TCOD_bsp_t *node) {
  int minx = node->x + 1, maxx = node->x + node->w - 1;
  int miny = node->y + 1, maxy = node->y + node->h - 1;
  if (maxx == m->width - 1)
    maxx--;
  if (maxy == m->height - 1)
    maxy--;
  minx = TCOD_random_get_int(m->rng, minx, maxx - MIN_ROOM + 1);
  miny = TCOD_random_get_int(m->rng, miny, maxy - MIN_ROOM + 1);
  maxx = TCOD_random_get_int(m->rng, minx + MIN_ROOM - 1, maxx);
  maxy = TCOD_random_get_int(m->rng, miny + MIN_ROOM - 1, maxy);
  node->x = minx;
  node->y = miny;
  node->w = maxx - minx + 1;
  node->h = maxy - miny + 1;
  for (int y = miny; y <= maxy; y++)
    memset(tile(m, minx, y), '.', (size_t)(maxx - minx + 1));
  m->rooms++;
}

/* A split: the node grown to its sons, and a corridor between them. */
static void join_sons(dig_map *m, TCOD_bsp_t *node) {
  TCOD_bsp_t *left = TCOD_bsp_left(node), *right = TCOD_bsp_right(node);
  node->x = imin(left->x, right->x);
  node->y = imin(left->y, right->y);
  node->w = imax(left->x + left->w, right->x + right->w) - node->x;
  node->h = imax(left->y + left->h, right->y + right->h) - node->y;
  if (node->horizontal) {
    if (left->x + left->w - 1 < right->x || right->x + right->w - 1 < left->x) {
      int x1 = TCOD_random_get_int(m->rng, left->x, left->x + left->w - 1);
      int x2 = TCOD_random_get_int(m->rng, right->x, right->x + right->w - 1);
      int y = TCOD_random_get_int(m->rng, left->y + left->h, right->y);
      vline_up(m, x1, y - 1);
      hline(m, x1, y, x2);
      vline_down(m, x2, y + 1);
    } else {
      int x = TCOD_random_get_int(m->rng, imax(left->x, right->x),
                                  imin(left->x + left->w - 1, right->x + right->w - 1));
      vline_down(m, x, right->y);
      vline_up(m, x, right->y - 1);
    }
  } else {
    if (left->y + left->h - 1 < right->y || right->y + right->h - 1 < left->y) {
      int y1 = TCOD_random_get_int(m->rng, left->y, left->y + left->h - 1);
      int y2 = TCOD_random_get_int(m->rng, right->y, right->y + right->h - 1);
      int x = TCOD_random_get_int(m->rng, left->x + left->w, right->x);
      hline_left(m, x - 1, y1);
      vline(m, x, y1, y2);
      hline_right(m, x + 1, y2);
    } else {
      int y = TCOD_random_get_int(m->rng, imax(left->y, right->y),
                                  imin(left->y + left->h - 1, right->y + right->h - 1));
      hline_left(m, right->x - 1, y);
      hline_right(m, right->x, y);
    }
  }
}

static bool visit(TCOD_bsp_t *node, void *data) {
  if (TCOD_bsp_is_leaf(node))
    dig_room(data, node);
  else
    join_sons(data, node);
  return true;
}

/* One level from `seed` into m->tiles; 0, or -1 when libtcod ran out of memory. */
static int generate(dig_map *m, int depth, uint32_t seed) {
  m->rng = TCOD_random_new_from_seed(TCOD_RNG_MT, seed);
  TCOD_bsp_t *root = TCOD_bsp_new_with_size(0, 0, m->width, m->height);
  if (m->rng == NULL || root == NULL) {
    TCOD_random_delete(m->rng);
    TCOD_bsp_delete(root);
    return -1;
  }
  memset(m->tiles, '#', (size_t)m->width * (size_t)m->height);
  TCOD_bsp_split_recursive(root, m->rng, depth, MIN_ROOM + 1, MIN_ROOM + 1, 1.5f, 1.5f);
  TCOD_bsp_traverse_inverted_level_order(root, visit, m);
  TCOD_bsp_delete(root);
  TCOD_random_delete(m->rng);
  return 0;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int usage(void) {
  fprintf(stderr, "usage: libtcod_bsp --width 10..1000 --height 10..1000 --depth 1..16 "
                  "[--seconds 0.01..60] [--runs 1..101] [--print SEED]\n");
  return 2;
}

int main(int argc, char **argv) {
  int width = 0, height = 0, depth = 0, runs = 5;
  long print_seed = -1;
  double seconds = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--width") == 0)
      width = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--height") == 0)
      height = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--depth") == 0)
      depth = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--seconds") == 0)
      seconds = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--runs") == 0)
      runs = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--print") == 0)
      print_seed = atol(argv[i + 1]);
    else
      return usage();
  }
  if (argc % 2 == 0 || width < 10 || width > 1000 || height < 10 || height > 1000 || depth < 1 ||
      depth > 16 || !(seconds >= 0.01 && seconds <= 60) || runs < 1 || runs > 101)
    return usage();
  dig_map m = {.width = width, .height = height};
  double *rates = calloc((size_t)runs, sizeof *rates);
  m.tiles = malloc((size_t)width * (size_t)height);
  if (rates == NULL || m.tiles == NULL) {
    fprintf(stderr, "libtcod_bsp: out of memory\n");
    return 1;
  }
  if (print_seed >= 0) {
    int rc = generate(&m, depth, (uint32_t)print_seed);
    for (int y = 0; rc == 0 && y < height; y++)
      printf("%.*s\n", width, tile(&m, 0, y));
    free(rates);
    free(m.tiles);
    return rc == 0 ? 0 : 1;
  }
  uint32_t seed = 1;
  long levels = 0, rooms = 0;
  for (int r = 0; r < runs; r++) {
    long run_levels = 0;
    double start = now(), elapsed = 0;
    while (elapsed < seconds) {
      m.rooms = 0;
      if (generate(&m, depth, seed++) != 0) {
        fprintf(stderr, "libtcod_bsp: out of memory\n");
        return 1;
      }
      rooms += m.rooms;
      run_levels++;
      elapsed = now() - start;
    }
    rates[r] = (double)run_levels / elapsed;
    levels += run_levels;
  }
  /* Floor tiles of one more level, outside the timing: a sanity figure. */
  generate(&m, depth, 1);
  long tiles = 0;
  for (long i = 0; i < (long)width * height; i++)
    tiles += m.tiles[i] == '.';
  qsort(rates, (size_t)runs, sizeof *rates, compare_doubles);
  double median = runs % 2 ? rates[runs / 2] : (rates[runs / 2 - 1] + rates[runs / 2]) / 2;
  printf("{\"peer\":\"libtcod BSP\",\"width\":%d,\"height\":%d,\"depth\":%d,\"runs\":%d,"
         "\"seconds_per_run\":%g,\"levels\":%ld,\"levels_per_second_median\":%.1f,"
         "\"levels_per_second_min\":%.1f,\"levels_per_second_max\":%.1f,"
         "\"mean_rooms\":%.2f,\"floor_tiles_seed_1\":%ld}\n",
         width, height, depth, runs, seconds, levels, median, rates[0], rates[runs - 1],
         (double)rooms / (double)levels, tiles);
  free(rates);
  free(m.tiles);
  return 0;
}
