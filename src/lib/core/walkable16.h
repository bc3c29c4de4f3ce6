/* Which of sixteen tiles in a row are walkable, as a bit mask: the grid
 * scans that open the trace and the progression pass visit only walkable
 * tiles, and most of a map is stone, so they test sixteen at a time (a
 * branch per tile mispredicted on every corridor). */
#ifndef DUNGEON_CORE_WALKABLE16_H
#define DUNGEON_CORE_WALKABLE16_H

#include "dungeon/grid.h"

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bit i set when tiles[i] is walkable, for 16 tiles. With SSE2 it tests
 * them at once: walkable is 1..16 but the wall and the void, which the
 * assertion below holds to dg_tile_walkable's mask. */
#if defined(__SSE2__)
_Static_assert(DG_TILE_WALKABLE_MASK ==
                   (((1u << 17) - 2u) & ~(1u << DG_TILE_WALL) & ~(1u << DG_TILE_VOID)),
               "dg_walkable16 tests tiles 1..16 less the wall and the void");
#endif
static inline unsigned dg_walkable16(const uint8_t *tiles) {
#if defined(__SSE2__)
  __m128i v = _mm_loadu_si128((const __m128i *)tiles);
  __m128i below = _mm_sub_epi8(v, _mm_set1_epi8(1)); /* 0 wraps to 255 */
  __m128i in_range = _mm_cmpeq_epi8(_mm_min_epu8(below, _mm_set1_epi8(15)), below);
  __m128i closed = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(DG_TILE_WALL)),
                                _mm_cmpeq_epi8(v, _mm_set1_epi8(DG_TILE_VOID)));
  return (unsigned)_mm_movemask_epi8(_mm_andnot_si128(closed, in_range));
#else
  unsigned bits = 0;
  for (int i = 0; i < 16; i++)
    bits |= (unsigned)dg_tile_walkable((dg_tile)tiles[i]) << i;
  return bits;
#endif
}

/* Set bits of a 16-bit mask such as dg_walkable16's, without a call: the
 * library is built for plain x86-64, where __builtin_popcount is a call
 * into libgcc. */
static inline int dg_bits16(unsigned v) {
  v = v - (v >> 1 & 0x5555u);
  v = (v & 0x3333u) + (v >> 2 & 0x3333u);
  v = (v + (v >> 4)) & 0x0f0fu;
  return (int)((v + (v >> 8)) & 0x1fu);
}

/* dg_walkable16 for the `count` (< 16) tiles at the end of a row. */
static inline unsigned dg_walkable_tail(const uint8_t *tiles, int count) {
  unsigned bits = 0;
  for (int i = 0; i < count; i++)
    bits |= (unsigned)dg_tile_walkable((dg_tile)tiles[i]) << i;
  return bits;
}

#endif
