/* The room-set JSON entry points (dungeon/json.h): checking and loading a
 * room set from its parsed JSON (authored/roomset.c validates it), and the
 * loaded sets' figures as JSON for `dungeon check` and GET /v1/roomsets. */
#include "../authored/roomset.h"
#include "dungeon/json.h"
#include "model/context_internal.h"

int dg_roomset_check(const json_t *json, dg_error *errors, int max, int *count) {
  authored_report report = {errors, max, 0};
  authored_roomset *set = NULL;
  int rc = authored_roomset_parse(json, &report, &set);
  authored_roomset_free(set);
  *count = report.count;
  return rc;
}

int dg_roomset_prepare(const json_t *json, dg_roomset **out, dg_error *err) {
  *out = NULL;
  dg_error first = {0};
  authored_report report = {&first, 1, 0};
  authored_roomset *set = NULL;
  int rc = authored_roomset_parse(json, &report, &set);
  if (rc != 0) {
    if (rc == DG_ENOMEM)
      return dg_error_set(err, rc, "", "out of memory loading a room set");
    if (report.count > 1)
      return dg_error_set(err, first.code, first.field, "%s (and %d more problems)", first.message,
                          report.count - 1);
    return dg_error_set(err, first.code, first.field, "%s", first.message);
  }
  if ((rc = authored_roomset_precompute(set, err)) != 0)
    return rc;
  *out = (dg_roomset *)set;
  return 0;
}

int dg_context_add_roomset(dg_context *context, const json_t *json, dg_error *err) {
  dg_roomset *set = NULL;
  int rc = dg_roomset_prepare(json, &set, err);
  return rc != 0 ? rc : dg_context_adopt_roomset(context, set, err);
}

json_t *dg_context_roomsets_to_json(const dg_context *context) {
  json_t *list = json_array();
  if (list == NULL)
    return NULL;
  for (int i = 0; i < dg_context_roomset_count(context); i++) {
    dg_roomset_info info;
    dg_context_roomset_info(context, i, &info);
    json_t *item = json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:s}", "name", info.name,
                             "biome", info.biome, "rooms", info.rooms, "connectors",
                             info.connectors, "shims", info.shims, "moves", info.moves,
                             "move_groups", info.move_groups, "table_states", info.table_states,
                             "table_bytes", (json_int_t)info.table_bytes, "sha256", info.sha256);
    if (item == NULL || json_array_append_new(list, item) != 0) {
      json_decref(list);
      return NULL;
    }
  }
  return list;
}
