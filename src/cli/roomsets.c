/* Loading room sets for the CLI: every *.json file of a directory, in name
 * order, through the loader the daemon shares (src/common/roomset_dir.c;
 * the library never reads files). The directory is --roomsets DIR, else
 * $DUNGEON_ROOMSETS, else config/roomsets relative to the working
 * directory when it exists, else the directory `meson install` fills
 * (DUNGEON_ROOMSETS_DIR). Content tables likewise: --tables DIR, else
 * $DUNGEON_TABLES, else config/tables, read only when asked for or named. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "roomset_dir.h"

/* The room-set directory: `option` (--roomsets) if given, else
 * $DUNGEON_ROOMSETS, else "config/roomsets" when that directory exists (a
 * checkout), else the installed DUNGEON_ROOMSETS_DIR
 * (PREFIX/share/dungeond/roomsets). */
static const char *roomsets_dir(const char *option) {
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

static void report_to_stderr(void *user, const char *where, const char *field,
                             const char *message) {
  cli_error("%s: %s%s%s", where, field, field[0] ? ": " : "", message);
}

/* Loads every *.json of `dir` (name order) into `context`, stopping at the
 * first invalid file; prints the problem. 0, or the DG_E* code of
 * roomset_dir_load (DG_ENOENT, DG_ENOMEM, DG_EINVAL). */
static int load_roomsets(dg_context *context, const char *dir) {
  int rc = roomset_dir_load(context, dir, false, report_to_stderr, NULL, NULL);
  if (rc == DG_ENOENT)
    cli_error("cannot open the room-set directory '%s' (use --roomsets DIR or "
              "DUNGEON_ROOMSETS)",
              dir);
  else if (rc == DG_ENOMEM)
    cli_error("out of memory loading room sets from '%s'", dir);
  return rc;
}

/* The content-table directory: `option` (--tables) if given, else
 * $DUNGEON_TABLES, else "config/tables" (a checkout's example set). */
static const char *tables_dir(const char *option) {
  if (option != NULL)
    return option;
  const char *env = getenv("DUNGEON_TABLES");
  return env != NULL && env[0] != '\0' ? env : "config/tables";
}

/* Loads every *.json of `dir` as content tables, stopping at the first
 * invalid file. 0 or the DG_E* code of content_dir_load. */
static int load_tables(dg_context *context, const char *dir) {
  int rc =
      content_dir_load(context, dir, dg_context_add_table, false, report_to_stderr, NULL, NULL);
  if (rc == DG_ENOENT)
    cli_error("cannot open the table directory '%s' (use --tables DIR or DUNGEON_TABLES)", dir);
  else if (rc == DG_ENOMEM)
    cli_error("out of memory loading tables from '%s'", dir);
  return rc;
}

/* A --param naming a content table (table=NAME, not empty). */
static bool names_table(const cli_request_options *options) {
  for (int i = 0; i < options->param_count; i++)
    if (strncmp(options->params[i], "table=", 6) == 0 && options->params[i][6] != '\0')
      return true;
  return false;
}

int cli_make_context(const cli_request_options *options, dg_context **out) {
  dg_context *context = NULL;
  int rc = dg_context_new(&context);
  if (rc != 0) {
    cli_error("out of memory");
    return rc;
  }
  const dg_algorithm *algorithm =
      options->algorithm != NULL ? dg_algorithm_find(options->algorithm) : dg_algorithm_default();
  /* Only algorithms with a room-set parameter read room sets; others do not
   * need the directory to exist unless it was asked for. */
  bool reads_roomsets =
      algorithm != NULL && dg_algorithm_param_with_role(algorithm, DG_PARAM_ROLE_ROOMSET) >= 0;
  if (options->roomsets != NULL || reads_roomsets)
    rc = load_roomsets(context, roomsets_dir(options->roomsets));
  if (rc == 0 && (options->tables != NULL || names_table(options)))
    rc = load_tables(context, tables_dir(options->tables));
  if (rc != 0) {
    dg_context_free(context);
    return rc;
  }
  *out = context;
  return 0;
}
