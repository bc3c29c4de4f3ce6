/* SHA-256 (FIPS 180-4) for the golden catalogue's output digests. */
#ifndef DUNGEON_CLI_SHA256_H
#define DUNGEON_CLI_SHA256_H

#include <stddef.h>

/* Writes the SHA-256 of bytes[0..length) as 64 lowercase hex digits and a
 * terminating NUL into hex (65 bytes). */
void cli_sha256_hex(const void *bytes, size_t length, char hex[65]);

#endif
