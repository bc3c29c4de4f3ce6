/* The open-addressing hash table (hash.h). */
#include "hash.h"

#include <stdlib.h>

#include "dungeon/error.h"

#define HASH_FIRST_SLOTS 16u

/* Slots for `entries` keys at most half full. */
static uint32_t slots_for(uint32_t entries) {
  uint32_t slots = HASH_FIRST_SLOTS;
  while (slots / 2 < entries && slots < (1u << 31))
    slots *= 2;
  return slots;
}

int dg_hash_init(dg_hash *table, uint32_t entries) {
  uint32_t slots = slots_for(entries);
  *table = (dg_hash){.mask = slots - 1, .stamp = 1};
  table->slots = calloc(slots, sizeof *table->slots);
  return table->slots != NULL ? 0 : DG_ENOMEM;
}

void dg_hash_close(dg_hash *table) {
  free(table->slots);
  *table = (dg_hash){0};
}

void dg_hash_clear(dg_hash *table) {
  table->used = 0;
  if (++table->stamp == 0) {
    /* Wrapped: slots of 2^32 fills ago would read as current. */
    for (uint32_t i = 0; i <= table->mask; i++)
      table->slots[i].stamp = 0;
    table->stamp = 1;
  }
}

int dg_hash_reserve(dg_hash *table, uint32_t entries) {
  uint32_t slots = slots_for(entries);
  if (slots <= table->mask + 1)
    return 0;
  dg_hash_slot *bigger = calloc(slots, sizeof *bigger);
  if (bigger == NULL)
    return DG_ENOMEM;
  dg_hash_slot *old = table->slots;
  uint32_t old_slots = table->mask + 1;
  table->slots = bigger;
  table->mask = slots - 1;
  for (uint32_t i = 0; i < old_slots; i++)
    if (old[i].stamp == table->stamp)
      table->slots[dg_hash_slot_of(table, old[i].key)] = old[i];
  free(old);
  return 0;
}

int dg_hash_put(dg_hash *table, uint64_t key, int32_t initial, int32_t **value) {
  uint32_t at = dg_hash_slot_of(table, key);
  if (table->slots[at].stamp != table->stamp) {
    if ((table->used + 1) * 2 > table->mask + 1) {
      if (dg_hash_reserve(table, table->used + 1) != 0)
        return DG_ENOMEM;
      at = dg_hash_slot_of(table, key);
    }
    table->slots[at] = (dg_hash_slot){key, initial, table->stamp};
    table->used++;
    *value = &table->slots[at].value;
    return 1;
  }
  *value = &table->slots[at].value;
  return 0;
}
