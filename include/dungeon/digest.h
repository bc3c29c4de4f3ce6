/* SHA-256 digests: a level names the room set it was made from by the
 * SHA-256 of the set's canonical JSON, and the golden catalogue stores one
 * per output (docs/level-format.md, "Determinism"). */
#ifndef DUNGEON_DIGEST_H
#define DUNGEON_DIGEST_H

#include <stddef.h>

/* Length of a hex digest plus its NUL. */
#define DG_SHA256_HEX_SIZE 65

/* Writes the SHA-256 (FIPS 180-4) of bytes[0..length) as 64 lowercase hex
 * digits and a NUL into hex. Pure; safe from any thread. */
void dg_sha256_hex(const void *bytes, size_t length, char hex[DG_SHA256_HEX_SIZE]);

#endif
