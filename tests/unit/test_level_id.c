/* Level identity (src/lib/core/sha256.c, src/server/state/level_id.c): SHA-256 and
 * HMAC-SHA256 against FIPS 180-4 and RFC 4231 vectors; a level id that
 * turns back into its request, refused when truncated, tampered with,
 * signed under another key or by another version (generator version, or
 * a format-1 id naming a release); the room set's and the content
 * table's digests carried through (no table line without a table);
 * level_hash over the bytes before the identity members. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/sha256_blocks.h"
#include "dungeon/digest.h"
#include "dungeon/dungeon.h"
#include "dungeon/json.h"
#include "state/level_id.h"

static void hex(const uint8_t *bytes, size_t length, char *out) {
  for (size_t i = 0; i < length; i++)
    snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

Test(sha256, fips_180_4_vectors) {
  uint8_t digest[DG_SHA256_BYTES];
  char text[2 * DG_SHA256_BYTES + 1];
  dg_sha256("abc", 3, digest);
  hex(digest, sizeof digest, text);
  cr_assert_str_eq(text, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  dg_sha256("", 0, digest);
  hex(digest, sizeof digest, text);
  cr_assert_str_eq(text, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  dg_sha256(two_blocks, strlen(two_blocks), digest);
  hex(digest, sizeof digest, text);
  cr_assert_str_eq(text, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  char *million = malloc(1000000);
  memset(million, 'a', 1000000);
  dg_sha256(million, 1000000, digest);
  free(million);
  hex(digest, sizeof digest, text);
  cr_assert_str_eq(text, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* The vectors above go through whichever block function this processor
 * gets; this holds the other one to the same results, on random states
 * and blocks, wherever the SHA extensions exist. */
Test(sha256, hardware_blocks_equal_portable_blocks) {
#if SHA256_HAS_HW
  if (!sha256_hw_supported())
    cr_skip_test("this processor has no SHA extensions");
  unsigned char data[64 * 40];
  uint32_t seed = 2026;
  for (int trial = 0; trial < 300; trial++) {
    uint32_t portable[8], hw[8];
    for (int i = 0; i < 8; i++)
      portable[i] = hw[i] = seed = seed * 1664525u + 1013904223u;
    size_t blocks = 1 + (size_t)(seed >> 16) % 40;
    for (size_t i = 0; i < 64 * blocks; i++)
      data[i] = (unsigned char)((seed = seed * 1664525u + 1013904223u) >> 24);
    sha256_blocks_portable(portable, data, blocks);
    sha256_blocks_hw(hw, data, blocks);
    cr_assert_arr_eq(portable, hw, sizeof portable, "trial %d, %zu blocks", trial, blocks);
  }
#else
  cr_skip_test("no SHA-extension code in this build");
#endif
}

Test(sha256, hmac_rfc_4231_vectors) {
  uint8_t digest[DG_SHA256_BYTES];
  char text[2 * DG_SHA256_BYTES + 1];
  uint8_t key[131];
  memset(key, 0x0b, 20);
  dg_hmac_sha256(key, 20, "Hi There", 8, digest);
  hex(digest, sizeof digest, text);
  cr_assert_str_eq(text, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  dg_hmac_sha256((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28, digest);
  hex(digest, sizeof digest, text);
  cr_assert_str_eq(text, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  /* Test case 6: a key longer than the block is hashed first. */
  memset(key, 0xaa, sizeof key);
  const char *message = "Test Using Larger Than Block-Size Key - Hash Key First";
  dg_hmac_sha256(key, sizeof key, message, strlen(message), digest);
  hex(digest, sizeof digest, text);
  cr_assert_str_eq(text, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static const uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static dg_request party_request(void) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  cr_assert_eq(dg_request_set_text(&request, "width", "70", &err), 0);
  request.seed = 123456789;
  request.seed_given = true;
  const char *const ids[] = {"zed", "ann"};
  cr_assert_eq(dg_request_set_players(&request, ids, 2, "players", &err), 0);
  return request;
}

Test(level_id, round_trips_to_the_canonical_request) {
  dg_request request = party_request();
  char *id = NULL;
  cr_assert_eq(level_id_make(key, &request, "", "", &id), 0);
  cr_assert_lt(strlen(id), 1024, "a typical level id is %zu characters", strlen(id));
  for (const char *c = id; *c; c++)
    cr_assert(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.", *c),
              "'%c' is not URL-safe", *c);
  char *again = NULL;
  cr_assert_eq(level_id_make(key, &request, "", "", &again), 0);
  cr_assert_str_eq(id, again, "the same request gave two ids");
  json_t *body = NULL;
  level_origin origin;
  cr_assert_eq(level_id_parse(key, id, &body, &origin), 0);
  cr_assert_str_eq(origin.roomset_sha256, "");
  dg_request parsed;
  dg_error err = {0};
  cr_assert_eq(dg_request_from_json(body, &parsed, &err), 0, "%s", err.message);
  cr_assert_eq(parsed.seed, request.seed);
  cr_assert_eq(parsed.params.number[0], 70);
  const json_t *players = json_object_get(body, "players");
  cr_assert_eq(json_array_size(players), 2);
  cr_assert_str_eq(json_string_value(json_object_get(json_array_get(players, 0), "id")), "ann");
  json_decref(body);
  free(again);
  free(id);
}

Test(level_id, truncated_tampered_and_foreign_ids_are_refused) {
  dg_request request = party_request();
  char *id = NULL;
  cr_assert_eq(level_id_make(key, &request, "", "", &id), 0);
  json_t *body = NULL;
  level_origin version;
  size_t length = strlen(id);
  /* Truncated: the tag is cut, or the dot is gone. */
  char *cut = strndup(id, length - 3);
  cr_assert_eq(level_id_parse(key, cut, &body, &version), LEVEL_ID_EMALFORMED);
  free(cut);
  cut = strndup(id, (size_t)(strchr(id, '.') - id));
  cr_assert_eq(level_id_parse(key, cut, &body, &version), LEVEL_ID_EMALFORMED);
  free(cut);
  cr_assert_eq(level_id_parse(key, "", &body, &version), LEVEL_ID_EMALFORMED);
  cr_assert_eq(level_id_parse(key, "a b.c", &body, &version), LEVEL_ID_EMALFORMED);
  /* Cut inside the payload, tag intact: the signature no longer holds. */
  char *shorter = malloc(length + 1);
  const char *dot = strchr(id, '.');
  size_t head = (size_t)(dot - id);
  snprintf(shorter, length + 1, "%.*s%s", (int)(head - 4), id, dot);
  cr_assert_eq(level_id_parse(key, shorter, &body, &version), LEVEL_ID_EFORGED);
  free(shorter);
  /* One character of the payload changed. */
  char *forged = strdup(id);
  forged[5] = forged[5] == 'A' ? 'B' : 'A';
  cr_assert_eq(level_id_parse(key, forged, &body, &version), LEVEL_ID_EFORGED);
  free(forged);
  /* Another key (another deployment's secret). */
  uint8_t other[16] = {0};
  cr_assert_eq(level_id_parse(other, id, &body, &version), LEVEL_ID_EFORGED);
  cr_assert_null(body);
  free(id);
}

/* A reference signed with the right key, built by hand as level_id_make
 * would in another version; *id is malloc'd. */
static char *signed_id(const char *plain) {
  uLongf packed_length = compressBound(strlen(plain));
  uint8_t packed[4096];
  cr_assert_lt(packed_length, sizeof packed);
  cr_assert_eq(compress2(packed, &packed_length, (const Bytef *)plain, strlen(plain), 9), Z_OK);
  uint8_t tag[DG_SHA256_BYTES];
  dg_hmac_sha256(key, 16, packed, packed_length, tag);
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  char *id = malloc(sizeof packed * 4 / 3 + 32);
  size_t at = 0;
  const uint8_t *parts[] = {packed, tag};
  size_t sizes[] = {packed_length, 16};
  for (int p = 0; p < 2; p++) {
    if (p == 1)
      id[at++] = '.';
    for (size_t i = 0; i < sizes[p]; i += 3) {
      uint32_t chunk = (uint32_t)parts[p][i] << 16;
      if (i + 1 < sizes[p])
        chunk |= (uint32_t)parts[p][i + 1] << 8;
      if (i + 2 < sizes[p])
        chunk |= parts[p][i + 2];
      id[at++] = alphabet[chunk >> 18 & 63];
      id[at++] = alphabet[chunk >> 12 & 63];
      if (i + 1 < sizes[p])
        id[at++] = alphabet[chunk >> 6 & 63];
      if (i + 2 < sizes[p])
        id[at++] = alphabet[chunk & 63];
    }
  }
  id[at] = '\0';
  return id;
}

/* level_id_make deflates through a stream it keeps per thread and resets:
 * its ids must stay the bytes compress2 made, one id after another, long
 * and short, so that ids made before and after that change agree. */
Test(level_id, reused_stream_writes_what_compress2_wrote) {
  const char *const tables[] = {"", "5d41402abc4b2a76b9719d911017c592"
                                    "5d41402abc4b2a76b9719d911017c592"};
  for (int round = 0; round < 12; round++) {
    dg_request request = party_request();
    request.seed = 1000003u * (uint64_t)round;
    dg_error err = {0};
    char width[16];
    snprintf(width, sizeof width, "%d", 40 + 7 * round);
    cr_assert_eq(dg_request_set_text(&request, "width", width, &err), 0);
    const char *const ids[] = {"zed", "ann", "a-longer-player-id-than-the-others", "bo"};
    cr_assert_eq(dg_request_set_players(&request, ids, 1 + round % 4, "players", &err), 0);
    const char *table = tables[round % 2];
    char *made = NULL;
    cr_assert_eq(level_id_make(key, &request, "", table, &made), 0);
    /* The reference as level_id.h spells it, deflated by compress2. */
    json_t *body = dg_request_to_json(&request);
    json_t *players = json_array();
    for (int i = 0; i < request.players.count; i++)
      json_array_append_new(players, json_pack("{s:s}", "id", request.players.id[i]));
    json_object_set_new(body, "players", players);
    char *canonical = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
    char plain[2048];
    snprintf(plain, sizeof plain, "%s\n%d\n\n%s%s%s%s", LEVEL_ID_DOMAIN, DG_GENERATOR_VERSION,
             table[0] != '\0' ? "table:" : "", table, table[0] != '\0' ? "\n" : "", canonical);
    char *expected = signed_id(plain);
    cr_assert_str_eq(made, expected, "round %d", round);
    free(expected);
    free(canonical);
    json_decref(body);
    free(made);
  }
}

/* Another generator version, or a format-1 id (which named the release):
 * 410 naming it. */
Test(level_id, another_version_is_named) {
  char plain[512];
  snprintf(plain, sizeof plain, LEVEL_ID_DOMAIN "\n%d\n\n{\"algorithm\":\"classic\",\"seed\":1}",
           DG_GENERATOR_VERSION - 1);
  char *id = signed_id(plain);
  json_t *body = NULL;
  level_origin origin;
  cr_assert_eq(level_id_parse(key, id, &body, &origin), LEVEL_ID_EVERSION);
  char expected[64];
  snprintf(expected, sizeof expected, "generator version %d", DG_GENERATOR_VERSION - 1);
  cr_assert_str_eq(origin.maker, expected);
  cr_assert_null(body);
  free(id);
  id =
      signed_id(LEVEL_ID_DOMAIN_V1 "\n" DUNGEON_VERSION "\n{\"algorithm\":\"classic\",\"seed\":1}");
  cr_assert_eq(level_id_parse(key, id, &body, &origin), LEVEL_ID_EVERSION);
  cr_assert_str_eq(origin.maker, "dungeond " DUNGEON_VERSION " (level id format 1)");
  cr_assert_null(body);
  free(id);
  /* The same version: served. */
  snprintf(plain, sizeof plain, LEVEL_ID_DOMAIN "\n%d\n\n{\"algorithm\":\"classic\",\"seed\":1}",
           DG_GENERATOR_VERSION);
  id = signed_id(plain);
  cr_assert_eq(level_id_parse(key, id, &body, &origin), 0);
  json_decref(body);
  free(id);
}

/* The room set's digest travels signed; a digest line that is not one is
 * malformed even when signed. */
Test(level_id, roomset_digest_is_carried) {
  dg_request request = party_request();
  const char digest[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  char *id = NULL;
  cr_assert_eq(level_id_make(key, &request, digest, "", &id), 0);
  json_t *body = NULL;
  level_origin origin;
  cr_assert_eq(level_id_parse(key, id, &body, &origin), 0);
  cr_assert_str_eq(origin.roomset_sha256, digest);
  json_decref(body);
  free(id);
  char plain[512];
  snprintf(plain, sizeof plain, LEVEL_ID_DOMAIN "\n%d\nnot-a-digest\n{\"algorithm\":\"classic\"}",
           DG_GENERATOR_VERSION);
  id = signed_id(plain);
  cr_assert_eq(level_id_parse(key, id, &body, &origin), LEVEL_ID_EMALFORMED);
  cr_assert_null(body);
  free(id);
}

/* The canonical request text level_id_make signs (level_id.c). */
static char *canonical(const dg_request *request) {
  json_t *body = dg_request_to_json(request);
  json_t *ids = json_array();
  for (int i = 0; i < request->players.count; i++)
    json_array_append_new(ids, json_pack("{s:s}", "id", request->players.id[i]));
  json_object_set_new(body, "players", ids);
  char *text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(body);
  return text;
}

/* A level made with a content table: its id carries the table's digest on
 * a line of its own; without a table there is no such line, so those ids
 * are the bytes they were before tables; a table line that is not a
 * digest is malformed even when signed. */
Test(level_id, table_digest_is_carried_only_when_there_is_one) {
  dg_request request = party_request();
  const char digest[] = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
  char *request_text = canonical(&request);
  char plain[4096];
  snprintf(plain, sizeof plain, LEVEL_ID_DOMAIN "\n%d\n\n%s", DG_GENERATOR_VERSION, request_text);
  char *by_hand = signed_id(plain), *id = NULL;
  cr_assert_eq(level_id_make(key, &request, "", "", &id), 0);
  cr_assert_str_eq(id, by_hand, "an id without a table changed its bytes");
  free(by_hand);
  free(id);
  snprintf(plain, sizeof plain, LEVEL_ID_DOMAIN "\n%d\n\ntable:%s\n%s", DG_GENERATOR_VERSION,
           digest, request_text);
  by_hand = signed_id(plain);
  cr_assert_eq(level_id_make(key, &request, "", digest, &id), 0);
  cr_assert_str_eq(id, by_hand);
  json_t *body = NULL;
  level_origin origin;
  cr_assert_eq(level_id_parse(key, id, &body, &origin), 0);
  cr_assert_str_eq(origin.table_sha256, digest);
  cr_assert_str_eq(origin.roomset_sha256, "");
  cr_assert_eq(json_integer_value(json_object_get(body, "seed")), 123456789);
  json_decref(body);
  free(by_hand);
  free(id);
  snprintf(plain, sizeof plain, LEVEL_ID_DOMAIN "\n%d\n\ntable:0123\n%s", DG_GENERATOR_VERSION,
           request_text);
  id = signed_id(plain);
  cr_assert_eq(level_id_parse(key, id, &body, &origin), LEVEL_ID_EMALFORMED);
  cr_assert_null(body);
  free(id);
  free(request_text);
}

Test(level_id, hash_is_of_the_bytes_before_the_identity) {
  dg_request request = party_request();
  const char level[] = "{\"format\":\"dungeond.level/1\"}";
  char *text = strdup(level);
  size_t length = strlen(text);
  cr_assert_eq(level_identify(key, &request, "", "", &text, &length), 0);
  cr_assert_eq(length, strlen(text));
  cr_assert_eq(text[length - 1], '}');
  char *cut = strstr(text, ",\"level_id\":");
  cr_assert_not_null(cut);
  cr_assert_eq((size_t)(cut - text), strlen(level) - 1);
  char expected[LEVEL_HASH_TEXT];
  level_hash_text(level, strlen(level), expected);
  cr_assert_not_null(strstr(text, expected));
  json_t *parsed = json_loads(text, 0, NULL);
  cr_assert_not_null(parsed, "not JSON: %s", text);
  json_decref(parsed);
  free(text);
}
