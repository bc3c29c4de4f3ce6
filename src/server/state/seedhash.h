/* Seeds that every replica derives alike (issue 12, item 8): a lobby's seed
 * is a keyed hash of its id, so two daemons sharing the key agree on the
 * seed, and so on the level, whichever of them creates the lobby. The hash
 * is SipHash-2-4 (Aumasson and Bernstein, 2012): a 64-bit pseudo-random
 * function of a 128-bit key, small enough to carry here instead of a new
 * dependency. Pure functions, thread-safe. */
#ifndef DUNGEOND_SEEDHASH_H
#define DUNGEOND_SEEDHASH_H

#include <stddef.h>
#include <stdint.h>

/* Prefix hashed before a lobby id: versions the derivation and keeps these
 * hashes apart from any other use of the same key. */
#define LOBBY_SEED_DOMAIN "dungeond/lobby-seed/1:"

/* SipHash-2-4 of `length` bytes at `data` under the 16-byte `key` (key
 * bytes k0 = key[0..7], k1 = key[8..15], little-endian), as in the paper's
 * reference code. */
uint64_t siphash24(const uint8_t key[16], const void *data, size_t length);

/* The seed of lobby `id`: SipHash-2-4 under `key` of LOBBY_SEED_DOMAIN
 * followed by the id's bytes, masked to 53 bits (DG_SEED_SAFE_MAX) so every
 * JSON client reads it exactly. */
uint64_t lobby_seed_derive(const uint8_t key[16], const char *id);

#endif
