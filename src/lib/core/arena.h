/* Internal: arena (bump) allocator for per-generation scratch memory.
 *
 * A generator takes its temporary arrays from an arena and frees them all at
 * once; the hot loops then allocate nothing. Blocks are kept across
 * dg_arena_reset() so that a worker reusing one arena stops calling malloc
 * after its first level. Not thread-safe: one arena per thread. */
#ifndef DUNGEON_ARENA_H
#define DUNGEON_ARENA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dg_arena_block dg_arena_block;

typedef struct dg_arena {
  dg_arena_block *blocks; /* singly linked, newest first */
  size_t block_size;      /* size of ordinary blocks */
  size_t bytes_used;      /* bytes handed out since the last reset */
} dg_arena;

/* Prepares an empty arena whose ordinary blocks hold `block_size` bytes
 * (0 picks 64 KiB). Allocates nothing yet. */
void dg_arena_init(dg_arena *arena, size_t block_size);

/* `size` zeroed bytes aligned to 16, valid until reset or close; NULL when
 * out of memory. Owned by the arena. */
void *dg_arena_alloc(dg_arena *arena, size_t size);

/* Like dg_arena_alloc but the bytes are not zeroed: for arrays the caller
 * fills at once, where zeroing would be a second pass over them. */
void *dg_arena_alloc_uninit(dg_arena *arena, size_t size);

/* Like dg_arena_alloc for `count` elements of `size` bytes, NULL on overflow. */
void *dg_arena_calloc(dg_arena *arena, size_t count, size_t size);

/* Forgets every allocation but keeps the largest block for reuse. */
void dg_arena_reset(dg_arena *arena);

/* Frees every block. The arena may be initialised again afterwards. */
void dg_arena_close(dg_arena *arena);

#ifdef __cplusplus
}
#endif
#endif
