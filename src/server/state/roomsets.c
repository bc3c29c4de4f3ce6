/* Room sets in the daemon: config's `roomsets_dir` read into one
 * dg_context at start-up (through the loader the CLI shares,
 * src/common/roomset_dir.c; the library validates each set and precomputes
 * its moves), and the request checks that name a room set (issue 5:
 * `GET /v1/roomsets`, the body's `roomset` member, 422 on an unknown
 * name). Content tables (`tables_dir`, issue 20) load into the same
 * context through the same loader. */
#include "state/roomsets.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "roomset_dir.h"
#include "transport/log.h"

static void report_to_log(void *user, const char *where, const char *field, const char *message) {
  fprintf((FILE *)user, "dungeond: room set %s: %s%s%s\n", where, field, field[0] ? ": " : "",
          message);
}

int roomsets_load(const char *dir, bool required, FILE *log, dg_context **out) {
  dg_context *context = NULL;
  *out = NULL;
  int rc = dg_context_new(&context);
  if (rc != 0) {
    fprintf(log, "dungeond: out of memory creating the room-set context\n");
    return rc;
  }
  if (dir[0] == '\0') {
    *out = context;
    return 0;
  }
  roomset_dir_result counts;
  rc = roomset_dir_load(context, dir, true, report_to_log, log, &counts);
  if (rc == DG_ENOENT) {
    if (required || errno != ENOENT) {
      fprintf(log, "dungeond: roomsets_dir '%s': %s\n", dir, strerror(errno));
      goto fail;
    }
    char when[LOG_TIME_MAX];
    log_time(when);
    json_t *line = json_pack("{s:s, s:s, s:s, s:s, s:s}", "time", when, "level", "warning", "event",
                             "no_roomsets", "roomsets_dir", dir, "message",
                             "directory absent; the authored algorithm has no room sets");
    char *text = line != NULL ? json_dumps(line, JSON_COMPACT) : NULL;
    if (text != NULL)
      fprintf(log, "%s\n", text);
    free(text);
    json_decref(line);
    *out = context;
    return 0;
  }
  if (rc == DG_ENOMEM) {
    fprintf(log, "dungeond: out of memory loading roomsets_dir '%s'\n", dir);
    goto fail;
  }
  if (rc != 0) {
    fprintf(log, "dungeond: %d of %d room-set file%s in '%s' invalid; not starting\n",
            counts.failed, counts.files, counts.files == 1 ? "" : "s", dir);
    goto fail;
  }
  *out = context;
  return 0;
fail:
  dg_context_free(context);
  return rc;
}

/* One problem of a table file, in the room sets' words. */
static void report_table(void *user, const char *where, const char *field, const char *message) {
  fprintf((FILE *)user, "dungeond: table %s: %s%s%s\n", where, field, field[0] ? ": " : "",
          message);
}

int tables_load(const char *dir, bool required, FILE *log, dg_context *context) {
  if (dir[0] == '\0')
    return 0;
  roomset_dir_result counts;
  int rc = content_dir_load(context, dir, dg_context_add_table, true, report_table, log, &counts);
  /* Absent altogether: no tables, even when the file names the directory.
   * The shipped configuration names the checkout's example set, which
   * installs and images do not carry; the start-up line's "tables": 0 says
   * so (a separate warning would come before it, where tools read the
   * port), a request naming a table gets 422 listing none, and a file that
   * is there but broken still stops the daemon. */
  (void)required;
  if (rc == DG_ENOENT && errno == ENOENT)
    return 0;
  if (rc == DG_ENOENT)
    fprintf(log, "dungeond: tables_dir '%s': %s\n", dir, strerror(errno));
  else if (rc == DG_ENOMEM)
    fprintf(log, "dungeond: out of memory loading tables_dir '%s'\n", dir);
  else if (rc != 0)
    fprintf(log, "dungeond: %d of %d table file%s in '%s' invalid; not starting\n", counts.failed,
            counts.files, counts.files == 1 ? "" : "s", dir);
  return rc;
}

int roomsets_move_member(const json_t *body, json_t **moved, dg_error *err) {
  *moved = NULL;
  const json_t *name = json_is_object(body) ? json_object_get(body, "roomset") : NULL;
  if (name == NULL)
    return 0;
  if (!json_is_string(name))
    return dg_error_set(err, DG_ETYPE, "roomset", "roomset must be a string (a room set name)");
  const json_t *algorithm_name = json_object_get(body, "algorithm");
  const dg_algorithm *algorithm =
      json_is_string(algorithm_name) ? dg_algorithm_find(json_string_value(algorithm_name)) : NULL;
  int role =
      algorithm != NULL ? dg_algorithm_param_with_role(algorithm, DG_PARAM_ROLE_ROOMSET) : -1;
  if (algorithm != NULL && role < 0)
    return dg_error_set(err, DG_EINVAL, "roomset",
                        "roomset applies only to algorithms with a roomset parameter "
                        "(authored); %s has none",
                        algorithm->name);
  /* The parameter the member stands for: the algorithm's room-set one. */
  const char *param = role >= 0 ? algorithm->params[role].name : "roomset";
  const json_t *params = json_object_get(body, "params");
  const json_t *given = json_is_object(params) ? json_object_get(params, param) : NULL;
  if (given != NULL && !json_equal((json_t *)given, (json_t *)name))
    return dg_error_set(err, DG_EINVAL, "roomset",
                        "roomset and params.roomset name different room sets; send one");
  /* A shallow copy: only the top level and params change. An unknown
   * algorithm keeps its own error (the member is just dropped). */
  bool absent = params == NULL || json_is_null(params);
  bool wrong_type = !absent && !json_is_object(params);
  json_t *copy = json_copy((json_t *)body);
  json_t *new_params = absent ? json_object() : wrong_type ? NULL : json_copy((json_t *)params);
  if (copy == NULL || (new_params == NULL && !wrong_type) ||
      json_object_del(copy, "roomset") != 0) {
    json_decref(copy);
    json_decref(new_params);
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  }
  /* params of the wrong type stay as they are, for the request parser to
   * name. */
  if (new_params != NULL && (json_object_set(new_params, param, (json_t *)name) != 0 ||
                             json_object_set_new(copy, "params", new_params) != 0)) {
    json_decref(copy);
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  }
  *moved = copy;
  return 0;
}

int roomsets_check_request(const dg_context *context, const dg_request *request, dg_error *err) {
  int index = dg_algorithm_param_with_role(request->algorithm, DG_PARAM_ROLE_ROOMSET);
  if (index < 0)
    return 0;
  const char *wanted = dg_param_string(&request->params, index);
  int count = context != NULL ? dg_context_roomset_count(context) : 0;
  char known[160] = "";
  for (int i = 0; i < count; i++) {
    dg_roomset_info info;
    if (dg_context_roomset_info(context, i, &info) != 0)
      continue;
    if (strcmp(info.name, wanted) == 0)
      return 0;
    size_t at = strlen(known);
    snprintf(known + at, sizeof known - at, "%s%s", at ? ", " : "", info.name);
  }
  return dg_error_set(err, DG_ENOENT, "params.roomset", "unknown room set '%s'; known: %s", wanted,
                      known[0] ? known : "(none loaded)");
}
