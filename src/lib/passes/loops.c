/* metrics.cycles on tiles (src/lib/passes/loops.h).
 *
 * The trace (trace.c) makes a node of every room, of every junction blob
 * (open tiles with three or more walkable neighbours or in a 2x2 block
 * of open tiles, merged where they touch) and of every dead end, an edge
 * of every chain of two-neighbour tiles between nodes, and one edge per
 * pair of different nodes whose tiles touch. Its loops are edges - nodes
 * + components. Subdividing an edge changes no count of loops, so the
 * same number comes from the tiles themselves: a room or a blob is one
 * vertex, every other walkable tile a vertex of its own, tiles side by
 * side an edge, counted once per pair when both ends are rooms or blobs
 * (the trace's one edge per touching pair) and every time otherwise (a
 * chain or dead-end tile touches a given vertex along one side only).
 * That is one pass over the walkable tiles with union-find, where the
 * trace walked every chain and built a graph only to count it: for a
 * level whose generator did not trace its grid (landmark, nonlinear),
 * the trace was half the level's cost. */
#include "passes/loops.h"

#include <stdlib.h>

#include "core/unionfind.h"
#include "core/vec.h"
#include "passes/grid_metrics.h"
#include "passes/tile_list.h"

/* What a walkable tile is to the count; 0 on other tiles. */
enum { KIND_SINGLE = 1, KIND_BLOB = 2, KIND_ROOM = 3 };

/* Scratch of one count, indexed by padded tile. */
typedef struct loop_scan {
  long stride;          /* padded row length: width + 2 */
  const uint8_t *tiles; /* the grid's tiles, y * width + x */
  int width;            /* the grid's */
  const uint8_t *walk;  /* 1 where walkable, 0 on the border */
  /* On walkable tiles: the room index (>= 0); on a blob tile -2 minus its
   * parent in the union-find over blob tiles; else -1. One array, so that
   * the scratch stays under the size at which glibc hands the heap's top
   * back to the kernel on every free (a brk and fresh zeroed pages per
   * level cost more than the count itself). */
  int *owner;
  uint8_t *kind;      /* KIND_* of each walkable tile, 0 elsewhere */
  int *component;     /* union-find over walkable tiles and rooms */
  uint64_t *contacts; /* touching pairs of room or blob tiles */
  int contact_count;  /* entries in contacts */
  int contact_room;   /* allocated entries */
} loop_scan;

static inline bool open_tile(const loop_scan *s, long p) {
  return s->walk[p] && s->owner[p] < 0;
}

/* The union-find over blob tiles kept in owner[] (parent q as -2 - q):
 * the root of blob tile p, with path halving. */
static int blob_root(int *owner, int p) {
  for (;;) {
    int parent = -2 - owner[p];
    if (parent == p)
      return p;
    int grand = -2 - owner[parent];
    owner[p] = -2 - grand;
    p = grand;
  }
}

/* Joins the blobs of tiles p and q, the lower root the root; 1 when they
 * were apart. */
static int blob_union(int *owner, int p, int q) {
  p = blob_root(owner, p);
  q = blob_root(owner, q);
  if (p == q)
    return 0;
  owner[p > q ? p : q] = -2 - (p > q ? q : p);
  return 1;
}

/* p lies in some 2x2 block of open tiles (the trace's in_wide_block). */
static bool in_wide_block(const loop_scan *s, long p) {
  const long w = s->stride;
  return (open_tile(s, p - 1) && open_tile(s, p - w) && open_tile(s, p - w - 1)) ||
         (open_tile(s, p + 1) && open_tile(s, p - w) && open_tile(s, p - w + 1)) ||
         (open_tile(s, p - 1) && open_tile(s, p + w) && open_tile(s, p + w - 1)) ||
         (open_tile(s, p + 1) && open_tile(s, p + w) && open_tile(s, p + w + 1));
}

static uint8_t kind_of(const loop_scan *s, long p) {
  if (s->owner[p] >= 0)
    return KIND_ROOM;
  int ways = s->walk[p - 1] + s->walk[p + 1] + s->walk[p - s->stride] + s->walk[p + s->stride];
  if (ways >= 3 || (ways == 2 && in_wide_block(s, p)))
    return KIND_BLOB;
  return KIND_SINGLE;
}

/* Keeps the touching pair (p, q) of room or blob tiles for after the
 * pass, when each blob's vertex is known. 0 or DG_ENOMEM. */
static int add_contact(loop_scan *s, long p, long q) {
  if (dg_vec_grow(&s->contacts, &s->contact_room, s->contact_count + 1, sizeof *s->contacts) != 0)
    return DG_ENOMEM;
  s->contacts[s->contact_count++] = (uint64_t)p << 32 | (uint64_t)q;
  return 0;
}

static int by_value(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

/* The vertex of room or blob tile p: its room, or past the rooms its
 * blob's root tile. */
static uint32_t vertex_of(const loop_scan *s, long p, int rooms) {
  return s->kind[p] == KIND_ROOM ? (uint32_t)s->owner[p]
                                 : (uint32_t)rooms + (uint32_t)blob_root(s->owner, (int)p);
}

/* Distinct vertex pairs among the contacts (sorted in place). */
static long distinct_pairs(loop_scan *s, int rooms) {
  for (int i = 0; i < s->contact_count; i++) {
    uint32_t a = vertex_of(s, (long)(s->contacts[i] >> 32), rooms),
             b = vertex_of(s, (long)(s->contacts[i] & 0xffffffffu), rooms);
    s->contacts[i] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
  }
  if (s->contact_count > 1) /* none at all leaves contacts NULL, which qsort may not take */
    qsort(s->contacts, (size_t)s->contact_count, sizeof *s->contacts, by_value);
  long pairs = 0;
  for (int i = 0; i < s->contact_count; i++)
    pairs += i == 0 || s->contacts[i] != s->contacts[i - 1];
  return pairs;
}

/* The counts of the pass over the walkable tiles: edges that are not
 * room-or-blob pairs, single vertices, blob tiles and the unions among
 * them, and the map's components. */
typedef struct loop_counts {
  long edges, singles, blob_tiles, blob_unions, components;
} loop_counts;

/* The pass over cells[k] (padded, reading order), noting each room's
 * first tile in first_tile[]; with `tally`, the grid metrics' per-tile
 * tallies too. 0 or DG_ENOMEM. */
static int scan(loop_scan *s, const int *cells, int count, int *first_tile, loop_counts *n,
                dg_metrics *tally) {
  /* The tile's place in the grid from the padded index: the row advances
   * as the cells do, so there is no division. */
  long row_end = 2 * s->stride, row_start = s->stride; /* of the padded row */
  const uint8_t *row_tiles = s->tiles;
  for (int k = 0; k < count; k++) {
    long p = cells[k];
    while (p >= row_end) {
      row_start = row_end;
      row_end += s->stride;
      row_tiles += s->width;
    }
    if (tally != NULL)
      dg_metrics_tally_tile(tally, row_tiles + (p - row_start - 1), s->width, s->walk, p,
                            (int)s->stride);
    uint8_t kind = kind_of(s, p);
    s->kind[p] = kind;
    n->singles += kind == KIND_SINGLE;
    if (kind == KIND_BLOB) {
      s->owner[p] = -2 - (int)p;
      n->blob_tiles++;
    }
    /* Components in reading order (metrics.c's scan): west, then north. */
    if (s->walk[p - 1]) {
      s->component[p] = dg_uf_find(s->component, (int)p - 1);
    } else {
      s->component[p] = (int)p;
      n->components++;
    }
    const long back[2] = {p - 1, p - s->stride};
    for (int i = 0; i < 2; i++) {
      long q = back[i];
      if (!s->walk[q])
        continue;
      if (i == 1)
        n->components -= dg_uf_union(s->component, (int)p, (int)q);
      uint8_t other = s->kind[q];
      if (kind == KIND_SINGLE || other == KIND_SINGLE)
        n->edges++;
      else if (kind == KIND_BLOB && other == KIND_BLOB)
        n->blob_unions += blob_union(s->owner, (int)p, (int)q);
      else if (!(kind == KIND_ROOM && other == KIND_ROOM && s->owner[p] == s->owner[q]) &&
               add_contact(s, p, q) != 0)
        return DG_ENOMEM;
    }
    int r = kind == KIND_ROOM ? s->owner[p] : -1;
    if (r >= 0 && first_tile[r] < 0)
      first_tile[r] = (int)p;
  }
  return 0;
}

/* Makes each room's tiles one component (a room is one vertex however
 * many pieces its tiles are in); returns the components that removed. */
static long join_rooms(loop_scan *s, const int *cells, int count, const int *first_tile) {
  long joins = 0;
  for (int k = 0; k < count; k++) {
    int r = s->kind[cells[k]] == KIND_ROOM ? s->owner[cells[k]] : -1;
    if (r >= 0)
      joins += dg_uf_union(s->component, cells[k], first_tile[r]);
  }
  return joins;
}

/* The count over the listed tiles with room[] set, rooms being the
 * level's; with grid_part, the grid metrics from the same pass. */
static int count_loops(loop_scan *s, const dg_level *level, const int *cells, int count,
                       int *cycles, dg_metrics *grid_part) {
  int rooms = level->room_count;
  int *first_tile = malloc(((size_t)rooms + 1) * sizeof *first_tile);
  if (first_tile == NULL)
    return DG_ENOMEM;
  for (int r = 0; r < rooms; r++)
    first_tile[r] = -1;
  loop_counts n = {0};
  dg_metrics tally = {0};
  int rc = scan(s, cells, count, first_tile, &n, grid_part != NULL ? &tally : NULL);
  if (rc == 0 && grid_part != NULL) {
    /* Before the rooms are joined: these are the map's own components. */
    grid_part->walkable_tiles = count;
    grid_part->doors = tally.doors;
    grid_part->corridor_tiles = tally.corridor_tiles;
    grid_part->dead_ends = tally.dead_ends;
    grid_part->double_wide = tally.double_wide;
    grid_part->components = (int)n.components;
    grid_part->connected = dg_metrics_rooms_connected(level, s->walk, (int)s->stride, s->component);
  }
  if (rc == 0) {
    long components = n.components - join_rooms(s, cells, count, first_tile);
    /* A room with no walkable tile is a vertex alone (the trace gives
     * every room a node). */
    for (int r = 0; r < rooms; r++)
      components += first_tile[r] < 0;
    long edges = n.edges + distinct_pairs(s, rooms);
    long vertices = n.singles + (n.blob_tiles - n.blob_unions) + rooms;
    *cycles = (int)(edges - vertices + components);
  }
  free(first_tile);
  return rc;
}

int dg_grid_loops(const dg_level *level, int *cycles, dg_metrics *grid_part) {
  const dg_grid *grid = &level->grid;
  long stride = grid->width + 2, padded = stride * (grid->height + 2);
  /* A list as long as the map: counting the walkable tiles first to size
   * it cost a fifth of the pass. */
  size_t cells_max = (size_t)grid->width * (size_t)grid->height + 1;
  int rc = DG_ENOMEM;
  uint8_t *walk = calloc((size_t)padded, 1);
  uint8_t *kind = calloc((size_t)padded, 1);
  int *owner = malloc((size_t)padded * sizeof *owner);
  int *component = malloc((size_t)padded * sizeof *component);
  int *cells = malloc(cells_max * sizeof *cells);
  loop_scan s = {.stride = stride,
                 .tiles = grid->tiles,
                 .width = grid->width,
                 .walk = walk,
                 .owner = owner,
                 .kind = kind,
                 .component = component};
  if (walk == NULL || kind == NULL || owner == NULL || component == NULL || cells == NULL)
    goto done;
  int count = dg_tile_list_fill(grid, (int)stride, walk, cells, NULL);
  if (level->room_of == NULL) {
    dg_tile_list_rooms(level, (int)stride, walk, cells, count, owner);
  } else {
    rc = DG_EINTERNAL;
    /* The grid index from the row as the cells advance, not a division
     * per tile (two of them per walkable tile showed in landmark's). */
    long row_start = stride, row_end = 2 * stride;
    const int *row_of = level->room_of;
    for (int k = 0; k < count; k++) {
      long p = cells[k];
      while (p >= row_end) {
        row_start = row_end;
        row_end += stride;
        row_of += grid->width;
      }
      int r = row_of[p - row_start - 1];
      if (r >= level->room_count)
        goto done;
      owner[p] = r < 0 ? -1 : r;
    }
  }
  rc = count_loops(&s, level, cells, count, cycles, grid_part);
done:
  free(walk);
  free(kind);
  free(owner);
  free(component);
  free(cells);
  free(s.contacts);
  return rc;
}
