/* See sha256.h. A direct transcription of FIPS 180-4 section 6.2, one
 * 64-byte block at a time; checked against the standard's and RFC 4231's
 * test vectors in tests/unit/test_sha256.c. */
#include "state/sha256.h"

#include <string.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

typedef struct sha256_state {
  uint32_t h[8];        /* the running hash */
  uint8_t block[64];    /* bytes not yet compressed */
  size_t filled;        /* of `block` */
  uint64_t total_bytes; /* hashed so far */
} sha256_state;

static uint32_t rotate_right(uint32_t x, int n) {
  return x >> n | x << (32 - n);
}

static void compress(uint32_t h[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++)
    w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
           (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = rotate_right(w[t - 15], 7) ^ rotate_right(w[t - 15], 18) ^ w[t - 15] >> 3;
    uint32_t s1 = rotate_right(w[t - 2], 17) ^ rotate_right(w[t - 2], 19) ^ w[t - 2] >> 10;
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int t = 0; t < 64; t++) {
    uint32_t sum1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
    uint32_t choice = (e & f) ^ (~e & g);
    uint32_t t1 = k + sum1 + choice + round_constants[t] + w[t];
    uint32_t sum0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
    uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = sum0 + majority;
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

static void start(sha256_state *s) {
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, initial, sizeof initial);
  s->filled = 0;
  s->total_bytes = 0;
}

static void update(sha256_state *s, const uint8_t *data, size_t length) {
  s->total_bytes += length;
  while (length > 0) {
    size_t take = 64 - s->filled < length ? 64 - s->filled : length;
    memcpy(s->block + s->filled, data, take);
    s->filled += take;
    data += take;
    length -= take;
    if (s->filled == 64) {
      compress(s->h, s->block);
      s->filled = 0;
    }
  }
}

static void finish(sha256_state *s, uint8_t out[SHA256_BYTES]) {
  uint64_t bits = s->total_bytes * 8;
  static const uint8_t one = 0x80, zero = 0;
  update(s, &one, 1);
  while (s->filled != 56)
    update(s, &zero, 1);
  uint8_t length_bytes[8];
  for (int i = 0; i < 8; i++)
    length_bytes[i] = (uint8_t)(bits >> (56 - 8 * i));
  update(s, length_bytes, 8);
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (uint8_t)(s->h[i] >> 24);
    out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
    out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
    out[4 * i + 3] = (uint8_t)s->h[i];
  }
}

void sha256(const void *data, size_t length, uint8_t out[SHA256_BYTES]) {
  sha256_state s;
  start(&s);
  update(&s, data, length);
  finish(&s, out);
}

void hmac_sha256(const uint8_t *key, size_t key_length, const void *data, size_t length,
                 uint8_t out[SHA256_BYTES]) {
  uint8_t block_key[64] = {0};
  if (key_length > 64)
    sha256(key, key_length, block_key);
  else
    memcpy(block_key, key, key_length);
  uint8_t pad[64];
  uint8_t inner[SHA256_BYTES];
  sha256_state s;
  for (int i = 0; i < 64; i++)
    pad[i] = block_key[i] ^ 0x36;
  start(&s);
  update(&s, pad, 64);
  update(&s, data, length);
  finish(&s, inner);
  for (int i = 0; i < 64; i++)
    pad[i] = block_key[i] ^ 0x5c;
  start(&s);
  update(&s, pad, 64);
  update(&s, inner, SHA256_BYTES);
  finish(&s, out);
}
