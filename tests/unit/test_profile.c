/* dungeond's player profiles (src/server/profile.c) and configuration
 * checks (src/server/config.c): formulas, clamps, explicit params winning,
 * and configuration errors that name their key. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../src/server/config.h"
#include "../../src/server/profile.h"

static json_t *parse(const char *text) {
  json_error_t error;
  json_t *value = json_loads(text, 0, &error);
  cr_assert_not_null(value, "bad test JSON: %s", error.text);
  return value;
}

Test(profile, formula_terms_and_clamps) {
  json_t *players = parse("[{\"level\": 10, \"gear\": 1}, {\"level\": 30}, {\"gear\": 5}]");
  party members;
  cr_assert_eq(party_from_json(players, 64, &members, NULL), 0);
  cr_assert_eq(members.count, 3);
  json_t *formula = parse("{\"base\": 1, \"players\": 2, \"mean.level\": 0.5, \"max.gear\": 10,"
                          " \"min.level\": 1, \"sum.gear\": 1}");
  /* 1 + 2*3 + 0.5*20 + 10*5 + 1*10 + 1*6 */
  cr_assert_float_eq(profile_formula_value(formula, &members), 83.0, 1e-12);
  json_t *clamped = parse("{\"base\": 1, \"players\": 2, \"min\": 0, \"max\": 5}");
  cr_assert_float_eq(profile_formula_value(clamped, &members), 5.0, 1e-12);
  json_t *floor = parse("{\"base\": -9, \"mean.missing\": 3, \"min\": 2}");
  cr_assert_float_eq(profile_formula_value(floor, &members), 2.0, 1e-12);
  json_decref(players);
  json_decref(formula);
  json_decref(clamped);
  json_decref(floor);
}

Test(profile, apply_rounds_and_clamps_to_the_parameter_range) {
  json_t *profile = parse("{\"algorithm\": \"classic\", \"params\": {"
                          "\"width\": {\"base\": 5000},"
                          "\"rooms_max\": {\"base\": 7, \"players\": 1.5},"
                          "\"closet_chance\": {\"base\": 0.5, \"players\": -0.1}}}");
  cr_assert_eq(profile_check("p", profile, NULL), 0);
  party members = {NULL, 3};
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err;
  cr_assert_eq(profile_apply(profile, &members, &request, &err), 0, "%s", err.message);
  int width = dg_algorithm_param_index(request.algorithm, "width");
  int rooms = dg_algorithm_param_index(request.algorithm, "rooms_max");
  int closet = dg_algorithm_param_index(request.algorithm, "closet_chance");
  cr_assert_eq(dg_param_int(&request.params, width), 1000, "clamped to the table's max");
  cr_assert_eq(dg_param_int(&request.params, rooms), 12, "11.5 rounds half away from zero");
  cr_assert_float_eq(dg_param_float(&request.params, closet), 0.2, 1e-12);
  json_decref(profile);
}

Test(profile, players_validation_names_the_field) {
  party members;
  dg_error err;
  json_t *bad = parse("[{\"level\": 1}, {\"level\": \"high\"}]");
  cr_assert_neq(party_from_json(bad, 64, &members, &err), 0);
  cr_assert_str_eq(err.field, "players[1]");
  json_t *many = parse("[{}, {}, {}]");
  cr_assert_neq(party_from_json(many, 2, &members, &err), 0);
  cr_assert_str_eq(err.field, "players");
  json_t *count = json_integer(4);
  cr_assert_eq(party_from_json(count, 64, &members, &err), 0);
  cr_assert_eq(members.count, 4);
  json_decref(bad);
  json_decref(many);
  json_decref(count);
}

Test(profile, check_rejects_unknown_parameters_and_terms) {
  dg_error err;
  json_t *unknown_param =
      parse("{\"algorithm\": \"classic\", \"params\": {\"colour\": {\"base\": 1}}}");
  cr_assert_neq(profile_check("p", unknown_param, &err), 0);
  cr_assert_str_eq(err.field, "profiles.p.params.colour");
  json_t *unknown_term =
      parse("{\"algorithm\": \"classic\", \"params\": {\"width\": {\"median.level\": 1}}}");
  cr_assert_neq(profile_check("p", unknown_term, &err), 0);
  json_t *enum_param =
      parse("{\"algorithm\": \"classic\", \"params\": {\"corridor_style\": {\"base\": 1}}}");
  cr_assert_neq(profile_check("p", enum_param, &err), 0);
  json_t *bad_algorithm = parse("{\"algorithm\": \"nope\", \"params\": {}}");
  cr_assert_neq(profile_check("p", bad_algorithm, &err), 0);
  json_decref(unknown_param);
  json_decref(unknown_term);
  json_decref(enum_param);
  json_decref(bad_algorithm);
}

static int load_text(const char *text, config *cfg, dg_error *err) {
  char path[] = "/tmp/dungeond-config-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *file = fdopen(fd, "w");
  fputs(text, file);
  fclose(file);
  config_defaults(cfg);
  int rc = config_load(cfg, path, err);
  remove(path);
  return rc;
}

Test(config, shipped_file_is_valid) {
  /* TEST_DATA_DIR is SOURCE/tests/data: the shipped file is SOURCE/config. */
  char path[4096];
  snprintf(path, sizeof path, "%s", TEST_DATA_DIR);
  char *tests = strstr(path, "/tests/data");
  cr_assert_not_null(tests);
  snprintf(tests, sizeof path - (size_t)(tests - path), "/config/dungeond.json");
  config cfg;
  config_defaults(&cfg);
  dg_error err;
  cr_assert_eq(config_load(&cfg, path, &err), 0, "%s", err.message);
  cr_assert_str_eq(cfg.listen, "127.0.0.1:8080");
  cr_assert_not_null(json_object_get(cfg.profiles, "party"));
  config_close(&cfg);
}

Test(config, errors_name_the_key) {
  config cfg;
  dg_error err;
  cr_assert_neq(load_text("{\"limits\": {\"body_bytes_max\": 1}}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "limits.body_bytes_max");
  config_close(&cfg);
  cr_assert_neq(load_text("{\"limits\": {\"nope\": 1}}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "limits.nope");
  config_close(&cfg);
  cr_assert_neq(load_text("{\"listen\": \"127.0.0.1:99999\"}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "listen");
  config_close(&cfg);
  cr_assert_neq(load_text("{\"workers\": 0}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "workers");
  config_close(&cfg);
  cr_assert_neq(load_text("{\"limits\": {\"deadline_ms_default\": 9000, \"deadline_ms_max\": "
                          "100}}",
                          &cfg, &err),
                0);
  cr_assert_str_eq(err.field, "limits.deadline_ms_default");
  config_close(&cfg);
  cr_assert_neq(load_text("{\"default_profile\": \"ghost\"}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "default_profile");
  config_close(&cfg);
  cr_assert_eq(load_text("{\"workers\": 3, \"limits\": {\"rooms_max\": 10}}", &cfg, &err), 0);
  cr_assert_eq(cfg.workers, 3);
  cr_assert_eq(cfg.limits.rooms_max, 10);
  cr_assert_eq(cfg.limits.body_bytes_max, 65536, "other keys keep their defaults");
  config_close(&cfg);
}
