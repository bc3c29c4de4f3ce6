/* `dungeon generate`: one level to stdout, as JSON, an ASCII map, an SVG
 * picture or a Tiled map. The
 * wall-clock timings, which are not part of the level, go to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(void) {
  puts("usage: dungeon generate [--algorithm NAME] [--seed N] [--param name=value ...]\n"
       "                        [--target name=value ...] [--floors N]\n"
       "                        [--format json|ascii|svg|tiled] [--roomsets DIR] [--quiet]\n"
       "                        [--tables DIR]\n"
       "                        [--tile-size PX] [--no-labels] [--graph] [--storey N|all]\n"
       "                        [--view full|client]\n"
       "                        [--players JSON] [--profile NAME|JSON] [--config FILE]\n"
       "  --algorithm NAME  one of 'dungeon algorithms' (default classic)\n"
       "  --seed N          0 to 18446744073709551615; without it a random seed is\n"
       "                    chosen and printed on stderr\n"
       "  --param n=v       set a parameter (repeatable); see below\n"
       "  --target n=v      a structural target (repeatable): path_min, path_max,\n"
       "                    cycles_min, cycles_max, dead_ends_min, dead_ends_max,\n"
       "                    rooms_min, rooms_max, spawn_spread_max, locks_min,\n"
       "                    locks_max (0 to 1000000),\n"
       "                    attempts_max (1 to 1000, default 16): seed-derived\n"
       "                    candidates are tried until one meets them all\n"
       "  --floors N        a multi-floor set of N floors (1 to 64) whose stairs line\n"
       "                    up: dungeond.levelset/1 (json), the maps one after another\n"
       "                    (ascii), the floors side by side with their stairs joined\n"
       "                    (svg), or one group layer per floor (tiled)\n"
       "  --format F        json (default, dungeond.level/1), ascii (the map), svg (a\n"
       "                    picture) or tiled (a Tiled .tmj map; its tileset image is\n"
       "                    dungeond-tiles.png, or dungeond-tiles-progression.png\n"
       "                    with locks or one-way doors, installed beside the room\n"
       "                    sets)\n"
       "  --view V          full (the level with its level_hash) or client (what a\n"
       "                    game server may send its players: no secrets, no seed;\n"
       "                    docs/level-format.md); without it, the full level\n"
       "  --tile-size PX    svg: pixels per tile, 1 to 64 (default 12)\n"
       "  --no-labels       svg: no room labels\n"
       "  --graph           svg: draw the connectivity graph over the map\n"
       "  --storey N|all    svg of an authored level: storey N alone (the height of\n"
       "                    its floor, e.g. 0, 4, -8), every storey side by side\n"
       "                    (all), or every room in one plane (flat, the default)\n"
       "  --roomsets DIR    room-set directory for authored (default $DUNGEON_ROOMSETS,\n"
       "                    else ./config/roomsets if present, else\n"
       "                    " DUNGEON_ROOMSETS_DIR ")\n"
       "  --tables DIR      content-table directory for --param table=NAME (default\n"
       "                    $DUNGEON_TABLES, else ./config/tables, the example set)\n"
       "  --players JSON    the party, as dungeond's `players`: [{\"level\":12},...]\n"
       "                    or a count; one spawn per player unless --param spawns\n"
       "  --profile P       derive parameters from the party as dungeond does: P is\n"
       "                    a profile of --config FILE (default " CLI_CONFIG_DEFAULT ")\n"
       "                    or a profile object as JSON; --param values win\n"
       "  --quiet           no timing line on stderr\n");
}

/* A seed for runs without --seed: from the kernel, kept within 2^53 so it
 * prints as a plain JSON number. 0, DG_ENOENT (no /dev/urandom) or
 * DG_EINTERNAL (a short read, which the kernel never gives for 8 bytes). */
static int random_seed(uint64_t *seed) {
  FILE *urandom = fopen("/dev/urandom", "rb");
  if (urandom == NULL)
    return DG_ENOENT;
  size_t got = fread(seed, sizeof *seed, 1, urandom);
  fclose(urandom);
  *seed &= DG_SEED_SAFE_MAX;
  return got == 1 ? 0 : DG_EINTERNAL;
}

void cli_output_options_init(cli_output_options *output) {
  *output = (cli_output_options){.format = "json"};
  dg_svg_options_init(&output->svg);
}

int cli_take_output_option(int argc, char **argv, int *index, cli_output_options *output) {
  const char *arg = argv[*index];
  if (strcmp(arg, "--no-labels") == 0) {
    output->svg.labels = false;
  } else if (strcmp(arg, "--graph") == 0) {
    output->svg.graph = true;
  } else if (strcmp(arg, "--storey") == 0 || strncmp(arg, "--storey=", 9) == 0) {
    const char *text = arg[8] == '=' ? arg + 9 : *index + 1 < argc ? argv[++*index] : "";
    if (dg_svg_storey_parse(text, &output->svg) != 0) {
      cli_error("--storey must be a storey's height (an integer), all or flat, not '%s'", text);
      return DG_EINVAL;
    }
  } else if (strcmp(arg, "--tile-size") == 0 || strncmp(arg, "--tile-size=", 12) == 0) {
    const char *value = arg[11] == '=' ? arg + 12 : (*index + 1 < argc ? argv[++*index] : NULL);
    char *end = NULL;
    long size = value != NULL ? strtol(value, &end, 10) : 0;
    if (value == NULL || end == value || *end != '\0' || size < DG_SVG_TILE_MIN ||
        size > DG_SVG_TILE_MAX) {
      cli_error("--tile-size must be an integer from %d to %d", DG_SVG_TILE_MIN, DG_SVG_TILE_MAX);
      return DG_EINVAL;
    }
    output->svg.tile_size = (int)size;
  } else if (strcmp(arg, "--floors") == 0 || strncmp(arg, "--floors=", 9) == 0) {
    const char *text = arg[8] == '=' ? arg + 9 : *index + 1 < argc ? argv[++*index] : "";
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 1 || value > DG_FLOORS_MAX) {
      cli_error("--floors must be an integer from 1 to %d, not '%s'", DG_FLOORS_MAX, text);
      return DG_EINVAL;
    }
    output->floors = (int)value;
  } else if (strcmp(arg, "--view") == 0 || strncmp(arg, "--view=", 7) == 0) {
    const char *text = arg[6] == '=' ? arg + 7 : *index + 1 < argc ? argv[++*index] : "";
    if (dg_view_parse(text, &output->view) != 0) {
      cli_error("--view must be one of " DG_VIEW_CHOICES ", not '%s'", text);
      return DG_EINVAL;
    }
  } else if (strcmp(arg, "--format") == 0) {
    if (*index + 1 >= argc) {
      cli_error("--format needs a value: json, ascii, svg or tiled");
      return DG_EINVAL;
    }
    output->format = argv[++*index];
  } else if (strncmp(arg, "--format=", 9) == 0) {
    output->format = arg + 9;
  } else {
    return 0;
  }
  return 1;
}

int cli_check_output_options(const cli_output_options *output) {
  const char *format = output->format;
  if (strcmp(format, "json") != 0 && strcmp(format, "ascii") != 0 && strcmp(format, "svg") != 0 &&
      strcmp(format, "tiled") != 0) {
    cli_error("--format must be json, ascii, svg or tiled, not '%s'", format);
    return DG_EINVAL;
  }
  if (output->svg.storeys != DG_SVG_STOREYS_FLAT && strcmp(format, "svg") != 0) {
    cli_error("--storey is for --format svg (a Tiled map has a group per storey already)");
    return DG_EINVAL;
  }
  return 0;
}

/* --floors: the set as dungeond.levelset/1 or as maps, one per floor. */
static int produce_floors(const dg_context *context, const dg_request *request,
                          const cli_output_options *output, cli_output *out, dg_error *err) {
  dg_level *levels[DG_FLOORS_MAX] = {0};
  dg_request requests[DG_FLOORS_MAX];
  const char *format = output->format;
  uint64_t started = dg_monotonic_ns();
  int rc = dg_levelset_generate(context, request, output->floors, NULL, levels, requests, err);
  if (rc != 0)
    return rc;
  for (int k = 0; k < output->floors && rc == 0; k++)
    rc = dg_level_apply_view(&levels[k], output->view, NULL);
  uint64_t generated = dg_monotonic_ns();
  /* A storey one of the floors does not have: the caller's mistake. */
  for (int k = 0; k < output->floors && rc == 0 && strcmp(format, "svg") == 0; k++)
    if ((rc = dg_svg_check_storey(levels[k], &output->svg, err)) != 0)
      goto done;
  if (rc == 0 && strcmp(format, "json") == 0)
    rc = dg_levelset_dump_json(levels, requests, output->floors, &out->text, &out->length);
  else if (rc == 0 && strcmp(format, "svg") == 0)
    rc = dg_levelset_dump_svg(levels, output->floors, &output->svg, &out->text, &out->length);
  else if (rc == 0 && strcmp(format, "tiled") == 0)
    rc = dg_levelset_dump_tiled(levels, output->floors, &out->text, &out->length);
  else if (rc == 0)
    rc = dg_levelset_dump_ascii(levels, requests, output->floors, &out->text, &out->length);
  out->generate_ns = generated - started;
  out->serialise_ns = dg_monotonic_ns() - generated;
  if (rc != 0) {
    out->serialise_failed = true;
    dg_error_set(err, rc, "", "cannot serialise the set: %s", dg_strerror(rc));
  }
done:
  for (int k = 0; k < output->floors; k++)
    dg_level_free(levels[k]);
  return rc;
}

/* Appends the newline the CLI prints after JSON, so that out->text is
 * exactly the bytes on stdout. */
static int end_json_line(cli_output *out) {
  char *grown = realloc(out->text, out->length + 2);
  if (grown == NULL)
    return DG_ENOMEM;
  grown[out->length++] = '\n';
  grown[out->length] = '\0';
  out->text = grown;
  return 0;
}

/* `,"level_hash":"..."` over the closing brace of the level in out->text. */
static int append_level_hash(const dg_level *level, cli_output *out) {
  size_t extra = sizeof ",\"level_hash\":\"\"}" + DG_LEVEL_HASH_SIZE;
  char *grown = realloc(out->text, out->length + extra);
  if (grown == NULL)
    return DG_ENOMEM;
  out->text = grown;
  out->length = out->length - 1 +
                (size_t)snprintf(grown + out->length - 1, extra + 1, ",\"level_hash\":\"%s\"}",
                                 level->level_hash);
  return 0;
}

int cli_produce(const dg_context *context, const dg_request *request,
                const cli_output_options *output, cli_output *out, dg_error *err) {
  *out = (cli_output){0};
  const char *format = output->format;
  int rc;
  if (output->floors > 0) {
    rc = produce_floors(context, request, output, out, err);
  } else {
    dg_level *level = NULL;
    uint64_t started = dg_monotonic_ns();
    rc = dg_generate(context, request, NULL, &level, err);
    uint64_t generated = dg_monotonic_ns();
    if (rc != 0)
      return rc;
    if ((rc = dg_level_apply_view(&level, output->view, NULL)) != 0) {
      dg_level_free(level);
      return rc;
    }
    /* A storey the level does not have: the caller's mistake, named. */
    if (strcmp(format, "svg") == 0 && (rc = dg_svg_check_storey(level, &output->svg, err)) != 0) {
      dg_level_free(level);
      return rc;
    }
    rc = strcmp(format, "json") == 0 ? dg_level_dump_json(level, &out->text, &out->length)
         : strcmp(format, "svg") == 0
             ? dg_level_dump_svg(level, &output->svg, &out->text, &out->length)
         : strcmp(format, "tiled") == 0 ? dg_level_dump_tiled(level, &out->text, &out->length)
                                        : dg_level_dump_ascii(level, &out->text, &out->length);
    /* An explicit full view carries its level_hash like the daemon's
     * levels: after the last member. */
    if (rc == 0 && output->view == DG_VIEW_FULL && strcmp(format, "json") == 0)
      rc = append_level_hash(level, out);
    out->generate_ns = generated - started;
    out->serialise_ns = dg_monotonic_ns() - generated;
    /* Phase timings (not part of the level) for the timing line. */
    out->timing_count = level->timing_count;
    memcpy(out->timings, level->timings, sizeof out->timings);
    dg_level_free(level);
    if (rc != 0) {
      out->serialise_failed = true;
      dg_error_set(err, rc, "", "cannot serialise the level: %s", dg_strerror(rc));
    }
  }
  if (rc == 0 && strcmp(format, "json") == 0 && (rc = end_json_line(out)) != 0) {
    out->serialise_failed = true;
    dg_error_set(err, rc, "", "out of memory");
  }
  if (rc != 0) {
    free(out->text);
    out->text = NULL;
  }
  return rc;
}

static void print_timings(const cli_output *out, const cli_output_options *output) {
  if (output->floors > 0) {
    fprintf(stderr, "dungeon: %d floors generated in %.3f ms\n", output->floors,
            (double)out->generate_ns / 1e6);
    return;
  }
  fprintf(stderr, "dungeon: generated in %.3f ms, serialised in %.3f ms",
          (double)out->generate_ns / 1e6, (double)out->serialise_ns / 1e6);
  for (int t = 0; t < out->timing_count; t++)
    fprintf(stderr, "%s%s %.3f ms", t == 0 ? " (" : ", ", out->timings[t].name,
            (double)out->timings[t].ns / 1e6);
  fputs(out->timing_count > 0 ? ")\n" : "\n", stderr);
}

/* The command line of `dungeon generate`. */
typedef struct generate_options {
  cli_request_options request;
  cli_output_options output;
  bool quiet, help;
} generate_options;

/* Reads the command line into *options. --help does not stop the parse,
 * so an unknown option after it is still refused. 0 or CLI_EXIT_USAGE (the
 * message printed). */
static int parse_args(int argc, char **argv, generate_options *options) {
  *options = (generate_options){0};
  cli_output_options_init(&options->output);
  for (int i = 1; i < argc; i++) {
    int taken = cli_take_request_option(argc, argv, &i, &options->request);
    if (taken == 0)
      taken = cli_take_output_option(argc, argv, &i, &options->output);
    if (taken < 0)
      return CLI_EXIT_USAGE;
    if (taken > 0)
      continue;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      options->help = true;
    } else if (strcmp(argv[i], "--quiet") == 0) {
      options->quiet = true;
    } else {
      cli_error("generate: unknown option '%s' (see 'dungeon generate --help')", argv[i]);
      return CLI_EXIT_USAGE;
    }
  }
  return 0;
}

/* --help: the usage, then the parameters of the algorithm asked for (or of
 * the default one). 0 or CLI_EXIT_USAGE for an unknown algorithm, which is
 * reported after the usage, as it always was. */
static int print_help(const generate_options *options) {
  usage();
  const char *name = options->request.algorithm;
  const dg_algorithm *algorithm = name != NULL ? dg_algorithm_find(name) : dg_algorithm_default();
  if (algorithm == NULL) {
    cli_error("unknown algorithm '%s' (see 'dungeon algorithms')", name);
    return CLI_EXIT_USAGE;
  }
  putchar('\n');
  cli_print_params(algorithm);
  return 0;
}

/* Without --seed: a random one, printed on stderr (unless quiet) so that
 * the level can be made again. 0 or CLI_EXIT_FAILURE (the message
 * printed). */
static int ensure_seed(dg_request *request, bool quiet) {
  if (request->seed_given)
    return 0;
  if (random_seed(&request->seed) != 0) {
    cli_error("cannot read /dev/urandom for a seed; pass --seed");
    return CLI_EXIT_FAILURE;
  }
  request->seed_given = true;
  if (!quiet)
    fprintf(stderr, "dungeon: seed %llu\n", (unsigned long long)request->seed);
  return 0;
}

/* A failed cli_produce: its message, and the exit code. With --floors,
 * DG_EINVAL from generation means the set refused the parameters given
 * (e.g. floors above 1 with params.placement=false): the caller's mistake,
 * so a usage error, as an unknown params.table is; anything else a
 * failure. */
static int report_failure(int rc, const cli_output *out, const dg_error *err,
                          const cli_output_options *output) {
  /* A name only the loaded content resolves (params.table against the
   * tables read from --tables) is the caller's mistake too: exit 2 naming
   * the field, as the daemon's 422 does. */
  if ((rc == DG_ENOENT && !out->serialise_failed && strncmp(err->field, "params.", 7) == 0) ||
      strcmp(err->field, "storey") == 0) {
    cli_error("%s: %s", err->field, err->message);
    return CLI_EXIT_USAGE;
  }
  cli_error("%s%s", out->serialise_failed ? "" : "generation failed: ", err->message);
  return output->floors > 0 && rc == DG_EINVAL && !out->serialise_failed ? CLI_EXIT_USAGE
                                                                         : CLI_EXIT_FAILURE;
}

/* The level on stdout, then the timing line on stderr (before the final
 * flush, so that the two interleave as they always have). 0 or
 * CLI_EXIT_FAILURE when stdout cannot be written. */
static int emit(const cli_output *out, const generate_options *options) {
  fwrite(out->text, 1, out->length, stdout);
  if (!options->quiet)
    print_timings(out, &options->output);
  return fflush(stdout) == 0 ? 0 : CLI_EXIT_FAILURE;
}

int cli_generate(int argc, char **argv) {
  generate_options options;
  int status = parse_args(argc, argv, &options);
  if (status != 0)
    return status;
  if (options.help)
    return print_help(&options);
  if (cli_check_output_options(&options.output) != 0)
    return CLI_EXIT_USAGE;
  dg_request request;
  if (cli_build_request(&options.request, &request) != 0)
    return CLI_EXIT_USAGE;
  if ((status = ensure_seed(&request, options.quiet)) != 0)
    return status;
  dg_context *context = NULL;
  if (cli_make_context(&options.request, &context) != 0)
    return CLI_EXIT_FAILURE;
  dg_error err = {0};
  cli_output out;
  int rc = cli_produce(context, &request, &options.output, &out, &err);
  dg_context_free(context);
  status = rc != 0 ? report_failure(rc, &out, &err, &options.output) : emit(&out, &options);
  /* The one cleanup: cli_produce leaves out.text NULL when it fails. */
  free(out.text);
  return status;
}
