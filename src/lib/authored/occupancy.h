/* Internal: the occupancy index of placed space (seed 003, "Rooms as
 * moves": the search checks moves "against the occupancy index (with
 * localized buckets for fast AABB collision checks)"). World boxes are kept
 * in one array; a hash table of fixed-size spatial buckets (core/hash.h:
 * one flat array, linear probing) gives, for each bucket, the first entry
 * of the chain of boxes that reach into it; the chains are indices in one
 * flat array: no allocation per box beyond amortised growth. One index per
 * generation. */
#ifndef DUNGEON_AUTHORED_OCCUPANCY_H
#define DUNGEON_AUTHORED_OCCUPANCY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hash.h"
#include "core/vec.h"
#include "roomset.h"

#define OCC_BUCKET_SHIFT 4 /* buckets of 16 x 16 x 16 blocks */

/* One box reaching into one bucket. */
typedef struct occ_entry {
  int box;  /* index in boxes */
  int next; /* next entry of the same bucket, -1 ends */
} occ_entry;

typedef struct occ_index {
  dg_hash buckets;           /* packed bucket coordinates -> first entry */
  DG_VEC(occ_entry) entries; /* the buckets' chains */
  DG_VEC(rs_box) boxes;      /* every box added, in order */
  DG_VEC(int) owner;         /* box -> owner id (a placement), parallel to boxes */
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
