/* `dungeon bench`: levels per second on one core (one thread), generation
 * including metrics, and separately the JSON serialisation cost. Each figure
 * is the median of several timed runs; seeds run 1, 2, 3... so that two
 * builds measure the same levels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define QUALITY_SEEDS 1000

/* This thread's CPU time: the placement comparison measures with it, since
 * on a shared machine a thread descheduled for a few milliseconds would
 * swing a wall-clock ratio of 16-level chunks by tens of percent. */
static uint64_t thread_cpu_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void usage(void) {
  puts("usage: dungeon bench [--algorithm NAME] [--param name=value ...] [--seconds S]\n"
       "                     [--runs N] [--roomsets DIR] [--no-compare] [--json]\n"
       "  --seconds S  length of each timed run (default 1)\n"
       "  --runs N     timed runs, at least 5 (default 5); the median is reported\n"
       "  --no-compare do not also time the same levels with params.placement=false\n"
       "               (by default every 16 levels are generated again without the\n"
       "               placement pass, both timed in thread CPU time, and both rates\n"
       "               and placement's cost are shown; with locks or one_way above 0\n"
       "               the same levels are generated again without them instead, and\n"
       "               the progression pass's cost is shown)\n"
       "  --json       one JSON object instead of the table");
}

/* Per-level wall-clock samples of each phase a generator times
 * (dg_level.timings), e.g. the authored generator's "tree_growth". */
typedef struct phase_samples {
  const char *name; /* static, from the level */
  double *ms;       /* one sample per level, milliseconds */
  long count, capacity;
} phase_samples;

/* Appends the level's phase timings to their samples. 0 or DG_ENOMEM. */
static int record_phases(phase_samples *phases, int *phase_count, const dg_level *level) {
  for (int t = 0; t < level->timing_count; t++) {
    int p = 0;
    while (p < *phase_count && strcmp(phases[p].name, level->timings[t].name) != 0)
      p++;
    if (p == *phase_count) {
      if (p == DG_TIMINGS_MAX)
        continue;
      phases[(*phase_count)++] = (phase_samples){level->timings[t].name, NULL, 0, 0};
    }
    phase_samples *ph = &phases[p];
    if (ph->count == ph->capacity) {
      long grown = ph->capacity ? ph->capacity * 2 : 256;
      double *bigger = realloc(ph->ms, (size_t)grown * sizeof *bigger);
      if (bigger == NULL)
        return DG_ENOMEM;
      ph->ms = bigger;
      ph->capacity = grown;
    }
    ph->ms[ph->count++] = (double)level->timings[t].ns / 1e6;
  }
  return 0;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *values, int count) {
  qsort(values, (size_t)count, sizeof *values, by_value);
  return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* What one timed run measured. */
typedef struct timed_run {
  long levels;       /* levels generated */
  double rate;       /* levels per second of generation (serialisation excluded) */
  double json_us;    /* mean serialisation time of the levels dumped */
  double json_bytes; /* mean size of their JSON */
} timed_run;

/* Generates one level and measures it (wall clock and thread CPU time);
 * serialises it too (timed apart) when `dump`. 0 or the failure's code with
 * `err` filled. */
static int time_one(const dg_context *context, dg_request *request, uint64_t seed, bool dump,
                    phase_samples *phases, int *phase_count, uint64_t *generation_ns,
                    uint64_t *cpu_ns, uint64_t *json_ns, uint64_t *bytes, dg_error *err) {
  request->seed = seed;
  request->seed_given = true;
  dg_level *level = NULL;
  uint64_t before = dg_monotonic_ns(), cpu_before = thread_cpu_ns();
  int rc = dg_generate(context, request, NULL, &level, err);
  *cpu_ns += thread_cpu_ns() - cpu_before;
  *generation_ns += dg_monotonic_ns() - before;
  if (rc != 0)
    return rc;
  if (phases != NULL && record_phases(phases, phase_count, level) != 0)
    rc = dg_error_set(err, DG_ENOMEM, "", "out of memory");
  if (rc == 0 && dump) {
    char *text = NULL;
    size_t length = 0;
    uint64_t start = dg_monotonic_ns();
    rc = dg_level_dump_json(level, &text, &length);
    *json_ns += dg_monotonic_ns() - start;
    *bytes += length;
    free(text);
  }
  dg_level_free(level);
  return rc;
}

/* Generates levels from seed *seed on (advanced past the last one used)
 * until `seconds` of generation have passed, serialising one level in eight
 * apart from the timing (and the first, so that slow generators still
 * report a JSON cost). With `unplaced` (may be NULL) every chunk of levels
 * is generated again from the same seeds without the placement pass (which
 * goes first alternates), both also timed in thread CPU time: their
 * CPU-time rates go to *cpu_placed and *cpu_unplaced. `phases` (may be
 * NULL) collects the generator's phase timings. */
#define COMPARE_CHUNK 16
static int time_levels(const dg_context *context, dg_request *request, dg_request *unplaced,
                       double seconds, uint64_t *seed, phase_samples *phases, int *phase_count,
                       timed_run *out, double *cpu_placed, double *cpu_unplaced, dg_error *err) {
  uint64_t budget = (uint64_t)(seconds * 1e9), generation_ns = 0, cpu_ns = 0;
  uint64_t unplaced_ns = 0, unplaced_cpu_ns = 0, json_ns = 0, bytes = 0;
  uint64_t ignored_json = 0, ignored_bytes = 0;
  long levels = 0, dumped = 0, chunks = 0;
  int rc = 0;
  while (generation_ns < budget && rc == 0) {
    uint64_t first = *seed;
    int chunk = unplaced != NULL ? COMPARE_CHUNK : 1;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
      bool placed_pass = (pass == 0) == (chunks % 2 == 0);
      for (int i = 0; i < chunk && rc == 0; i++) {
        if (placed_pass) {
          bool dump = ((levels + 1) & 7) == 1;
          rc = time_one(context, request, first + (uint64_t)i, dump, phases, phase_count,
                        &generation_ns, &cpu_ns, &json_ns, &bytes, err);
          levels++;
          dumped += dump;
        } else if (unplaced != NULL) {
          rc = time_one(context, unplaced, first + (uint64_t)i, false, NULL, NULL, &unplaced_ns,
                        &unplaced_cpu_ns, &ignored_json, &ignored_bytes, err);
        }
      }
    }
    *seed = first + (uint64_t)chunk;
    chunks++;
  }
  out->levels = levels;
  out->rate = (double)levels / ((double)generation_ns / 1e9);
  out->json_us = dumped > 0 ? (double)json_ns / (double)dumped / 1e3 : 0;
  out->json_bytes = dumped > 0 ? (double)bytes / (double)dumped : 0;
  if (unplaced != NULL) {
    *cpu_placed = (double)levels / ((double)cpu_ns / 1e9);
    *cpu_unplaced = (double)levels / ((double)unplaced_cpu_ns / 1e9);
  }
  return rc;
}

int cli_bench(int argc, char **argv) {
  cli_request_options options = {0};
  double seconds = 1.0;
  int runs = 5;
  bool as_json = false, no_compare = false;
  for (int i = 1; i < argc; i++) {
    int taken = cli_take_request_option(argc, argv, &i, &options);
    if (taken < 0)
      return CLI_EXIT_USAGE;
    if (taken > 0)
      continue;
    char *end = NULL;
    if (strcmp(argv[i], "--help") == 0) {
      usage();
      return 0;
    } else if (strcmp(argv[i], "--json") == 0) {
      as_json = true;
    } else if (strcmp(argv[i], "--no-compare") == 0) {
      no_compare = true;
    } else if ((strcmp(argv[i], "--seconds") == 0 || strcmp(argv[i], "--runs") == 0) &&
               i + 1 >= argc) {
      cli_error("%s needs a value", argv[i]);
      return CLI_EXIT_USAGE;
    } else if (strcmp(argv[i], "--seconds") == 0) {
      seconds = strtod(argv[++i], &end);
      if (*end != '\0' || !(seconds >= 0.05 && seconds <= 600)) {
        cli_error("--seconds must be a number from 0.05 to 600");
        return CLI_EXIT_USAGE;
      }
    } else if (strcmp(argv[i], "--runs") == 0) {
      runs = (int)strtol(argv[++i], &end, 10);
      if (*end != '\0' || runs < 5 || runs > 101) {
        cli_error("--runs must be an integer from 5 to 101");
        return CLI_EXIT_USAGE;
      }
    } else {
      cli_error("bench: unknown option '%s' (see 'dungeon bench --help')", argv[i]);
      return CLI_EXIT_USAGE;
    }
  }
  dg_request request;
  if (cli_build_request(&options, &request) != 0)
    return CLI_EXIT_USAGE;
  dg_context *context = NULL;
  if (cli_make_context(&options, &context) != 0)
    return CLI_EXIT_FAILURE;
  double *rates = calloc((size_t)runs, sizeof *rates);
  double *json_costs = calloc((size_t)runs, sizeof *json_costs);
  double *json_bytes = calloc((size_t)runs, sizeof *json_bytes);
  if (rates == NULL || json_costs == NULL || json_bytes == NULL) {
    cli_error("out of memory");
    dg_context_free(context);
    return CLI_EXIT_FAILURE;
  }
  phase_samples phases[DG_TIMINGS_MAX];
  int phase_count = 0;
  uint64_t seed = 1;
  long total_levels = 0;
  int rc = 0;
  dg_error err = {0};
  /* The same levels without the placement pass, timed in the same process
   * and interleaved chunk by chunk (time_levels), so that both figures see
   * the same machine load: what placement costs. A request that asks for
   * locks or one-way doors is compared with the same request without them
   * instead: what the progression pass costs. */
  int placement = dg_common_param(request.algorithm, DG_COMMON_PLACEMENT);
  bool progression = dg_progression_wanted(request.algorithm, &request.params);
  bool compare = !no_compare && dg_param_bool(&request.params, placement);
  const char *pass = progression ? "progression" : "placement";
  dg_request unplaced = request;
  if (progression) {
    unplaced.params.number[dg_common_param(request.algorithm, DG_COMMON_LOCKS)] = 0;
    unplaced.params.number[dg_common_param(request.algorithm, DG_COMMON_ONE_WAY)] = 0;
  } else {
    unplaced.params.number[placement] = 0;
  }
  double *unplaced_rates = calloc((size_t)runs * 2, sizeof *unplaced_rates);
  double *placed_rates = unplaced_rates != NULL ? unplaced_rates + runs : NULL;
  if (unplaced_rates == NULL) {
    cli_error("out of memory");
    free(rates);
    free(unplaced_rates);
    free(json_costs);
    free(json_bytes);
    dg_context_free(context);
    return CLI_EXIT_FAILURE;
  }
  for (int run = 0; run < runs && rc == 0; run++) {
    timed_run result = {0};
    rc = time_levels(context, &request, compare ? &unplaced : NULL, seconds, &seed, phases,
                     &phase_count, &result, &placed_rates[run], &unplaced_rates[run], &err);
    rates[run] = result.rate;
    json_costs[run] = result.json_us;
    json_bytes[run] = result.json_bytes;
    total_levels += result.levels;
  }
  if (rc != 0) {
    cli_error("generation failed: %s", err.message);
    for (int p = 0; p < phase_count; p++)
      free(phases[p].ms);
    free(rates);
    free(unplaced_rates);
    free(json_costs);
    free(json_bytes);
    dg_context_free(context);
    return CLI_EXIT_FAILURE;
  }
  /* Placement's cost per run: the extra CPU time per level it adds, as a
   * share of the time without it (unplaced rate / placed rate - 1), then
   * the median over runs. */
  double *costs = calloc((size_t)runs, sizeof *costs);
  double unplaced_rate = 0, placed_rate = 0, cost_percent = 0;
  if (compare && costs != NULL) {
    for (int i = 0; i < runs; i++)
      costs[i] = (unplaced_rates[i] / placed_rates[i] - 1) * 100;
    cost_percent = median(costs, runs);
    unplaced_rate = median(unplaced_rates, runs);
    placed_rate = median(placed_rates, runs);
  }
  free(costs);
  double rate_min = rates[0], rate_max = rates[0];
  for (int i = 1; i < runs; i++) {
    rate_min = rates[i] < rate_min ? rates[i] : rate_min;
    rate_max = rates[i] > rate_max ? rates[i] : rate_max;
  }
  double rate = median(rates, runs), json_us = median(json_costs, runs);
  double bytes = median(json_bytes, runs);
  /* What the levels are like, over a fixed seed range so that two styles or
   * two builds compare the same seeds: seeds 1 to QUALITY_SEEDS. */
  double mean_rooms = 0, mean_double_wide = 0, mean_dead_ends = 0, mean_cycles = 0,
         mean_corridor = 0;
  /* Slow algorithms stop early, after as long as the timed runs took; the
   * output says how many seeds were measured. */
  uint64_t quality_stop = dg_monotonic_ns() + (uint64_t)(seconds * runs * 1e9);
  int quality_seeds = 0;
  for (uint64_t quality_seed = 1; quality_seed <= QUALITY_SEEDS; quality_seed++) {
    if (quality_seeds > 0 && dg_monotonic_ns() > quality_stop)
      break;
    request.seed = quality_seed;
    dg_level *level = NULL;
    if (dg_generate(context, &request, NULL, &level, &err) != 0) {
      cli_error("generation failed: %s", err.message);
      for (int p = 0; p < phase_count; p++)
        free(phases[p].ms);
      free(rates);
      free(unplaced_rates);
      free(json_costs);
      free(json_bytes);
      dg_context_free(context);
      return CLI_EXIT_FAILURE;
    }
    quality_seeds++;
    mean_rooms += level->metrics.rooms;
    mean_double_wide += level->metrics.double_wide;
    mean_dead_ends += level->metrics.dead_ends;
    mean_cycles += level->metrics.cycles;
    mean_corridor += level->metrics.corridor_tiles;
    dg_level_free(level);
  }
  mean_rooms /= quality_seeds;
  mean_double_wide /= quality_seeds;
  mean_dead_ends /= quality_seeds;
  mean_cycles /= quality_seeds;
  mean_corridor /= quality_seeds;
  json_t *params = dg_params_to_json(request.algorithm, &request.params);
  char *params_text =
      json_dumps(params, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  if (as_json) {
    json_t *quality =
        json_pack("{s:i,s:f,s:f,s:f,s:f,s:f}", "seeds", quality_seeds, "mean_rooms", mean_rooms,
                  "mean_double_wide_corridor_tiles", mean_double_wide, "mean_dead_ends",
                  mean_dead_ends, "mean_cycles", mean_cycles, "mean_corridor_tiles", mean_corridor);
    json_t *out = json_pack(
        "{s:s,s:O,s:i,s:f,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:o}", "algorithm", request.algorithm->name,
        "params", params, "runs", runs, "seconds_per_run", seconds, "levels",
        (json_int_t)total_levels, "levels_per_second_median", rate, "levels_per_second_min",
        rate_min, "levels_per_second_max", rate_max, "generation_us_median", 1e6 / rate,
        "json_us_median", json_us, "json_bytes_median", bytes, "quality", quality);
    json_t *phase_json = json_object();
    for (int p = 0; p < phase_count; p++) {
      double med = median(phases[p].ms, (int)phases[p].count); /* sorts the samples */
      json_object_set_new(phase_json, phases[p].name,
                          json_pack("{s:f,s:f,s:I}", "median_ms", med, "max_ms",
                                    phases[p].ms[phases[p].count - 1], "levels",
                                    (json_int_t)phases[p].count));
    }
    json_object_set_new(out, "phases", phase_json);
    if (compare && !progression)
      json_object_set_new(out, "placement_compare",
                          json_pack("{s:s,s:f,s:f,s:f}", "clock", "thread_cpu",
                                    "levels_per_cpu_second_with_placement_median", placed_rate,
                                    "levels_per_cpu_second_without_placement_median", unplaced_rate,
                                    "placement_cost_percent_median", cost_percent));
    if (compare && progression)
      json_object_set_new(out, "progression_compare",
                          json_pack("{s:s,s:f,s:f,s:f}", "clock", "thread_cpu",
                                    "levels_per_cpu_second_with_progression_median", placed_rate,
                                    "levels_per_cpu_second_without_progression_median",
                                    unplaced_rate, "progression_cost_percent_median",
                                    cost_percent));
    char *text = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    puts(text != NULL ? text : "{}");
    free(text);
    json_decref(out);
  } else {
    printf("%-10s %-8s %-14s %-14s %-14s %-14s %-12s %-10s\n", "algorithm", "runs", "levels/s med",
           "levels/s min", "levels/s max", "gen us/level", "json us", "json bytes");
    printf("%-10s %-8d %-14.0f %-14.0f %-14.0f %-14.2f %-12.2f %-10.0f\n", request.algorithm->name,
           runs, rate, rate_min, rate_max, 1e6 / rate, json_us, bytes);
    if (compare) {
      printf("\n%-26s %-24s %-14s\n", pass, "levels/CPU-s median", "CPU us/level");
      printf("%-26s %-24.0f %-14.2f\n", "on (as asked)", placed_rate, 1e6 / placed_rate);
      printf("%-26s %-24.0f %-14.2f\n",
             progression ? "off (locks=0, one_way=0)" : "off (placement=false)", unplaced_rate,
             1e6 / unplaced_rate);
      printf("%s adds %.1f%% to the CPU time per level (median over runs; the same "
             "seeds, interleaved every %d levels; --no-compare skips this)\n\n",
             pass, cost_percent, COMPARE_CHUNK);
    }
    /* The generator's own phases (dg_level.timings) as a table of their
     * own, one row each, e.g. the authored generator's tree_growth. */
    if (phase_count > 0)
      printf("\n%-16s %-12s %-12s %-12s %-8s\n", "phase", "median ms", "p90 ms", "max ms",
             "levels");
    for (int p = 0; p < phase_count; p++) {
      double med = median(phases[p].ms, (int)phases[p].count);
      printf("%-16s %-12.3f %-12.3f %-12.3f %-8ld\n", phases[p].name, med,
             phases[p].ms[(long)(phases[p].count * 0.9)], phases[p].ms[phases[p].count - 1],
             phases[p].count);
    }
    if (phase_count > 0)
      putchar('\n');
    printf("params: %s\n", params_text != NULL ? params_text : "{}");
    printf("\nover seeds 1-%d: %-12s %-18s %-10s %-8s %-14s\n", quality_seeds, "mean rooms",
           "mean double-wide", "dead ends", "cycles", "corridor tiles");
    printf("%-19s %-12.2f %-18.2f %-10.2f %-8.2f %-14.1f\n", "", mean_rooms, mean_double_wide,
           mean_dead_ends, mean_cycles, mean_corridor);
  }
  for (int p = 0; p < phase_count; p++)
    free(phases[p].ms);
  free(params_text);
  json_decref(params);
  free(rates);
  free(unplaced_rates);
  free(json_costs);
  free(json_bytes);
  dg_context_free(context);
  return 0;
}
