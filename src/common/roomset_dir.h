/* Room-set files for the programs over libdungeon: the daemon's start-up and
 * the CLI's --roomsets both read every *.json file of a directory, in name
 * order, parse it with the same rules and hand it to the library
 * (dg_context_add_roomset), which validates it and never reads files itself.
 * This is that one loader; it does file I/O, so it lives outside the pure
 * library and is compiled into both programs. How a problem is worded
 * (prefix, log format) and what a missing directory means stay with each
 * caller, through a report callback and distinct return codes. */
#ifndef DUNGEON_COMMON_ROOMSET_DIR_H
#define DUNGEON_COMMON_ROOMSET_DIR_H

#include <stdbool.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

/* Called once per file that failed: `where` is the path, followed by
 * ":line:column" for a JSON syntax error; `field` is the library's field at
 * fault ("" for syntax errors or none); `message` says what is wrong. */
typedef void (*roomset_dir_report_fn)(void *user, const char *where, const char *field,
                                      const char *message);

/* What roomset_dir_load did. */
typedef struct roomset_dir_result {
  int files;  /* *.json files found in the directory */
  int failed; /* of those, files reported as invalid */
} roomset_dir_result;

/* Parses one room-set file with the rules every caller shares (a regular
 * file, opened without blocking; duplicate keys are an error). On success
 * *out is a new reference; on failure *out is NULL and `error` (jansson's)
 * says where and why (line 0: the file could not be read, e.g. a FIFO).
 * 0 or DG_EPARSE. */
int roomset_dir_read_file(const char *path, json_t **out, json_error_t *error);

/* Adds every *.json file of `dir` (hidden files skipped; sorted by name so
 * that load order, and so every listing, does not depend on the file
 * system) to `context`. Each invalid file is reported; with `keep_going`
 * loading goes on so that one run names them all, else it stops at the
 * first. The files are read and prepared (dg_roomset_prepare: the pattern
 * databases, most of a daemon's start-up) on one thread per processor, then
 * reported and adopted in name order, so what is loaded and said is what a
 * one-by-one load would do. `*result` (may be NULL) receives the counts. Returns 0 when every
 * file loaded; DG_ENOENT when the directory cannot be opened (errno tells
 * why; nothing reported); DG_ENOMEM (nothing reported); DG_EINVAL when a
 * file failed. Files loaded before a failure stay in `context`. */
int roomset_dir_load(dg_context *context, const char *dir, bool keep_going,
                     roomset_dir_report_fn report, void *user, roomset_dir_result *result);

/* What a directory's files are handed to: dg_context_add_roomset or
 * dg_context_add_table. */
typedef int (*content_dir_add_fn)(dg_context *context, const json_t *json, dg_error *err);

/* roomset_dir_load for any kind of content: every file through `add`
 * (content tables, tables_dir / --tables, use dg_context_add_table). Same
 * order, reports and return codes. */
int content_dir_load(dg_context *context, const char *dir, content_dir_add_fn add, bool keep_going,
                     roomset_dir_report_fn report, void *user, roomset_dir_result *result);

#endif
