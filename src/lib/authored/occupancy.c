/* The occupancy index: spatial buckets over placed boxes (see occupancy.h
 * and seed 003, "Rooms as moves"). */
#include "occupancy.h"

#include <stdlib.h>

#define AUTHORED_OCC_BIAS (1 << 20) /* bucket coordinates are biased to stay positive */

/* floor(v / 16), also for negative v (where >> is implementation-defined):
 * for v < 0, ~v = -v - 1 >= 0 and ~(~v >> s) = floor(v / 2^s). */
static int bucket_of(int v) {
  int negative = -(v < 0); /* all ones or zero */
  return ((v ^ negative) >> AUTHORED_OCC_BUCKET_SHIFT) ^ negative;
}

static uint64_t pack(int bx, int by, int bz) {
  return (uint64_t)(uint32_t)(bx + AUTHORED_OCC_BIAS) << 42 |
         (uint64_t)(uint32_t)(by + AUTHORED_OCC_BIAS) << 21 |
         (uint64_t)(uint32_t)(bz + AUTHORED_OCC_BIAS);
}

int authored_occ_init(authored_occ_index *index) {
  *index = (authored_occ_index){0};
  return dg_hash_init(&index->buckets, 512);
}

void authored_occ_close(authored_occ_index *index) {
  dg_hash_close(&index->buckets);
  dg_vec_free(&index->entries);
  dg_vec_free(&index->boxes);
  dg_vec_free(&index->owner);
}

int authored_occ_add(authored_occ_index *index, const authored_box *box, int owner) {
  if (dg_vec_push(&index->boxes, *box) != 0 || dg_vec_push(&index->owner, owner) != 0)
    return DG_ENOMEM;
  int id = index->boxes.count - 1;
  int bx0 = bucket_of(box->x0), bx1 = bucket_of(box->x1 - 1);
  int by0 = bucket_of(box->y0), by1 = bucket_of(box->y1 - 1);
  int bz0 = bucket_of(box->z0), bz1 = bucket_of(box->z1 - 1);
  for (int bx = bx0; bx <= bx1; bx++)
    for (int by = by0; by <= by1; by++)
      for (int bz = bz0; bz <= bz1; bz++) {
        int32_t *head;
        if (dg_hash_put(&index->buckets, pack(bx, by, bz), -1, &head) < 0)
          return DG_ENOMEM;
        if (dg_vec_push(&index->entries, (authored_occ_entry){id, *head}) != 0)
          return DG_ENOMEM;
        *head = index->entries.count - 1;
      }
  return 0;
}

bool authored_occ_is_free(const authored_occ_index *index, const authored_box *box) {
  return authored_occ_is_free_except(index, box, -2);
}

/* Calls visit(ctx, box id, bucket) for every entry of every bucket `box`
 * reaches into, bucket by bucket, until visit returns nonzero; returns
 * that, or 0. Static and called with constant visitors: the compiler
 * inlines each into its own copy of the loops. */
static inline int visit_buckets(const authored_occ_index *index, const authored_box *box,
                                int (*visit)(void *ctx, int box_id, const int bucket[3]),
                                void *ctx) {
  int bx0 = bucket_of(box->x0), bx1 = bucket_of(box->x1 - 1);
  int by0 = bucket_of(box->y0), by1 = bucket_of(box->y1 - 1);
  int bz0 = bucket_of(box->z0), bz1 = bucket_of(box->z1 - 1);
  const authored_occ_entry *entries = index->entries.items;
  for (int bx = bx0; bx <= bx1; bx++)
    for (int by = by0; by <= by1; by++)
      for (int bz = bz0; bz <= bz1; bz++) {
        const int32_t *head = dg_hash_get(&index->buckets, pack(bx, by, bz));
        if (head == NULL)
          continue;
        const int bucket[3] = {bx, by, bz};
        for (int e = *head; e >= 0; e = entries[e].next) {
          int rc = visit(ctx, entries[e].box, bucket);
          if (rc != 0)
            return rc;
        }
      }
  return 0;
}

typedef struct owned_query {
  const authored_occ_index *index;
  const authored_box *box;
  int owner; /* the owner whose boxes do not count */
} owned_query;

/* 1 when box `id` overlaps the query's box and is not the owner's. */
static int blocks(void *ctx, int id, const int bucket[3]) {
  (void)bucket;
  const owned_query *q = ctx;
  return authored_box_overlap(&q->index->boxes.items[id], q->box) &&
         q->index->owner.items[id] != q->owner;
}

bool authored_occ_is_free_except(const authored_occ_index *index, const authored_box *box,
                                 int owner) {
  owned_query q = {index, box, owner};
  return visit_buckets(index, box, blocks, &q) == 0;
}

static int max_int(int a, int b) {
  return a > b ? a : b;
}

typedef struct listing {
  const authored_occ_index *index;
  const authored_box *region;
  authored_box_vec *out;
} listing;

/* Lists box `id` when it overlaps the region, from one bucket only: the
 * bucket of the low corner of its overlap with the region. 0 or
 * DG_ENOMEM. */
static int list_once(void *ctx, int id, const int bucket[3]) {
  const listing *l = ctx;
  const authored_box *b = &l->index->boxes.items[id], *region = l->region;
  if (!authored_box_overlap(b, region) || bucket_of(max_int(b->x0, region->x0)) != bucket[0] ||
      bucket_of(max_int(b->y0, region->y0)) != bucket[1] ||
      bucket_of(max_int(b->z0, region->z0)) != bucket[2])
    return 0;
  authored_box_vec *out = l->out;
  /* Grown here, not by dg_vec_push: a call per box was a tenth of the
   * listing. */
  if (out->count == out->capacity && dg_vec_reserve(out, out->count + 1) != 0)
    return DG_ENOMEM;
  out->items[out->count++] = *b;
  return 0;
}

int authored_occ_collect(const authored_occ_index *index, const authored_box *region,
                         authored_box_vec *out) {
  listing l = {index, region, out};
  return visit_buckets(index, region, list_once, &l);
}
