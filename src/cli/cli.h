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
  const char *tables;                       /* --tables DIR or NULL */
  const char *targets[DG_TARGET_COUNT + 1]; /* --target name=value texts */
  int target_count;
  const char *players; /* --players JSON (an array of players or a count) or NULL */
  const char *profile; /* --profile NAME, or a profile object as JSON text, or NULL */
  const char *config;  /* --config FILE holding the profiles, or NULL: CLI_CONFIG_DEFAULT */
} cli_request_options;

/* Where --profile NAME is looked up without --config: the checkout's daemon
 * configuration, relative to the working directory. */
#define CLI_CONFIG_DEFAULT "config/dungeond.json"

/* Consumes the option at argv[*index] if it is one of --algorithm, --seed,
 * --param, --target, --roomsets, --tables, --players, --profile, --config (either "--x value" or
 * "--x=value"); returns 1 if consumed, 0 if not one of them, a negative DG_E* code after printing a
 * usage error (DG_EINVAL: no value; DG_ELIMIT: too many --param or
 * --target). */
int cli_take_request_option(int argc, char **argv, int *index, cli_request_options *options);

/* Builds and validates the request as dungeond builds a body's: the
 * profile's parameters derived from --players first (src/common/profile.c),
 * the --param values over them, one spawn per player unless --param spawns
 * says otherwise. Prints the error and returns its negative DG_E* code
 * when the options are bad (DG_ENOENT: unknown algorithm, parameter or
 * profile; DG_EPARSE: --param not name=value, --players or --profile not
 * JSON; DG_EINVAL: a profile for another algorithm; the library's or the
 * profile code's code for a bad seed, value, --target, party or profile).
 * With no --seed the seed is left unset. */
int cli_build_request(const cli_request_options *options, dg_request *request);

/* Prints the parameter table of `algorithm` for --help. */
void cli_print_params(const dg_algorithm *algorithm);

/* Prints "dungeon: " and a formatted message to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A context for the request options: room sets loaded when the algorithm
 * is authored or --roomsets was given; content tables when --tables was
 * given or a --param names a table. Caller frees with dg_context_free.
 * Prints the problem and returns its negative DG_E* code on failure
 * (DG_ENOMEM, DG_ENOENT: no such directory, DG_EINVAL: an invalid file). */
int cli_make_context(const cli_request_options *options, dg_context **out);

/* What `dungeon generate` prints and how: the format, a floor count and
 * the SVG options. */
typedef struct cli_output_options {
  const char *format; /* json (default), ascii, svg or tiled */
  int floors;         /* 0: one level; 1 or more: a dungeond.levelset/1 */
  dg_svg_options svg; /* --tile-size, --no-labels, --graph */
  dg_view view;       /* --view full|client; DG_VIEW_DEFAULT without it */
} cli_output_options;

/* The defaults: one level as JSON, default SVG options. */
void cli_output_options_init(cli_output_options *output);

/* Consumes argv[*index] if it is --format, --floors, --tile-size,
 * --no-labels or --graph; 1 if consumed, 0 if not one of them, DG_EINVAL
 * after printing a usage error. */
int cli_take_output_option(int argc, char **argv, int *index, cli_output_options *output);

/* 0 when the format is known and goes with --floors; else prints why and
 * returns DG_EINVAL. */
int cli_check_output_options(const cli_output_options *output);

/* The bytes `dungeon generate` prints for one request, and its timings. */
typedef struct cli_output {
  char *text;                        /* the output, with the newline after JSON; caller frees */
  size_t length;                     /* bytes in text */
  uint64_t generate_ns;              /* wall-clock generation time */
  uint64_t serialise_ns;             /* wall-clock serialisation time */
  dg_timing timings[DG_TIMINGS_MAX]; /* a single level's phase timings */
  int timing_count;                  /* entries in timings */
  bool serialise_failed;             /* the failure was in serialising, not generating */
} cli_output;

/* Generates the request (a set when output->floors > 0) and serialises it
 * in output->format into out->text, which the caller frees. 0, or the
 * library's negative DG_E* code with err's message (out->text NULL). */
int cli_produce(const dg_context *context, const dg_request *request,
                const cli_output_options *output, cli_output *out, dg_error *err);

int cli_generate(int argc, char **argv);
int cli_catalogue(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_algorithms(int argc, char **argv);
int cli_bench(int argc, char **argv);

/* `dungeon audit`: the distributions of one request over many seeds. */
int cli_audit(int argc, char **argv);

#endif
