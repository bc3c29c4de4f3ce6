/* dungeond's player profiles (src/common/profile.c) and configuration
 * checks (src/server/state/config.c): formulas, clamps, explicit params winning,
 * and configuration errors that name their key. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "profile.h"
#include "state/config.h"

/* The default party limits with `players_max` players. */
static party_limits bounds(long players_max) {
  config cfg;
  config_defaults(&cfg);
  party_limits limits = party_limits_of(&cfg.limits);
  limits.players_max = players_max;
  return limits;
}

static json_t *parse(const char *text) {
  json_error_t error;
  json_t *value = json_loads(text, 0, &error);
  cr_assert_not_null(value, "bad test JSON: %s", error.text);
  return value;
}

/* Profile `name` compiled from `text`: profile_compile's code, *out to
 * release when 0. */
static int compile(const char *name, const char *text, party_profile *out, dg_error *err) {
  json_t *json = parse(text);
  int rc = profile_compile(name, json, out, err);
  json_decref(json);
  return rc;
}

/* The formula `text` of a classic profile's `width`, compiled into *holder
 * (to release). */
static const profile_formula *formula_of(const char *text, party_profile *holder) {
  char profile_text[512];
  snprintf(profile_text, sizeof profile_text,
           "{\"algorithm\": \"classic\", \"params\": {\"width\": %s}}", text);
  dg_error err = {0};
  cr_assert_eq(compile("f", profile_text, holder, &err), 0, "%s", err.message);
  return &holder->formulas[0];
}

Test(profile, formula_terms_and_clamps) {
  json_t *players = parse("[{\"level\": 10, \"gear\": 1}, {\"level\": 30}, {\"gear\": 5}]");
  party members;
  party_limits limits = bounds(64);
  cr_assert_eq(party_from_json(players, &limits, &members, NULL), 0);
  cr_assert_eq(members.count, 3);
  party_profile a, b, c;
  const profile_formula *formula =
      formula_of("{\"base\": 1, \"players\": 2, \"mean.level\": 0.5, \"max.gear\": 10,"
                 " \"min.level\": 1, \"sum.gear\": 1}",
                 &a);
  /* 1 + 2*3 + 0.5*20 + 10*5 + 1*10 + 1*6 */
  cr_assert_float_eq(profile_formula_value(formula, &members), 83.0, 1e-12);
  const profile_formula *clamped =
      formula_of("{\"base\": 1, \"players\": 2, \"min\": 0, \"max\": 5}", &b);
  cr_assert_float_eq(profile_formula_value(clamped, &members), 5.0, 1e-12);
  const profile_formula *floor = formula_of("{\"base\": -9, \"mean.missing\": 3, \"min\": 2}", &c);
  cr_assert_float_eq(profile_formula_value(floor, &members), 2.0, 1e-12);
  json_decref(players);
  profile_release(&a);
  profile_release(&b);
  profile_release(&c);
}

Test(profile, apply_rounds_and_clamps_to_the_parameter_range) {
  party_profile profile;
  cr_assert_eq(compile("p",
                       "{\"algorithm\": \"classic\", \"params\": {"
                       "\"width\": {\"base\": 5000},"
                       "\"rooms_max\": {\"base\": 7, \"players\": 1.5},"
                       "\"closet_chance\": {\"base\": 0.5, \"players\": -0.1}}}",
                       &profile, NULL),
               0);
  party members = {NULL, 3, false};
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err;
  cr_assert_eq(profile_apply(&profile, &members, &request, &err), 0, "%s", err.message);
  int width = dg_algorithm_param_index(request.algorithm, "width");
  int rooms = dg_algorithm_param_index(request.algorithm, "rooms_max");
  int closet = dg_algorithm_param_index(request.algorithm, "closet_chance");
  cr_assert_eq(dg_param_int(&request.params, width), 1000, "clamped to the table's max");
  cr_assert_eq(dg_param_int(&request.params, rooms), 12, "11.5 rounds half away from zero");
  cr_assert_float_eq(dg_param_float(&request.params, closet), 0.2, 1e-12);
  profile_release(&profile);
}

Test(profile, players_validation_names_the_field) {
  party members;
  dg_error err;
  party_limits limits = bounds(64), two = bounds(2);
  json_t *bad = parse("[{\"level\": 1}, {\"level\": \"high\"}]");
  cr_assert_neq(party_from_json(bad, &limits, &members, &err), 0);
  cr_assert_str_eq(err.field, "players[1]");
  json_t *many = parse("[{}, {}, {}]");
  cr_assert_neq(party_from_json(many, &two, &members, &err), 0);
  cr_assert_str_eq(err.field, "players");
  json_t *count = json_integer(4);
  cr_assert_eq(party_from_json(count, &limits, &members, &err), 0);
  cr_assert_eq(members.count, 4);
  json_decref(bad);
  json_decref(many);
  json_decref(count);
}

Test(profile, check_rejects_unknown_parameters_and_terms) {
  dg_error err;
  party_profile profile;
  cr_assert_neq(compile("p",
                        "{\"algorithm\": \"classic\", \"params\": {\"colour\": {\"base\": 1}}}",
                        &profile, &err),
                0);
  cr_assert_str_eq(err.field, "profiles.p.params.colour");
  cr_assert_neq(
      compile("p", "{\"algorithm\": \"classic\", \"params\": {\"width\": {\"median.level\": 1}}}",
              &profile, &err),
      0);
  cr_assert_neq(
      compile("p", "{\"algorithm\": \"classic\", \"params\": {\"corridor_style\": {\"base\": 1}}}",
              &profile, &err),
      0);
  cr_assert_neq(compile("p", "{\"algorithm\": \"nope\", \"params\": {}}", &profile, &err), 0);
  cr_assert_neq(
      compile("p",
              "{\"algorithm\": \"classic\", \"params\": {\"width\": {\"min\": 9, \"max\": 2}}}",
              &profile, &err),
      0);
  cr_assert_str_eq(err.field, "profiles.p.params.width");
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

/* Issue 12 item 4: a player's attributes are bounded in number, name size
 * and magnitude, and each error names the player or the attribute. */
Test(profile, player_attribute_limits_name_the_field) {
  party_limits limits = bounds(64);
  limits.attributes_max = 3;
  limits.name_bytes_max = 8;
  limits.value_max = 1000;
  party members;
  dg_error err;
  json_t *ok = parse("[{\"a\": 1, \"b\": -1000, \"longname\": 1000}]");
  cr_assert_eq(party_from_json(ok, &limits, &members, &err), 0, "%s", err.message);
  json_t *crowded = parse("[{\"level\": 1}, {\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4}]");
  cr_assert_eq(party_from_json(crowded, &limits, &members, &err), DG_ELIMIT);
  cr_assert_str_eq(err.field, "players[1]");
  cr_assert_not_null(strstr(err.message, "limits.player_attributes_max"), "%s", err.message);
  json_t *long_name = parse("[{\"ninechars\": 1}]");
  cr_assert_eq(party_from_json(long_name, &limits, &members, &err), DG_ELIMIT);
  cr_assert_not_null(strstr(err.message, "limits.player_attribute_name_max"), "%s", err.message);
  json_t *huge = parse("[{\"level\": 1e308}]");
  cr_assert_eq(party_from_json(huge, &limits, &members, &err), DG_ELIMIT);
  cr_assert_str_eq(err.field, "players[0]");
  cr_assert_not_null(strstr(err.message, "limits.player_attribute_value_max"), "%s", err.message);
  /* A lobby player's body: the offending attribute is the field. */
  json_t *lobby_player = parse("{\"level\": 1, \"gold\": -5000}");
  cr_assert_eq(player_attributes_check(lobby_player, &limits, NULL, &err), DG_ELIMIT);
  cr_assert_str_eq(err.field, "gold");
  json_decref(ok);
  json_decref(crowded);
  json_decref(long_name);
  json_decref(huge);
  json_decref(lobby_player);
}

/* Issue 12 item 7: a formula that can overflow for a party within the
 * limits is a configuration error naming the profile and parameter. */
Test(profile, check_finite_rejects_formulas_that_overflow) {
  dg_error err;
  party_profile fine, big, cancelling;
  cr_assert_eq(compile("fine",
                       "{\"algorithm\": \"classic\", \"params\": {"
                       "\"width\": {\"base\": 60, \"players\": 10, \"sum.level\": 1e290},"
                       "\"closet_chance\": {\"base\": 0.3, \"mean.level\": -0.01}}}",
                       &fine, &err),
               0, "%s", err.message);
  cr_assert_eq(profile_check_finite(&fine, 64, 1e9, &err), 0, "%s", err.message);
  cr_assert_eq(compile("big",
                       "{\"algorithm\": \"classic\", \"params\": {\"width\": {\"base\": 60},"
                       "\"closet_chance\": {\"base\": 0.1, \"players\": 1e308}}}",
                       &big, &err),
               0, "%s", err.message);
  cr_assert_neq(profile_check_finite(&big, 64, 1e9, &err), 0);
  cr_assert_str_eq(err.field, "profiles.big.params.closet_chance");
  /* inf - inf: each term alone is finite only for tiny parties. */
  cr_assert_eq(compile("nan",
                       "{\"algorithm\": \"classic\", \"params\": {\"closet_chance\": "
                       "{\"base\": 0.1, \"sum.level\": 1e300, \"mean.level\": -1e300}}}",
                       &cancelling, &err),
               0, "%s", err.message);
  cr_assert_neq(profile_check_finite(&cancelling, 64, 1e9, &err), 0);
  cr_assert_str_eq(err.field, "profiles.nan.params.closet_chance");
  cr_assert_eq(profile_check_finite(&cancelling, 1, 1, &err), 0,
               "finite for one player with attributes within +-1");
  profile_release(&fine);
  profile_release(&big);
  profile_release(&cancelling);
}

/* The run-time defence: a party outside the limits (not possible through
 * party_from_json) that drives a formula to NaN is a 422-class error
 * naming `profile`, never a NaN parameter or "out of memory". */
Test(profile, apply_refuses_a_non_finite_value) {
  party_profile profile;
  cr_assert_eq(compile("p",
                       "{\"algorithm\": \"classic\", \"params\": {\"closet_chance\": "
                       "{\"base\": 0.1, \"sum.level\": 1, \"mean.level\": -1}}}",
                       &profile, NULL),
               0);
  json_t *players = parse("[{\"level\": 1e308}, {\"level\": 1e308}]");
  party members = {players, 2, false};
  cr_assert(isnan(profile_formula_value(&profile.formulas[0], &members)),
            "the formula really gives NaN here (inf - inf)");
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err;
  dg_error_clear(&err);
  cr_assert_eq(profile_apply(&profile, &members, &request, &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "profile");
  cr_assert_not_null(strstr(err.message, "NaN"), "%s", err.message);
  profile_release(&profile);
  json_decref(players);
}

Test(config, profile_overflow_is_a_config_error) {
  config cfg;
  dg_error err;
  cr_assert_eq(load_text("{\"default_profile\": \"\", \"profiles\": {\"fine\": {\"algorithm\": "
                         "\"classic\", \"params\": {\"closet_chance\": {\"base\": 0.1, "
                         "\"sum.level\": 1, \"mean.level\": -1}}}}, \"limits\": "
                         "{\"player_attribute_value_max\": 1000000000000000}}",
                         &cfg, &err),
               0, "64 * 1e15 is finite, so this one loads: %s", err.message);
  config_close(&cfg);
  cr_assert_neq(load_text("{\"default_profile\": \"\", \"profiles\": {\"bad\": {\"algorithm\": "
                          "\"classic\", \"params\": {\"closet_chance\": {\"base\": 0.1, "
                          "\"players\": 1e307}}}}}",
                          &cfg, &err),
                0);
  cr_assert_str_eq(err.field, "profiles.bad.params.closet_chance");
  config_close(&cfg);
}

Test(config, lobby_keys_and_the_old_cache_key) {
  config cfg;
  dg_error err;
  cr_assert_eq(load_text("{\"limits\": {\"lobby_cache_bytes_max\": 0}}", &cfg, &err), 0, "%s",
               err.message);
  cr_assert_eq(cfg.limits.lobby_cache_bytes_max, 0, "0 still means: keep no ready level");
  cr_assert_eq(cfg.limits.lobby_bytes_max, 256L << 20, "the one budget keeps its default");
  config_close(&cfg);
  cr_assert_neq(load_text("{\"limits\": {\"lobby_bytes_max\": 4096}}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "limits.lobby_bytes_max");
  config_close(&cfg);
  cr_assert_neq(load_text("{\"limits\": {\"player_attributes_max\": 0}}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "limits.player_attributes_max");
  config_close(&cfg);
  cr_assert_eq(
      load_text("{\"lobby_seed_secret\": \"000102030405060708090a0b0c0d0e0F\"}", &cfg, &err), 0,
      "%s", err.message);
  cr_assert(cfg.lobby_seed_secret_set);
  cr_assert_eq(cfg.lobby_seed_key[1], 0x01);
  cr_assert_eq(cfg.lobby_seed_key[15], 0x0f);
  /* A configured key is kept; the process key is only for none. */
  static const uint8_t process_key[16] = {0xaa};
  cr_assert_not(config_use_process_key(&cfg, process_key));
  cr_assert_eq(cfg.lobby_seed_key[1], 0x01);
  config_close(&cfg);
  /* The all-zero key is public: refused, naming the key. */
  cr_assert_neq(
      load_text("{\"lobby_seed_secret\": \"00000000000000000000000000000000\"}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "lobby_seed_secret");
  config_close(&cfg);
  /* None configured: the process's random key, not zeros. */
  cr_assert_eq(load_text("{\"lobby_seed_secret\": \"\"}", &cfg, &err), 0, "%s", err.message);
  cr_assert_not(cfg.lobby_seed_secret_set);
  cr_assert(config_use_process_key(&cfg, process_key));
  cr_assert_eq(cfg.lobby_seed_key[0], 0xaa);
  config_close(&cfg);
  cr_assert_neq(
      load_text("{\"lobby_seed_secret\": \"not hex at all, but 32 chars!!\"}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "lobby_seed_secret");
  cr_assert_null(strstr(err.message, "not hex"), "the secret is not echoed: %s", err.message);
  config_close(&cfg);
  cr_assert_neq(load_text("{\"lobby_seed_secret\": 12}", &cfg, &err), 0);
  cr_assert_str_eq(err.field, "lobby_seed_secret");
  config_close(&cfg);
}

/* Issue 14 item 5: configuration errors return the library's named codes,
 * not a bare -1, and err.code agrees with the return value. The messages and
 * fields are the same as before (errors_name_the_key). */
Test(config, errors_carry_named_codes) {
  static const struct {
    const char *text;
    int code;
    const char *field;
  } cases[] = {
      {"{", DG_EPARSE, ""},
      {"{\"workers\": 1, \"workers\": 2}", DG_EPARSE, ""},
      {"[]", DG_ETYPE, ""},
      {"{\"nope\": 1}", DG_ENOENT, "nope"},
      {"{\"limits\": []}", DG_ETYPE, "limits"},
      {"{\"limits\": {\"nope\": 1}}", DG_ENOENT, "limits.nope"},
      {"{\"limits\": {\"body_bytes_max\": 1}}", DG_EINVAL, "limits.body_bytes_max"},
      {"{\"limits\": {\"body_bytes_max\": \"big\"}}", DG_ETYPE, "limits.body_bytes_max"},
      {"{\"limits\": {\"deadline_ms_default\": 9000, \"deadline_ms_max\": 100}}", DG_EINVAL,
       "limits.deadline_ms_default"},
      {"{\"compression\": 1}", DG_ETYPE, "compression"},
      {"{\"compression\": {\"zstd\": 1}}", DG_ENOENT, "compression.zstd"},
      {"{\"compression\": {\"gzip_level\": 10}}", DG_EINVAL, "compression.gzip_level"},
      {"{\"listen\": 8080}", DG_ETYPE, "listen"},
      {"{\"listen\": \"localhost\"}", DG_EPARSE, "listen"},
      {"{\"listen\": \"127.0.0.1:http\"}", DG_EPARSE, "listen"},
      {"{\"listen\": \"127.0.0.1:99999\"}", DG_EINVAL, "listen"},
      {"{\"health_listen\": false}", DG_ETYPE, "health_listen"},
      {"{\"workers\": 0}", DG_EINVAL, "workers"},
      {"{\"workers\": \"2\"}", DG_ETYPE, "workers"},
      {"{\"log_requests\": 1}", DG_ETYPE, "log_requests"},
      {"{\"profiles\": []}", DG_ETYPE, "profiles"},
      {"{\"default_profile\": 1}", DG_ETYPE, "default_profile"},
      {"{\"default_profile\": \"ghost\"}", DG_ENOENT, "default_profile"},
      {"{\"auth_tokens\": [\"short\"]}", DG_EINVAL, "auth_tokens"},
      {"{\"auth_tokens\": [\"a-long-enough-token\", 7]}", DG_ETYPE, "auth_tokens"},
      {"{\"roomsets_dir\": null}", DG_ETYPE, "roomsets_dir"},
      {"{\"lobby_seed_secret\": \"abc\"}", DG_EINVAL, "lobby_seed_secret"},
      {"{\"lobby_seed_secret\": 1}", DG_ETYPE, "lobby_seed_secret"},
      {"{\"auth_tokens_file\": 1}", DG_ETYPE, "auth_tokens_file"},
      {"{\"auth_tokens_file\": \"/nonexistent/dungeond-tokens\"}", DG_ENOENT, "auth_tokens_file"},
      {"{\"auth_tokens_file\": \"/tmp\"}", DG_EINVAL, "auth_tokens_file"},
      {"{\"lobby_seed_secret\": \"\", \"lobby_seed_secret_file\": \"/tmp/x\"}", DG_EINVAL,
       "lobby_seed_secret_file"},
      {"{\"profiles\": {\"p\": 1}}", DG_ETYPE, "profiles.p"},
      {"{\"profiles\": {\"p\": {\"algorithm\": \"nope\", \"params\": {}}}}", DG_ENOENT,
       "profiles.p"},
      {"{\"profiles\": {\"p\": {\"algorithm\": \"classic\", \"params\": {\"colour\": {}}}}}",
       DG_ENOENT, "profiles.p.params.colour"},
      {"{\"profiles\": {\"p\": {\"algorithm\": \"classic\", \"params\": "
       "{\"corridor_style\": {}}}}}",
       DG_EINVAL, "profiles.p.params.corridor_style"},
      {"{\"profiles\": {\"p\": {\"algorithm\": \"classic\", \"params\": "
       "{\"width\": {\"base\": \"80\"}}}}}",
       DG_ETYPE, "profiles.p.params.width"},
      {"{\"profiles\": {\"p\": {\"algorithm\": \"classic\", \"params\": "
       "{\"width\": {\"base\": 1e308, \"players\": 1e308}}}}}",
       DG_EINVAL, "profiles.p.params.width"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    config cfg;
    dg_error err = {0};
    int rc = load_text(cases[i].text, &cfg, &err);
    cr_assert_eq(rc, cases[i].code, "%s: got %d (%s)", cases[i].text, rc, err.message);
    cr_assert_eq(err.code, rc, "%s", cases[i].text);
    cr_assert_str_eq(err.field, cases[i].field, "%s", cases[i].text);
    config_close(&cfg);
  }
  /* The configuration file itself missing, and the setters used for the
   * command line. */
  config cfg;
  dg_error err = {0};
  config_defaults(&cfg);
  cr_assert_eq(config_load(&cfg, "/nonexistent/dungeond.json", &err), DG_ENOENT);
  cr_assert_eq(config_set_listen(&cfg, "8080", &err), DG_EPARSE);
  cr_assert_eq(config_set_health_listen(&cfg, ":8081", &err), DG_EPARSE);
  cr_assert_eq(config_set_health_listen(&cfg, "127.0.0.1:-1", &err), DG_EINVAL);
  cr_assert_eq(config_set_seed_secret(&cfg, NULL, &err), DG_ETYPE);
  config_close(&cfg);
}

/* A secret file that others may read is refused as a bad value, one whose
 * token is too short likewise; both name the *_file key. */
Test(config, secret_file_errors_carry_named_codes) {
  char path[] = "/tmp/dungeond-tokens-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  FILE *file = fdopen(fd, "w");
  fputs("short\n", file);
  fclose(file);
  char text[256];
  snprintf(text, sizeof text, "{\"auth_tokens_file\": \"%s\"}", path);
  config cfg;
  dg_error err = {0};
  cr_assert_eq(load_text(text, &cfg, &err), DG_EINVAL, "%s", err.message);
  cr_assert_not_null(strstr(err.message, "at least 16 characters"), "%s", err.message);
  config_close(&cfg);
  cr_assert_eq(chmod(path, 0644), 0);
  cr_assert_eq(load_text(text, &cfg, &err), DG_EINVAL, "%s", err.message);
  cr_assert_not_null(strstr(err.message, "other users"), "%s", err.message);
  cr_assert_str_eq(err.field, "auth_tokens_file");
  config_close(&cfg);
  remove(path);
}
