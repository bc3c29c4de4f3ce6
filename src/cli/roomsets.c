/* Loading room sets for the CLI: every *.json file of a directory, in name
 * order, parsed with jansson and handed to the library (which never reads
 * files). The directory is --roomsets DIR, else $DUNGEON_ROOMSETS, else
 * config/roomsets relative to the working directory when it exists, else
 * the directory `meson install` fills (DUNGEON_ROOMSETS_DIR). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

const char *cli_roomsets_dir(const char *option) {
  if (option != NULL)
    return option;
  const char *env = getenv("DUNGEON_ROOMSETS");
  if (env != NULL && env[0] != '\0')
    return env;
  /* A checkout's room sets when run from it, else those `meson install`
   * put under the prefix, so an installed dungeon works from anywhere. */
  struct stat info;
  if (stat("config/roomsets", &info) == 0 && S_ISDIR(info.st_mode))
    return "config/roomsets";
  return DUNGEON_ROOMSETS_DIR;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_json_name(const char *name) {
  size_t length = strlen(name);
  return name[0] != '.' && length > 5 && strcmp(name + length - 5, ".json") == 0;
}

int cli_load_roomset_file(dg_context *context, const char *path) {
  json_error_t parse_error;
  json_t *json = json_load_file(path, JSON_REJECT_DUPLICATES, &parse_error);
  if (json == NULL) {
    cli_error("%s:%d:%d: %s", path, parse_error.line, parse_error.column, parse_error.text);
    return -1;
  }
  dg_error err = {0};
  int rc = dg_context_add_roomset(context, json, &err);
  json_decref(json);
  if (rc != 0) {
    cli_error("%s: %s%s%s", path, err.field[0] ? err.field : "", err.field[0] ? ": " : "",
              err.message);
    return -1;
  }
  return 0;
}

int cli_load_roomsets(dg_context *context, const char *dir) {
  DIR *handle = opendir(dir);
  if (handle == NULL) {
    cli_error("cannot open the room-set directory '%s' (use --roomsets DIR or "
              "DUNGEON_ROOMSETS)",
              dir);
    return -1;
  }
  char **names = NULL;
  int count = 0, capacity = 0, rc = 0;
  struct dirent *entry;
  while ((entry = readdir(handle)) != NULL) {
    if (!is_json_name(entry->d_name))
      continue;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      char **bigger = realloc(names, (size_t)capacity * sizeof *names);
      if (bigger == NULL) {
        rc = -1;
        break;
      }
      names = bigger;
    }
    if ((names[count] = strdup(entry->d_name)) == NULL) {
      rc = -1;
      break;
    }
    count++;
  }
  closedir(handle);
  if (rc != 0)
    cli_error("out of memory listing '%s'", dir);
  if (names != NULL)
    qsort(names, (size_t)count, sizeof *names, by_name);
  for (int i = 0; i < count && rc == 0; i++) {
    size_t dir_length = strlen(dir), name_length = strlen(names[i]);
    char *path = malloc(dir_length + name_length + 2);
    if (path == NULL) {
      rc = -1;
      break;
    }
    /* dir "/" name, built by hand: gcc -O3 with ASan misreads the bounds of
     * the snprintf version as a possible NULL argument. */
    memcpy(path, dir, dir_length);
    path[dir_length] = '/';
    memcpy(path + dir_length + 1, names[i], name_length + 1);
    rc = cli_load_roomset_file(context, path);
    free(path);
  }
  for (int i = 0; i < count; i++)
    free(names[i]);
  free(names);
  return rc;
}

int cli_make_context(const cli_request_options *options, dg_context **out) {
  dg_context *context = NULL;
  if (dg_context_new(&context) != 0) {
    cli_error("out of memory");
    return -1;
  }
  const char *name = options->algorithm != NULL ? options->algorithm : "classic";
  /* Only the authored generator reads room sets; others do not need the
   * directory to exist unless it was asked for. */
  if ((options->roomsets != NULL || strcmp(name, "authored") == 0) &&
      cli_load_roomsets(context, cli_roomsets_dir(options->roomsets)) != 0) {
    dg_context_free(context);
    return -1;
  }
  *out = context;
  return 0;
}
