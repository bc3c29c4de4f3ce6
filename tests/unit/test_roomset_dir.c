/* The room-set directory loader shared by the daemon and the CLI
 * (src/common/roomset_dir.c): files in name order, hidden and non-JSON files
 * skipped, every invalid file reported (or only the first), syntax errors
 * and duplicate keys reported with line and column, a missing directory told
 * apart from invalid files, and the shipped sets loading clean. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/common/roomset_dir.h"

#define FIXTURES TEST_DATA_DIR "/roomsets"
#define CONFIG_DIR TEST_DATA_DIR "/../../config/roomsets"

#define REPORTS_MAX 32

/* What the report callback saw, in order. */
typedef struct reports {
  int count;
  char where[REPORTS_MAX][512];
  char field[REPORTS_MAX][64];
  char message[REPORTS_MAX][256];
} reports;

static void collect(void *user, const char *where, const char *field, const char *message) {
  reports *r = user;
  cr_assert_lt(r->count, REPORTS_MAX);
  snprintf(r->where[r->count], sizeof r->where[0], "%s", where);
  snprintf(r->field[r->count], sizeof r->field[0], "%s", field);
  snprintf(r->message[r->count], sizeof r->message[0], "%s", message);
  r->count++;
}

static dg_context *new_context(void) {
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  return context;
}

Test(roomset_dir, keep_going_reports_every_invalid_fixture_in_name_order) {
  dg_context *context = new_context();
  reports seen = {0};
  roomset_dir_result result = {-1, -1};
  int rc = roomset_dir_load(context, FIXTURES, true, collect, &seen, &result);
  cr_assert_eq(rc, DG_EINVAL);
  /* 17 fixtures; dead_ends.json and valid.json are the valid ones. */
  cr_assert_eq(result.files, 17, "files %d", result.files);
  cr_assert_eq(result.failed, 15, "failed %d", result.failed);
  cr_assert_eq(seen.count, 15);
  cr_assert_str_eq(seen.where[0], FIXTURES "/bad_facing.json");
  cr_assert_str_eq(seen.field[0], "rooms[corridor].connectors[0].facing");
  cr_assert_str_eq(seen.where[14], FIXTURES "/zero_weight.json");
  for (int i = 1; i < seen.count; i++)
    cr_assert_lt(strcmp(seen.where[i - 1], seen.where[i]), 0, "order: %s then %s",
                 seen.where[i - 1], seen.where[i]);
  /* The valid files before and after failures are loaded all the same. */
  cr_assert_eq(dg_context_roomset_count(context), 2);
  dg_roomset_info info;
  cr_assert_eq(dg_context_roomset_info(context, 0, &info), 0);
  cr_assert_str_eq(info.name, "dead_ends");
  cr_assert_eq(dg_context_roomset_info(context, 1, &info), 0);
  cr_assert_str_eq(info.name, "fixture");
  dg_context_free(context);
}

Test(roomset_dir, stop_at_first_reports_one) {
  dg_context *context = new_context();
  reports seen = {0};
  roomset_dir_result result = {-1, -1};
  int rc = roomset_dir_load(context, FIXTURES, false, collect, &seen, &result);
  cr_assert_eq(rc, DG_EINVAL);
  cr_assert_eq(result.files, 17);
  cr_assert_eq(result.failed, 1);
  cr_assert_eq(seen.count, 1);
  cr_assert_str_eq(seen.where[0], FIXTURES "/bad_facing.json");
  cr_assert(strstr(seen.message[0], "facing must be one of n, e, s, w") != NULL, "%s",
            seen.message[0]);
  dg_context_free(context);
}

Test(roomset_dir, shipped_sets_load_clean) {
  dg_context *context = new_context();
  reports seen = {0};
  roomset_dir_result result = {-1, -1};
  cr_assert_eq(roomset_dir_load(context, CONFIG_DIR, true, collect, &seen, &result), 0);
  cr_assert_eq(seen.count, 0, "first report: %s %s", seen.where[0], seen.message[0]);
  cr_assert_eq(result.failed, 0);
  cr_assert_eq(result.files, dg_context_roomset_count(context));
  cr_assert_geq(result.files, 3);
  dg_context_free(context);
}

/* The loader prepares files on several threads: what it adds must be what
 * adding them one by one in name order adds, figures and order alike. */
Test(roomset_dir, threaded_load_equals_one_by_one) {
  const char *names[] = {"bench.json", "crypt.json", "sewer.json"};
  dg_context *threaded = new_context(), *serial = new_context();
  reports seen = {0};
  cr_assert_eq(roomset_dir_load(threaded, CONFIG_DIR, true, collect, &seen, NULL), 0);
  for (int i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CONFIG_DIR, names[i]);
    json_error_t error;
    json_t *json = NULL;
    cr_assert_eq(roomset_dir_read_file(path, &json, &error), 0, "%s", error.text);
    dg_error err;
    cr_assert_eq(dg_context_add_roomset(serial, json, &err), 0, "%s", err.message);
    json_decref(json);
  }
  cr_assert_eq(dg_context_roomset_count(threaded), 3);
  cr_assert_eq(dg_context_roomset_count(serial), 3);
  for (int i = 0; i < 3; i++) {
    dg_roomset_info a, b;
    cr_assert_eq(dg_context_roomset_info(threaded, i, &a), 0);
    cr_assert_eq(dg_context_roomset_info(serial, i, &b), 0);
    cr_assert_str_eq(a.name, b.name);
    cr_assert_str_eq(a.sha256, b.sha256);
    cr_assert_eq(a.moves, b.moves);
    cr_assert_eq(a.move_groups, b.move_groups);
    cr_assert_eq(a.table_states, b.table_states);
    cr_assert_eq(a.table_bytes, b.table_bytes);
  }
  dg_context_free(threaded);
  dg_context_free(serial);
}

Test(roomset_dir, missing_directory_is_enoent_without_report) {
  dg_context *context = new_context();
  reports seen = {0};
  roomset_dir_result result = {-1, -1};
  errno = 0;
  int rc = roomset_dir_load(context, FIXTURES "/no-such-dir", true, collect, &seen, &result);
  cr_assert_eq(rc, DG_ENOENT);
  cr_assert_eq(errno, ENOENT);
  cr_assert_eq(seen.count, 0);
  cr_assert_eq(result.files, 0);
  cr_assert_eq(dg_context_roomset_count(context), 0);
  dg_context_free(context);
}

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

static void remove_file(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unlink(path);
}

/* Makes `dir` (a mkdtemp template), writes the files, loads it into
 * `context` keeping going, removes it all; roomset_dir_load's code. */
static int load_scratch_dir(char *dir, const char *const names[], const char *const texts[],
                            int count, dg_context *context, reports *seen,
                            roomset_dir_result *result) {
  cr_assert_not_null(mkdtemp(dir));
  for (int i = 0; i < count; i++)
    write_file(dir, names[i], texts[i]);
  int rc = roomset_dir_load(context, dir, true, collect, seen, result);
  for (int i = 0; i < count; i++)
    remove_file(dir, names[i]);
  rmdir(dir);
  return rc;
}

Test(roomset_dir, syntax_errors_duplicate_keys_and_skipped_names) {
  const char *names[] = {"a_broken.json", "b_duplicate.json", ".hidden.json", "notes.txt", "json"};
  const char *texts[] = {"{\"name\": \"x\",\n  \"rooms\": [\n",
                         "{\"name\": \"x\", \"name\": \"y\"}", "not even json", "not json either",
                         "a name that is only the suffix"};
  char dir[] = "/tmp/roomset_dir_test_XXXXXX";
  dg_context *context = new_context();
  reports seen = {0};
  roomset_dir_result result = {-1, -1};
  int rc = load_scratch_dir(dir, names, texts, 5, context, &seen, &result);
  cr_assert_eq(rc, DG_EINVAL);
  cr_assert_eq(result.files, 2);
  cr_assert_eq(result.failed, 2);
  cr_assert_eq(seen.count, 2);
  char where[600];
  snprintf(where, sizeof where, "%s/a_broken.json:3:", dir);
  cr_assert_eq(strncmp(seen.where[0], where, strlen(where)), 0, "where %s", seen.where[0]);
  cr_assert_str_eq(seen.field[0], "");
  snprintf(where, sizeof where, "%s/b_duplicate.json:1:", dir);
  cr_assert_eq(strncmp(seen.where[1], where, strlen(where)), 0, "where %s", seen.where[1]);
  cr_assert(strstr(seen.message[1], "duplicate") != NULL, "%s", seen.message[1]);
  dg_context_free(context);
}

/* Two files holding sets of one name: whichever thread prepares first, the
 * file later in name order is the one refused. */
Test(roomset_dir, a_name_taken_twice_refuses_the_later_file) {
  char dir[] = "/tmp/roomset_dir_test_XXXXXX";
  json_error_t error;
  json_t *json = json_load_file(FIXTURES "/valid.json", 0, &error);
  cr_assert_not_null(json, "%s", error.text);
  char *text = json_dumps(json, 0);
  json_decref(json);
  const char *names[] = {"a_first.json", "b_second.json", "c_third.json"};
  const char *texts[] = {text, text, text};
  dg_context *context = new_context();
  reports seen = {0};
  roomset_dir_result result = {-1, -1};
  int rc = load_scratch_dir(dir, names, texts, 3, context, &seen, &result);
  free(text);
  cr_assert_eq(rc, DG_EINVAL);
  cr_assert_eq(result.files, 3);
  cr_assert_eq(result.failed, 2);
  cr_assert_eq(seen.count, 2);
  char where[600];
  snprintf(where, sizeof where, "%s/b_second.json", dir);
  cr_assert_str_eq(seen.where[0], where);
  cr_assert_str_eq(seen.field[0], "name");
  snprintf(where, sizeof where, "%s/c_third.json", dir);
  cr_assert_str_eq(seen.where[1], where);
  cr_assert_eq(dg_context_roomset_count(context), 1);
  dg_context_free(context);
}

Test(roomset_dir, read_file_shares_the_parse_rules) {
  json_t *json = (json_t *)1;
  json_error_t error;
  cr_assert_eq(roomset_dir_read_file(FIXTURES "/valid.json", &json, &error), 0);
  cr_assert(json_is_object(json));
  json_decref(json);
  cr_assert_eq(roomset_dir_read_file(FIXTURES "/absent.json", &json, &error), DG_EPARSE);
  cr_assert_null(json);
}
