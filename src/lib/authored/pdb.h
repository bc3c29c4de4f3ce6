/* Internal: the pattern database (seed 003, "The pattern database"): for a
 * goal connector facing north at the origin, the exact cheapest cost of a
 * chain of rooms from every nearby open-connector state (relative position
 * and facing) to a doorway that meets the goal, in empty space. Built once
 * per room set by a backward Dijkstra bounded by cost, so it holds every
 * state whose cost is within the bound: a state without an entry needs more
 * than the bound (the search fails it at once), and since obstacles only
 * lengthen a route the values never overestimate.
 *
 * Packed (footnote 3): a state is one 32-bit key in an open-addressed hash
 * table of two flat arrays (keys, 16-bit costs) with linear probing. */
#ifndef DUNGEON_AUTHORED_PDB_H
#define DUNGEON_AUTHORED_PDB_H

#include <stdbool.h>
#include <stdint.h>

#define AUTHORED_PDB_EMPTY UINT32_MAX
#define AUTHORED_PDB_COST_MAX 96 /* walking blocks a chain may cost */
#define AUTHORED_PDB_XZ_BIAS 512 /* relative x and z in [-512, 511] */
#define AUTHORED_PDB_Y_BIAS 128  /* relative y in [-128, 127] */
#define AUTHORED_PDB_Y_RANGE 16  /* heights the table covers: a chain climbs at most this */

struct authored_roomset;

typedef struct authored_pdb {
  uint32_t *keys;    /* packed states, AUTHORED_PDB_EMPTY when free */
  uint16_t *costs;   /* cheapest cost to the goal, parallel to keys */
  uint32_t slots;    /* a power of two */
  uint32_t mask;     /* slots - 1 */
  int states;        /* entries */
  int cost_max;      /* the bound the table was built to */
  uint64_t build_ns; /* how long building took (for people; not in levels) */
} authored_pdb;

/* A relative state as a key, or AUTHORED_PDB_EMPTY when out of range. */
static inline uint32_t authored_pdb_key(int dx, int dy, int dz, int facing) {
  if (dx < -AUTHORED_PDB_XZ_BIAS || dx >= AUTHORED_PDB_XZ_BIAS || dz < -AUTHORED_PDB_XZ_BIAS ||
      dz >= AUTHORED_PDB_XZ_BIAS || dy < -AUTHORED_PDB_Y_BIAS || dy >= AUTHORED_PDB_Y_BIAS)
    return AUTHORED_PDB_EMPTY;
  return (uint32_t)(dx + AUTHORED_PDB_XZ_BIAS) << 20 | (uint32_t)(dz + AUTHORED_PDB_XZ_BIAS) << 10 |
         (uint32_t)(dy + AUTHORED_PDB_Y_BIAS) << 2 | (uint32_t)facing;
}

/* murmur3's 32-bit finaliser: every key bit reaches the low bits that the
 * mask keeps (a plain multiply would leave them to the key's low bits). */
static inline uint32_t authored_pdb_slot(uint32_t key, uint32_t mask) {
  key ^= key >> 16;
  key *= 0x85ebca6bu;
  key ^= key >> 13;
  key *= 0xc2b2ae35u;
  key ^= key >> 16;
  return key & mask;
}

/* The slot where `key` is or would go (linear probing). */
static inline uint32_t authored_pdb_find(const authored_pdb *pdb, uint32_t key) {
  uint32_t slot = authored_pdb_slot(key, pdb->mask);
  while (pdb->keys[slot] != AUTHORED_PDB_EMPTY && pdb->keys[slot] != key)
    slot = (slot + 1) & pdb->mask;
  return slot;
}

/* Cost from the state to the goal, or -1 when the table has no entry
 * (unreachable within cost_max). */
static inline int authored_pdb_lookup(const authored_pdb *pdb, uint32_t key) {
  if (key == AUTHORED_PDB_EMPTY)
    return -1;
  uint32_t slot = authored_pdb_find(pdb, key);
  return pdb->keys[slot] == key ? pdb->costs[slot] : -1;
}

/* Builds the table for `set`'s moves up to `cost_max`. 0 or DG_ENOMEM. */
int authored_pdb_build(const struct authored_roomset *set, int cost_max, authored_pdb *pdb);
void authored_pdb_free(authored_pdb *pdb);

#endif
