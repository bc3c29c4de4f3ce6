/* SipHash-2-4 and the lobby seed derived from it; see seedhash.h. Written
 * from the algorithm's description: four 64-bit words of state, two
 * compression rounds per 8-byte block, four finalisation rounds. */
#include "state/seedhash.h"

#include <string.h>

#include "dungeon/dungeon.h"

static uint64_t rotl(uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

static uint64_t load_le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

typedef struct sip_state {
  uint64_t v0, v1, v2, v3;
} sip_state;

static void sip_round(sip_state *s) {
  s->v0 += s->v1;
  s->v1 = rotl(s->v1, 13);
  s->v1 ^= s->v0;
  s->v0 = rotl(s->v0, 32);
  s->v2 += s->v3;
  s->v3 = rotl(s->v3, 16);
  s->v3 ^= s->v2;
  s->v0 += s->v3;
  s->v3 = rotl(s->v3, 21);
  s->v3 ^= s->v0;
  s->v2 += s->v1;
  s->v1 = rotl(s->v1, 17);
  s->v1 ^= s->v2;
  s->v2 = rotl(s->v2, 32);
}

static void sip_block(sip_state *s, uint64_t m) {
  s->v3 ^= m;
  sip_round(s);
  sip_round(s);
  s->v0 ^= m;
}

uint64_t siphash24(const uint8_t key[16], const void *data, size_t length) {
  uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
  sip_state s = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
                 k1 ^ 0x7465646279746573ull};
  const uint8_t *in = data;
  size_t whole = length - length % 8;
  for (size_t i = 0; i < whole; i += 8)
    sip_block(&s, load_le64(in + i));
  /* The last block: the remaining bytes, zero-padded, length mod 256 on top. */
  uint8_t last[8] = {0};
  memcpy(last, in + whole, length % 8);
  last[7] = (uint8_t)length;
  sip_block(&s, load_le64(last));
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; i++)
    sip_round(&s);
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

uint64_t lobby_seed_derive(const uint8_t key[16], const char *id) {
  /* Lobby ids are at most 64 bytes (lobby.h's LOBBY_ID_MAX - 1); the buffer
   * holds twice that, and the guard below only keeps a misuse in bounds. */
  char message[sizeof LOBBY_SEED_DOMAIN + 128];
  size_t prefix = sizeof LOBBY_SEED_DOMAIN - 1, id_length = strlen(id);
  if (id_length > sizeof message - prefix)
    id_length = sizeof message - prefix;
  memcpy(message, LOBBY_SEED_DOMAIN, prefix);
  memcpy(message + prefix, id, id_length);
  return siphash24(key, message, prefix + id_length) & DG_SEED_SAFE_MAX;
}
