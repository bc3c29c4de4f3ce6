/* The one room-set directory loader of the daemon and the CLI (see
 * roomset_dir.h): list, sort, parse, hand to the library, report. Content
 * tables (tables_dir, --tables) go through the same loader. */
#include "roomset_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_json_name(const char *name) {
  size_t length = strlen(name);
  return name[0] != '.' && length > 5 && strcmp(name + length - 5, ".json") == 0;
}

static void free_names(char **names, int count) {
  for (int i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

/* The *.json names of `handle`, sorted. 0 or DG_ENOMEM (names freed). */
static int list_json(DIR *handle, char ***out, int *out_count) {
  char **names = NULL;
  int count = 0, capacity = 0;
  struct dirent *entry;
  while ((entry = readdir(handle)) != NULL) {
    if (!is_json_name(entry->d_name))
      continue;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      char **bigger = realloc(names, (size_t)capacity * sizeof *names);
      if (bigger == NULL)
        goto fail;
      names = bigger;
    }
    if ((names[count] = strdup(entry->d_name)) == NULL)
      goto fail;
    count++;
  }
  if (count > 0)
    qsort(names, (size_t)count, sizeof *names, by_name);
  *out = names;
  *out_count = count;
  return 0;
fail:
  free_names(names, count);
  return DG_ENOMEM;
}

/* A problem before parsing: `error` as jansson fills it, with line 0 so
 * that reports show the path alone. */
static int not_read(json_error_t *error, const char *path, const char *text) {
  memset(error, 0, sizeof *error);
  snprintf(error->source, sizeof error->source, "%s", path);
  snprintf(error->text, sizeof error->text, "%s", text);
  return DG_EPARSE;
}

int roomset_dir_read_file(const char *path, json_t **out, json_error_t *error) {
  *out = NULL;
  /* Opened without blocking and checked to be a regular file before a
   * byte is read: a FIFO named *.json would block open() (and read())
   * until a writer came, and start-up with it, forever. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return not_read(error, path, strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return not_read(error, path, "not a regular file (only regular *.json files are room sets)");
  }
  *out = json_loadfd(fd, JSON_REJECT_DUPLICATES, error);
  close(fd);
  return *out != NULL ? 0 : DG_EPARSE;
}

/* Reads, parses and adds one file to `context`; a problem goes to `report`.
 * 0, DG_EPARSE (syntax) or the library's code (DG_EINVAL, DG_ETYPE,
 * DG_ENOMEM). */
static int load_file(dg_context *context, const char *path, content_dir_add_fn add,
                     roomset_dir_report_fn report, void *user) {
  json_error_t parse_error;
  json_t *json = NULL;
  if (roomset_dir_read_file(path, &json, &parse_error) != 0) {
    char where[4096 + 32];
    if (parse_error.line > 0)
      snprintf(where, sizeof where, "%s:%d:%d", path, parse_error.line, parse_error.column);
    else
      snprintf(where, sizeof where, "%s", path);
    report(user, where, "", parse_error.text);
    return DG_EPARSE;
  }
  dg_error err;
  dg_error_clear(&err);
  int rc = add(context, json, &err);
  json_decref(json);
  if (rc != 0)
    report(user, path, err.field, err.message);
  return rc;
}

int roomset_dir_load(dg_context *context, const char *dir, bool keep_going,
                     roomset_dir_report_fn report, void *user, roomset_dir_result *result) {
  return content_dir_load(context, dir, dg_context_add_roomset, keep_going, report, user, result);
}

int content_dir_load(dg_context *context, const char *dir, content_dir_add_fn add, bool keep_going,
                     roomset_dir_report_fn report, void *user, roomset_dir_result *result) {
  roomset_dir_result counts = {0, 0};
  char **names = NULL;
  int count = 0, rc = 0;
  DIR *handle = opendir(dir);
  if (handle == NULL) {
    /* Returned at once so that errno still says why. */
    if (result != NULL)
      *result = counts;
    return DG_ENOENT;
  }
  rc = list_json(handle, &names, &count);
  closedir(handle);
  if (rc != 0)
    goto done;
  counts.files = count;
  size_t dir_length = strlen(dir);
  for (int i = 0; i < count && (keep_going || counts.failed == 0); i++) {
    size_t name_length = strlen(names[i]);
    char *path = malloc(dir_length + name_length + 2);
    if (path == NULL) {
      rc = DG_ENOMEM;
      goto done;
    }
    /* dir "/" name, built by hand: gcc -O3 with ASan misreads the bounds of
     * the snprintf version as a possible NULL argument. */
    memcpy(path, dir, dir_length);
    path[dir_length] = '/';
    memcpy(path + dir_length + 1, names[i], name_length + 1);
    counts.failed += load_file(context, path, add, report, user) != 0;
    free(path);
  }
  if (counts.failed > 0)
    rc = DG_EINVAL;
done:
  free_names(names, count);
  if (result != NULL)
    *result = counts;
  return rc;
}
