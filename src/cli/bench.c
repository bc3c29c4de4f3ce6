/* `dungeon bench`: levels per second on one core (one thread), generation
 * including metrics, and separately the JSON serialisation cost. Each figure
 * is the median of several timed runs; seeds run 1, 2, 3... so that two
 * builds measure the same levels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "progress.h"

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
       "                     [--runs N] [--roomsets DIR] [--tables DIR] [--no-compare] [--json]\n"
       "  --seconds S  length of each timed run (default 1)\n"
       "  --runs N     timed runs, at least 5 (default 5); the median is reported\n"
       "  --no-compare do not also time the same levels with params.placement=false\n"
       "               (by default every 16 levels are generated again without the\n"
       "               placement pass, both timed in thread CPU time, and both rates\n"
       "               and placement's cost are shown; with locks or one_way above 0\n"
       "               the same levels are generated again without them instead, and\n"
       "               the progression pass's cost is shown)\n"
       "  --json       one JSON object instead of the table\n"
       "After the timed runs, the levels of seeds 1 to 1000 are generated once more\n"
       "for their figures (rooms, dead ends, cycles...), stopping early when that takes\n"
       "longer than the timed runs did; the summary names the seeds it covered.\n"
       "Progress goes to stderr: one rewritten line on a terminal, a line per run\n"
       "(and every 5 s) otherwise.");
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
  /* The thread's CPU clock is a system call, not a vDSO read: taken
   * outside the wall-clock interval, and only when a CPU-time rate is
   * wanted, so the rate counts the generator and not the measuring (the
   * peers in bench/peers.py time whole loops with one clock). */
  uint64_t cpu_before = cpu_ns != NULL ? thread_cpu_ns() : 0;
  uint64_t before = dg_monotonic_ns();
  int rc = dg_generate(context, request, NULL, &level, err);
  *generation_ns += dg_monotonic_ns() - before;
  if (cpu_ns != NULL)
    *cpu_ns += thread_cpu_ns() - cpu_before;
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
 * CPU-time rates go to *cpu_placed and *cpu_unplaced; the comparison
 * serialises the same levels, untimed, for the same reason. `phases` (may be
 * NULL) collects the generator's phase timings. */
#define COMPARE_CHUNK 16

/* How many levels the next chunk of a compared run holds: up to
 * COMPARE_CHUNK, but no more than the rest of the budget at the rate so far
 * (one level to learn that rate), so a generator that takes 40 ms a level
 * is not held to 32 levels per chunk far past a short budget. */
static int compare_chunk(bool comparing, uint64_t remaining_ns, uint64_t spent_ns, long levels) {
  if (!comparing || levels == 0)
    return 1;
  uint64_t per_level_ns = spent_ns / (uint64_t)levels + 1;
  uint64_t fits = remaining_ns / per_level_ns + 1;
  return fits < COMPARE_CHUNK ? (int)fits : COMPARE_CHUNK;
}

/* Which timed run is going, for the progress line. */
typedef struct run_position {
  cli_progress *progress;
  int run, runs;
} run_position;

static int time_levels(const dg_context *context, dg_request *request, dg_request *unplaced,
                       double seconds, uint64_t *seed, phase_samples *phases, int *phase_count,
                       timed_run *out, double *cpu_placed, double *cpu_unplaced,
                       const run_position *position, dg_error *err) {
  uint64_t budget = (uint64_t)(seconds * 1e9), generation_ns = 0, cpu_ns = 0;
  uint64_t unplaced_ns = 0, unplaced_cpu_ns = 0, json_ns = 0, bytes = 0;
  uint64_t ignored_json = 0, ignored_bytes = 0;
  long levels = 0, dumped = 0, chunks = 0;
  int rc = 0;
  while (generation_ns < budget && rc == 0) {
    uint64_t first = *seed;
    int chunk = compare_chunk(unplaced != NULL, budget - generation_ns, generation_ns, levels);
    long chunk_start = levels;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
      bool placed_pass = (pass == 0) == (chunks % 2 == 0);
      for (int i = 0; i < chunk && rc == 0; i++) {
        /* Both sides serialise the same levels (outside the timing), so
         * that the caches a dump leaves to the next timed level are the
         * same on both: dumping on one side only charged that side about
         * a point of "cost" (docs/population.md, "Cost"). */
        bool dump = ((chunk_start + i + 1) & 7) == 1;
        if (placed_pass) {
          rc = time_one(context, request, first + (uint64_t)i, dump, phases, phase_count,
                        &generation_ns, unplaced != NULL ? &cpu_ns : NULL, &json_ns, &bytes, err);
          levels++;
          dumped += dump;
          cli_progress_step(position->progress, "timed run", position->run, position->runs,
                            "%ld levels, %.1f of %.1f s of generation", levels,
                            (double)generation_ns / 1e9, seconds);
        } else if (unplaced != NULL) {
          rc = time_one(context, unplaced, first + (uint64_t)i, dump, NULL, NULL, &unplaced_ns,
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

/* The command line of `dungeon bench`. */
typedef struct bench_options {
  cli_request_options request;
  double seconds;
  int runs;
  bool as_json, no_compare, help;
} bench_options;

/* Reads the command line into *options. 0 or CLI_EXIT_USAGE (the message
 * printed). */
static int parse_args(int argc, char **argv, bench_options *options) {
  *options = (bench_options){.seconds = 1.0, .runs = 5};
  for (int i = 1; i < argc; i++) {
    int taken = cli_take_request_option(argc, argv, &i, &options->request);
    if (taken < 0)
      return CLI_EXIT_USAGE;
    if (taken > 0)
      continue;
    char *end = NULL;
    if (strcmp(argv[i], "--help") == 0) {
      /* Help stops the parse where it stands, as it always has: later
       * options are not checked. */
      options->help = true;
      return 0;
    } else if (strcmp(argv[i], "--json") == 0) {
      options->as_json = true;
    } else if (strcmp(argv[i], "--no-compare") == 0) {
      options->no_compare = true;
    } else if ((strcmp(argv[i], "--seconds") == 0 || strcmp(argv[i], "--runs") == 0) &&
               i + 1 >= argc) {
      cli_error("%s needs a value", argv[i]);
      return CLI_EXIT_USAGE;
    } else if (strcmp(argv[i], "--seconds") == 0) {
      options->seconds = strtod(argv[++i], &end);
      if (*end != '\0' || !(options->seconds >= 0.05 && options->seconds <= 600)) {
        cli_error("--seconds must be a number from 0.05 to 600");
        return CLI_EXIT_USAGE;
      }
    } else if (strcmp(argv[i], "--runs") == 0) {
      options->runs = (int)strtol(argv[++i], &end, 10);
      if (*end != '\0' || options->runs < 5 || options->runs > 101) {
        cli_error("--runs must be an integer from 5 to 101");
        return CLI_EXIT_USAGE;
      }
    } else {
      cli_error("bench: unknown option '%s' (see 'dungeon bench --help')", argv[i]);
      return CLI_EXIT_USAGE;
    }
  }
  return 0;
}

/* Everything one bench measures, owned by cli_bench and freed in one place
 * (free_bench), so that a zeroed bench frees cleanly at any step. */
typedef struct bench {
  bench_options options;
  dg_request request;
  dg_context *context;
  /* Per run: rates, JSON costs and sizes; the CPU-time rates with and
   * without the compared pass (placed_rates points into unplaced_rates). */
  double *rates, *json_costs, *json_bytes, *unplaced_rates, *placed_rates;
  phase_samples phases[DG_TIMINGS_MAX];
  int phase_count;
  long total_levels;
  /* The comparison: the same request without placement, or without locks
   * and one-way doors when it asks for them (then `progression`), or
   * without population when it asks for it (then `population`). */
  bool compare, progression, population;
  const char *pass;
  dg_request unplaced;
  /* Medians and extremes over the runs. */
  double rate, rate_min, rate_max, json_us, bytes;
  double placed_rate, unplaced_rate, cost_percent;
  /* The quality figures over seeds 1 to quality_seeds. */
  int quality_seeds;
  cli_progress progress; /* the line on stderr while it measures */
  double mean_rooms, mean_double_wide, mean_dead_ends, mean_cycles, mean_corridor;
} bench;

/* The per-run sample arrays. 0 or DG_ENOMEM (the caller frees what was
 * allocated). */
static int alloc_samples(bench *b) {
  /* parse_args keeps runs within 5 to 101; through unsigned so that the
   * compiler does not see a negative int widened to a huge size. */
  size_t runs = (unsigned)b->options.runs;
  b->rates = calloc(runs, sizeof *b->rates);
  b->json_costs = calloc(runs, sizeof *b->json_costs);
  b->json_bytes = calloc(runs, sizeof *b->json_bytes);
  b->unplaced_rates = calloc(runs * 2, sizeof *b->unplaced_rates);
  if (b->rates == NULL || b->json_costs == NULL || b->json_bytes == NULL ||
      b->unplaced_rates == NULL)
    return DG_ENOMEM;
  b->placed_rates = b->unplaced_rates + runs;
  return 0;
}

static void free_bench(bench *b) {
  for (int p = 0; p < b->phase_count; p++)
    free(b->phases[p].ms);
  free(b->rates);
  free(b->unplaced_rates);
  free(b->json_costs);
  free(b->json_bytes);
  dg_context_free(b->context);
}

/* The same levels without the placement pass, timed in the same process
 * and interleaved chunk by chunk (time_levels), so that both figures see
 * the same machine load: what placement costs. A request that asks for
 * locks or one-way doors is compared with the same request without them
 * instead: what the progression pass costs. */
static void plan_compare(bench *b) {
  const dg_request *request = &b->request;
  int placement = dg_common_param(request->algorithm, DG_COMMON_PLACEMENT);
  b->population = dg_population_wanted(request->algorithm, &request->params);
  b->progression = !b->population && dg_progression_wanted(request->algorithm, &request->params);
  b->compare = !b->options.no_compare && dg_param_bool(&request->params, placement);
  b->pass = b->population ? "population" : b->progression ? "progression" : "placement";
  b->unplaced = *request;
  if (b->population) {
    b->unplaced.params.number[dg_common_param(request->algorithm, DG_COMMON_POPULATION)] = 0;
    /* A content table needs population: the pass and its picks go together. */
    b->unplaced.params.text[dg_common_param(request->algorithm, DG_COMMON_TABLE)][0] = '\0';
  } else if (b->progression) {
    b->unplaced.params.number[dg_common_param(request->algorithm, DG_COMMON_LOCKS)] = 0;
    b->unplaced.params.number[dg_common_param(request->algorithm, DG_COMMON_ONE_WAY)] = 0;
  } else {
    b->unplaced.params.number[placement] = 0;
  }
}

/* The timed runs, seeds continuing from one run to the next. 0 or the
 * failure's code with `err` filled. */
static int time_runs(bench *b, dg_error *err) {
  uint64_t seed = 1;
  int rc = 0;
  for (int run = 0; run < b->options.runs && rc == 0; run++) {
    timed_run result = {0};
    const run_position position = {&b->progress, run + 1, b->options.runs};
    rc = time_levels(b->context, &b->request, b->compare ? &b->unplaced : NULL, b->options.seconds,
                     &seed, b->phases, &b->phase_count, &result, &b->placed_rates[run],
                     &b->unplaced_rates[run], &position, err);
    b->rates[run] = result.rate;
    b->json_costs[run] = result.json_us;
    b->json_bytes[run] = result.json_bytes;
    b->total_levels += result.levels;
  }
  return rc;
}

/* Medians over the runs (this sorts the per-run arrays). Placement's cost
 * per run: the extra CPU time per level it adds, as a share of the time
 * without it (unplaced rate / placed rate - 1), then the median over runs;
 * left at 0 if its scratch array cannot be had. */
static void summarise_runs(bench *b) {
  int runs = b->options.runs;
  double *costs = calloc((unsigned)runs, sizeof *costs);
  if (b->compare && costs != NULL) {
    for (int i = 0; i < runs; i++)
      costs[i] = (b->unplaced_rates[i] / b->placed_rates[i] - 1) * 100;
    b->cost_percent = median(costs, runs);
    b->unplaced_rate = median(b->unplaced_rates, runs);
    b->placed_rate = median(b->placed_rates, runs);
  }
  free(costs);
  b->rate_min = b->rates[0];
  b->rate_max = b->rates[0];
  for (int i = 1; i < runs; i++) {
    b->rate_min = b->rates[i] < b->rate_min ? b->rates[i] : b->rate_min;
    b->rate_max = b->rates[i] > b->rate_max ? b->rates[i] : b->rate_max;
  }
  b->rate = median(b->rates, runs);
  b->json_us = median(b->json_costs, runs);
  b->bytes = median(b->json_bytes, runs);
}

/* What the levels are like, over a fixed seed range so that two styles or
 * two builds compare the same seeds: seeds 1 to QUALITY_SEEDS. Slow
 * algorithms stop early, after as long as the timed runs took; the output
 * says how many seeds were measured. 0 or the failure's code with `err`
 * filled. */
static int measure_quality(bench *b, dg_error *err) {
  uint64_t quality_stop =
      dg_monotonic_ns() + (uint64_t)(b->options.seconds * b->options.runs * 1e9);
  for (uint64_t quality_seed = 1; quality_seed <= QUALITY_SEEDS; quality_seed++) {
    if (b->quality_seeds > 0 && dg_monotonic_ns() > quality_stop)
      break;
    b->request.seed = quality_seed;
    dg_level *level = NULL;
    int rc = dg_generate(b->context, &b->request, NULL, &level, err);
    if (rc != 0)
      return rc;
    b->quality_seeds++;
    cli_progress_step(&b->progress, "quality seed", (long)quality_seed, QUALITY_SEEDS,
                      "stops after %.1f s", b->options.seconds * b->options.runs);
    b->mean_rooms += level->metrics.rooms;
    b->mean_double_wide += level->metrics.double_wide;
    b->mean_dead_ends += level->metrics.dead_ends;
    b->mean_cycles += level->metrics.cycles;
    b->mean_corridor += level->metrics.corridor_tiles;
    dg_level_free(level);
  }
  b->mean_rooms /= b->quality_seeds;
  b->mean_double_wide /= b->quality_seeds;
  b->mean_dead_ends /= b->quality_seeds;
  b->mean_cycles /= b->quality_seeds;
  b->mean_corridor /= b->quality_seeds;
  return 0;
}

/* The phase timings as a JSON object, one member per phase (this sorts the
 * samples). */
static json_t *phases_json(bench *b) {
  json_t *phase_json = json_object();
  for (int p = 0; p < b->phase_count; p++) {
    phase_samples *ph = &b->phases[p];
    double med = median(ph->ms, (int)ph->count); /* sorts the samples */
    json_object_set_new(phase_json, ph->name,
                        json_pack("{s:f,s:f,s:I}", "median_ms", med, "max_ms",
                                  ph->ms[ph->count - 1], "levels", (json_int_t)ph->count));
  }
  return phase_json;
}

/* --json: the report as one JSON object on one line. */
static void print_json(bench *b, json_t *params) {
  json_t *quality = json_pack("{s:i,s:f,s:f,s:f,s:f,s:f}", "seeds", b->quality_seeds, "mean_rooms",
                              b->mean_rooms, "mean_double_wide_corridor_tiles", b->mean_double_wide,
                              "mean_dead_ends", b->mean_dead_ends, "mean_cycles", b->mean_cycles,
                              "mean_corridor_tiles", b->mean_corridor);
  json_t *out = json_pack(
      "{s:s,s:O,s:i,s:f,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:o}", "algorithm", b->request.algorithm->name,
      "params", params, "runs", b->options.runs, "seconds_per_run", b->options.seconds, "levels",
      (json_int_t)b->total_levels, "levels_per_second_median", b->rate, "levels_per_second_min",
      b->rate_min, "levels_per_second_max", b->rate_max, "generation_us_median", 1e6 / b->rate,
      "json_us_median", b->json_us, "json_bytes_median", b->bytes, "quality", quality);
  json_object_set_new(out, "phases", phases_json(b));
  if (b->compare && !b->progression && !b->population)
    json_object_set_new(out, "placement_compare",
                        json_pack("{s:s,s:f,s:f,s:f}", "clock", "thread_cpu",
                                  "levels_per_cpu_second_with_placement_median", b->placed_rate,
                                  "levels_per_cpu_second_without_placement_median",
                                  b->unplaced_rate, "placement_cost_percent_median",
                                  b->cost_percent));
  if (b->compare && b->progression)
    json_object_set_new(out, "progression_compare",
                        json_pack("{s:s,s:f,s:f,s:f}", "clock", "thread_cpu",
                                  "levels_per_cpu_second_with_progression_median", b->placed_rate,
                                  "levels_per_cpu_second_without_progression_median",
                                  b->unplaced_rate, "progression_cost_percent_median",
                                  b->cost_percent));
  if (b->compare && b->population)
    json_object_set_new(out, "population_compare",
                        json_pack("{s:s,s:f,s:f,s:f}", "clock", "thread_cpu",
                                  "levels_per_cpu_second_with_population_median", b->placed_rate,
                                  "levels_per_cpu_second_without_population_median",
                                  b->unplaced_rate, "population_cost_percent_median",
                                  b->cost_percent));
  char *text = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  puts(text != NULL ? text : "{}");
  free(text);
  json_decref(out);
}

/* The table's comparison block: the pass on and off, and what it adds. */
static void print_compare_table(const bench *b) {
  printf("\n%-26s %-24s %-14s\n", b->pass, "levels/CPU-s median", "CPU us/level");
  printf("%-26s %-24.0f %-14.2f\n", "on (as asked)", b->placed_rate, 1e6 / b->placed_rate);
  printf("%-26s %-24.0f %-14.2f\n",
         b->population    ? "off (population=false)"
         : b->progression ? "off (locks=0, one_way=0)"
                          : "off (placement=false)",
         b->unplaced_rate, 1e6 / b->unplaced_rate);
  printf("%s adds %.1f%% to the CPU time per level (median over runs; the same "
         "seeds, interleaved every %d levels at most; --no-compare skips this)\n\n",
         b->pass, b->cost_percent, COMPARE_CHUNK);
}

/* The generator's own phases (dg_level.timings) as a table of their own,
 * one row each, e.g. the authored generator's tree_growth (this sorts the
 * samples). */
static void print_phase_table(bench *b) {
  if (b->phase_count > 0)
    printf("\n%-16s %-12s %-12s %-12s %-8s\n", "phase", "median ms", "p90 ms", "max ms", "levels");
  for (int p = 0; p < b->phase_count; p++) {
    phase_samples *ph = &b->phases[p];
    double med = median(ph->ms, (int)ph->count);
    printf("%-16s %-12.3f %-12.3f %-12.3f %-8ld\n", ph->name, med, ph->ms[(long)(ph->count * 0.9)],
           ph->ms[ph->count - 1], ph->count);
  }
  if (b->phase_count > 0)
    putchar('\n');
}

/* The default report: tables for people. */
static void print_table(bench *b, const char *params_text) {
  printf("%-10s %-8s %-14s %-14s %-14s %-14s %-12s %-10s\n", "algorithm", "runs", "levels/s med",
         "levels/s min", "levels/s max", "gen us/level", "json us", "json bytes");
  printf("%-10s %-8d %-14.0f %-14.0f %-14.0f %-14.2f %-12.2f %-10.0f\n", b->request.algorithm->name,
         b->options.runs, b->rate, b->rate_min, b->rate_max, 1e6 / b->rate, b->json_us, b->bytes);
  if (b->compare)
    print_compare_table(b);
  print_phase_table(b);
  printf("params: %s\n", params_text != NULL ? params_text : "{}");
  char scope[96];
  int width = snprintf(
      scope, sizeof scope, "quality over seeds 1-%d (%s): ", b->quality_seeds,
      b->quality_seeds < QUALITY_SEEDS ? "stopped early: the time of the timed runs" : "all");
  printf("\n%s%-12s %-18s %-10s %-8s %-14s\n", scope, "rooms/level", "double-wide/level",
         "dead ends", "cycles", "corridor tiles");
  printf("%-*s%-12.2f %-18.2f %-10.2f %-8.2f %-14.1f\n", width, "", b->mean_rooms,
         b->mean_double_wide, b->mean_dead_ends, b->mean_cycles, b->mean_corridor);
  printf("rooms/level: every room of the level (metrics.rooms)%s\n",
         strcmp(b->request.algorithm->name, "authored") == 0
             ? ", the rooms of the cycle chains included (the rooms parameter counts the tree's)"
             : "");
}

/* The report in the asked form, with the request's parameters. */
static void print_report(bench *b) {
  json_t *params = dg_params_to_json(b->request.algorithm, &b->request.params);
  char *params_text =
      json_dumps(params, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  if (b->options.as_json)
    print_json(b, params);
  else
    print_table(b, params_text);
  free(params_text);
  json_decref(params);
}

/* The timed runs, their medians, then the quality figures. 0 or the
 * failure's code with `err` filled. */
static int measure(bench *b, dg_error *err) {
  int rc = time_runs(b, err);
  if (rc != 0)
    return rc;
  summarise_runs(b);
  return measure_quality(b, err);
}

int cli_bench(int argc, char **argv) {
  bench b = {0};
  dg_error err = {0};
  int status = parse_args(argc, argv, &b.options);
  if (status != 0 || b.options.help) {
    if (b.options.help)
      usage();
    return status;
  }
  if (cli_build_request(&b.options.request, &b.request) != 0)
    return CLI_EXIT_USAGE;
  /* From here on every exit goes through `done`, which frees the bench. */
  status = CLI_EXIT_FAILURE;
  if (cli_make_context(&b.options.request, &b.context) != 0)
    goto done;
  if (alloc_samples(&b) != 0) {
    cli_error("out of memory");
    goto done;
  }
  plan_compare(&b);
  cli_progress_init(&b.progress, stderr);
  int measured = measure(&b, &err);
  cli_progress_end(&b.progress);
  if (measured != 0) {
    cli_error("generation failed: %s", err.message);
    goto done;
  }
  print_report(&b);
  status = 0;
done:
  free_bench(&b);
  return status;
}
