/* Fuzz target: the bytes of a dungeond configuration file, loaded over the
 * defaults exactly as `dungeond --config` loads one (config_loadb shares
 * every check with config_load, config_validate included). Loading must
 * never crash or leak; a configuration that loads must keep its promises:
 * limits within their documented ranges, and every profile applied to a
 * few parties (none, one, the largest allowed, players with attributes)
 * applies without error and derives every parameter within that
 * parameter's own range. (Rules between parameters, such as classic's
 * rooms_min <= rooms_max, are not promised: two formulas may cross for
 * some parties, and the request then answers 422 naming the parameter.)
 *
 * Built two ways: with clang's libFuzzer (-Dfuzz=true) for fuzzing, and
 * with replay_main.c as an ordinary test that replays the corpus. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "state/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what, const dg_error *err) {
  if (!ok) {
    fprintf(stderr, "fuzz_config: %s (%s: %s)\n", what, err ? err->field : "",
            err ? err->message : "");
    abort();
  }
}

static void apply_profiles(const config *cfg) {
  json_t *players = json_pack("[{s:i, s:f}, {s:i}, {}]", "level", 20, "gold", 1234.5, "level", -3);
  check(players != NULL, "out of memory", NULL);
  const party parties[] = {
      {NULL, 0, false},
      {NULL, 1, false},
      {NULL, cfg->limits.players_max, false},
      {players, 3, false},
  };
  check(cfg->profile_count == (int)json_object_size(cfg->profiles),
        "a profile of the file was not compiled", NULL);
  for (int n = 0; n < cfg->profile_count; n++) {
    const party_profile *profile = &cfg->profile_list[n];
    const dg_algorithm *algorithm = profile->algorithm;
    check(algorithm != NULL, "a loaded profile names no algorithm", NULL);
    for (size_t i = 0; i < sizeof parties / sizeof parties[0]; i++) {
      dg_request request;
      dg_error err = {0};
      dg_request_init(&request, algorithm);
      check(profile_apply(profile, &parties[i], &request, &err) == 0,
            "a loaded profile failed to apply", &err);
      for (int p = 0; p < algorithm->param_count; p++) {
        const dg_param_def *def = &algorithm->params[p];
        double value = request.params.number[p];
        if (def->type == DG_PARAM_INT || def->type == DG_PARAM_FLOAT)
          check(value >= def->min && value <= def->max, "a derived parameter is out of range",
                NULL);
      }
    }
  }
  json_decref(players);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  config cfg;
  config_defaults(&cfg);
  dg_error err = {0};
  if (config_loadb(&cfg, (const char *)data, size, "fuzz.json", &err) == 0) {
    check(config_validate(&cfg, &err) == 0, "a loaded configuration fails validation", &err);
    check(cfg.limits.deadline_ms_default <= cfg.limits.deadline_ms_max, "deadline order", NULL);
    check(cfg.workers >= 1 && cfg.workers <= 256, "workers out of range", NULL);
    check(strlen(cfg.listen) < sizeof cfg.listen && strchr(cfg.listen, ':') != NULL,
          "listen is not HOST:PORT", NULL);
    if (cfg.profiles != NULL)
      apply_profiles(&cfg);
  } else {
    check(err.message[0] != '\0', "a rejected configuration without a message", NULL);
  }
  config_close(&cfg);
  return 0;
}
