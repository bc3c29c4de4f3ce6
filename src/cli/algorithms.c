/* `dungeon algorithms [--json]`: the registry, for people or programs. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_algorithms(int argc, char **argv) {
  bool as_json = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      as_json = true;
    } else if (strcmp(argv[i], "--help") == 0) {
      puts("usage: dungeon algorithms [--json]\n  list every algorithm with its parameters");
      return 0;
    } else {
      cli_error("algorithms: unknown option '%s'", argv[i]);
      return CLI_EXIT_USAGE;
    }
  }
  if (as_json) {
    json_t *list = dg_algorithms_to_json();
    if (list == NULL || json_dumpf(list, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
      json_decref(list);
      cli_error("out of memory");
      return CLI_EXIT_FAILURE;
    }
    json_decref(list);
    putchar('\n');
    return 0;
  }
  int count;
  const dg_algorithm *const *all = dg_algorithms(&count);
  for (int i = 0; i < count; i++) {
    printf("%s - %s\n  (after %s)\n", all[i]->name, all[i]->summary, all[i]->source);
    cli_print_params(all[i]);
    if (i + 1 < count)
      putchar('\n');
  }
  return 0;
}
