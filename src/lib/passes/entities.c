/* The population pass's content picks (docs/population.md, "Entities"):
 * DCSS-style weighted tables. Each room's threat budget is spent on
 * encounters whose difficulty window holds the level's difficulty, drawn by
 * weight among those still affordable, until nothing affordable fits; its
 * loot share buys one item of its tier per DG_LOOT_POINTS_PER_ITEM points.
 * Every entity stands on room floor (so never on a corridor, the only
 * passable tile of one included), off doors, stairs, keys, locked doors,
 * spawns and objects, and more than two tiles (Chebyshev) from every spawn,
 * its whole footprint inside its room. Integer arithmetic and the
 * population stream only: the same request gives the same entities on
 * every build and thread count. */
#include "passes/entities.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng_step.h"

#define SPAWN_CLEARANCE 2 /* Chebyshev tiles kept free around a spawn */
#define BLOCKED 0xff      /* fill.open's mark of a tile no entity may cover (no dg_tile) */

/* Why a budget stayed unfilled (dg_population_room.unfilled). */
static const char NO_GRID[] = "the level has no tiles to place entities on";
static const char NO_WINDOW[] = "no entry in the difficulty window";
static const char TOO_DEAR[] = "every entry in the difficulty window costs more than the budget";
static const char NO_TILE[] = "no free tile";
static const char NO_TIER[] = "no loot entry of the room's tier";

/* One encounter of the difficulty window, copied out of the table: the
 * picks walk these many times a room, and the table's entries (ids
 * inline) are too wide to scan through an index (it showed in classic's
 * profile). */
typedef struct candidate {
  int cost;          /* threat points */
  int width, height; /* footprint */
  uint32_t weight;   /* relative odds */
  const char *id;    /* the table entry's id (borrowed from the table) */
  int id_size;       /* strlen(id) + 1 */
} candidate;

typedef struct fill {
  dg_level *level;
  dg_rng *rng;
  uint8_t *open;       /* the grid's tiles, BLOCKED under a feature, object, spawn's clearance
                          or entity: a tile is free plain floor when it reads DG_TILE_FLOOR */
  int x0, x1, y0, y1;  /* the room being filled: its rectangle on the grid, where anchors
                          are drawn (columns [x0, x1), rows [y0, y1)) */
  candidate *eligible; /* encounters whose window holds the difficulty, cheapest first */
  int eligible_count;
  uint32_t *live;        /* per eligible: its weight, 0 once it found no place in this room */
  uint32_t *sum;         /* eligible_count + 1 running sums of live */
  uint32_t *whole_sum;   /* the running sums of every eligible weight: `sum` until a miss */
  const dg_table *table; /* the loot grouped by tier (dg_table.loot_by_tier) */
} fill;

/* A draw below `bound` by multiply-shift: no division (dg_rng_below's
 * two modulos showed in classic's profile), a bias under bound / 2^32,
 * which content picks can bear; still integers only, so the same on every
 * build. */
static uint32_t draw(dg_rng *rng, uint32_t bound) {
  return (uint32_t)(((uint64_t)dg_rng_step(rng) * bound) >> 32);
}

/* The rows [*y0, *y1) and columns [*x0, *x1) of a width x height block at
 * (x, y) that lie on the grid. */
static void clip(const dg_grid *grid, int x, int y, int width, int height, int *x0, int *x1,
                 int *y0, int *y1) {
  *x0 = x > 0 ? x : 0;
  *y0 = y > 0 ? y : 0;
  *x1 = x + width < grid->width ? x + width : grid->width;
  *y1 = y + height < grid->height ? y + height : grid->height;
}

/* The grid's tiles into f->open (one memcpy), then BLOCKED over the tiles
 * no entity may cover besides those that are not plain floor: every
 * feature and object, and the clearance around each spawn. One map makes
 * "free plain floor" one test per tile in fits, instead
 * of the grid and a blocked map (both showed in classic's profile). */
static void block_tiles(fill *f) {
  const dg_grid *grid = &f->level->grid;
  memcpy(f->open, grid->tiles, (size_t)grid->width * (size_t)grid->height);
  for (int i = 0; i < f->level->object_count; i++) {
    const dg_object *o = &f->level->objects[i];
    if (dg_grid_contains(grid, o->x, o->y))
      f->open[(long)o->y * grid->width + o->x] = BLOCKED;
  }
  for (int i = 0; i < f->level->feature_count; i++) {
    const dg_feature *feature = &f->level->features[i];
    /* Two letters before strcmp: most features are not spawns. */
    bool spawn =
        feature->kind[0] == 's' && feature->kind[1] == 'p' && strcmp(feature->kind, "spawn") == 0;
    int reach = spawn ? SPAWN_CLEARANCE : 0, x0, x1, y0, y1;
    clip(grid, feature->x - reach, feature->y - reach, 2 * reach + 1, 2 * reach + 1, &x0, &x1, &y0,
         &y1);
    for (int y = y0; y < y1; y++)
      for (int x = x0; x < x1; x++)
        f->open[(long)y * grid->width + x] = BLOCKED;
  }
}

/* The general case of fits below: any footprint, tiles with or without
 * their room. Out of line, with the other rare paths of the picks, so
 * that the code run for every entity stays small (the pass runs once a
 * level between the generator's phases, and its instruction-cache misses
 * showed in classic's profile). */
__attribute__((noinline, cold)) static bool fits_any(const fill *f, int room, int x0, int y0,
                                                     int width, int height) {
  const int *room_of = f->level->room_of;
  long stride = f->level->grid.width;
  for (int y = y0; y < y0 + height; y++) {
    long row = (long)y * stride;
    for (int x = x0; x < x0 + width; x++)
      if (f->open[row + x] != DG_TILE_FLOOR || (room_of != NULL && room_of[row + x] != room))
        return false;
  }
  return true;
}

/* A width x height block anchored at (x0, y0), inside the grid and the
 * room's rectangle, lies free and in the room: every tile plain floor, not
 * blocked, and the room's own (room_of) when tiles name their room. */
static inline bool fits(const fill *f, int room, int x0, int y0, int width, int height) {
  const int *room_of = f->level->room_of;
  if (width > 2 || height > 2 || room_of == NULL)
    return fits_any(f, room, x0, y0, width, height);
  /* Most footprints: the four corners (a side of 1 repeats its tile),
   * tested without branches; the loops' exits of fits_any mispredicted as
   * footprints changed from pick to pick. */
  const uint8_t *open = f->open;
  long stride = f->level->grid.width;
  long a = (long)y0 * stride + x0, b = a + (width > 1), c = a + (height > 1) * stride;
  long d = c + (width > 1);
  return (open[a] == DG_TILE_FLOOR) & (open[b] == DG_TILE_FLOOR) & (open[c] == DG_TILE_FLOOR) &
         (open[d] == DG_TILE_FLOOR) & (room_of[a] == room) & (room_of[b] == room) &
         (room_of[c] == room) & (room_of[d] == room);
}

/* The first anchor in row order where a width x height block fits in the
 * room's rectangle (`across` x `down` anchors), into *x, *y: what place
 * falls back to when its random anchors missed. */
__attribute__((noinline, cold)) static bool
scan_anchor(const fill *f, int room, int width, int height, int across, int down, int *x, int *y) {
  for (int ay = f->y0; ay < f->y0 + down; ay++)
    for (int ax = f->x0; ax < f->x0 + across; ax++)
      if (fits(f, room, ax, ay, width, height)) {
        *x = ax;
        *y = ay;
        return true;
      }
  return false;
}

/* Blocks the tiles of a width x height block at (x, y) larger than 2 x 2. */
__attribute__((noinline, cold)) static void block_large(fill *f, int x, int y, int width,
                                                        int height) {
  long stride = f->level->grid.width;
  for (int dy = 0; dy < height; dy++)
    memset(f->open + (long)(y + dy) * stride + x, BLOCKED, (size_t)width);
}

/* Random anchors tried before the scan of every anchor: a room with free
 * floor left is usually hit in one or two. */
#define PLACE_TRIES 8

/* Places a width x height entity in `room`: an anchor drawn uniformly in
 * the room's rectangle (clipped to the grid) until one fits, at most
 * PLACE_TRIES times, then the first anchor that fits in row order. The
 * scan makes "false" exact: no anchor fits. Its tiles are then blocked.
 * Drawing in the rectangle replaced a list of the room's free tiles,
 * which every room built before its first pick (about 200 tiles a
 * classic level: the largest step of the picks in its profile). */
__attribute__((always_inline)) static inline bool place(fill *f, int room, int width, int height,
                                                        int *x, int *y) {
  int x0 = f->x0, y0 = f->y0;
  int across = f->x1 - x0 - width + 1, down = f->y1 - y0 - height + 1;
  if (across <= 0 || down <= 0)
    return false;
  bool found = false;
  /* One draw an anchor: the column by multiply-shift, the row from the
   * product's low half (the draw's fraction left below the column, about
   * uniform too). Integers only, as every draw of the pass. */
  for (int k = 0; k < PLACE_TRIES && !found; k++) {
    uint64_t wide = (uint64_t)dg_rng_step(f->rng) * (uint32_t)across;
    *x = x0 + (int)(wide >> 32);
    *y = y0 + (int)(((uint64_t)(uint32_t)wide * (uint32_t)down) >> 32);
    found = fits(f, room, *x, *y, width, height);
  }
  if (!found && !scan_anchor(f, room, width, height, across, down, x, y))
    return false;
  if (width > 2 || height > 2) {
    block_large(f, *x, *y, width, height);
    return true;
  }
  /* The corners, as fits tests them. */
  long stride = f->level->grid.width;
  long a = (long)*y * stride + *x, b = a + (width > 1), c = a + (height > 1) * stride;
  f->open[a] = f->open[b] = f->open[c] = f->open[c + (width > 1)] = BLOCKED;
  return true;
}

/* Doubles the room for entities. The first ones lie in the rooms'
 * allocation (dg_pass_population): moving out of it is a copy, not a
 * realloc. 0 or DG_ENOMEM. */
__attribute__((noinline)) static int grow_entities(dg_population *out) {
  int capacity = out->entity_capacity ? out->entity_capacity * 2 : 32;
  dg_entity *bigger;
  if (out->entities_with_rooms) {
    bigger = malloc((size_t)capacity * sizeof *bigger);
    if (bigger != NULL && out->entity_count > 0)
      memcpy(bigger, out->entities, (size_t)out->entity_count * sizeof *bigger);
  } else
    bigger = realloc(out->entities, (size_t)capacity * sizeof *bigger);
  if (bigger == NULL)
    return DG_ENOMEM;
  out->entities = bigger;
  out->entity_capacity = capacity;
  out->entities_with_rooms = false;
  return 0;
}

/* A new entity slot at the end of the level's list, zeroed, into *out.
 * 0 or DG_ENOMEM. */
static int add_entity(dg_population *out, dg_entity **slot) {
  if (out->entity_count == out->entity_capacity && grow_entities(out) != 0)
    return DG_ENOMEM;
  *slot = &out->entities[out->entity_count++];
  return 0;
}

/* Records an entity of `kind` from table entry `id` at (x, y) in `room`,
 * written in place (an entity is mostly its id: copying whole structs
 * showed in the profile). 0 or DG_ENOMEM. */
static int record(fill *f, dg_entity_kind kind, const char *id, int id_size, int room, int x, int y,
                  int width, int height, int cost, int tier) {
  dg_entity *e;
  if (add_entity(&f->level->population, &e) != 0)
    return DG_ENOMEM;
  e->kind = kind;
  e->room = room;
  e->x = x;
  e->y = y;
  e->width = width;
  e->height = height;
  e->cost = cost;
  e->tier = tier;
  /* Fixed-size copies (inlined: strlen, or a call to memcpy, showed in
   * classic's profile): the first half of the array when the id and its
   * NUL fit there, as most do (the whole array read two cold lines of the
   * table's entry for an id of a dozen bytes). Table ids are zeroed past
   * their NUL; readers stop at it. */
  if (id_size <= DG_ENTITY_ENTRY_MAX / 2)
    memcpy(e->entry, id, DG_ENTITY_ENTRY_MAX / 2);
  else
    memcpy(e->entry, id, DG_ENTITY_ENTRY_MAX);
  return 0;
}

/* The live weights' running sums over the eligible encounters (cheapest
 * first): sum[k] is the weight of entries 0..k-1. */
static void sum_weights(fill *f) {
  f->sum[0] = 0;
  for (int i = 0; i < f->eligible_count; i++)
    f->sum[i + 1] = f->sum[i] + f->live[i];
}

/* After `missed` found no place in the room: no spot for its footprint
 * means none for any as wide and as tall, so all of them are ruled out at
 * once (a full room is not scanned once per entry), and f->sum holds the
 * weights still live. `again`: earlier misses in this room already set
 * f->live. */
__attribute__((noinline, cold)) static void rule_out(fill *f, const candidate *missed, bool again) {
  if (!again)
    for (int i = 0; i < f->eligible_count; i++)
      f->live[i] = f->eligible[i].weight;
  for (int i = 0; i < f->eligible_count; i++)
    if (f->eligible[i].width >= missed->width && f->eligible[i].height >= missed->height)
      f->live[i] = 0;
  sum_weights(f);
}

/* How many of the first `count` eligible encounters (cheapest first) cost
 * at most `left`: a search without branches, since the walk down from
 * `count` it replaced mispredicted its exit once a pick (about a quarter
 * of the pass's mispredictions in classic's profile). */
static int count_affordable(const candidate *eligible, int count, int left) {
  if (count == 0)
    return 0;
  const candidate *at = eligible;
  for (int n = count; n > 1;) {
    int half = n / 2;
    at = at[half].cost <= left ? at + half : at;
    n -= half;
  }
  return (int)(at - eligible) + (at->cost <= left);
}

/* The last k below `count` with sums[k] <= pick, for running sums that
 * do not decrease from sums[0] <= pick (count >= 1): the entry a weighted
 * pick lands on when sums[k] is the weight before entry k. Without
 * branches: the answer stays in [at, at + n) while n halves. */
static int last_at_most(const uint32_t *sums, int count, uint32_t pick) {
  const uint32_t *at = sums;
  for (int n = count; n > 1;) {
    int half = n / 2;
    at = at[half] <= pick ? at + half : at;
    n -= half;
  }
  return (int)(at - sums);
}

/* Spends room `room`'s threat budget: weighted picks among the eligible
 * encounters it can still afford and has not failed to place. The
 * eligible are sorted by cost, so the affordable ones are a prefix and a
 * pick is a binary search in the running sums of their weights: a pick
 * costs O(log n), not two passes over the table (the cost showed in
 * classic's profile). */
static int fill_threat(fill *f, int room) {
  dg_population_room *budget = &f->level->population.rooms[room];
  if (budget->threat <= 0)
    return 0;
  if (f->eligible_count == 0) {
    budget->unfilled = NO_WINDOW;
    return 0;
  }
  /* Every eligible weight is live until a footprint finds no place: the
   * level's running sums serve until then, and only a miss copies them
   * (filling and summing the live weights per room showed in classic's
   * profile). */
  const uint32_t *sum = f->whole_sum;
  int affordable = f->eligible_count;
  bool misplaced = false;
  for (;;) {
    /* Both searches span every eligible entry, not only the affordable
     * ones: the same answers (costs and sums do not decrease, and entries
     * past the affordable cost more than is left), and a number of steps
     * that stays the same all level, which the branch predictor learns. */
    int left = budget->threat - budget->spent;
    if (affordable > 0 && f->eligible[affordable - 1].cost > left)
      affordable = count_affordable(f->eligible, f->eligible_count, left);
    uint32_t total = sum[affordable];
    if (total == 0) {
      if (misplaced)
        budget->unfilled = NO_TILE;
      else if (budget->spent == 0)
        budget->unfilled = TOO_DEAR;
      return 0;
    }
    /* The k with sum[k] <= pick < sum[k + 1]: sum[0] = 0 <= pick < sum[affordable]. */
    const candidate *e = &f->eligible[last_at_most(sum, f->eligible_count, draw(f->rng, total))];
    int x, y;
    if (!place(f, room, e->width, e->height, &x, &y)) {
      rule_out(f, e, misplaced);
      sum = f->sum;
      misplaced = true;
      continue;
    }
    if (record(f, DG_ENTITY_ENCOUNTER, e->id, e->id_size, room, x, y, e->width, e->height, e->cost,
               0) != 0)
      return DG_ENOMEM;
    budget->spent += e->cost;
  }
}

/* Buys room `room`'s loot: one item of its tier per
 * DG_LOOT_POINTS_PER_ITEM points of its share (rounded up), at most
 * DG_LOOT_ITEMS_MAX. */
static int fill_loot(fill *f, int room) {
  dg_population_room *budget = &f->level->population.rooms[room];
  if (budget->loot <= 0)
    return 0;
  int wanted = (budget->loot + DG_LOOT_POINTS_PER_ITEM - 1) / DG_LOOT_POINTS_PER_ITEM;
  wanted = wanted < DG_LOOT_ITEMS_MAX ? wanted : DG_LOOT_ITEMS_MAX;
  int tier = budget->loot_tier;
  const dg_table *table = f->table;
  int first = table->tier_first[tier], count = table->tier_first[tier + 1] - first;
  if (count == 0) {
    budget->loot_unfilled = NO_TIER;
    return 0;
  }
  /* The entry whose share of the tier's weight holds the pick, found in
   * the table's running sums (the walk through the entries' weights it
   * replaced read one cold entry a step). */
  const uint32_t *sums = table->loot_sum + first;
  for (; budget->loot_items < wanted; budget->loot_items++) {
    uint32_t pick = sums[0] + draw(f->rng, table->tier_weight[tier]);
    const dg_table_loot *l = table->loot_by_tier[first + last_at_most(sums, count, pick)];
    int x, y;
    if (!place(f, room, 1, 1, &x, &y)) {
      budget->loot_unfilled = NO_TILE;
      return 0;
    }
    if (record(f, DG_ENTITY_LOOT, l->id, l->id_size, room, x, y, 1, 1, 0, l->tier) != 0)
      return DG_ENOMEM;
  }
  return 0;
}

/* A level without tiles (authored, no grid): budgets are reported, none
 * filled. */
__attribute__((cold)) static void no_grid(dg_level *level) {
  for (int r = 0; r < level->room_count; r++) {
    dg_population_room *room = &level->population.rooms[r];
    if (room->threat > 0)
      room->unfilled = NO_GRID;
    if (room->loot > 0)
      room->loot_unfilled = NO_GRID;
  }
}

size_t dg_population_fill_bytes(const dg_level *level, const dg_table *table) {
  if (!level->has_grid)
    return 0;
  size_t cells = (size_t)level->grid.width * (size_t)level->grid.height;
  size_t entries = (size_t)table->encounter_count + 1;
  /* The 8-byte arrays first, so that every array is aligned. */
  return entries * sizeof(candidate) + 3 * entries * sizeof(uint32_t) + cells;
}

/* Carves f's arrays out of `scratch` (dg_population_fill_bytes). */
static void carve(fill *f, const dg_table *table, void *scratch) {
  size_t entries = (size_t)table->encounter_count + 1;
  f->eligible = scratch;
  f->live = (uint32_t *)(f->eligible + entries);
  f->sum = f->live + entries;
  f->whole_sum = f->sum + entries;
  f->open = (uint8_t *)(f->whole_sum + entries);
}

/* The encounters whose window holds the level's difficulty, in the
 * table's cost order (cheapest first, ties in file order), and the running
 * sums of their weights. */
static void choose_entries(fill *f, const dg_table *table) {
  int difficulty = f->level->population.difficulty, count = 0;
  candidate *eligible = f->eligible;
  uint32_t *whole_sum = f->whole_sum;
  whole_sum[0] = 0;
  for (int k = 0; k < table->encounter_count; k++) {
    const dg_table_pick *e = &table->picks[k];
    if (e->min <= difficulty && difficulty <= e->max) {
      eligible[count] =
          (candidate){e->cost, e->width, e->height, (uint32_t)e->weight, e->id, e->id_size};
      whole_sum[count + 1] = whole_sum[count] + (uint32_t)e->weight;
      count++;
    }
  }
  f->eligible_count = count;
  f->table = table;
}

int dg_population_fill(dg_level *level, const dg_table *table, dg_rng *rng, void *scratch) {
  if (!level->has_grid) {
    no_grid(level);
    return 0;
  }
  fill f = {.level = level, .rng = rng};
  carve(&f, table, scratch);
  choose_entries(&f, table);
  block_tiles(&f);
  int rc = 0;
  for (int r = 0; r < level->room_count && rc == 0; r++) {
    const dg_population_room *budget = &level->population.rooms[r];
    if (budget->distance < 0 || (budget->threat <= 0 && budget->loot <= 0))
      continue;
    const dg_room *room = &level->rooms[r];
    clip(&level->grid, room->x, room->y, room->width, room->height, &f.x0, &f.x1, &f.y0, &f.y1);
    rc = fill_threat(&f, r);
    if (rc == 0)
      rc = fill_loot(&f, r);
  }
  return rc;
}
