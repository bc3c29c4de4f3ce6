/* SHA-256 digests: a level names the room set it was made from by the
 * SHA-256 of the set's canonical JSON, and the golden catalogue stores one
 * per output (docs/level-format.md, "Determinism"). */
#ifndef DUNGEON_DIGEST_H
#define DUNGEON_DIGEST_H

#include <stddef.h>

/* Length of a hex digest plus its NUL. */
#define DG_SHA256_HEX_SIZE 65
#define DG_SHA256_BYTES 32

/* Writes the SHA-256 (FIPS 180-4) of bytes[0..length) as 64 lowercase hex
 * digits and a NUL into hex. Pure; safe from any thread. */
void dg_sha256_hex(const void *bytes, size_t length, char hex[DG_SHA256_HEX_SIZE]);

/* The SHA-256 digest (FIPS 180-4) of `length` bytes at `bytes` into `out`.
 * Pure: thread-safe. */
void dg_sha256(const void *bytes, size_t length, unsigned char out[DG_SHA256_BYTES]);

/* HMAC-SHA256 (RFC 2104) of `length` bytes at `bytes` under the
 * `key_length`-byte `key` into `out`. Pure: thread-safe. */
void dg_hmac_sha256(const void *key, size_t key_length, const void *bytes, size_t length,
                    unsigned char out[DG_SHA256_BYTES]);

#endif
