/* Room sets: each invalid fixture of tests/data/roomsets gives its own
 * specific error (field and message), the shipped sets of config/roomsets
 * load, and the precomputed moves are what seed 003 describes: one per
 * room, connector and rotation, grouped by geometry. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

#define ROOMSET_DIR TEST_DATA_DIR "/roomsets/"
#define CONFIG_DIR TEST_DATA_DIR "/../../config/roomsets/"

static json_t *load(const char *path) {
  json_error_t error;
  json_t *json = json_load_file(path, 0, &error);
  cr_assert_not_null(json, "%s: %s", path, error.text);
  return json;
}

/* The fixture must fail with exactly one problem (or at least the expected
 * first one) whose field and message say what is wrong. */
static void expect_problem(const char *file, const char *field, const char *words) {
  char path[512];
  snprintf(path, sizeof path, ROOMSET_DIR "%s", file);
  json_t *json = load(path);
  dg_error problems[8];
  int count = 0;
  int rc = dg_roomset_check(json, problems, 8, &count);
  cr_assert_neq(rc, 0, "%s must be rejected", file);
  cr_assert_eq(count, 1, "%s: expected one problem, got %d (first: %s)", file, count,
               problems[0].message);
  cr_assert_str_eq(problems[0].field, field, "%s: field %s", file, problems[0].field);
  cr_assert(strstr(problems[0].message, words) != NULL, "%s: message '%s' lacks '%s'", file,
            problems[0].message, words);
  /* Loading reports the same first problem and leaves the context empty. */
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  dg_error err = {0};
  cr_assert_neq(dg_context_add_roomset(context, json, &err), 0);
  cr_assert_str_eq(err.field, field);
  cr_assert_eq(dg_context_roomset_count(context), 0);
  dg_context_free(context);
  json_decref(json);
}

Test(roomset, valid_fixture_loads) {
  json_t *json = load(ROOMSET_DIR "valid.json");
  dg_error problems[4];
  int count = -1;
  cr_assert_eq(dg_roomset_check(json, problems, 4, &count), 0);
  cr_assert_eq(count, 0);
  json_decref(json);
}

Test(roomset, connector_not_on_boundary) {
  expect_problem("connector_not_on_boundary.json", "rooms[corridor].connectors[1].at",
                 "not on the room's boundary");
}
Test(roomset, connector_outside_room) {
  expect_problem("connector_outside_room.json", "rooms[corridor].connectors[1].at",
                 "outside the room's size");
}
Test(roomset, connector_not_facing_outward) {
  expect_problem("connector_not_facing_outward.json", "rooms[corridor].connectors[1].facing",
                 "not facing outward");
}
Test(roomset, connector_outside_boxes) {
  expect_problem("connector_outside_boxes.json", "rooms[corridor].connectors[1].at",
                 "not inside any of the room's boxes");
}
Test(roomset, overlapping_boxes) {
  expect_problem("overlapping_boxes.json", "rooms[corridor].boxes[1]", "overlaps box 0");
}
Test(roomset, box_outside_room) {
  expect_problem("box_outside_room.json", "rooms[corridor].boxes[0].size",
                 "outside the room's size");
}
Test(roomset, duplicate_ids) {
  expect_problem("duplicate_ids.json", "rooms[2].id", "duplicate id");
}
Test(roomset, zero_weight) {
  expect_problem("zero_weight.json", "rooms[corridor].weight", "weight is zero");
}
Test(roomset, no_connectors) {
  expect_problem("no_connectors.json", "rooms[corridor].connectors", "has no connectors");
}
Test(roomset, bad_facing) {
  expect_problem("bad_facing.json", "rooms[corridor].connectors[0].facing", "one of n, e, s, w");
}
Test(roomset, duplicate_connector) {
  expect_problem("duplicate_connector.json", "rooms[corridor].connectors[2].at",
                 "repeats an earlier connector");
}
Test(roomset, unknown_member) {
  expect_problem("unknown_member.json", "rooms[corridor].conectors", "unknown member");
}
Test(roomset, bad_size) {
  expect_problem("bad_size.json", "rooms[corridor].size", "allowed 1 to 64");
}
Test(roomset, bad_format) {
  expect_problem("bad_format.json", "format", "dungeond.roomset/1");
}
Test(roomset, cannot_grow) {
  expect_problem("cannot_grow.json", "rooms", "two or more connectors");
}

Test(roomset, duplicate_set_name) {
  json_t *json = load(ROOMSET_DIR "valid.json");
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  dg_error err = {0};
  cr_assert_eq(dg_context_add_roomset(context, json, &err), 0, "%s", err.message);
  cr_assert_eq(dg_context_add_roomset(context, json, &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "name");
  cr_assert_eq(dg_context_roomset_count(context), 1);
  dg_context_free(context);
  json_decref(json);
}

/* valid.json: a four-way hub tagged start (placed once, never a move) and
 * a straight corridor with 2 connectors: 2 x 4 rotations = 8 moves. The
 * corridor entered from either end half a turn apart is the same shape, so
 * its moves make one group per open facing: 4 groups. */
Test(roomset, moves_and_groups) {
  json_t *json = load(ROOMSET_DIR "valid.json");
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  dg_error err = {0};
  cr_assert_eq(dg_context_add_roomset(context, json, &err), 0, "%s", err.message);
  dg_roomset_info info;
  cr_assert_eq(dg_context_roomset_info(context, 0, &info), 0);
  cr_assert_str_eq(info.name, "fixture");
  cr_assert_eq(info.rooms, 2);
  cr_assert_eq(info.connectors, 6);
  cr_assert_eq(info.moves, 8);
  cr_assert_eq(info.move_groups, 4);
  cr_assert_eq(dg_context_roomset_info(context, 1, &info), DG_EINVAL);
  json_t *list = dg_context_roomsets_to_json(context);
  cr_assert_eq(json_array_size(list), 1);
  cr_assert_eq(json_integer_value(json_object_get(json_array_get(list, 0), "moves")), 8);
  json_decref(list);
  dg_context_free(context);
  json_decref(json);
}

/* The shipped sets: two biomes of 30-40 rooms with shims of length 2 and 3,
 * and the bench set with seed 003's 428 moves before grouping. */
Test(roomset, shipped_sets) {
  static const char *const files[] = {"crypt.json", "sewer.json", "bench.json"};
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  for (int i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, CONFIG_DIR "%s", files[i]);
    json_t *json = load(path);
    dg_error err = {0};
    cr_assert_eq(dg_context_add_roomset(context, json, &err), 0, "%s: %s %s", files[i], err.field,
                 err.message);
    json_decref(json);
    dg_roomset_info info;
    cr_assert_eq(dg_context_roomset_info(context, i, &info), 0);
    cr_assert(info.moves % 4 == 0 && info.moves < info.connectors * 4,
              "%s: four rotations per connector of every room but the start", info.name);
    cr_assert_lt(info.move_groups, info.moves, "%s: grouping must merge something", info.name);
    cr_assert_geq(info.shims, 2, "%s has shims", info.name);
    if (strcmp(info.name, "bench") == 0)
      cr_assert_eq(info.moves, 428);
    else
      cr_assert(info.rooms >= 30 && info.rooms <= 40, "%s: %d rooms", info.name, info.rooms);
  }
  dg_context_free(context);
}

/* A level names its room set by the SHA-256 of the set's canonical JSON:
 * the same content in another layout has the same digest, a changed room
 * another, and an authored level carries it, beside its generator version. */
Test(roomset, digest_names_the_content) {
  json_t *json = load(CONFIG_DIR "crypt.json");
  char *canonical = json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS);
  char expected[DG_SHA256_HEX_SIZE];
  dg_sha256_hex(canonical, strlen(canonical), expected);
  free(canonical);
  /* The same set written out indented and unsorted, then with one weight changed. */
  char *indented = json_dumps(json, JSON_INDENT(3));
  json_t *reread = json_loads(indented, 0, NULL);
  free(indented);
  json_t *changed = json_deep_copy(json);
  json_t *room = json_array_get(json_object_get(changed, "rooms"), 1);
  json_object_set_new(room, "weight",
                      json_integer(json_integer_value(json_object_get(room, "weight")) + 1));
  json_object_set_new(changed, "name", json_string("crypt2"));
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  dg_error err = {0};
  cr_assert_eq(dg_context_add_roomset(context, json, &err), 0, "%s", err.message);
  dg_context *other = NULL;
  cr_assert_eq(dg_context_new(&other), 0);
  cr_assert_eq(dg_context_add_roomset(other, reread, &err), 0, "%s", err.message);
  cr_assert_eq(dg_context_add_roomset(other, changed, &err), 0, "%s", err.message);
  dg_roomset_info info, again, modified;
  cr_assert_eq(dg_context_roomset_info(context, 0, &info), 0);
  cr_assert_eq(dg_context_roomset_info(other, 0, &again), 0);
  cr_assert_eq(dg_context_roomset_info(other, 1, &modified), 0);
  cr_assert_str_eq(info.sha256, expected);
  cr_assert_str_eq(again.sha256, expected);
  cr_assert_str_neq(modified.sha256, expected);

  dg_request request;
  dg_request_init(&request, dg_algorithm_find("authored"));
  cr_assert_eq(dg_request_set_text(&request, "rooms", "20", &err), 0);
  request.seed = 3;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(context, &request, NULL, &level, &err), 0, "%s", err.message);
  char *text = NULL;
  size_t length = 0;
  cr_assert_eq(dg_level_dump_json(level, &text, &length), 0);
  json_t *parsed = json_loads(text, 0, NULL);
  cr_assert_str_eq(json_string_value(json_object_get(parsed, "roomset_sha256")), expected);
  cr_assert_eq(json_integer_value(json_object_get(parsed, "generator_version")),
               DG_GENERATOR_VERSION);
  json_decref(parsed);
  free(text);
  dg_level_free(level);
  dg_context_free(other);
  dg_context_free(context);
  json_decref(changed);
  json_decref(reread);
  json_decref(json);
}
