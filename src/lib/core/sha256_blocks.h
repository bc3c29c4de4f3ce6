/* Internal: the block function of SHA-256 (core/sha256.c), in plain C and
 * with the x86 SHA extensions, exposed so that a test can hold the two
 * equal. Both add `blocks` 64-byte blocks of `data` into `state`. */
#ifndef DUNGEON_CORE_SHA256_BLOCKS_H
#define DUNGEON_CORE_SHA256_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An ifunc picks one at load time: x86-64 ELF with a compiler that has the
 * SHA intrinsics (GCC and clang both do). */
#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define SHA256_HAS_HW 1
#else
#define SHA256_HAS_HW 0
#endif

void sha256_blocks_portable(uint32_t state[8], const unsigned char *data, size_t blocks);

/* Whether this processor has the SHA extensions (and SSSE3, SSE4.1). */
bool sha256_hw_supported(void);

#if SHA256_HAS_HW
/* Only where sha256_hw_supported() is true. */
void sha256_blocks_hw(uint32_t state[8], const unsigned char *data, size_t blocks);
#endif

#endif
