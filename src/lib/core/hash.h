/* Internal: the library's open-addressing hash table, 64-bit keys to
 * 32-bit values: one flat array of slots, linear probing from the key's
 * dg_mix64, at most half full (it doubles before that). Each slot carries
 * the stamp of the fill it belongs to, so emptying the table is one
 * increment (dg_hash_clear): searches that run thousands of times per
 * generation reuse one table without clearing it.
 *
 * Used for the occupancy buckets, the cycle pass's candidate buckets and
 * both cycle searches' visited sets (seed 003: "packed ... flat arrays
 * with linear probing rather than a general-purpose map"). The pattern
 * database keeps its own table: 32-bit keys and 16-bit costs, packed for
 * size (pdb.h). A table belongs to its owner: not thread-safe. */
#ifndef DUNGEON_CORE_HASH_H
#define DUNGEON_CORE_HASH_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dungeon/rng.h"

typedef struct dg_hash_slot {
  uint64_t key;   /* valid when stamp equals the table's */
  int32_t value;  /* the key's value */
  uint32_t stamp; /* fill this slot belongs to; others read as empty */
} dg_hash_slot;

typedef struct dg_hash {
  dg_hash_slot *slots; /* owned; a power of two of them */
  uint32_t mask;       /* slot count - 1 */
  uint32_t used;       /* keys in the current fill */
  uint32_t stamp;      /* the current fill, never 0 */
} dg_hash;

/* An empty table with room for `entries` keys before it grows. 0 or
 * DG_ENOMEM (then dg_hash_close is still safe). */
int dg_hash_init(dg_hash *table, uint32_t entries);

/* Frees the slots (safe on a zeroed or failed table). */
void dg_hash_close(dg_hash *table);

/* Empties the table in O(1) (O(slots) once every 2^32 clears). */
void dg_hash_clear(dg_hash *table);

/* Room for `entries` keys in all without growing while they are added.
 * 0 or DG_ENOMEM. */
int dg_hash_reserve(dg_hash *table, uint32_t entries);

/* The slot where `key` is or would go. */
static inline uint32_t dg_hash_slot_of(const dg_hash *table, uint64_t key) {
  /* The probe ends because dg_hash_put keeps the table at most half full:
   * a free slot always exists. */
  assert(table->slots != NULL && table->used <= table->mask);
  uint32_t slot = (uint32_t)dg_mix64(key) & table->mask;
  while (table->slots[slot].stamp == table->stamp && table->slots[slot].key != key)
    slot = (slot + 1) & table->mask;
  return slot;
}

/* The value of `key`, or NULL when the table does not hold it. The
 * pointer is valid until the next dg_hash_put or dg_hash_clear. */
static inline int32_t *dg_hash_get(const dg_hash *table, uint64_t key) {
  dg_hash_slot *slot = &table->slots[dg_hash_slot_of(table, key)];
  return slot->stamp == table->stamp ? &slot->value : NULL;
}

/* Finds or adds `key`; *value points at its value (set to `initial` when
 * the key is new). Returns 1 when added, 0 when it was there, DG_ENOMEM. */
int dg_hash_put(dg_hash *table, uint64_t key, int32_t initial, int32_t **value);

#endif
