/* Room sets in the daemon: the file I/O the library leaves to its callers
 * (reading config's `roomsets_dir` into one dg_context at start-up), and
 * the request checks that name a room set (issue 5: `GET /v1/roomsets`,
 * the body's `roomset` member, 422 on an unknown name). The library
 * validates each set and precomputes its moves; this file only reads files
 * and reports. */
#include "roomsets.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_json_name(const char *name) {
  size_t length = strlen(name);
  return name[0] != '.' && length > 5 && strcmp(name + length - 5, ".json") == 0;
}

/* The *.json names of `dir`, sorted so that load order (and so the order
 * GET /v1/roomsets lists) does not depend on the file system. */
static int list_json(DIR *handle, char ***names, int *count) {
  int capacity = 0;
  struct dirent *entry;
  *names = NULL;
  *count = 0;
  while ((entry = readdir(handle)) != NULL) {
    if (!is_json_name(entry->d_name))
      continue;
    if (*count == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      char **bigger = realloc(*names, (size_t)capacity * sizeof **names);
      if (bigger == NULL)
        return -1;
      *names = bigger;
    }
    if (((*names)[*count] = strdup(entry->d_name)) == NULL)
      return -1;
    (*count)++;
  }
  if (*count > 0)
    qsort(*names, (size_t)*count, sizeof **names, by_name);
  return 0;
}

/* One file into `context`; a problem is reported on `log`. 0 or -1. */
static int load_file(dg_context *context, const char *path, FILE *log) {
  json_error_t parse_error;
  json_t *json = json_load_file(path, JSON_REJECT_DUPLICATES, &parse_error);
  if (json == NULL) {
    fprintf(log, "dungeond: room set %s:%d:%d: %s\n", path, parse_error.line, parse_error.column,
            parse_error.text);
    return -1;
  }
  dg_error err;
  dg_error_clear(&err);
  int rc = dg_context_add_roomset(context, json, &err);
  json_decref(json);
  if (rc != 0) {
    fprintf(log, "dungeond: room set %s: %s%s%s\n", path, err.field, err.field[0] ? ": " : "",
            err.message);
    return -1;
  }
  return 0;
}

int roomsets_load(const char *dir, bool required, FILE *log, dg_context **out) {
  dg_context *context = NULL;
  char **names = NULL;
  int count = 0, failed = 0;
  *out = NULL;
  if (dg_context_new(&context) != 0) {
    fprintf(log, "dungeond: out of memory creating the room-set context\n");
    return -1;
  }
  if (dir[0] == '\0') {
    *out = context;
    return 0;
  }
  DIR *handle = opendir(dir);
  if (handle == NULL) {
    if (required || errno != ENOENT) {
      fprintf(log, "dungeond: roomsets_dir '%s': %s\n", dir, strerror(errno));
      goto fail;
    }
    fprintf(log,
            "{\"level\":\"warning\",\"event\":\"no_roomsets\",\"roomsets_dir\":\"%s\","
            "\"message\":\"directory absent; the authored algorithm has no room sets\"}\n",
            dir);
    *out = context;
    return 0;
  }
  int listed = list_json(handle, &names, &count);
  closedir(handle);
  if (listed != 0) {
    fprintf(log, "dungeond: out of memory listing roomsets_dir '%s'\n", dir);
    goto fail;
  }
  for (int i = 0; i < count; i++) {
    size_t dir_length = strlen(dir), name_length = strlen(names[i]);
    char *path = malloc(dir_length + name_length + 2);
    if (path == NULL) {
      fprintf(log, "dungeond: out of memory loading room sets\n");
      goto fail;
    }
    /* dir "/" name, built by hand: gcc -O3 with ASan misreads the bounds of
     * the snprintf version as a possible NULL argument. */
    memcpy(path, dir, dir_length);
    path[dir_length] = '/';
    memcpy(path + dir_length + 1, names[i], name_length + 1);
    failed += load_file(context, path, log) != 0;
    free(path);
  }
  if (failed > 0) {
    fprintf(log, "dungeond: %d of %d room-set file%s in '%s' invalid; not starting\n", failed,
            count, count == 1 ? "" : "s", dir);
    goto fail;
  }
  for (int i = 0; i < count; i++)
    free(names[i]);
  free(names);
  *out = context;
  return 0;
fail:
  for (int i = 0; i < count; i++)
    free(names[i]);
  free(names);
  dg_context_free(context);
  return -1;
}

int roomsets_move_member(const json_t *body, json_t **moved, dg_error *err) {
  *moved = NULL;
  const json_t *name = json_is_object(body) ? json_object_get(body, "roomset") : NULL;
  if (name == NULL)
    return 0;
  if (!json_is_string(name))
    return dg_error_set(err, DG_ETYPE, "roomset", "roomset must be a string (a room set name)"),
           422;
  const json_t *algorithm_name = json_object_get(body, "algorithm");
  const dg_algorithm *algorithm =
      json_is_string(algorithm_name) ? dg_algorithm_find(json_string_value(algorithm_name)) : NULL;
  if (algorithm != NULL && dg_algorithm_param_index(algorithm, "roomset") < 0)
    return dg_error_set(err, DG_EINVAL, "roomset",
                        "roomset applies only to algorithms with a roomset parameter "
                        "(authored); %s has none",
                        algorithm->name),
           422;
  const json_t *params = json_object_get(body, "params");
  const json_t *given = json_is_object(params) ? json_object_get(params, "roomset") : NULL;
  if (given != NULL && !json_equal((json_t *)given, (json_t *)name))
    return dg_error_set(err, DG_EINVAL, "roomset",
                        "roomset and params.roomset name different room sets; send one"),
           422;
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
    return dg_error_set(err, DG_ENOMEM, "", "out of memory"), 500;
  }
  /* params of the wrong type stay as they are, for the request parser to
   * name. */
  if (new_params != NULL && (json_object_set(new_params, "roomset", (json_t *)name) != 0 ||
                             json_object_set_new(copy, "params", new_params) != 0)) {
    json_decref(copy);
    return dg_error_set(err, DG_ENOMEM, "", "out of memory"), 500;
  }
  *moved = copy;
  return 0;
}

int roomsets_check_request(const dg_context *context, const dg_request *request, dg_error *err) {
  int index = dg_algorithm_param_index(request->algorithm, "roomset");
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
                      known[0] ? known : "(none loaded)"),
         422;
}
