/* dg_generate: the one entry point. Checks the request, lets the algorithm
 * fill a fresh level, runs the shared passes (placement: stairs, spawns;
 * progression: locks and keys; population: budgets), computes the shared
 * metrics, and hands the level over; with structural
 * targets it tries seed-derived candidates and keeps the first that meets
 * them (or the best, saying what it missed).
 * Also the library version. The context's lifecycle is in model/context.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "model/table.h"
#include "passes/placement.h"
#include "passes/population.h"
#include "passes/progression.h"

const char *dg_version(void) {
  return DUNGEON_VERSION;
}

/* The content table params.table names, from `context`, into *out (NULL
 * when none is named). An unknown name is DG_ENOENT on params.table,
 * listing the loaded ones. */
static int find_table(const dg_context *context, const dg_request *request, const dg_table **out,
                      dg_error *err) {
  const char *name =
      dg_param_string(&request->params, dg_common_param(request->algorithm, DG_COMMON_TABLE));
  *out = NULL;
  if (name[0] == '\0')
    return 0;
  if ((*out = dg_context_find_table(context, name)) != NULL)
    return 0;
  char known[160] = "";
  for (int i = 0; i < dg_context_table_count(context); i++) {
    dg_table_info info;
    dg_context_table_info(context, i, &info);
    size_t at = strlen(known);
    snprintf(known + at, sizeof known - at, "%s%s", at ? ", " : "", info.name);
  }
  return dg_error_set(err, DG_ENOENT, "params.table", "unknown table '%s'; known: %s", name,
                      known[0] ? known : "(none loaded)");
}

/* One candidate: the generator, then the shared placement pass, then the
 * metrics (which see the stairs and any connection dug for them). */
static int generate_one(const dg_context *context, const dg_request *request, dg_cancel *cancel,
                        dg_level **out, dg_error *err) {
  dg_level *level = NULL;
  const dg_table *table = NULL;
  int rc = find_table(context, request, &table, err);
  if (rc != 0)
    return rc;
  rc = dg_level_new(request, &level);
  if (rc != 0)
    return dg_error_set(err, rc, "", "out of memory");
  level->population.table = table;
  if (table != NULL)
    memcpy(level->table_sha256, table->sha256, sizeof level->table_sha256);
  rc = request->algorithm->generate(context, request, cancel, level, err);
  /* The passes take no dg_cancel: it is polled between them. */
  if (rc == 0 && (rc = dg_cancel_check(cancel)) != 0)
    dg_error_from_code(err, rc);
  if (rc == 0) {
    rc = dg_placement_run(level, err);
    if (rc == 0 && (rc = dg_cancel_check(cancel)) != 0)
      dg_error_from_code(err, rc);
    dg_rng progression_rng;
    dg_rng_seed(&progression_rng, level->seed, DG_STREAM_PROGRESSION);
    uint64_t started = dg_monotonic_ns();
    if (rc == 0)
      rc = dg_pass_progression(level, request, &progression_rng, err);
    free(level->trace_passages); /* the pass was its only reader */
    level->trace_passages = NULL;
    level->trace_passage_count = 0;
    if (rc == 0 && (rc = dg_cancel_check(cancel)) != 0)
      dg_error_from_code(err, rc);
    /* The pass's own wall-clock time, for `dungeon bench` and the CLI's
     * stderr (never in the level), when it ran. */
    if (rc == 0 && level->progression.placed)
      dg_level_set_timing(level, "progression", dg_monotonic_ns() - started);
    dg_rng population_rng;
    dg_rng_seed(&population_rng, level->seed, DG_STREAM_POPULATION);
    started = dg_monotonic_ns();
    if (rc == 0)
      rc = dg_pass_population(level, request, &population_rng, err);
    if (rc == 0 && (rc = dg_cancel_check(cancel)) != 0)
      dg_error_from_code(err, rc);
    /* Borrowed for the pass only: a level may outlive the context its
     * table came from (a reload). */
    level->population.table = NULL;
    free(level->walk_distances);
    level->walk_distances = NULL;
    if (rc == 0 && level->population.placed)
      dg_level_set_timing(level, "population", dg_monotonic_ns() - started);
  } else if (err != NULL && err->code == 0) {
    dg_error_from_code(err, rc);
  }
  if (rc == 0 && (rc = dg_level_compute_metrics(level, cancel)) != 0)
    dg_error_from_code(err, rc);
  if (rc != 0) {
    dg_level_free(level);
    return rc;
  }
  *out = level;
  return 0;
}

/* The figure target `id` is about, from a finished candidate. */
static int achieved(const dg_level *level, int id) {
  switch (id) {
  case DG_TARGET_PATH_MIN:
  case DG_TARGET_PATH_MAX: return level->placement.entrance_to_exit;
  case DG_TARGET_CYCLES_MIN:
  case DG_TARGET_CYCLES_MAX: return level->metrics.cycles;
  case DG_TARGET_DEAD_ENDS_MIN:
  case DG_TARGET_DEAD_ENDS_MAX: return level->metrics.dead_ends;
  case DG_TARGET_ROOMS_MIN:
  case DG_TARGET_ROOMS_MAX: return level->metrics.rooms;
  case DG_TARGET_LOCKS_MIN:
  case DG_TARGET_LOCKS_MAX: return level->progression.locks_placed;
  default: return level->placement.spawn_distance_max - level->placement.spawn_distance_min;
  }
}

/* Scores a candidate: fills the report's figures and misses; *shortfall
 * sums each miss relative to its bound, to rank candidates that miss. */
static void evaluate(const dg_level *level, const dg_targets *targets, dg_target_report *report,
                     double *shortfall) {
  report->missed_mask = 0;
  *shortfall = 0;
  for (int id = 0; id < DG_TARGET_COUNT; id++) {
    if (!(targets->set_mask & (1u << id)))
      continue;
    int value = achieved(level, id), bound = targets->value[id];
    bool is_min = id == DG_TARGET_PATH_MIN || id == DG_TARGET_CYCLES_MIN ||
                  id == DG_TARGET_DEAD_ENDS_MIN || id == DG_TARGET_ROOMS_MIN ||
                  id == DG_TARGET_LOCKS_MIN;
    int miss = is_min ? bound - value : value - bound;
    report->achieved[id] = value;
    if (miss > 0) {
      report->missed_mask |= 1u << id;
      *shortfall += (double)miss / (bound > 0 ? bound : 1);
    }
  }
  report->met = report->missed_mask == 0;
}

static int popcount(uint32_t bits) {
  int count = 0;
  for (; bits != 0; bits &= bits - 1)
    count++;
  return count;
}

/* Structural targets: candidate i uses the seed derived from the request's
 * seed and i (candidate 0 is the request's seed itself), in that fixed
 * order; the first that meets every target is kept, else the one missing
 * the fewest (then the least, then the earliest). A deadline or a
 * cancellation fails the whole request, so the answer never depends on how
 * fast the machine was. */
static int generate_with_targets(const dg_context *context, const dg_request *request,
                                 dg_cancel *cancel, dg_level **out, dg_error *err) {
  const dg_targets *targets = &request->targets;
  int attempts_max = targets->attempts_max > 0 ? targets->attempts_max : DG_TARGET_ATTEMPTS_DEFAULT;
  dg_level *best = NULL;
  dg_target_report best_report = {0};
  double best_shortfall = 0;
  int attempts = 0, rc = 0;
  for (int i = 0; i < attempts_max; i++) {
    if (i > 0 && (rc = dg_cancel_check(cancel)) != 0) {
      dg_error_from_code(err, rc);
      break;
    }
    dg_request candidate = *request;
    candidate.seed = dg_seed_derive(request->seed, DG_DERIVE_TARGET_ATTEMPT, (uint64_t)i);
    dg_level *level = NULL;
    if ((rc = generate_one(context, &candidate, cancel, &level, err)) != 0)
      break;
    attempts++;
    dg_target_report report = {.chosen = i, .seed = candidate.seed};
    double shortfall;
    evaluate(level, targets, &report, &shortfall);
    bool better = best == NULL ||
                  popcount(report.missed_mask) < popcount(best_report.missed_mask) ||
                  (popcount(report.missed_mask) == popcount(best_report.missed_mask) &&
                   shortfall < best_shortfall);
    if (better) {
      dg_level_free(best);
      best = level;
      best_report = report;
      best_shortfall = shortfall;
    } else {
      dg_level_free(level);
    }
    if (best_report.met)
      break;
  }
  if (rc != 0) {
    dg_level_free(best);
    return rc;
  }
  best_report.attempts = attempts;
  best->seed = request->seed; /* the level answers the request as asked */
  best->target_report = best_report;
  *out = best;
  return 0;
}

int dg_generate(const dg_context *context, const dg_request *request, dg_cancel *cancel,
                dg_level **out, dg_error *err) {
  if (request == NULL || request->algorithm == NULL)
    return dg_error_set(err, DG_EINVAL, "algorithm", "algorithm is required");
  if (!request->seed_given)
    return dg_error_set(err, DG_EINVAL, "seed", "seed is required");
  /* The request is a plain struct a caller may have filled by hand: check
   * every value against its table before any generator trusts it. */
  int rc = dg_params_check(request->algorithm, &request->params, err);
  if (rc == 0)
    rc = dg_request_validate(request, err);
  if (rc != 0)
    return rc;
  if (request->targets.set_mask != 0)
    return generate_with_targets(context, request, cancel, out, err);
  return generate_one(context, request, cancel, out, err);
}
