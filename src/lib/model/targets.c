/* Structural targets of a request (`targets` in POST /v1/levels, `--target`
 * in the CLI): their names and ranges, parsing from text, the checks
 * dg_request_validate runs, and the seeds of the candidates dg_generate
 * tries. Their JSON side (dg_targets_from_json, dg_request_to_json) is in
 * json/targets.c; this file knows nothing of jansson. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/request.h"

static const char *const target_names[DG_TARGET_COUNT] = {
    [DG_TARGET_PATH_MIN] = "path_min",
    [DG_TARGET_PATH_MAX] = "path_max",
    [DG_TARGET_CYCLES_MIN] = "cycles_min",
    [DG_TARGET_CYCLES_MAX] = "cycles_max",
    [DG_TARGET_DEAD_ENDS_MIN] = "dead_ends_min",
    [DG_TARGET_DEAD_ENDS_MAX] = "dead_ends_max",
    [DG_TARGET_ROOMS_MIN] = "rooms_min",
    [DG_TARGET_ROOMS_MAX] = "rooms_max",
    [DG_TARGET_SPAWN_SPREAD_MAX] = "spawn_spread_max",
    [DG_TARGET_LOCKS_MIN] = "locks_min",
    [DG_TARGET_LOCKS_MAX] = "locks_max",
};

const char *dg_target_name(int id) {
  return id >= 0 && id < DG_TARGET_COUNT ? target_names[id] : NULL;
}

int dg_targets_set(dg_targets *targets, const char *name, double value, const char *field,
                   dg_error *err) {
  if (strcmp(name, "attempts_max") == 0) {
    if (!isfinite(value) || value != floor(value) || value < 1 || value > DG_TARGET_ATTEMPTS_MAX)
      return dg_error_set(err, DG_EINVAL, field, "%s must be an integer from 1 to %d", field,
                          DG_TARGET_ATTEMPTS_MAX);
    targets->attempts_max = (int)value;
    return 0;
  }
  for (int i = 0; i < DG_TARGET_COUNT; i++) {
    if (strcmp(target_names[i], name) != 0)
      continue;
    if (!isfinite(value) || value != floor(value) || value < 0 || value > DG_TARGET_VALUE_MAX)
      return dg_error_set(err, DG_EINVAL, field, "%s must be an integer from 0 to %d", field,
                          DG_TARGET_VALUE_MAX);
    targets->value[i] = (int)value;
    targets->set_mask |= 1u << i;
    return 0;
  }
  return dg_error_set(err, DG_ENOENT, field,
                      "unknown target '%s'; known: path_min, path_max, cycles_min, cycles_max, "
                      "dead_ends_min, dead_ends_max, rooms_min, rooms_max, spawn_spread_max, "
                      "locks_min, locks_max, attempts_max",
                      name);
}

int dg_targets_set_text(dg_targets *targets, const char *assignment, dg_error *err) {
  const char *equals = strchr(assignment, '=');
  char name[DG_ERROR_FIELD_MAX - 8];
  if (equals == NULL || equals == assignment || (size_t)(equals - assignment) >= sizeof name)
    return dg_error_set(err, DG_EPARSE, "targets",
                        "--target takes name=value (e.g. path_min=40), not '%s'", assignment);
  memcpy(name, assignment, (size_t)(equals - assignment));
  name[equals - assignment] = '\0';
  char field[DG_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "targets.%s", name);
  const char *text = equals + 1;
  char *end = NULL;
  errno = 0;
  long long value = strtoll(text, &end, 10);
  bool digits = *text >= '0' && *text <= '9';
  if (!digits || end == NULL || *end != '\0' || errno != 0)
    value = -1; /* out of every range: the setter names the allowed one */
  return dg_targets_set(targets, name, (double)value, field, err);
}

int dg_targets_check(const dg_request *request, dg_error *err) {
  const dg_targets *t = &request->targets;
  if (t->attempts_max < 0 || t->attempts_max > DG_TARGET_ATTEMPTS_MAX)
    return dg_error_set(err, DG_EINVAL, "targets.attempts_max",
                        "targets.attempts_max must be an integer from 1 to %d",
                        DG_TARGET_ATTEMPTS_MAX);
  for (int i = 0; i < DG_TARGET_COUNT; i++) {
    if (!(t->set_mask & (1u << i)))
      continue;
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "targets.%s", target_names[i]);
    if (t->value[i] < 0 || t->value[i] > DG_TARGET_VALUE_MAX)
      return dg_error_set(err, DG_EINVAL, field, "%s must be an integer from 0 to %d", field,
                          DG_TARGET_VALUE_MAX);
  }
  if (t->set_mask >> DG_TARGET_COUNT)
    return dg_error_set(err, DG_EINVAL, "targets", "unknown target bits set");
  uint32_t needs_placement =
      (1u << DG_TARGET_PATH_MIN) | (1u << DG_TARGET_PATH_MAX) | (1u << DG_TARGET_SPAWN_SPREAD_MAX);
  int placement = dg_common_param(request->algorithm, DG_COMMON_PLACEMENT);
  if ((t->set_mask & needs_placement) && !dg_param_bool(&request->params, placement))
    return dg_error_set(err, DG_EINVAL, "targets",
                        "targets on the path or the spawns need params.placement=true");
  static const int pairs[][2] = {{DG_TARGET_PATH_MIN, DG_TARGET_PATH_MAX},
                                 {DG_TARGET_CYCLES_MIN, DG_TARGET_CYCLES_MAX},
                                 {DG_TARGET_DEAD_ENDS_MIN, DG_TARGET_DEAD_ENDS_MAX},
                                 {DG_TARGET_ROOMS_MIN, DG_TARGET_ROOMS_MAX},
                                 {DG_TARGET_LOCKS_MIN, DG_TARGET_LOCKS_MAX}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    int low = pairs[i][0], high = pairs[i][1];
    if ((t->set_mask & (1u << low)) && (t->set_mask & (1u << high)) &&
        t->value[low] > t->value[high]) {
      char field[DG_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "targets.%s", target_names[low]);
      return dg_error_set(err, DG_EINVAL, field, "%s must be at most targets.%s (%d)", field,
                          target_names[high], t->value[high]);
    }
  }
  return 0;
}

/* SplitMix64's finaliser: a bijection that spreads neighbouring inputs. */
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t dg_seed_derive(uint64_t seed, int purpose, uint64_t index) {
  if (index == 0)
    return seed;
  uint64_t z = mix(seed + 0x9e3779b97f4a7c15ULL * (uint64_t)purpose);
  return mix(z + 0x9e3779b97f4a7c15ULL * index) & DG_SEED_SAFE_MAX;
}
