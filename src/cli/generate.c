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
       "                        [--tile-size PX] [--no-labels] [--graph]\n"
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
       "                    up, as dungeond.levelset/1 (json) or maps one after another\n"
       "  --format F        json (default, dungeond.level/1), ascii (the map), svg (a\n"
       "                    picture) or tiled (a Tiled .tmj map; its tileset image is\n"
       "                    dungeond-tiles.png, or dungeond-tiles-progression.png\n"
       "                    with locks or one-way doors, installed beside the room\n"
       "                    sets)\n"
       "  --tile-size PX    svg: pixels per tile, 1 to 64 (default 12)\n"
       "  --no-labels       svg: no room labels\n"
       "  --graph           svg: draw the connectivity graph over the map\n"
       "  --roomsets DIR    room-set directory for authored (default $DUNGEON_ROOMSETS,\n"
       "                    else ./config/roomsets if present, else\n"
       "                    " DUNGEON_ROOMSETS_DIR ")\n"
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

/* --floors: the set as dungeond.levelset/1 or as maps, one per floor. */
static int generate_floors(const dg_context *context, const dg_request *request, int floors,
                           bool json, bool quiet) {
  dg_level *levels[DG_FLOORS_MAX] = {0};
  dg_request requests[DG_FLOORS_MAX];
  dg_error err = {0};
  uint64_t started = dg_monotonic_ns();
  int rc = dg_levelset_generate(context, request, floors, NULL, levels, requests, &err);
  if (rc != 0) {
    cli_error("generation failed: %s", err.message);
    return rc == DG_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
  }
  uint64_t generated = dg_monotonic_ns();
  char *text = NULL;
  size_t length = 0;
  rc = json ? dg_levelset_dump_json(levels, requests, floors, &text, &length)
            : dg_levelset_dump_ascii(levels, requests, floors, &text, &length);
  for (int k = 0; k < floors; k++)
    dg_level_free(levels[k]);
  if (rc != 0) {
    cli_error("cannot serialise the set: %s", dg_strerror(rc));
    return CLI_EXIT_FAILURE;
  }
  fwrite(text, 1, length, stdout);
  if (json)
    putchar('\n');
  free(text);
  if (!quiet)
    fprintf(stderr, "dungeon: %d floors generated in %.3f ms\n", floors,
            (double)(generated - started) / 1e6);
  return fflush(stdout) == 0 ? 0 : CLI_EXIT_FAILURE;
}

int cli_generate(int argc, char **argv) {
  cli_request_options options = {0};
  const char *format = "json";
  bool quiet = false, help = false;
  dg_svg_options svg;
  dg_svg_options_init(&svg);
  int floors = 0; /* 0: one level, not a set */
  for (int i = 1; i < argc; i++) {
    int taken = cli_take_request_option(argc, argv, &i, &options);
    if (taken < 0)
      return CLI_EXIT_USAGE;
    if (taken > 0)
      continue;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      help = true;
    } else if (strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else if (strcmp(argv[i], "--no-labels") == 0) {
      svg.labels = false;
    } else if (strcmp(argv[i], "--graph") == 0) {
      svg.graph = true;
    } else if (strcmp(argv[i], "--tile-size") == 0 || strncmp(argv[i], "--tile-size=", 12) == 0) {
      const char *value = argv[i][11] == '=' ? argv[i] + 12 : (i + 1 < argc ? argv[++i] : NULL);
      char *end = NULL;
      long size = value != NULL ? strtol(value, &end, 10) : 0;
      if (value == NULL || end == value || *end != '\0' || size < DG_SVG_TILE_MIN ||
          size > DG_SVG_TILE_MAX) {
        cli_error("--tile-size must be an integer from %d to %d", DG_SVG_TILE_MIN, DG_SVG_TILE_MAX);
        return CLI_EXIT_USAGE;
      }
      svg.tile_size = (int)size;
    } else if (strcmp(argv[i], "--floors") == 0 || strncmp(argv[i], "--floors=", 9) == 0) {
      const char *text = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : "";
      char *end = NULL;
      long value = strtol(text, &end, 10);
      if (*text == '\0' || *end != '\0' || value < 1 || value > DG_FLOORS_MAX) {
        cli_error("--floors must be an integer from 1 to %d, not '%s'", DG_FLOORS_MAX, text);
        return CLI_EXIT_USAGE;
      }
      floors = (int)value;
    } else if (strcmp(argv[i], "--format") == 0) {
      if (i + 1 >= argc) {
        cli_error("--format needs a value: json, ascii, svg or tiled");
        return CLI_EXIT_USAGE;
      }
      format = argv[++i];
    } else if (strncmp(argv[i], "--format=", 9) == 0) {
      format = argv[i] + 9;
    } else {
      cli_error("generate: unknown option '%s' (see 'dungeon generate --help')", argv[i]);
      return CLI_EXIT_USAGE;
    }
  }
  if (help) {
    usage();
    const dg_algorithm *algorithm =
        options.algorithm != NULL ? dg_algorithm_find(options.algorithm) : dg_algorithm_default();
    if (algorithm == NULL) {
      cli_error("unknown algorithm '%s' (see 'dungeon algorithms')", options.algorithm);
      return CLI_EXIT_USAGE;
    }
    putchar('\n');
    cli_print_params(algorithm);
    return 0;
  }
  if (strcmp(format, "json") != 0 && strcmp(format, "ascii") != 0 && strcmp(format, "svg") != 0 &&
      strcmp(format, "tiled") != 0) {
    cli_error("--format must be json, ascii, svg or tiled, not '%s'", format);
    return CLI_EXIT_USAGE;
  }
  dg_request request;
  if (cli_build_request(&options, &request) != 0)
    return CLI_EXIT_USAGE;
  if (!request.seed_given) {
    if (random_seed(&request.seed) != 0) {
      cli_error("cannot read /dev/urandom for a seed; pass --seed");
      return CLI_EXIT_FAILURE;
    }
    request.seed_given = true;
    if (!quiet)
      fprintf(stderr, "dungeon: seed %llu\n", (unsigned long long)request.seed);
  }
  dg_context *context = NULL;
  if (cli_make_context(&options, &context) != 0)
    return CLI_EXIT_FAILURE;
  if (floors > 0 && strcmp(format, "json") != 0 && strcmp(format, "ascii") != 0) {
    cli_error("--floors gives json or ascii; draw the floors one at a time for --format %s",
              format);
    dg_context_free(context);
    return CLI_EXIT_USAGE;
  }
  if (floors > 0) {
    int set_rc = generate_floors(context, &request, floors, strcmp(format, "json") == 0, quiet);
    dg_context_free(context);
    return set_rc;
  }
  dg_error err = {0};
  dg_level *level = NULL;
  uint64_t started = dg_monotonic_ns();
  int generated_rc = dg_generate(context, &request, NULL, &level, &err);
  uint64_t generated = dg_monotonic_ns();
  dg_context_free(context);
  if (generated_rc != 0) {
    cli_error("generation failed: %s", err.message);
    return CLI_EXIT_FAILURE;
  }
  char *text = NULL;
  size_t length = 0;
  int rc = strcmp(format, "json") == 0    ? dg_level_dump_json(level, &text, &length)
           : strcmp(format, "svg") == 0   ? dg_level_dump_svg(level, &svg, &text, &length)
           : strcmp(format, "tiled") == 0 ? dg_level_dump_tiled(level, &text, &length)
                                          : dg_level_dump_ascii(level, &text, &length);
  uint64_t serialised = dg_monotonic_ns();
  /* Phase timings (not part of the level) for the timing line. */
  dg_timing timings[DG_TIMINGS_MAX];
  int timing_count = level->timing_count;
  memcpy(timings, level->timings, sizeof timings);
  dg_level_free(level);
  if (rc != 0) {
    cli_error("cannot serialise the level: %s", dg_strerror(rc));
    return CLI_EXIT_FAILURE;
  }
  fwrite(text, 1, length, stdout);
  if (strcmp(format, "json") == 0)
    putchar('\n');
  free(text);
  if (!quiet) {
    fprintf(stderr, "dungeon: generated in %.3f ms, serialised in %.3f ms",
            (double)(generated - started) / 1e6, (double)(serialised - generated) / 1e6);
    for (int t = 0; t < timing_count; t++)
      fprintf(stderr, "%s%s %.3f ms", t == 0 ? " (" : ", ", timings[t].name,
              (double)timings[t].ns / 1e6);
    fputs(timing_count > 0 ? ")\n" : "\n", stderr);
  }
  return fflush(stdout) == 0 ? 0 : CLI_EXIT_FAILURE;
}
