/* The occupancy index: spatial buckets over placed boxes (see occupancy.h
 * and seed 003, "Rooms as moves"). */
#include "occupancy.h"

#include <stdlib.h>

#include "dungeon/rng.h"

#define OCC_EMPTY UINT64_MAX
#define OCC_BIAS (1 << 20) /* bucket coordinates are biased to stay positive */

static int bucket_of(int v) {
  return v >= 0 ? v >> OCC_BUCKET_SHIFT : -((-v + (1 << OCC_BUCKET_SHIFT) - 1) >> OCC_BUCKET_SHIFT);
}

static uint64_t pack(int bx, int by, int bz) {
  return (uint64_t)(uint32_t)(bx + OCC_BIAS) << 42 | (uint64_t)(uint32_t)(by + OCC_BIAS) << 21 |
         (uint64_t)(uint32_t)(bz + OCC_BIAS);
}

static uint32_t find_slot(const occ_index *index, uint64_t key) {
  uint32_t mask = index->slots - 1, slot = (uint32_t)dg_mix64(key) & mask;
  while (index->keys[slot] != OCC_EMPTY && index->keys[slot] != key)
    slot = (slot + 1) & mask;
  return slot;
}

static int alloc_table(occ_index *index, uint32_t slots) {
  index->keys = malloc((size_t)slots * sizeof *index->keys);
  index->heads = malloc((size_t)slots * sizeof *index->heads);
  if (index->keys == NULL || index->heads == NULL)
    return DG_ENOMEM;
  for (uint32_t i = 0; i < slots; i++)
    index->keys[i] = OCC_EMPTY;
  index->slots = slots;
  index->used = 0;
  return 0;
}

int occ_init(occ_index *index) {
  *index = (occ_index){0};
  return alloc_table(index, 1024);
}

void occ_close(occ_index *index) {
  free(index->keys);
  free(index->heads);
  free(index->entry_box);
  free(index->entry_next);
  free(index->boxes);
  free(index->owner);
  *index = (occ_index){0};
}

/* Doubles the table when it is half full, re-inserting every bucket. */
static int grow_table(occ_index *index) {
  occ_index old = *index;
  if (alloc_table(index, old.slots * 2) != 0) {
    free(index->keys);
    free(index->heads);
    index->keys = old.keys;
    index->heads = old.heads;
    index->slots = old.slots;
    index->used = old.used;
    return DG_ENOMEM;
  }
  for (uint32_t i = 0; i < old.slots; i++)
    if (old.keys[i] != OCC_EMPTY) {
      uint32_t slot = find_slot(index, old.keys[i]);
      index->keys[slot] = old.keys[i];
      index->heads[slot] = old.heads[i];
      index->used++;
    }
  free(old.keys);
  free(old.heads);
  return 0;
}

static int reserve(void **items, int *capacity, int needed, size_t size) {
  if (needed <= *capacity)
    return 0;
  int grown = *capacity ? *capacity : 256;
  while (grown < needed)
    grown *= 2;
  void *bigger = realloc(*items, (size_t)grown * size);
  if (bigger == NULL)
    return DG_ENOMEM;
  *items = bigger;
  *capacity = grown;
  return 0;
}

int occ_add(occ_index *index, const rs_box *box, int owner) {
  int box_capacity = index->box_capacity;
  if (reserve((void **)&index->boxes, &box_capacity, index->box_count + 1, sizeof(rs_box)) != 0 ||
      reserve((void **)&index->owner, &index->box_capacity, index->box_count + 1, sizeof(int)) != 0)
    return DG_ENOMEM;
  int id = index->box_count++;
  index->boxes[id] = *box;
  index->owner[id] = owner;
  int bx0 = bucket_of(box->x0), bx1 = bucket_of(box->x1 - 1);
  int by0 = bucket_of(box->y0), by1 = bucket_of(box->y1 - 1);
  int bz0 = bucket_of(box->z0), bz1 = bucket_of(box->z1 - 1);
  int needed = index->entry_count + (bx1 - bx0 + 1) * (by1 - by0 + 1) * (bz1 - bz0 + 1);
  int entry_capacity = index->entry_capacity;
  if (reserve((void **)&index->entry_box, &entry_capacity, needed, sizeof(int)) != 0 ||
      reserve((void **)&index->entry_next, &index->entry_capacity, needed, sizeof(int)) != 0)
    return DG_ENOMEM;
  for (int bx = bx0; bx <= bx1; bx++)
    for (int by = by0; by <= by1; by++)
      for (int bz = bz0; bz <= bz1; bz++) {
        if ((index->used + 1) * 2 > index->slots && grow_table(index) != 0)
          return DG_ENOMEM;
        uint64_t key = pack(bx, by, bz);
        uint32_t slot = find_slot(index, key);
        if (index->keys[slot] == OCC_EMPTY) {
          index->keys[slot] = key;
          index->heads[slot] = -1;
          index->used++;
        }
        int e = index->entry_count++;
        index->entry_box[e] = id;
        index->entry_next[e] = index->heads[slot];
        index->heads[slot] = e;
      }
  return 0;
}

bool occ_is_free(const occ_index *index, const rs_box *box) {
  return occ_is_free_except(index, box, -2);
}

bool occ_is_free_except(const occ_index *index, const rs_box *box, int owner) {
  int bx0 = bucket_of(box->x0), bx1 = bucket_of(box->x1 - 1);
  int by0 = bucket_of(box->y0), by1 = bucket_of(box->y1 - 1);
  int bz0 = bucket_of(box->z0), bz1 = bucket_of(box->z1 - 1);
  for (int bx = bx0; bx <= bx1; bx++)
    for (int by = by0; by <= by1; by++)
      for (int bz = bz0; bz <= bz1; bz++) {
        uint32_t slot = find_slot(index, pack(bx, by, bz));
        if (index->keys[slot] == OCC_EMPTY)
          continue;
        for (int e = index->heads[slot]; e >= 0; e = index->entry_next[e])
          if (rs_box_overlap(&index->boxes[index->entry_box[e]], box) &&
              index->owner[index->entry_box[e]] != owner)
            return false;
      }
  return true;
}
