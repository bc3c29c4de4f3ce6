/* See include/dungeon/audit.h. Quantiles are nearest-rank on the sorted
 * values and computed in integer arithmetic, and the values are summed in
 * seed order, so an audit's figures (all but the generation times) are the
 * same bytes on every build. */
#include <stdlib.h>
#include <string.h>

#include "core/writer.h"
#include "dungeon/audit.h"
#include "dungeon/dungeon.h"

static const char *const figure_names[DG_AUDIT_FIGURES] = {
    "rooms",       "cycles", "dead_ends",    "path",
    "floor_share", "locks",  "spawn_spread", "generation_ms"};

const char *dg_audit_figure_name(dg_audit_figure figure) {
  return figure >= 0 && figure < DG_AUDIT_FIGURES ? figure_names[figure] : "";
}

/* Whether a figure holds whole numbers (its histogram bins are whole). */
static bool integral(dg_audit_figure figure) {
  return figure != DG_AUDIT_FLOOR_SHARE && figure != DG_AUDIT_GENERATION_MS;
}

void dg_audit_free(dg_audit *audit) {
  for (int f = 0; f < DG_AUDIT_FIGURES; f++) {
    free(audit->values[f]);
    audit->values[f] = NULL;
  }
}

/* Which figures apply to `request`, from its first level. */
static void choose_figures(dg_audit *audit, const dg_level *level) {
  for (int f = 0; f < DG_AUDIT_FIGURES; f++)
    audit->has[f] = true;
  audit->has[DG_AUDIT_PATH] = level->placement.placed;
  audit->has[DG_AUDIT_SPAWN_SPREAD] = level->placement.placed;
  audit->has[DG_AUDIT_FLOOR_SHARE] = level->has_grid && !level->grid_is_projection;
  audit->has[DG_AUDIT_LOCKS] = level->progression.placed;
}

static void record(dg_audit *audit, int index, const dg_level *level, double generation_ms) {
  const dg_metrics *m = &level->metrics;
  double figures[DG_AUDIT_FIGURES] = {0};
  figures[DG_AUDIT_ROOMS] = m->rooms;
  figures[DG_AUDIT_CYCLES] = m->cycles;
  figures[DG_AUDIT_DEAD_ENDS] = m->dead_ends;
  figures[DG_AUDIT_PATH] = level->placement.entrance_to_exit;
  long cells = level->has_grid ? (long)level->grid.width * level->grid.height : 0;
  figures[DG_AUDIT_FLOOR_SHARE] = cells > 0 ? (double)m->walkable_tiles / (double)cells : 0;
  figures[DG_AUDIT_LOCKS] = level->progression.locks_placed;
  figures[DG_AUDIT_SPAWN_SPREAD] =
      level->placement.spawn_distance_max - level->placement.spawn_distance_min;
  figures[DG_AUDIT_GENERATION_MS] = generation_ms;
  for (int f = 0; f < DG_AUDIT_FIGURES; f++)
    if (audit->has[f])
      audit->values[f][index] = figures[f];
  if (level->targets.set_mask != 0 && !level->target_report.met)
    audit->target_misses++;
  if (level->progression.placed &&
      level->progression.locks_placed < level->progression.locks_wanted)
    audit->locks_short++;
}

int dg_audit_run(const dg_context *context, const dg_request *request, uint64_t first_seed,
                 int seeds, dg_cancel *cancel, dg_audit_progress_fn progress, void *progress_data,
                 dg_audit *out, dg_error *err) {
  *out = (dg_audit){.algorithm = request->algorithm, .first_seed = first_seed};
  if (seeds < 1 || seeds > DG_AUDIT_SEEDS_MAX)
    return dg_error_set(err, DG_EINVAL, "seeds", "seeds must be an integer from 1 to %d",
                        DG_AUDIT_SEEDS_MAX);
  out->targets_asked = request->targets.set_mask != 0;
  dg_request one = *request;
  int rc = 0;
  for (int i = 0; i < seeds && rc == 0; i++) {
    if (cancel != NULL && (rc = dg_cancel_check(cancel)) != 0) {
      dg_error_set(err, rc, rc == DG_ETIMEDOUT ? "deadline_ms" : "",
                   "the audit stopped after %d of %d seeds: %s", i, seeds,
                   rc == DG_ETIMEDOUT ? "the deadline passed" : "cancelled");
      break;
    }
    one.seed = first_seed + (uint64_t)i;
    one.seed_given = true;
    dg_level *level = NULL;
    uint64_t started = dg_monotonic_ns();
    rc = dg_generate(context, &one, cancel, &level, err);
    if (rc != 0)
      break;
    double generation_ms = (double)(dg_monotonic_ns() - started) / 1e6;
    if (i == 0) {
      choose_figures(out, level);
      for (int f = 0; f < DG_AUDIT_FIGURES && rc == 0; f++)
        if (out->has[f] && (out->values[f] = calloc((size_t)seeds, sizeof(double))) == NULL)
          rc = dg_error_set(err, DG_ENOMEM, "", "out of memory");
    }
    if (rc == 0) {
      record(out, i, level, generation_ms);
      out->seeds = i + 1;
      if (progress != NULL)
        progress(progress_data, i + 1, seeds);
    }
    dg_level_free(level);
  }
  if (rc != 0)
    dg_audit_free(out);
  return rc;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least permille/1000 of the
 * values at or below it. */
static double quantile(const double *sorted, int count, int permille) {
  long rank = ((long)permille * count + 999) / 1000;
  return sorted[rank > 0 ? rank - 1 : 0];
}

static void put_histogram(dg_writer *w, const double *sorted, int count, int bins, bool whole) {
  double low = sorted[0], high = sorted[count - 1];
  double width;
  int used;
  if (whole) {
    long span = (long)(high - low) + 1;
    long step = (span + bins - 1) / bins;
    width = (double)step;
    used = (int)((span + step - 1) / step);
  } else {
    used = high > low ? bins : 1;
    width = high > low ? (high - low) / bins : 1;
  }
  dg_writer_literal(w, "\"histogram\":[");
  int at = 0;
  for (int b = 0; b < used; b++) {
    double from = whole ? low + (double)b * width : low + (high - low) * b / used;
    double to = whole ? from + width : (b + 1 == used ? high : low + (high - low) * (b + 1) / used);
    int in = 0;
    /* Half-open [from, to), the last bin closed: every value in one bin. */
    while (at < count && (sorted[at] < to || b + 1 == used)) {
      at++;
      in++;
    }
    if (b > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"from\":");
    dg_writer_real(w, from);
    dg_writer_literal(w, ",\"to\":");
    dg_writer_real(w, to);
    dg_writer_literal(w, ",\"count\":");
    dg_writer_int(w, in);
    dg_writer_char(w, '}');
  }
  dg_writer_char(w, ']');
}

static int put_figure(dg_writer *w, const dg_audit *audit, dg_audit_figure f, int bins,
                      bool first) {
  int count = audit->seeds;
  double *sorted = malloc((size_t)count * sizeof *sorted);
  if (sorted == NULL)
    return DG_ENOMEM;
  memcpy(sorted, audit->values[f], (size_t)count * sizeof *sorted);
  qsort(sorted, (size_t)count, sizeof *sorted, by_value);
  double sum = 0;
  for (int i = 0; i < count; i++)
    sum += audit->values[f][i];
  dg_writer_key(w, dg_audit_figure_name(f), first);
  dg_writer_literal(w, "{\"min\":");
  dg_writer_real(w, sorted[0]);
  dg_writer_literal(w, ",\"max\":");
  dg_writer_real(w, sorted[count - 1]);
  dg_writer_literal(w, ",\"mean\":");
  dg_writer_real(w, sum / count);
  static const struct {
    const char *key;
    int permille;
  } quantiles[] = {{"p10", 100}, {"p25", 250}, {"p50", 500},
                   {"p75", 750}, {"p90", 900}, {"p99", 990}};
  for (size_t q = 0; q < sizeof quantiles / sizeof quantiles[0]; q++) {
    dg_writer_key(w, quantiles[q].key, false);
    dg_writer_real(w, quantile(sorted, count, quantiles[q].permille));
  }
  dg_writer_char(w, ',');
  put_histogram(w, sorted, count, bins, integral(f));
  dg_writer_char(w, '}');
  free(sorted);
  return 0;
}

int dg_audit_dump_json(const dg_audit *audit, int bins, char **text, size_t *length) {
  if (bins < 1 || bins > DG_AUDIT_BINS_MAX || audit->seeds < 1)
    return DG_EINVAL;
  dg_writer w = {0};
  dg_writer_literal(&w, "{\"format\":\"" DG_AUDIT_FORMAT "\",\"algorithm\":");
  dg_writer_cstring(&w, audit->algorithm->name);
  dg_writer_literal(&w, ",\"seeds\":{\"first\":\"");
  dg_writer_uint(&w, audit->first_seed);
  dg_writer_literal(&w, "\",\"count\":");
  dg_writer_int(&w, audit->seeds);
  dg_writer_literal(&w, "},\"targets\":{\"asked\":");
  dg_writer_bool(&w, audit->targets_asked);
  dg_writer_literal(&w, ",\"missed\":");
  dg_writer_int(&w, audit->target_misses);
  dg_writer_literal(&w, "},\"locks_short\":");
  dg_writer_int(&w, audit->locks_short);
  dg_writer_literal(&w, ",\"figures\":{");
  bool first = true;
  int rc = 0;
  for (int f = 0; f < DG_AUDIT_FIGURES && rc == 0; f++) {
    if (!audit->has[f])
      continue;
    rc = put_figure(&w, audit, (dg_audit_figure)f, bins, first);
    first = false;
  }
  dg_writer_literal(&w, "}}\n");
  if (rc != 0) {
    free(w.text);
    return rc;
  }
  return dg_writer_take(&w, text, length);
}
