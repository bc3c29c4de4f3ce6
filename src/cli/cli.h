/* The `dungeon` command: subcommands and the option parsing they share. */
#ifndef DUNGEON_CLI_H
#define DUNGEON_CLI_H

#include <stdbool.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

#define CLI_EXIT_USAGE 2   /* bad arguments */
#define CLI_EXIT_FAILURE 1 /* the work itself failed */

/* Request-building options shared by generate and bench. */
typedef struct cli_request_options {
  const char *algorithm;                 /* --algorithm, or NULL: dg_algorithm_default() */
  const char *seed;                      /* --seed text or NULL */
  const char *params[DG_PARAMS_MAX * 2]; /* --param name=value texts */
  int param_count;
  const char *roomsets;                     /* --roomsets DIR or NULL */
  const char *targets[DG_TARGET_COUNT + 1]; /* --target name=value texts */
  int target_count;
} cli_request_options;

/* Consumes the option at argv[*index] if it is one of --algorithm, --seed,
 * --param, --target, --roomsets (either "--x value" or "--x=value"); returns
 * 1 if consumed, 0 if not one of them, a negative DG_E* code after printing a
 * usage error (DG_EINVAL: no value; DG_ELIMIT: too many --param or
 * --target). */
int cli_take_request_option(int argc, char **argv, int *index, cli_request_options *options);

/* Builds and validates the request; prints the error and returns its
 * negative DG_E* code when the options are bad (DG_ENOENT: unknown
 * algorithm or parameter; DG_EPARSE: --param not name=value; the library's
 * code for a bad seed, value or --target). With no --seed the seed is left unset. */
int cli_build_request(const cli_request_options *options, dg_request *request);

/* Prints the parameter table of `algorithm` for --help. */
void cli_print_params(const dg_algorithm *algorithm);

/* Prints "dungeon: " and a formatted message to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A context for the request options: room sets loaded when the algorithm
 * is authored or --roomsets was given. Caller frees with dg_context_free.
 * Prints the problem and returns its negative DG_E* code on failure
 * (DG_ENOMEM, DG_ENOENT: no such directory, DG_EINVAL: an invalid file). */
int cli_make_context(const cli_request_options *options, dg_context **out);

int cli_generate(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_algorithms(int argc, char **argv);
int cli_bench(int argc, char **argv);

#endif
