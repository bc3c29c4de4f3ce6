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

#define AUTHORED_OCC_BUCKET_SHIFT 4 /* buckets of 16 x 16 x 16 blocks */

/* One box reaching into one bucket. */
typedef struct authored_occ_entry {
  int box;  /* index in boxes */
  int next; /* next entry of the same bucket, -1 ends */
} authored_occ_entry;

typedef struct authored_occ_index {
  dg_hash buckets;                    /* packed bucket coordinates -> first entry */
  DG_VEC(authored_occ_entry) entries; /* the buckets' chains */
  DG_VEC(authored_box) boxes;         /* every box added, in order */
  DG_VEC(int) owner;                  /* box -> owner id (a placement), parallel to boxes */
} authored_occ_index;

/* Empty index. 0 or DG_ENOMEM. */
int authored_occ_init(authored_occ_index *index);
void authored_occ_close(authored_occ_index *index);

/* Adds a world box owned by `owner`. 0 or DG_ENOMEM. */
int authored_occ_add(authored_occ_index *index, const authored_box *box, int owner);

/* True when `box` overlaps no box in the index. */
bool authored_occ_is_free(const authored_occ_index *index, const authored_box *box);

/* True when `box` overlaps no box in the index other than those owned by
 * `owner`. */
bool authored_occ_is_free_except(const authored_occ_index *index, const authored_box *box,
                                 int owner);

/* A list of boxes. */
typedef DG_VEC(authored_box) authored_box_vec;

/* Appends to `out` every box of the index that overlaps `region`, each
 * once, in no set order: the chain search lists what lies near a doorway
 * once and tests each room it tries against that short list. 0 or
 * DG_ENOMEM. */
int authored_occ_collect(const authored_occ_index *index, const authored_box *region,
                         authored_box_vec *out);

/* True when no box in the index holds the block (x, y, z). */
static inline bool authored_occ_block_free(const authored_occ_index *index, int x, int y, int z) {
  authored_box block = {x, y, z, x + 1, y + 1, z + 1};
  return authored_occ_is_free(index, &block);
}

#endif
