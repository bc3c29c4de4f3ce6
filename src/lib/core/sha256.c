/* SHA-256 (FIPS 180-4, include/dungeon/digest.h), written from the
 * standard: a level names its room set by the digest of the set's
 * canonical JSON, and `dungeon catalogue` stores one per output so that
 * thousands of levels fit in one small file (sha256sum can check any line
 * by hand). The daemon's level identity (level_hash, the HMAC that signs a
 * level_id) uses the same code. */
#include "dungeon/digest.h"

#include <stdint.h>
#include <string.h>

#include "core/sha256_blocks.h"

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static inline uint32_t rotr(uint32_t v, int n) {
  return (v >> n) | (v << (32 - n));
}

/* One 64-byte block into the running state, in plain C. */
static void compress_block(uint32_t state[8], const unsigned char *block) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
           (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5],
           g = state[6], h = state[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                  round_constants[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void sha256_blocks_portable(uint32_t state[8], const unsigned char *data, size_t blocks) {
  for (size_t i = 0; i < blocks; i++)
    compress_block(state, data + 64 * i);
}

#if SHA256_HAS_HW
#include <cpuid.h>
#include <immintrin.h>

/* The same blocks with the x86 SHA extensions (Intel since Goldmont and Ice
 * Lake, AMD since Zen): about five times faster, and the same bytes, since
 * SHA-256 is exact. The state is kept as the instructions want it, two
 * vectors of (A, B, E, F) and (C, D, G, H); each 16-byte group of message
 * words feeds four rounds, and the schedule runs three groups ahead. */
__attribute__((target("sha,sse4.1,ssse3"))) void
sha256_blocks_hw(uint32_t state[8], const unsigned char *data, size_t blocks) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (size_t b = 0; b < blocks; b++, data += 64) {
    __m128i abef_before = abef, cdgh_before = cdgh, w[4];
    for (int i = 0; i < 16; i++) {
      if (i < 4)
        w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), byte_swap);
      __m128i words =
          _mm_add_epi32(w[i % 4], _mm_loadu_si128((const __m128i *)&round_constants[4 * i]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, words);
      if (i >= 3 && i <= 14) {
        /* the group after this one: its words from the four before */
        __m128i next = _mm_add_epi32(w[(i + 1) % 4], _mm_alignr_epi8(w[i % 4], w[(i + 3) % 4], 4));
        w[(i + 1) % 4] = _mm_sha256msg2_epu32(next, w[i % 4]);
      }
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(words, 0x0E));
      if (i >= 1 && i <= 12)
        w[(i + 3) % 4] = _mm_sha256msg1_epu32(w[(i + 3) % 4], w[i % 4]);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* Also run by the ifunc resolver, before a sanitizer's runtime is set up:
 * so not instrumented. */
__attribute__((no_sanitize("address", "undefined"))) bool sha256_hw_supported(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_SSSE3) || !(ecx & bit_SSE4_1))
    return false;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_SHA);
}

/* Chosen once, when the program is loaded (an ifunc: the dynamic linker
 * keeps the choice, so the library holds no state of its own; CPUID
 * itself costs microseconds in a virtual machine, too much per hash). */
__attribute__((used, no_sanitize("address", "undefined"))) static void (*choose_blocks(void))(
    uint32_t *, const unsigned char *, size_t) {
  return sha256_hw_supported() ? sha256_blocks_hw : sha256_blocks_portable;
}

static void compress_blocks(uint32_t state[8], const unsigned char *data, size_t blocks)
    __attribute__((ifunc("choose_blocks")));
#else
bool sha256_hw_supported(void) {
  return false;
}

static void compress_blocks(uint32_t state[8], const unsigned char *data, size_t blocks) {
  sha256_blocks_portable(state, data, blocks);
}
#endif

/* A hash in progress: lets HMAC hash its key pad and message without
 * copying them together. */
typedef struct sha256_state {
  uint32_t h[8];           /* the running hash */
  unsigned char block[64]; /* bytes not yet compressed */
  size_t filled;           /* of `block` */
  uint64_t total_bytes;    /* hashed so far */
} sha256_state;

static void start(sha256_state *s) {
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, initial, sizeof initial);
  s->filled = 0;
  s->total_bytes = 0;
}

static void update(sha256_state *s, const unsigned char *data, size_t length) {
  s->total_bytes += length;
  if (s->filled > 0) {
    size_t take = 64 - s->filled < length ? 64 - s->filled : length;
    memcpy(s->block + s->filled, data, take);
    s->filled += take;
    data += take;
    length -= take;
    if (s->filled < 64)
      return;
    compress_blocks(s->h, s->block, 1);
    s->filled = 0;
  }
  compress_blocks(s->h, data, length / 64);
  data += length / 64 * 64;
  length %= 64;
  memcpy(s->block, data, length);
  s->filled = length;
}

/* The padding (a 1 bit, zeros, the length in bits) and the digest. */
static void finish(sha256_state *s, unsigned char out[DG_SHA256_BYTES]) {
  uint64_t bits = s->total_bytes * 8;
  unsigned char pad[72] = {0x80};
  size_t zeros = (s->filled < 56 ? 56 : 120) - s->filled;
  for (int i = 0; i < 8; i++)
    pad[zeros + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
  update(s, pad, zeros + 8);
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (unsigned char)(s->h[i] >> 24);
    out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
    out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
    out[4 * i + 3] = (unsigned char)s->h[i];
  }
}

void dg_sha256(const void *bytes, size_t length, unsigned char out[DG_SHA256_BYTES]) {
  sha256_state s;
  start(&s);
  update(&s, bytes, length);
  finish(&s, out);
}

void dg_hmac_sha256(const void *key, size_t key_length, const void *bytes, size_t length,
                    unsigned char out[DG_SHA256_BYTES]) {
  unsigned char block_key[64] = {0};
  if (key_length > 64)
    dg_sha256(key, key_length, block_key);
  else
    memcpy(block_key, key, key_length);
  unsigned char pad[64], inner[DG_SHA256_BYTES];
  sha256_state s;
  for (int i = 0; i < 64; i++)
    pad[i] = block_key[i] ^ 0x36;
  start(&s);
  update(&s, pad, 64);
  update(&s, bytes, length);
  finish(&s, inner);
  for (int i = 0; i < 64; i++)
    pad[i] = block_key[i] ^ 0x5c;
  start(&s);
  update(&s, pad, 64);
  update(&s, inner, DG_SHA256_BYTES);
  finish(&s, out);
}

void dg_sha256_hex(const void *bytes, size_t length, char hex[DG_SHA256_HEX_SIZE]) {
  unsigned char digest[DG_SHA256_BYTES];
  dg_sha256(bytes, length, digest);
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < DG_SHA256_BYTES; i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 15];
  }
  hex[64] = '\0';
}
