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

#define SPAWN_CLEARANCE 2 /* Chebyshev tiles kept free around a spawn */

/* Why a budget stayed unfilled (dg_population_room.unfilled). */
static const char NO_GRID[] = "the level has no tiles to place entities on";
static const char NO_WINDOW[] = "no entry in the difficulty window";
static const char TOO_DEAR[] = "every entry in the difficulty window costs more than the budget";
static const char NO_TILE[] = "no free tile";
static const char NO_TIER[] = "no loot entry of the room's tier";

typedef struct fill {
  dg_level *level;
  const dg_table *table;
  dg_rng *rng;
  uint8_t *blocked; /* grid tile: 1 when no entity may cover it (or one does) */
  int *tiles;       /* the free tiles of the room being filled, x | y << 16, in no order */
  int tile_count;   /* how many are still free */
  int *slot;        /* grid tile -> its place in `tiles` (set for the room's free tiles) */
  int *eligible;    /* encounters whose window holds the difficulty */
  int eligible_count;
  uint32_t *live; /* per eligible: its weight, 0 once it found no place in this room */
  uint32_t *sum;  /* eligible_count + 1 running sums of live */
  int *tier_loot; /* scratch: loot entries of one tier */
} fill;

/* A draw below `bound` by multiply-shift: no division (dg_rng_below's
 * two modulos showed in classic's profile), a bias under bound / 2^32,
 * which content picks can bear; still integers only, so the same on every
 * build. */
static uint32_t draw(dg_rng *rng, uint32_t bound) {
  return (uint32_t)(((uint64_t)dg_rng_next(rng) * bound) >> 32);
}

static bool in_room(const dg_level *level, int room, int x, int y) {
  const dg_room *r = &level->rooms[room];
  if (x < r->x || y < r->y || x >= r->x + r->width || y >= r->y + r->height)
    return false;
  return level->room_of == NULL || level->room_of[(long)y * level->grid.width + x] == room;
}

/* Tiles no entity may cover: everything but plain floor, every feature and
 * object, and the clearance around each spawn. */
static void block_tiles(fill *f) {
  const dg_grid *grid = &f->level->grid;
  long cells = (long)grid->width * grid->height;
  for (long i = 0; i < cells; i++)
    f->blocked[i] = grid->tiles[i] != DG_TILE_FLOOR;
  for (int i = 0; i < f->level->object_count; i++) {
    const dg_object *o = &f->level->objects[i];
    if (dg_grid_contains(grid, o->x, o->y))
      f->blocked[(long)o->y * grid->width + o->x] = 1;
  }
  for (int i = 0; i < f->level->feature_count; i++) {
    const dg_feature *feature = &f->level->features[i];
    int reach = strcmp(feature->kind, "spawn") == 0 ? SPAWN_CLEARANCE : 0;
    for (int y = feature->y - reach; y <= feature->y + reach; y++)
      for (int x = feature->x - reach; x <= feature->x + reach; x++)
        if (dg_grid_contains(grid, x, y))
          f->blocked[(long)y * grid->width + x] = 1;
  }
}

/* The free tiles of `room` into f->tiles, in row order. */
static void collect_tiles(fill *f, int room) {
  const dg_room *r = &f->level->rooms[room];
  const dg_grid *grid = &f->level->grid;
  f->tile_count = 0;
  for (int y = r->y; y < r->y + r->height; y++)
    for (int x = r->x; x < r->x + r->width; x++)
      if (dg_grid_contains(grid, x, y) && !f->blocked[(long)y * grid->width + x] &&
          in_room(f->level, room, x, y)) {
        f->slot[(long)y * grid->width + x] = f->tile_count;
        f->tiles[f->tile_count++] = x | y << 16;
      }
}

/* A width x height block anchored at (x0, y0) lies free and in `room`. */
static bool fits(const fill *f, int room, int x0, int y0, int width, int height) {
  const dg_grid *grid = &f->level->grid;
  for (int y = y0; y < y0 + height; y++)
    for (int x = x0; x < x0 + width; x++)
      if (!dg_grid_contains(grid, x, y) || f->blocked[(long)y * grid->width + x] ||
          !in_room(f->level, room, x, y))
        return false;
  return true;
}

/* Covers the free tile (x, y): blocked, and swapped out of the list, so
 * that the list holds only free tiles and a 1 x 1 entity needs no scan. */
static void cover(fill *f, int x, int y) {
  int columns = f->level->grid.width;
  long cell = (long)y * columns + x;
  int k = f->slot[cell], last = f->tiles[--f->tile_count];
  f->tiles[k] = last;
  f->slot[(long)(last >> 16) * columns + (last & 0xffff)] = k;
  f->blocked[cell] = 1;
}

/* Places a width x height entity in `room`: a random free tile for 1 x 1,
 * else the first free anchor that fits scanning the free tiles from a
 * random one. Its tiles are then covered. false when none fits. */
static bool place(fill *f, int room, int width, int height, int *x, int *y) {
  /* Fewer free tiles than the footprint: no scan (and no draw) needed. */
  if (f->tile_count < width * height)
    return false;
  int start = (int)draw(f->rng, (uint32_t)f->tile_count);
  for (int k = 0, i = start; k < f->tile_count; k++, i = i + 1 < f->tile_count ? i + 1 : 0) {
    int at = f->tiles[i];
    if ((width > 1 || height > 1) && !fits(f, room, at & 0xffff, at >> 16, width, height))
      continue;
    *x = at & 0xffff;
    *y = at >> 16;
    for (int dy = 0; dy < height; dy++)
      for (int dx = 0; dx < width; dx++)
        cover(f, *x + dx, *y + dy);
    return true;
  }
  return false;
}

/* A new entity slot at the end of the level's list, zeroed, into *out.
 * 0 or DG_ENOMEM. */
static int add_entity(dg_population *out, dg_entity **slot) {
  if (out->entity_count == out->entity_capacity) {
    int capacity = out->entity_capacity ? out->entity_capacity * 2 : 32;
    dg_entity *bigger = realloc(out->entities, (size_t)capacity * sizeof *bigger);
    if (bigger == NULL)
      return DG_ENOMEM;
    out->entities = bigger;
    out->entity_capacity = capacity;
  }
  *slot = &out->entities[out->entity_count++];
  return 0;
}

/* Records an entity of `kind` from table entry `id` at (x, y) in `room`,
 * written in place (an entity is mostly its id: copying whole structs
 * showed in the profile). 0 or DG_ENOMEM. */
static int record(fill *f, dg_entity_kind kind, const char *id, int room, int x, int y, int width,
                  int height, int cost, int tier) {
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
  memcpy(e->entry, id, strlen(id) + 1); /* ids are validated shorter than entry */
  return 0;
}

/* The live weights' running sums over the first `count` eligible
 * encounters (cheapest first): sum[k] is the weight of entries 0..k-1. */
static void sum_weights(fill *f) {
  f->sum[0] = 0;
  for (int i = 0; i < f->eligible_count; i++)
    f->sum[i + 1] = f->sum[i] + f->live[i];
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
  for (int i = 0; i < f->eligible_count; i++)
    f->live[i] = (uint32_t)f->table->encounters[f->eligible[i]].weight;
  sum_weights(f);
  int affordable = f->eligible_count;
  bool misplaced = false;
  for (;;) {
    int left = budget->threat - budget->spent;
    while (affordable > 0 && f->table->encounters[f->eligible[affordable - 1]].cost > left)
      affordable--;
    uint32_t total = f->sum[affordable];
    if (total == 0) {
      if (misplaced)
        budget->unfilled = NO_TILE;
      else if (budget->spent == 0)
        budget->unfilled = TOO_DEAR;
      return 0;
    }
    /* The first k whose running sum passes the pick: sum[k] <= pick < sum[k + 1]. */
    uint32_t pick = draw(f->rng, total);
    int lo = 0, hi = affordable - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (f->sum[mid + 1] > pick)
        hi = mid;
      else
        lo = mid + 1;
    }
    const dg_table_encounter *e = &f->table->encounters[f->eligible[lo]];
    int x, y;
    if (!place(f, room, e->width, e->height, &x, &y)) {
      /* No spot for this footprint means none for any as wide and as
       * tall: ruling them all out at once keeps a full room from being
       * scanned once per entry. */
      for (int i = 0; i < f->eligible_count; i++) {
        const dg_table_encounter *other = &f->table->encounters[f->eligible[i]];
        if (other->width >= e->width && other->height >= e->height)
          f->live[i] = 0;
      }
      sum_weights(f);
      misplaced = true;
      continue;
    }
    if (record(f, DG_ENTITY_ENCOUNTER, e->id, room, x, y, e->width, e->height, e->cost, 0) != 0)
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
  int count = 0;
  uint32_t total = 0;
  for (int i = 0; i < f->table->loot_count; i++)
    if (f->table->loot[i].tier == budget->loot_tier) {
      f->tier_loot[count++] = i;
      total += (uint32_t)f->table->loot[i].weight;
    }
  if (count == 0) {
    budget->loot_unfilled = NO_TIER;
    return 0;
  }
  for (; budget->loot_items < wanted; budget->loot_items++) {
    uint32_t pick = draw(f->rng, total);
    int chosen = 0;
    while (pick >= (uint32_t)f->table->loot[f->tier_loot[chosen]].weight)
      pick -= (uint32_t)f->table->loot[f->tier_loot[chosen++]].weight;
    const dg_table_loot *l = &f->table->loot[f->tier_loot[chosen]];
    int x, y;
    if (!place(f, room, 1, 1, &x, &y)) {
      budget->loot_unfilled = NO_TILE;
      return 0;
    }
    if (record(f, DG_ENTITY_LOOT, l->id, room, x, y, 1, 1, 0, l->tier) != 0)
      return DG_ENOMEM;
  }
  return 0;
}

/* A level without tiles (authored, no grid): budgets are reported, none
 * filled. */
static void no_grid(dg_level *level) {
  for (int r = 0; r < level->room_count; r++) {
    dg_population_room *room = &level->population.rooms[r];
    if (room->threat > 0)
      room->unfilled = NO_GRID;
    if (room->loot > 0)
      room->loot_unfilled = NO_GRID;
  }
}

int dg_population_fill(dg_level *level, const dg_table *table, dg_rng *rng) {
  if (!level->has_grid) {
    no_grid(level);
    return 0;
  }
  fill f = {.level = level, .table = table, .rng = rng};
  /* One allocation for the scratch, as the budgets' pass does: the fill
   * runs on every level that names a table. */
  size_t cells = (size_t)level->grid.width * (size_t)level->grid.height;
  size_t entries = (size_t)table->encounter_count + 1, loot = (size_t)table->loot_count + 1;
  char *scratch = malloc(cells * (sizeof *f.tiles + sizeof *f.slot) +
                         entries * (sizeof *f.eligible + sizeof *f.live + sizeof *f.sum) +
                         loot * sizeof *f.tier_loot + cells);
  int rc = 0;
  if (scratch == NULL) {
    rc = DG_ENOMEM;
    goto done;
  }
  f.tiles = (int *)scratch;
  f.slot = f.tiles + cells;
  f.eligible = f.slot + cells;
  f.tier_loot = f.eligible + entries;
  f.live = (uint32_t *)(f.tier_loot + loot);
  f.sum = f.live + entries;
  f.blocked = (uint8_t *)(f.sum + entries);
  int difficulty = level->population.difficulty;
  /* In the table's cost order (cheapest first, ties in file order). */
  for (int k = 0; k < table->encounter_count; k++) {
    int i = table->by_cost[k];
    if (table->encounters[i].min <= difficulty && difficulty <= table->encounters[i].max)
      f.eligible[f.eligible_count++] = i;
  }
  block_tiles(&f);
  for (int r = 0; r < level->room_count && rc == 0; r++) {
    if (level->population.rooms[r].distance < 0)
      continue;
    collect_tiles(&f, r);
    rc = fill_threat(&f, r);
    if (rc == 0)
      rc = fill_loot(&f, r);
  }
done:
  free(scratch);
  return rc;
}
