/* See level_id.h. The reference is deflated before it is signed and
 * base64url'd, so a typical level id (every parameter, a few players)
 * stays a few hundred characters; the signature is checked before the
 * payload is inflated, so nothing unsigned is ever decompressed or parsed. */
#include "state/level_id.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "dungeon/digest.h"
#include "transport/json_text.h"

#define TAG_BYTES 16            /* HMAC-SHA256 truncated to 128 bits (RFC 2104 section 5) */
#define PAYLOAD_MAX (64 * 1024) /* inflated reference text, at most */

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* base64url without padding of `length` bytes into `out` (4/3 length + 1). */
static size_t encode64(const uint8_t *data, size_t length, char *out) {
  size_t at = 0;
  for (size_t i = 0; i < length; i += 3) {
    uint32_t chunk = (uint32_t)data[i] << 16;
    if (i + 1 < length)
      chunk |= (uint32_t)data[i + 1] << 8;
    if (i + 2 < length)
      chunk |= data[i + 2];
    out[at++] = alphabet[chunk >> 18 & 63];
    out[at++] = alphabet[chunk >> 12 & 63];
    if (i + 1 < length)
      out[at++] = alphabet[chunk >> 6 & 63];
    if (i + 2 < length)
      out[at++] = alphabet[chunk & 63];
  }
  out[at] = '\0';
  return at;
}

static int value64(char c) {
  const char *at = c != '\0' ? strchr(alphabet, c) : NULL;
  return at != NULL ? (int)(at - alphabet) : -1;
}

/* Decodes `length` base64url characters into `out` (3/4 length bytes);
 * -1 for a character outside the alphabet or an impossible length. */
static long decode64(const char *text, size_t length, uint8_t *out) {
  if (length % 4 == 1)
    return -1;
  long at = 0;
  for (size_t i = 0; i < length; i += 4) {
    uint32_t chunk = 0;
    size_t n = length - i < 4 ? length - i : 4;
    for (size_t k = 0; k < 4; k++) {
      int v = k < n ? value64(text[i + k]) : 0;
      if (v < 0)
        return -1;
      chunk = chunk << 6 | (uint32_t)v;
    }
    out[at++] = (uint8_t)(chunk >> 16);
    if (n > 2)
      out[at++] = (uint8_t)(chunk >> 8);
    if (n > 3)
      out[at++] = (uint8_t)chunk;
  }
  return at;
}

/* The canonical request: the library's JSON of it (algorithm, seed, every
 * parameter, targets) and the players' ids, compact with sorted keys. */
static char *canonical_text(const dg_request *request) {
  json_t *body = dg_request_to_json(request);
  json_t *ids = json_array();
  char *text = NULL;
  if (body != NULL && ids != NULL) {
    for (int i = 0; i < request->players.count; i++)
      json_array_append_new(ids, json_pack("{s:s}", "id", request->players.id[i]));
    if (request->players.count > 0)
      json_object_set(body, "players", ids);
    text = json_text_sorted(body, NULL); /* json_dumps' bytes (COMPACT, SORT_KEYS) */
  }
  json_decref(ids);
  json_decref(body);
  return text;
}

#define TABLE_LINE "table:" /* opens the content table's line, when there is one */

/* One deflate stream per thread, reset between ids: compress2 allocates
 * about 256 KB of tables for every id and frees them again, and under load
 * the ids were a tenth of the daemon's time. A reset stream of the same
 * level writes the same bytes (a unit test holds them equal to
 * compress2's). Deflating the text itself is most of what is left. */
static pthread_key_t packer_key;
static bool packer_key_made;
static pthread_once_t packer_once = PTHREAD_ONCE_INIT;

static void packer_free(void *stream) {
  deflateEnd(stream);
  free(stream);
}

static void packer_key_make(void) {
  packer_key_made = pthread_key_create(&packer_key, packer_free) == 0;
}

/* This thread's stream, made at its first id; NULL on ENOMEM. */
static z_stream *thread_packer(void) {
  pthread_once(&packer_once, packer_key_make);
  if (!packer_key_made)
    return NULL;
  z_stream *stream = pthread_getspecific(packer_key);
  if (stream != NULL)
    return stream;
  stream = calloc(1, sizeof *stream);
  if (stream == NULL)
    return NULL;
  if (deflateInit(stream, 9) != Z_OK) {
    free(stream);
    return NULL;
  }
  if (pthread_setspecific(packer_key, stream) != 0) {
    packer_free(stream);
    return NULL;
  }
  return stream;
}

/* compress2(out, out_length, in, in_length, 9), through this thread's
 * stream: Z_OK, or a zlib error. */
static int deflate_id(uint8_t *out, uLongf *out_length, const char *in, size_t in_length) {
  z_stream *stream = thread_packer();
  if (stream == NULL)
    return Z_MEM_ERROR;
  int rc = deflateReset(stream);
  if (rc != Z_OK)
    return rc;
  stream->next_in = (Bytef *)in;
  stream->avail_in = (uInt)in_length;
  stream->next_out = out;
  stream->avail_out = (uInt)*out_length;
  rc = deflate(stream, Z_FINISH);
  *out_length = stream->total_out;
  return rc == Z_STREAM_END ? Z_OK : rc == Z_OK ? Z_BUF_ERROR : rc;
}

int level_id_make(const uint8_t key[16], const dg_request *request, const char *roomset_sha256,
                  const char *table_sha256, char **out) {
  *out = NULL;
  char *canonical = canonical_text(request);
  if (canonical == NULL)
    return DG_ENOMEM;
  size_t plain_length = strlen(LEVEL_ID_DOMAIN) + 24 + strlen(roomset_sha256) + strlen(TABLE_LINE) +
                        strlen(table_sha256) + strlen(canonical) + 5;
  char *plain = malloc(plain_length);
  uLongf packed_length = compressBound((uLong)plain_length);
  uint8_t *packed = malloc(packed_length);
  int rc = DG_ENOMEM;
  if (plain == NULL || packed == NULL)
    goto fail;
  /* Without a table, no table line: the ids of levels without one stay
   * the bytes they were before tables existed. */
  plain_length = (size_t)snprintf(plain, plain_length, "%s\n%d\n%s\n%s%s%s%s", LEVEL_ID_DOMAIN,
                                  DG_GENERATOR_VERSION, roomset_sha256,
                                  table_sha256[0] != '\0' ? TABLE_LINE : "", table_sha256,
                                  table_sha256[0] != '\0' ? "\n" : "", canonical);
  if (deflate_id(packed, &packed_length, plain, plain_length) != Z_OK)
    goto fail;
  uint8_t tag[DG_SHA256_BYTES];
  dg_hmac_sha256(key, 16, packed, packed_length, tag);
  char *id = malloc((packed_length + TAG_BYTES) * 4 / 3 + 8);
  if (id == NULL)
    goto fail;
  size_t at = encode64(packed, packed_length, id);
  id[at++] = '.';
  encode64(tag, TAG_BYTES, id + at);
  *out = id;
  rc = 0;
fail:
  free(canonical);
  free(plain);
  free(packed);
  return rc;
}

/* The next line of `*at` (its newline replaced by NUL, *at moved past it),
 * or NULL when there is none. */
static char *next_line(char **at) {
  char *line = *at;
  char *end = strchr(line, '\n');
  if (end == NULL)
    return NULL;
  *end = '\0';
  *at = end + 1;
  return line;
}

/* Whether `text` is a lowercase hex SHA-256 (64 digits), or "" when
 * `empty_ok`. */
static bool digest_text(const char *text, bool empty_ok) {
  size_t length = strlen(text);
  return (length == 64 || (empty_ok && length == 0)) && strspn(text, "0123456789abcdef") == length;
}

/* The origin lines of an inflated reference (after the signature held):
 * 0 with *canonical at the request's JSON, LEVEL_ID_EVERSION with
 * origin->maker, or LEVEL_ID_EMALFORMED. The table's line is there only
 * for a level made with a table; the request's JSON opens with '{', so
 * the two cannot be confused. */
static int read_origin(char *plain, level_origin *origin, char **canonical) {
  char *at = plain;
  char *domain = next_line(&at);
  char *version = domain != NULL ? next_line(&at) : NULL;
  if (version == NULL)
    return LEVEL_ID_EMALFORMED;
  if (strcmp(domain, LEVEL_ID_DOMAIN_V1) == 0) {
    /* Format 1 named the release, not the generator: nothing says whether
     * this build still makes its bytes, so it is treated as gone. */
    snprintf(origin->maker, sizeof origin->maker, "dungeond %.24s (level id format 1)", version);
    return LEVEL_ID_EVERSION;
  }
  char *roomset = next_line(&at);
  if (strcmp(domain, LEVEL_ID_DOMAIN) != 0 || roomset == NULL)
    return LEVEL_ID_EMALFORMED;
  char *end = NULL;
  long generator = strtol(version, &end, 10);
  if (end == version || *end != '\0' || strspn(version, "0123456789") != strlen(version) ||
      !digest_text(roomset, true))
    return LEVEL_ID_EMALFORMED;
  memcpy(origin->roomset_sha256, roomset, strlen(roomset) + 1);
  if (strncmp(at, TABLE_LINE, strlen(TABLE_LINE)) == 0) {
    char *table = next_line(&at);
    if (table == NULL || !digest_text(table + strlen(TABLE_LINE), false))
      return LEVEL_ID_EMALFORMED;
    memcpy(origin->table_sha256, table + strlen(TABLE_LINE), DG_SHA256_HEX_SIZE);
  }
  *canonical = at;
  if (generator != DG_GENERATOR_VERSION) {
    snprintf(origin->maker, sizeof origin->maker, "generator version %ld", generator);
    return LEVEL_ID_EVERSION;
  }
  return 0;
}

int level_id_parse(const uint8_t key[16], const char *id, json_t **body, level_origin *origin) {
  *body = NULL;
  memset(origin, 0, sizeof *origin);
  const char *dot = strchr(id, '.');
  size_t packed_chars = dot != NULL ? (size_t)(dot - id) : 0;
  if (dot == NULL || packed_chars == 0 || strlen(dot + 1) != (TAG_BYTES * 4 + 2) / 3)
    return LEVEL_ID_EMALFORMED;
  uint8_t *packed = malloc(packed_chars * 3 / 4 + 3);
  char *plain = malloc(PAYLOAD_MAX + 1);
  int rc = DG_ENOMEM;
  if (packed == NULL || plain == NULL)
    goto fail;
  uint8_t tag[TAG_BYTES + 3], expected[DG_SHA256_BYTES];
  long packed_length = decode64(id, packed_chars, packed);
  rc = LEVEL_ID_EMALFORMED;
  if (packed_length <= 0 || decode64(dot + 1, strlen(dot + 1), tag) != TAG_BYTES)
    goto fail;
  dg_hmac_sha256(key, 16, packed, (size_t)packed_length, expected);
  /* Constant time: a forger learns nothing from how long the check took. */
  uint8_t difference = 0;
  for (int i = 0; i < TAG_BYTES; i++)
    difference |= (uint8_t)(tag[i] ^ expected[i]);
  rc = LEVEL_ID_EFORGED;
  if (difference != 0)
    goto fail;
  uLongf plain_length = PAYLOAD_MAX;
  rc = LEVEL_ID_EMALFORMED;
  if (uncompress((Bytef *)plain, &plain_length, packed, (uLong)packed_length) != Z_OK)
    goto fail;
  plain[plain_length] = '\0';
  char *canonical = NULL;
  rc = read_origin(plain, origin, &canonical);
  if (rc != 0)
    goto fail;
  rc = LEVEL_ID_EMALFORMED;
  *body = json_loads(canonical, JSON_REJECT_DUPLICATES, NULL);
  if (json_is_object(*body))
    rc = 0;
  else {
    json_decref(*body);
    *body = NULL;
  }
fail:
  free(packed);
  free(plain);
  return rc;
}

void level_hash_text(const char *text, size_t length, char out[LEVEL_HASH_TEXT]) {
  memcpy(out, "sha256:", 7);
  dg_sha256_hex(text, length, out + 7);
}

int level_identify(const uint8_t key[16], const dg_request *request, const char *roomset_sha256,
                   const char *table_sha256, char **text, size_t *length) {
  char *id = NULL;
  int rc = level_id_make(key, request, roomset_sha256, table_sha256, &id);
  if (rc != 0)
    return rc;
  char hash[LEVEL_HASH_TEXT];
  level_hash_text(*text, *length, hash);
  size_t extra = strlen(id) + strlen(hash) + 32;
  char *grown = realloc(*text, *length + extra);
  if (grown == NULL) {
    free(id);
    return DG_ENOMEM;
  }
  /* Over the closing brace: ,"level_id":"...","level_hash":"..."} */
  size_t at = *length - 1;
  at += (size_t)snprintf(grown + at, extra + 1, ",\"level_id\":\"%s\",\"level_hash\":\"%s\"}", id,
                         hash);
  free(id);
  *text = grown;
  *length = at;
  return 0;
}
