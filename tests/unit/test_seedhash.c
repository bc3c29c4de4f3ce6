/* dungeond's keyed hash for lobby seeds (src/server/state/seedhash.c): SipHash-2-4
 * against the reference vectors of its paper (key 00..0f, messages
 * 00..(n-1)), and the lobby seed derivation: 53 bits, same key and id give
 * the same seed, another key or id another seed. */
#include <criterion/criterion.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "state/seedhash.h"

static const uint8_t reference_key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

Test(siphash, reference_vectors) {
  uint8_t message[64];
  for (int i = 0; i < 64; i++)
    message[i] = (uint8_t)i;
  /* From the SipHash paper's vectors (also `openssl mac ... SIPHASH`),
   * read as little-endian 64-bit words. */
  cr_assert_eq(siphash24(reference_key, message, 0), UINT64_C(0x726fdb47dd0e0e31));
  cr_assert_eq(siphash24(reference_key, message, 1), UINT64_C(0x74f839c593dc67fd));
  cr_assert_eq(siphash24(reference_key, message, 7), UINT64_C(0xab0200f58b01d137));
  cr_assert_eq(siphash24(reference_key, message, 8), UINT64_C(0x93f5f5799a932462));
  cr_assert_eq(siphash24(reference_key, message, 15), UINT64_C(0xa129ca6149be45e5));
  cr_assert_eq(siphash24(reference_key, message, 63), UINT64_C(0x958a324ceb064572));
}

Test(siphash, lobby_seed_is_keyed_and_53_bits) {
  uint8_t zero[16] = {0}, other[16] = {0};
  other[15] = 1;
  uint64_t seed = lobby_seed_derive(reference_key, "match-42");
  cr_assert_leq(seed, DG_SEED_SAFE_MAX);
  cr_assert_eq(seed, lobby_seed_derive(reference_key, "match-42"), "deterministic");
  const char *message = LOBBY_SEED_DOMAIN "match-42";
  cr_assert_eq(seed, siphash24(reference_key, message, strlen(message)) & DG_SEED_SAFE_MAX,
               "the documented construction");
  cr_assert_neq(seed, lobby_seed_derive(reference_key, "match-43"));
  cr_assert_neq(seed, lobby_seed_derive(other, "match-42"));
  cr_assert_neq(lobby_seed_derive(zero, "match-42"), lobby_seed_derive(other, "match-42"));
}
