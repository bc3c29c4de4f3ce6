/* Multi-floor sets (dungeon/levelset.h): each floor is an ordinary request
 * whose seed is derived from the set's and whose stairs up are forced onto
 * the stairs down of the floor above, so a floor is reproducible alone from
 * the request the set reports for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/writer.h" /* the text buffer; no jansson */
#include "dungeon/dungeon.h"

/* A floor whose map cannot hold the stairs above is retried this often. */
#define FLOOR_RETRIES 16

void dg_floor_request(const dg_request *set, int floor, int retry, int stairs_down_x,
                      int stairs_down_y, dg_request *out) {
  *out = *set;
  if (floor == 0)
    return;
  uint64_t seed = dg_seed_derive(set->seed, DG_DERIVE_FLOOR, (uint64_t)floor);
  out->seed = dg_seed_derive(seed, DG_DERIVE_FLOOR, (uint64_t)retry);
  int x = dg_common_param(set->algorithm, DG_COMMON_STAIRS_UP_X);
  int y = dg_common_param(set->algorithm, DG_COMMON_STAIRS_UP_Y);
  out->params.number[x] = stairs_down_x;
  out->params.number[y] = stairs_down_y;
  out->params.explicit_mask |= UINT64_C(1) << x | UINT64_C(1) << y;
}

/* The stairs down of a finished floor. */
static const dg_feature *stairs_down(const dg_level *level) {
  for (int i = 0; i < level->feature_count; i++)
    if (strcmp(level->features[i].kind, "stairs_down") == 0)
      return &level->features[i];
  return NULL;
}

int dg_levelset_generate(const dg_context *context, const dg_request *set, int floors,
                         dg_cancel *cancel, dg_level **levels, dg_request *requests,
                         dg_error *err) {
  if (floors < 1 || floors > DG_FLOORS_MAX)
    return dg_error_set(err, DG_EINVAL, "floors", "floors must be an integer from 1 to %d",
                        DG_FLOORS_MAX);
  if (floors > 1 &&
      !dg_param_bool(&set->params, dg_common_param(set->algorithm, DG_COMMON_PLACEMENT)))
    return dg_error_set(err, DG_EINVAL, "params.placement",
                        "floors above 1 need params.placement=true (the stairs line floors up)");
  int made = 0, rc = 0;
  for (int k = 0; k < floors && rc == 0; k++) {
    const dg_feature *above = k > 0 ? stairs_down(levels[k - 1]) : NULL;
    if (k > 0 && above == NULL) {
      rc = dg_error_set(err, DG_EINTERNAL, "floors", "floor %d has no stairs down", k - 1);
      break;
    }
    for (int retry = 0; retry < FLOOR_RETRIES; retry++) {
      dg_floor_request(set, k, retry, above != NULL ? above->x : -1, above != NULL ? above->y : -1,
                       &requests[k]);
      dg_error attempt_err = {0};
      rc = dg_generate(context, &requests[k], cancel, &levels[k], &attempt_err);
      /* Only "the stairs above are off this map" is worth another seed. */
      bool off_map = rc == DG_EUNSAT && strcmp(attempt_err.field, "params.stairs_up_x") == 0;
      if (rc == 0 || !off_map || retry + 1 == FLOOR_RETRIES) {
        if (rc != 0 && err != NULL) {
          *err = attempt_err;
          /* Say which floor; the message keeps its start when too long. */
          int at = snprintf(err->message, sizeof err->message, "floor %d: ", k);
          size_t room = sizeof err->message - (size_t)at;
          memcpy(err->message + at, attempt_err.message, room - 1);
          err->message[sizeof err->message - 1] = '\0';
        }
        break;
      }
    }
    if (rc == 0)
      made++;
  }
  if (rc != 0) {
    for (int k = 0; k < made; k++) {
      dg_level_free(levels[k]);
      levels[k] = NULL;
    }
  }
  return rc;
}

int dg_levelset_dump_ascii(dg_level *const *levels, const dg_request *requests, int floors,
                           char **text, size_t *length) {
  dg_writer w = {0};
  for (int k = 0; k < floors; k++) {
    char header[96];
    /* A client view names no seed: with it anyone makes the full floor. */
    int n = levels[k]->client_view
                ? snprintf(header, sizeof header, "%sfloor %d of %d\n", k > 0 ? "\n" : "", k + 1,
                           floors)
                : snprintf(header, sizeof header, "%sfloor %d of %d (seed %llu)\n",
                           k > 0 ? "\n" : "", k + 1, floors, (unsigned long long)requests[k].seed);
    dg_writer_raw(&w, header, (size_t)n);
    char *map = NULL;
    size_t map_length = 0;
    if (dg_level_dump_ascii(levels[k], &map, &map_length) != 0) {
      free(w.text);
      return DG_ENOMEM;
    }
    dg_writer_raw(&w, map, map_length);
    free(map);
  }
  if (w.failed || w.text == NULL) {
    free(w.text);
    return DG_ENOMEM;
  }
  *text = w.text;
  if (length != NULL)
    *length = w.length;
  return 0;
}
