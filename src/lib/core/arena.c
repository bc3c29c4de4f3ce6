/* Bump allocator: blocks are chained newest first; an allocation too large
 * for an ordinary block gets a block of its own. */
#include "core/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dg_arena_block {
  dg_arena_block *next; /* older block */
  size_t size;          /* usable bytes in data */
  size_t used;          /* bytes handed out */
  _Alignas(16) unsigned char data[];
};

#define ARENA_ALIGN 16u

void dg_arena_init(dg_arena *arena, size_t block_size) {
  arena->blocks = NULL;
  arena->block_size = block_size != 0 ? block_size : 64u * 1024u;
  arena->bytes_used = 0;
}

void *dg_arena_alloc_uninit(dg_arena *arena, size_t size) {
  size_t rounded = (size + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1);
  if (rounded < size)
    return NULL;
  dg_arena_block *block = arena->blocks;
  if (block == NULL || block->size - block->used < rounded) {
    size_t want = rounded > arena->block_size ? rounded : arena->block_size;
    if (want > SIZE_MAX - sizeof *block)
      return NULL;
    dg_arena_block *fresh = malloc(sizeof *fresh + want);
    if (fresh == NULL)
      return NULL;
    fresh->size = want;
    fresh->used = 0;
    fresh->next = arena->blocks;
    arena->blocks = fresh;
    block = fresh;
  }
  void *memory = block->data + block->used;
  block->used += rounded;
  arena->bytes_used += rounded;
  return memory;
}

void *dg_arena_alloc(dg_arena *arena, size_t size) {
  void *memory = dg_arena_alloc_uninit(arena, size);
  if (memory != NULL)
    memset(memory, 0, size);
  return memory;
}

void *dg_arena_calloc(dg_arena *arena, size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size)
    return NULL;
  return dg_arena_alloc(arena, count * size);
}

void dg_arena_reset(dg_arena *arena) {
  /* Keep the largest block: the next generation of the same size then fits
   * in it without calling malloc. */
  dg_arena_block *largest = NULL;
  for (dg_arena_block *block = arena->blocks; block != NULL; block = block->next)
    if (largest == NULL || block->size > largest->size)
      largest = block;
  dg_arena_block *block = arena->blocks;
  while (block != NULL) {
    dg_arena_block *next = block->next;
    if (block != largest)
      free(block);
    block = next;
  }
  if (largest != NULL) {
    largest->used = 0;
    largest->next = NULL;
    if (largest->size > arena->block_size)
      arena->block_size = largest->size;
  }
  arena->blocks = largest;
  arena->bytes_used = 0;
}

void dg_arena_close(dg_arena *arena) {
  dg_arena_block *block = arena->blocks;
  while (block != NULL) {
    dg_arena_block *next = block->next;
    free(block);
    block = next;
  }
  arena->blocks = NULL;
  arena->bytes_used = 0;
}
