/* `dungeon audit`: one request over many seeds, per figure its quantiles
 * and a histogram (include/dungeon/audit.h), as a table or as
 * dungeond.audit/1 JSON, with progress on stderr while it runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "progress.h"

static void usage(void) {
  puts(
      "usage: dungeon audit [--algorithm NAME] [--param name=value ...] [--target name=value ...]\n"
      "                     [--seeds N | --seeds FIRST-LAST] [--bins B] [--roomsets DIR] [--json]\n"
      "  --seeds N        seeds 1 to N (default 100); FIRST-LAST for another range\n"
      "                   (at most 100000 seeds)\n"
      "  --bins B         histogram bins, 1 to 64 (default 10)\n"
      "  --json           dungeond.audit/1 JSON instead of the table\n"
      "Per figure (rooms, cycles, dead ends, entrance-exit path, floor share, locks\n"
      "placed, spawn spread, generation ms): min, p10, p50, p90, p99, max and mean,\n"
      "and how many levels missed their targets. Progress goes to stderr.");
}

typedef struct audit_options {
  cli_request_options request;
  uint64_t first_seed;
  long seeds, bins;
  bool as_json, help;
} audit_options;

/* "N" or "FIRST-LAST" into first and count; false when neither. */
static bool parse_seeds(const char *text, uint64_t *first, long *count) {
  char *end = NULL;
  unsigned long long a = strtoull(text, &end, 10);
  if (end == text || text[0] == '-')
    return false;
  if (*end == '\0') {
    *first = 1;
    *count = a > DG_AUDIT_SEEDS_MAX + 1ull ? DG_AUDIT_SEEDS_MAX + 1 : (long)a;
    return true;
  }
  if (*end != '-' || end[1] < '0' || end[1] > '9')
    return false;
  char *last_end = NULL;
  unsigned long long b = strtoull(end + 1, &last_end, 10);
  if (*last_end != '\0' || b < a)
    return false;
  *first = a;
  *count = b - a >= DG_AUDIT_SEEDS_MAX ? DG_AUDIT_SEEDS_MAX + 1 : (long)(b - a + 1);
  return true;
}

static const char *option_value(int argc, char **argv, int *i, const char *name) {
  size_t length = strlen(name);
  if (strncmp(argv[*i], name, length) == 0 && argv[*i][length] == '=')
    return argv[*i] + length + 1;
  return *i + 1 < argc ? argv[++*i] : NULL;
}

static int parse_args(int argc, char **argv, audit_options *options) {
  *options = (audit_options){.first_seed = 1, .seeds = 100, .bins = DG_AUDIT_BINS_DEFAULT};
  for (int i = 1; i < argc; i++) {
    int taken = cli_take_request_option(argc, argv, &i, &options->request);
    if (taken < 0)
      return CLI_EXIT_USAGE;
    if (taken > 0)
      continue;
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      options->help = true;
    } else if (strcmp(arg, "--json") == 0) {
      options->as_json = true;
    } else if (strcmp(arg, "--seeds") == 0 || strncmp(arg, "--seeds=", 8) == 0) {
      const char *value = option_value(argc, argv, &i, "--seeds");
      if (value == NULL || !parse_seeds(value, &options->first_seed, &options->seeds) ||
          options->seeds < 1 || options->seeds > DG_AUDIT_SEEDS_MAX) {
        cli_error("--seeds must be N (1 to %d) or FIRST-LAST (at most %d seeds), not '%s'",
                  DG_AUDIT_SEEDS_MAX, DG_AUDIT_SEEDS_MAX, value != NULL ? value : "");
        return CLI_EXIT_USAGE;
      }
    } else if (strcmp(arg, "--bins") == 0 || strncmp(arg, "--bins=", 7) == 0) {
      const char *value = option_value(argc, argv, &i, "--bins");
      char *end = NULL;
      options->bins = value != NULL ? strtol(value, &end, 10) : 0;
      if (value == NULL || end == value || *end != '\0' || options->bins < 1 ||
          options->bins > DG_AUDIT_BINS_MAX) {
        cli_error("--bins must be an integer from 1 to %d", DG_AUDIT_BINS_MAX);
        return CLI_EXIT_USAGE;
      }
    } else {
      cli_error("unknown option '%s' (see dungeon audit --help)", arg);
      return CLI_EXIT_USAGE;
    }
  }
  return 0;
}

/* In twentieths of the run, so that a thousand fast seeds are twenty lines
 * in a log, not a thousand; the note names the seeds done. */
static void on_level(void *data, int done, int total) {
  cli_progress_step(data, "audit", (long)done * 20 / total, 20, "%d of %d seeds", done, total);
}

/* The table for people, from the JSON the library wrote (one source of
 * truth for the quantiles). */
static void print_table(const char *text) {
  json_t *doc = json_loads(text, 0, NULL);
  if (doc == NULL)
    return;
  const json_t *seeds = json_object_get(doc, "seeds");
  printf("%s over seeds %s-%lld (%lld levels)\n",
         json_string_value(json_object_get(doc, "algorithm")),
         json_string_value(json_object_get(seeds, "first")),
         strtoll(json_string_value(json_object_get(seeds, "first")), NULL, 10) +
             json_integer_value(json_object_get(seeds, "count")) - 1,
         json_integer_value(json_object_get(seeds, "count")));
  printf("%-14s %10s %10s %10s %10s %10s %10s %10s\n", "figure", "min", "p10", "p50", "p90", "p99",
         "max", "mean");
  const char *name;
  json_t *figure;
  json_object_foreach(json_object_get(doc, "figures"), name, figure) {
    printf("%-14s", name);
    static const char *const keys[] = {"min", "p10", "p50", "p90", "p99", "max", "mean"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
      printf(" %10.4g", json_number_value(json_object_get(figure, keys[k])));
    printf("\n");
  }
  const json_t *targets = json_object_get(doc, "targets");
  if (json_is_true(json_object_get(targets, "asked")))
    printf("targets missed by %lld of the levels\n",
           json_integer_value(json_object_get(targets, "missed")));
  if (json_object_get(json_object_get(doc, "figures"), "locks") != NULL)
    printf("fewer locks than asked in %lld of the levels\n",
           json_integer_value(json_object_get(doc, "locks_short")));
  json_decref(doc);
}

int cli_audit(int argc, char **argv) {
  audit_options options;
  int status = parse_args(argc, argv, &options);
  if (status != 0 || options.help) {
    if (options.help)
      usage();
    return status;
  }
  if (options.request.seed != NULL) {
    cli_error("audit takes --seeds (a count or a range), not --seed");
    return CLI_EXIT_USAGE;
  }
  dg_request request;
  if (cli_build_request(&options.request, &request) != 0)
    return CLI_EXIT_USAGE;
  dg_context *context = NULL;
  if (cli_make_context(&options.request, &context) != 0)
    return CLI_EXIT_FAILURE;
  cli_progress progress;
  cli_progress_init(&progress, stderr);
  dg_audit audit = {0};
  dg_error err = {0};
  char *text = NULL;
  status = CLI_EXIT_FAILURE;
  int rc = dg_audit_run(context, &request, options.first_seed, (int)options.seeds, NULL, on_level,
                        &progress, &audit, &err);
  cli_progress_end(&progress);
  if (rc != 0) {
    cli_error("audit failed: %s", err.message);
    goto done;
  }
  if (dg_audit_dump_json(&audit, (int)options.bins, &text, NULL) != 0) {
    cli_error("out of memory");
    goto done;
  }
  if (options.as_json)
    fputs(text, stdout);
  else
    print_table(text);
  status = 0;
done:
  free(text);
  dg_audit_free(&audit);
  dg_context_free(context);
  return status;
}
