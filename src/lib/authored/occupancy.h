/* Internal: the occupancy index of placed space (seed 003, "Rooms as
 * moves": the search checks moves "against the occupancy index (with
 * localized buckets for fast AABB collision checks)"). World boxes are kept
 * in one array; a hash table of fixed-size spatial buckets lists, for each
 * bucket, the boxes that reach into it. The table is two flat arrays with
 * linear probing and the bucket lists are index chains in flat arrays: no
 * allocation per box beyond amortised growth. One index per generation. */
#ifndef DUNGEON_AUTHORED_OCCUPANCY_H
#define DUNGEON_AUTHORED_OCCUPANCY_H

#include <stdbool.h>
#include <stdint.h>

#include "roomset.h"

#define OCC_BUCKET_SHIFT 4 /* buckets of 16 x 16 x 16 blocks */

typedef struct occ_index {
  uint64_t *keys;  /* packed bucket coordinates, OCC_EMPTY when free */
  int *heads;      /* first entry of each bucket's chain, parallel to keys */
  uint32_t slots;  /* table size, a power of two */
  uint32_t used;   /* occupied slots */
  int *entry_box;  /* entry -> box index */
  int *entry_next; /* entry -> next entry of the same bucket, -1 ends */
  int entry_count, entry_capacity;
  rs_box *boxes; /* every box added, in order */
  int *owner;    /* box -> owner id (a placement) */
  int box_count, box_capacity;
} occ_index;

/* Empty index. 0 or DG_ENOMEM. */
int occ_init(occ_index *index);
void occ_close(occ_index *index);

/* Adds a world box owned by `owner`. 0 or DG_ENOMEM. */
int occ_add(occ_index *index, const rs_box *box, int owner);

/* True when `box` overlaps no box in the index. */
bool occ_is_free(const occ_index *index, const rs_box *box);

/* True when `box` overlaps no box in the index other than those owned by
 * `owner`. */
bool occ_is_free_except(const occ_index *index, const rs_box *box, int owner);

/* True when no box in the index holds the block (x, y, z). */
static inline bool occ_block_free(const occ_index *index, int x, int y, int z) {
  rs_box block = {x, y, z, x + 1, y + 1, z + 1};
  return occ_is_free(index, &block);
}

#endif
