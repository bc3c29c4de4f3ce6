/* Request validation: every way a request can be wrong gets its own code,
 * the offending field, and a message that states the allowed range. */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

static int parse(const char *text, dg_request *request, dg_error *err) {
  json_error_t json_err;
  json_t *body = json_loads(text, 0, &json_err);
  cr_assert_not_null(body, "test JSON invalid: %s", json_err.text);
  int rc = dg_request_from_json(body, request, err);
  json_decref(body);
  return rc;
}

static void expect_error(const char *body, int code, const char *field, const char *needle) {
  dg_request request;
  dg_error err = {0};
  int rc = parse(body, &request, &err);
  cr_assert_eq(rc, code, "%s: got %d (%s)", body, rc, err.message);
  cr_assert_eq(err.code, code);
  cr_assert_str_eq(err.field, field, "%s: field '%s'", body, err.field);
  cr_assert_not_null(strstr(err.message, needle), "%s: message '%s' lacks '%s'", body, err.message,
                     needle);
}

Test(request, defaults_and_seed) {
  dg_request request;
  dg_error err = {0};
  cr_assert_eq(parse("{\"algorithm\":\"classic\",\"seed\":42}", &request, &err), 0);
  cr_assert(request.seed_given);
  cr_assert_eq(request.seed, 42u);
  int width = dg_algorithm_param_index(request.algorithm, "width");
  cr_assert_eq(dg_param_int(&request.params, width), 80);
  cr_assert_eq(request.params.explicit_mask, 0ull);
  cr_assert_eq(parse("{\"algorithm\":\"classic\"}", &request, &err), 0);
  cr_assert(!request.seed_given);
  cr_assert_eq(
      parse("{\"algorithm\":\"classic\",\"seed\":\"18446744073709551615\"}", &request, &err), 0);
  cr_assert_eq(request.seed, UINT64_MAX);
  json_t *seed = dg_seed_to_json(UINT64_MAX);
  cr_assert_str_eq(json_string_value(seed), "18446744073709551615");
  json_decref(seed);
  seed = dg_seed_to_json(DG_SEED_SAFE_MAX);
  cr_assert(json_is_integer(seed));
  json_decref(seed);
}

Test(request, params_set_and_echoed) {
  dg_request request;
  dg_error err = {0};
  cr_assert_eq(parse("{\"algorithm\":\"classic\",\"seed\":1,\"params\":{\"width\":120,"
                     "\"corridor_style\":\"plain\",\"closet_chance\":0.5}}",
                     &request, &err),
               0, "%s", err.message);
  json_t *params = dg_params_to_json(request.algorithm, &request.params);
  cr_assert_eq(json_integer_value(json_object_get(params, "width")), 120);
  cr_assert_str_eq(json_string_value(json_object_get(params, "corridor_style")), "plain");
  cr_assert_float_eq(json_real_value(json_object_get(params, "closet_chance")), 0.5, 1e-12);
  cr_assert_eq(json_integer_value(json_object_get(params, "height")), 21, "default kept");
  json_decref(params);
}

Test(request, body_errors) {
  expect_error("[]", DG_ETYPE, "", "JSON object");
  expect_error("{}", DG_EINVAL, "algorithm", "required");
  expect_error("{\"algorithm\":7}", DG_ETYPE, "algorithm", "string");
  expect_error("{\"algorithm\":\"nethack\"}", DG_ENOENT, "algorithm", "known: classic");
  expect_error("{\"algorithm\":\"classic\",\"params\":[1]}", DG_ETYPE, "params", "object");
}

Test(request, seed_errors) {
  const char *range = "0 to 18446744073709551615";
  expect_error("{\"algorithm\":\"classic\",\"seed\":-1}", DG_EINVAL, "seed", range);
  expect_error("{\"algorithm\":\"classic\",\"seed\":1.5}", DG_ETYPE, "seed", range);
  expect_error("{\"algorithm\":\"classic\",\"seed\":\"12a\"}", DG_EINVAL, "seed", range);
  expect_error("{\"algorithm\":\"classic\",\"seed\":\"18446744073709551616\"}", DG_EINVAL, "seed",
               range);
  expect_error("{\"algorithm\":\"classic\",\"seed\":true}", DG_ETYPE, "seed", range);
}

Test(request, param_errors) {
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"depth\":3}}", DG_ENOENT, "params.depth",
               "unknown parameter 'depth'");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"width\":\"80\"}}", DG_ETYPE,
               "params.width", "an integer from 20 to 1000");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"width\":19}}", DG_EINVAL, "params.width",
               "an integer from 20 to 1000");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"width\":1001}}", DG_EINVAL, "params.width",
               "an integer from 20 to 1000");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"width\":80.5}}", DG_EINVAL, "params.width",
               "integer");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"closet_chance\":\"x\"}}", DG_ETYPE,
               "params.closet_chance", "a number from 0 to 1");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"closet_chance\":1.5}}", DG_EINVAL,
               "params.closet_chance", "a number from 0 to 1");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"corridor_style\":\"wide\"}}", DG_EINVAL,
               "params.corridor_style", "one of follow, cleanup, plain");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"corridor_style\":1}}", DG_ETYPE,
               "params.corridor_style", "one of follow, cleanup, plain");
}

Test(request, cross_field_errors) {
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"rooms_min\":10,\"rooms_max\":5}}",
               DG_EINVAL, "params.rooms_min", "at most params.rooms_max (5)");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"room_width_min\":9,\"room_width_max\":4}}",
               DG_EINVAL, "params.room_width_min", "at most params.room_width_max");
  expect_error(
      "{\"algorithm\":\"classic\",\"params\":{\"room_height_min\":6,\"room_height_max\":3}}",
      DG_EINVAL, "params.room_height_min", "at most params.room_height_max");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"width\":20,\"room_width_min\":10,"
               "\"room_width_max\":17}}",
               DG_EINVAL, "params.room_width_max", "params.width - 4 (16)");
  expect_error("{\"algorithm\":\"classic\",\"params\":{\"height\":10,\"room_height_max\":7}}",
               DG_EINVAL, "params.room_height_max", "params.height - 4 (6)");
}

Test(request, text_params_from_cli) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  cr_assert_eq(dg_request_set_text(&request, "width", "100", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "width", "abc", &err), DG_ETYPE);
  cr_assert_str_eq(err.field, "width");
  cr_assert_eq(dg_request_set_text(&request, "width", "5", &err), DG_EINVAL);
  cr_assert_eq(dg_request_set_text(&request, "nope", "5", &err), DG_ENOENT);
  cr_assert_eq(dg_request_set_text(&request, "corridor_style", "cleanup", &err), 0);
  cr_assert_eq(
      dg_param_enum(&request.params, dg_algorithm_param_index(request.algorithm, "corridor_style")),
      1);
}

Test(request, generate_needs_a_seed) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_level *level = NULL;
  dg_error err = {0};
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "seed");
  cr_assert_null(level);
}

Test(request, algorithms_listing) {
  json_t *list = dg_algorithms_to_json();
  cr_assert(json_is_array(list));
  json_t *classic = json_array_get(list, 0);
  cr_assert_str_eq(json_string_value(json_object_get(classic, "name")), "classic");
  json_t *params = json_object_get(classic, "params");
  cr_assert_eq(json_array_size(params), (size_t)dg_algorithm_find("classic")->param_count);
  json_t *width = json_array_get(params, 0);
  cr_assert_eq(json_integer_value(json_object_get(width, "max")), 1000);
  json_decref(list);
}

/* dg_generate re-checks a request filled by hand. */
Test(request, hand_filled_params_are_checked) {
  const dg_algorithm *classic = dg_algorithm_find("classic");
  int style = dg_algorithm_param_index(classic, "corridor_style");
  int gap = dg_algorithm_param_index(classic, "room_gap");
  int chance = dg_algorithm_param_index(classic, "closet_chance");
  struct {
    int index;
    double value;
    const char *field;
  } cases[] = {
      {style, 5, "params.corridor_style"},
      {style, -1, "params.corridor_style"},
      {gap, 0, "params.room_gap"},
      {gap, 2.5, "params.room_gap"},
      {chance, 0.0 / 0.0, "params.closet_chance"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    dg_request request;
    dg_request_init(&request, classic);
    request.seed = 1;
    request.seed_given = true;
    request.params.number[cases[i].index] = cases[i].value;
    dg_level *level = NULL;
    dg_error err = {0};
    cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), DG_EINVAL, "case %zu", i);
    cr_assert_str_eq(err.field, cases[i].field);
    cr_assert_null(level);
  }
}

Test(request, cli_numbers_are_plain) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  static const char *const bad_ints[] = {"0x50", " 80", "80 ", "inf", "", "-"};
  for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
    cr_assert_eq(dg_request_set_text(&request, "width", bad_ints[i], &err), DG_ETYPE,
                 "width '%s' accepted", bad_ints[i]);
  static const char *const bad_reals[] = {"0x.8p0", "nan", " 0.5", "0.5x"};
  for (size_t i = 0; i < sizeof bad_reals / sizeof bad_reals[0]; i++)
    cr_assert_eq(dg_request_set_text(&request, "closet_chance", bad_reals[i], &err), DG_ETYPE,
                 "closet_chance '%s' accepted", bad_reals[i]);
  cr_assert_eq(dg_request_set_text(&request, "closet_chance", "5e-1", &err), 0);
  /* A number, but not an integer: out of the parameter's set, as in JSON. */
  cr_assert_eq(dg_request_set_text(&request, "width", "80.5", &err), DG_EINVAL);
  cr_assert_eq(dg_request_set_text(&request, "width", "1e2", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "width", "120", &err), 0);
}

/* The daemon's limits find their parameters by role (issue 14 item 1); the
 * roles must tag exactly the parameters it used to find by name: "width" and
 * "height" (limits.grid_cells_max) and the room count, whichever of
 * rooms_max, rooms or room_count the algorithm has (limits.rooms_max). A
 * role dropped from a table would silently lift a limit, a stray one would
 * cap the wrong parameter. */
Test(params, roles_tag_exactly_the_limited_params) {
  static const char *const room_names[] = {"rooms_max", "rooms", "room_count"};
  int count = 0;
  const dg_algorithm *const *algorithms = dg_algorithms(&count);
  cr_assert_gt(count, 0);
  for (int a = 0; a < count; a++) {
    const dg_algorithm *algorithm = algorithms[a];
    int rooms = -1;
    for (size_t n = 0; n < sizeof room_names / sizeof room_names[0] && rooms < 0; n++)
      rooms = dg_algorithm_param_index(algorithm, room_names[n]);
    cr_assert_eq(dg_algorithm_param_with_role(algorithm, DG_PARAM_ROLE_WIDTH),
                 dg_algorithm_param_index(algorithm, "width"), "%s: width", algorithm->name);
    cr_assert_eq(dg_algorithm_param_with_role(algorithm, DG_PARAM_ROLE_HEIGHT),
                 dg_algorithm_param_index(algorithm, "height"), "%s: height", algorithm->name);
    cr_assert_eq(dg_algorithm_param_with_role(algorithm, DG_PARAM_ROLE_ROOM_COUNT), rooms,
                 "%s: room count", algorithm->name);
    cr_assert_eq(dg_algorithm_param_with_role(algorithm, DG_PARAM_ROLE_ROOMSET),
                 dg_algorithm_param_index(algorithm, "roomset"), "%s: room set", algorithm->name);
    /* Exactly: no second parameter of a role hides behind the first, and
     * every other parameter (the common ones included) has none. */
    for (int i = 0; i < algorithm->param_count; i++) {
      const dg_param_def *def = &algorithm->params[i];
      dg_param_role want = DG_PARAM_ROLE_NONE;
      if (strcmp(def->name, "width") == 0)
        want = DG_PARAM_ROLE_WIDTH;
      else if (strcmp(def->name, "height") == 0)
        want = DG_PARAM_ROLE_HEIGHT;
      else if (i == rooms)
        want = DG_PARAM_ROLE_ROOM_COUNT;
      else if (strcmp(def->name, "roomset") == 0)
        want = DG_PARAM_ROLE_ROOMSET;
      cr_assert_eq(def->role, want, "%s.%s: role %d, want %d", algorithm->name, def->name,
                   (int)def->role, (int)want);
      if (want != DG_PARAM_ROLE_NONE && want != DG_PARAM_ROLE_ROOMSET)
        cr_assert_eq(def->type, DG_PARAM_INT, "%s.%s: a role needs an integer", algorithm->name,
                     def->name);
    }
    for (int c = 0; c < DG_COMMON_PARAM_COUNT; c++)
      cr_assert_eq(algorithm->params[dg_common_param(algorithm, c)].role, DG_PARAM_ROLE_NONE);
  }
}

/* The same, written out per algorithm, so that a parameter renamed together
 * with the daemon's old name list cannot pass the check above unnoticed. */
Test(params, roles_per_algorithm) {
  static const struct {
    const char *algorithm, *width, *height, *rooms; /* NULL: no parameter of that role */
  } want[] = {
      {"classic", "width", "height", "rooms_max"},
      {"landmark", "width", "height", "rooms_max"},
      {"nonlinear", "width", "height", "rooms"},
      {"authored", NULL, NULL, "rooms"},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const dg_algorithm *algorithm = dg_algorithm_find(want[i].algorithm);
    cr_assert_not_null(algorithm, "%s", want[i].algorithm);
    const char *names[] = {want[i].width, want[i].height, want[i].rooms};
    dg_param_role roles[] = {DG_PARAM_ROLE_WIDTH, DG_PARAM_ROLE_HEIGHT, DG_PARAM_ROLE_ROOM_COUNT};
    for (int r = 0; r < 3; r++) {
      int index = dg_algorithm_param_with_role(algorithm, roles[r]);
      if (names[r] == NULL) {
        cr_assert_eq(index, -1, "%s: role %d found at %d", want[i].algorithm, (int)roles[r], index);
        continue;
      }
      cr_assert_geq(index, 0, "%s: no parameter of role %d", want[i].algorithm, (int)roles[r]);
      cr_assert_str_eq(algorithm->params[index].name, names[r], "%s", want[i].algorithm);
    }
  }
}

/* NONE is not looked up (it would name an arbitrary parameter), a value
 * outside the enum finds nothing, and a table without a role's parameter
 * answers -1; with two of one role the first wins. */
Test(params, role_lookup_edges) {
  int count = 0;
  const dg_algorithm *const *algorithms = dg_algorithms(&count);
  for (int a = 0; a < count; a++) {
    cr_assert_eq(dg_algorithm_param_with_role(algorithms[a], DG_PARAM_ROLE_NONE), -1, "%s",
                 algorithms[a]->name);
    cr_assert_eq(dg_algorithm_param_with_role(algorithms[a], (dg_param_role)99), -1, "%s",
                 algorithms[a]->name);
  }
  static const dg_param_def table[] = {
      {"size", DG_PARAM_INT, 1, 1, 9, NULL, NULL, "no role", DG_PARAM_ROLE_NONE},
      {"cols", DG_PARAM_INT, 1, 1, 9, NULL, NULL, "first width", DG_PARAM_ROLE_WIDTH},
      {"span", DG_PARAM_INT, 1, 1, 9, NULL, NULL, "second width", DG_PARAM_ROLE_WIDTH},
  };
  const dg_algorithm fake = {"fake", "", "", table, 3, NULL, NULL};
  cr_assert_eq(dg_algorithm_param_with_role(&fake, DG_PARAM_ROLE_WIDTH), 1);
  cr_assert_eq(dg_algorithm_param_with_role(&fake, DG_PARAM_ROLE_HEIGHT), -1);
  cr_assert_eq(dg_algorithm_param_with_role(&fake, DG_PARAM_ROLE_ROOM_COUNT), -1);
  cr_assert_eq(dg_algorithm_param_with_role(&fake, DG_PARAM_ROLE_NONE), -1);
}

/* LC_NUMERIC set to de_DE ("0,5" is a half there): the locale is compiled
 * into a temporary directory when the system has not generated it, so the
 * test runs wherever localedef (package locales) is installed. */
static char locale_dir[] = "/tmp/dungeond-locale-XXXXXX";

static bool german_numbers(void) {
  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL)
    return true;
  char *dir = mkdtemp(locale_dir);
  cr_assert_not_null(dir);
  char command[256];
  snprintf(command, sizeof command, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 2>/dev/null", dir);
  int status = system(command);
  cr_assert(status == 0 || status == 256, "localedef failed (%d): install the locales package",
            status); /* 1: warnings only */
  setenv("LOCPATH", dir, 1);
  return setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL;
}

Test(request, text_numbers_ignore_the_locale) {
  cr_assert(german_numbers(), "cannot make a de_DE locale");
  cr_assert_eq(strtod("0.5", NULL), 0.0, "the locale does not read '.' as a decimal point");
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  cr_assert_eq(dg_request_set_text(&request, "closet_chance", "0.5", &err), 0, "%s", err.message);
  int index = dg_algorithm_param_index(request.algorithm, "closet_chance");
  cr_assert_eq(dg_param_float(&request.params, index), 0.5);
  cr_assert_eq(dg_request_set_text(&request, "closet_chance", "2.5e-1", &err), 0, "%s",
               err.message);
  cr_assert_eq(dg_param_float(&request.params, index), 0.25);
  cr_assert_eq(dg_request_set_text(&request, "closet_chance", "0,5", &err), DG_ETYPE);
  setlocale(LC_NUMERIC, "C");
  if (strchr(locale_dir, 'X') == NULL) {
    char command[256];
    snprintf(command, sizeof command, "rm -rf %s", locale_dir);
    cr_assert_eq(system(command), 0);
  }
}
