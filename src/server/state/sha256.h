/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) for level identity
 * (issue 21, item 3): `level_hash` is the SHA-256 of a level's bytes, which
 * every client can recompute with its platform's own SHA-256 (WebCrypto,
 * node:crypto), and a `level_id` is signed with HMAC-SHA256 so that
 * clients cannot forge parameters. Carried here, as SipHash is in
 * seedhash.c, instead of a new dependency. Pure functions, thread-safe. */
#ifndef DUNGEOND_SHA256_H
#define DUNGEOND_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

/* The SHA-256 digest of `length` bytes at `data` into `out`. */
void sha256(const void *data, size_t length, uint8_t out[SHA256_BYTES]);

/* HMAC-SHA256 of `length` bytes at `data` under the `key_length`-byte
 * `key` into `out`. */
void hmac_sha256(const uint8_t *key, size_t key_length, const void *data, size_t length,
                 uint8_t out[SHA256_BYTES]);

#endif
