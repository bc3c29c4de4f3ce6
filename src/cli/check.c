/* `dungeon check FILE...`: validates room-set files and prints, for each,
 * its rooms, connectors and moves before and after grouping by geometry, or
 * every problem found with the room id and field. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "roomset_dir.h"

#define CHECK_PROBLEMS_MAX 100

static void usage(void) {
  puts("usage: dungeon check [--json] FILE...\n"
       "  validate room-set files (docs/roomset-format.md); print each set's rooms,\n"
       "  connectors, shims and moves before/after grouping, or every problem found.\n"
       "  Exit status 1 when any file is invalid.");
}

/* One file: 0 when valid, else DG_EPARSE (not JSON) or the library's code
 * (DG_EINVAL, DG_ETYPE, DG_ENOMEM). Prints the figures or the problems. */
static int check_file(const char *path, json_t *results) {
  json_error_t parse_error;
  json_t *json = NULL;
  if (roomset_dir_read_file(path, &json, &parse_error) != 0) {
    if (parse_error.line > 0)
      cli_error("%s:%d:%d: %s", path, parse_error.line, parse_error.column, parse_error.text);
    else
      cli_error("%s: %s", path, parse_error.text);
    if (results != NULL)
      json_array_append_new(results,
                            json_pack("{s:s,s:b,s:[{s:s,s:s}]}", "file", path, "valid", 0,
                                      "problems", "field", "", "message", parse_error.text));
    return DG_EPARSE;
  }
  dg_error problems[CHECK_PROBLEMS_MAX];
  int count = 0;
  int rc = dg_roomset_check(json, problems, CHECK_PROBLEMS_MAX, &count);
  if (rc != 0) {
    json_t *list = results != NULL ? json_array() : NULL;
    for (int i = 0; i < count && i < CHECK_PROBLEMS_MAX; i++) {
      if (list != NULL)
        json_array_append_new(list, json_pack("{s:s,s:s}", "field", problems[i].field, "message",
                                              problems[i].message));
      else
        fprintf(stderr, "%s: %s: %s\n", path, problems[i].field, problems[i].message);
    }
    if (count > CHECK_PROBLEMS_MAX && list == NULL)
      fprintf(stderr, "%s: ... and %d more problems\n", path, count - CHECK_PROBLEMS_MAX);
    if (list == NULL)
      fprintf(stderr, "%s: invalid (%d problem%s)\n", path, count, count == 1 ? "" : "s");
    else
      json_array_append_new(results,
                            json_pack("{s:s,s:b,s:o}", "file", path, "valid", 0, "problems", list));
    json_decref(json);
    return rc;
  }
  dg_context *context = NULL;
  dg_error err = {0};
  rc = dg_context_new(&context);
  if (rc == 0)
    rc = dg_context_add_roomset(context, json, &err);
  if (rc != 0) {
    cli_error("%s: %s", path, err.message[0] ? err.message : "out of memory");
    dg_context_free(context);
    json_decref(json);
    return rc;
  }
  dg_roomset_info info;
  dg_context_roomset_info(context, 0, &info);
  if (results != NULL) {
    json_t *item = json_pack("{s:s,s:b,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:f}", "file", path,
                             "valid", 1, "name", info.name, "biome", info.biome, "rooms",
                             info.rooms, "connectors", info.connectors, "shims", info.shims,
                             "moves", info.moves, "move_groups", info.move_groups, "table_states",
                             info.table_states, "table_bytes", (json_int_t)info.table_bytes,
                             "table_build_ms", (double)info.table_build_ns / 1e6);
    json_array_append_new(results, item);
  } else {
    printf("%s: room set '%s' (biome %s): %d rooms, %d connectors, %d shims, %d moves, "
           "%d after grouping (%.1f%% fewer)\n",
           path, info.name, info.biome, info.rooms, info.connectors, info.shims, info.moves,
           info.move_groups,
           info.moves > 0 ? 100.0 * (info.moves - info.move_groups) / info.moves : 0.0);
    printf("  pattern database: %d states, %lld bytes (%.1f per state), built in %.1f ms\n",
           info.table_states, (long long)info.table_bytes,
           info.table_states > 0 ? (double)info.table_bytes / info.table_states : 0.0,
           (double)info.table_build_ns / 1e6);
  }
  dg_context_free(context);
  json_decref(json);
  return 0;
}

int cli_check(int argc, char **argv) {
  bool as_json = false;
  int files = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage();
      return 0;
    }
    if (strcmp(argv[i], "--json") == 0)
      as_json = true;
    else if (argv[i][0] == '-') {
      cli_error("check: unknown option '%s' (see 'dungeon check --help')", argv[i]);
      return CLI_EXIT_USAGE;
    } else
      files++;
  }
  if (files == 0) {
    cli_error("check: name at least one room-set file (see 'dungeon check --help')");
    return CLI_EXIT_USAGE;
  }
  json_t *results = as_json ? json_array() : NULL;
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '-')
      failed += check_file(argv[i], results) != 0;
  if (results != NULL) {
    json_dumpf(results, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    putchar('\n');
    json_decref(results);
  }
  return failed > 0 ? CLI_EXIT_FAILURE : 0;
}
