/* Level identity (issue 21, item 3; DESIGN.md "Wave 3", Identity): a
 * `level_id` is a self-contained, signed reference to (version, canonical
 * request) that any replica sharing the key turns back into the same
 * bytes, so a late joiner fetches GET /v1/levels/{level_id} from whichever
 * replica it reaches, after restarts; `level_hash` is the SHA-256 of the
 * level's bytes, so a server and its clients can check they hold the same
 * level. Pure functions over the configuration's key; thread-safe. */
#ifndef DUNGEOND_LEVEL_ID_H
#define DUNGEOND_LEVEL_ID_H

#include <stddef.h>
#include <stdint.h>

#include "dungeon/digest.h"
#include "dungeon/dungeon.h"
#include "state/config.h"

/* First line of every signed reference: versions the format and keeps
 * these signatures apart from any other use of the key. Format 2 names the
 * generator version and the room set's digest, which decide the bytes;
 * format 1 named the daemon's release, and its ids are refused as made by
 * another version (they name neither). A level made with a content table
 * (params.table) adds a line "table:" and the table's digest after the
 * room set's, which also decides its bytes (its entities); ids without a
 * table have no such line, so they are the bytes they always were. */
#define LEVEL_ID_DOMAIN "dungeond/level-id/2"
#define LEVEL_ID_DOMAIN_V1 "dungeond/level-id/1"
#define LEVEL_ID_VERSION_MAX 64 /* bytes of a maker's description, with its NUL */
#define LEVEL_HASH_TEXT 72      /* "sha256:" + 64 hex digits + NUL */

/* Errors of level_id_parse beyond the library's. */
enum {
  LEVEL_ID_EMALFORMED = 1, /* not a level id at all (truncated, bad characters): 400 */
  LEVEL_ID_EFORGED = 2,    /* well-formed, but not signed with this key: 404 */
  LEVEL_ID_EVERSION = 3,   /* signed, but by another version: 410 */
};

/* What made a level, as its id says (level_id_parse). */
typedef struct level_origin {
  char maker[LEVEL_ID_VERSION_MAX];        /* "generator version 4", for LEVEL_ID_EVERSION */
  char roomset_sha256[DG_SHA256_HEX_SIZE]; /* digest of the room set it used; "" for none */
  char table_sha256[DG_SHA256_HEX_SIZE];   /* digest of the content table it used; "" for none */
} level_origin;

/* The level id of `request` under `key` (16 bytes), made with the room set
 * of digest `roomset_sha256` and the content table of digest
 * `table_sha256` ("" when it uses none): base64url of the deflated text
 * "LEVEL_ID_DOMAIN\nGENERATOR-VERSION\nROOMSET-SHA256\n[table:TABLE-SHA256\n]
 * CANONICAL-JSON", a dot, and base64url of the first 16 bytes of its
 * HMAC-SHA256. *out is malloc'd (the caller frees it). 0 or DG_ENOMEM. */
int level_id_make(const uint8_t key[16], const dg_request *request, const char *roomset_sha256,
                  const char *table_sha256, char **out);

/* The canonical request of `id` as a body POST /v1/levels takes (a new
 * reference in *body) and what made it (*origin), after checking the
 * signature under `key`: 0, or LEVEL_ID_EMALFORMED / EFORGED / EVERSION
 * (then origin->maker names the version that made it), DG_ENOMEM. Whether
 * the room set and the table it names are still the loaded ones is the
 * caller's check. */
int level_id_parse(const uint8_t key[16], const char *id, json_t **body, level_origin *origin);

/* "sha256:<hex>" of `length` bytes at `text` into `out`. */
void level_hash_text(const char *text, size_t length, char out[LEVEL_HASH_TEXT]);

/* Appends "level_id" and "level_hash" to the JSON in *text of the level
 * `request` made with room set `roomset_sha256` and content table
 * `table_sha256` (as level_id_make); *text
 * is malloc'd, its last byte the closing brace, and reallocated: the hash
 * is of the bytes before, so a client recomputes it from the body cut at
 * `,"level_id":` plus "}". 0 or DG_ENOMEM (the text is then unchanged). */
int level_identify(const uint8_t key[16], const dg_request *request, const char *roomset_sha256,
                   const char *table_sha256, char **text, size_t *length);

#endif
