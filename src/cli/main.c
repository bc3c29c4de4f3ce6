/* `dungeon`: the offline command over libdungeon (generate, algorithms,
 * bench, audit, check, catalogue). Exit status 0 on success, 1 when the work fails, 2 for bad
 * arguments. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
  fputs("usage: dungeon COMMAND [OPTIONS]\n"
        "\n"
        "commands:\n"
        "  generate    generate one level and print it (JSON or ASCII)\n"
        "  algorithms  list the algorithms and their parameters\n"
        "  bench       measure levels per second on one core\n"
        "  audit       distributions of a request's figures over many seeds\n"
        "  check       validate room-set files and count their moves\n"
        "  catalogue   digests of many generate outputs, for golden catalogues\n"
        "\n"
        "  dungeon COMMAND --help   options of one command\n"
        "  dungeon --version        print the version\n",
        out);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *command = argv[1];
  if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
      strcmp(command, "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(command, "--version") == 0) {
    printf("dungeon %s\n", dg_version());
    return 0;
  }
  if (strcmp(command, "generate") == 0)
    return cli_generate(argc - 1, argv + 1);
  if (strcmp(command, "algorithms") == 0)
    return cli_algorithms(argc - 1, argv + 1);
  if (strcmp(command, "check") == 0)
    return cli_check(argc - 1, argv + 1);
  if (strcmp(command, "catalogue") == 0)
    return cli_catalogue(argc - 1, argv + 1);
  if (strcmp(command, "bench") == 0)
    return cli_bench(argc - 1, argv + 1);
  if (strcmp(command, "audit") == 0)
    return cli_audit(argc - 1, argv + 1);
  cli_error("unknown command '%s' (see 'dungeon --help')", command);
  return CLI_EXIT_USAGE;
}
