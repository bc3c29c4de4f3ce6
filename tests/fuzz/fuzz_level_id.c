/* Fuzz target: a level id as GET /v1/levels/{level_id} receives it
 * (src/server/state/level_id.c). Whatever the bytes, parsing must end with
 * one of its codes, never crash, hang or leak; the first byte picks whether
 * the rest is taken as an id or re-signed under the test key first, so the
 * fuzzer also reaches the inflate and JSON steps behind the signature. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "dungeon/digest.h"
#include "state/level_id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t key[16] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static size_t encode(const uint8_t *in, size_t length, char *out) {
  size_t at = 0;
  for (size_t i = 0; i < length; i += 3) {
    uint32_t chunk = (uint32_t)in[i] << 16 | (i + 1 < length ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < length ? in[i + 2] : 0);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || size > 8192)
    return 0;
  char *id = NULL;
  if (data[0] & 1) {
    /* The rest is a reference text: deflated and signed as the daemon would. */
    uLongf packed_length = compressBound((uLong)(size - 1));
    uint8_t *packed = malloc(packed_length);
    id = malloc(packed_length * 2 + 64);
    if (packed == NULL || id == NULL ||
        compress2(packed, &packed_length, data + 1, (uLong)(size - 1), 1) != Z_OK) {
      free(packed);
      free(id);
      return 0;
    }
    uint8_t tag[DG_SHA256_BYTES];
    dg_hmac_sha256(key, sizeof key, packed, packed_length, tag);
    size_t at = encode(packed, packed_length, id);
    id[at++] = '.';
    encode(tag, 16, id + at);
    free(packed);
  } else {
    id = malloc(size);
    if (id == NULL)
      return 0;
    memcpy(id, data + 1, size - 1);
    id[size - 1] = '\0';
  }
  json_t *body = NULL;
  level_origin origin;
  int rc = level_id_parse(key, id, &body, &origin);
  if ((rc == 0) != (body != NULL) ||
      (rc != 0 && rc != LEVEL_ID_EMALFORMED && rc != LEVEL_ID_EFORGED && rc != LEVEL_ID_EVERSION &&
       rc != DG_ENOMEM))
    abort();
  json_decref(body);
  free(id);
  return 0;
}
