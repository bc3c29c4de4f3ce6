/* Distributions over many seeds (issue 25 item 4): one request generated for
 * seeds first..first + count - 1, and per figure (rooms, cycles, dead ends,
 * entrance-exit walk, floor share, locks placed, spawn spread, generation
 * time) every value, its quantiles and a histogram. Designers tune a
 * profile or a parameter set against these instead of stepping seeds by
 * hand. `dungeon audit` and `POST /v1/audit` print it as
 * `dungeond.audit/1` JSON (docs/level-format.md#audits). Pure and
 * thread-safe like dg_generate; only the generation times depend on the
 * machine. */
#ifndef DUNGEON_AUDIT_H
#define DUNGEON_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dungeon/cancel.h"
#include "dungeon/context.h"
#include "dungeon/error.h"
#include "dungeon/request.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DG_AUDIT_FORMAT "dungeond.audit/1"
#define DG_AUDIT_SEEDS_MAX                                                                         \
  100000                     /* the library's bound; the daemon's is limits.audit_seeds_max        \
                              */
#define DG_AUDIT_BINS_MAX 64 /* histogram bins at most */
#define DG_AUDIT_BINS_DEFAULT 10

/* The figures an audit collects, one value per seed. */
typedef enum dg_audit_figure {
  DG_AUDIT_ROOMS,         /* metrics.rooms */
  DG_AUDIT_CYCLES,        /* metrics.cycles: independent loops */
  DG_AUDIT_DEAD_ENDS,     /* metrics.dead_ends */
  DG_AUDIT_PATH,          /* placement.entrance_to_exit (placement on) */
  DG_AUDIT_FLOOR_SHARE,   /* walkable tiles / grid cells (levels with a grid) */
  DG_AUDIT_LOCKS,         /* progression: locks placed (locks asked for) */
  DG_AUDIT_SPAWN_SPREAD,  /* placement: largest - smallest spawn-to-exit walk */
  DG_AUDIT_GENERATION_MS, /* wall-clock milliseconds of dg_generate: the machine's, not the level's
                           */
  DG_AUDIT_FIGURES
} dg_audit_figure;

/* The name of `figure` in the JSON ("rooms", "floor_share"...). */
const char *dg_audit_figure_name(dg_audit_figure figure);

/* An audit's values. Arrays owned; free with dg_audit_free. */
typedef struct dg_audit {
  const dg_algorithm *algorithm;
  uint64_t first_seed;
  int seeds;                        /* levels generated */
  bool has[DG_AUDIT_FIGURES];       /* the figure applies to this request */
  double *values[DG_AUDIT_FIGURES]; /* `seeds` values each, in seed order (NULL if !has) */
  bool targets_asked;               /* the request has targets */
  int target_misses;                /* levels whose kept candidate missed a target */
  int locks_short;                  /* levels with fewer locks than asked */
} dg_audit;

/* Called after each level of an audit with the levels done and the total
 * (for a progress line); `data` is the caller's. */
typedef void (*dg_audit_progress_fn)(void *data, int done, int total);

/* Generates `request` (its seed ignored) for seeds first_seed ..
 * first_seed + seeds - 1 (seeds 1..DG_AUDIT_SEEDS_MAX) and fills *out,
 * which the caller frees with dg_audit_free (also after a failure: nothing
 * is left to free then). `cancel` (may be NULL) bounds the whole run: the
 * deadline is checked between levels and inside each. `progress` (may be
 * NULL) is called on the calling thread after each level. 0, DG_EINVAL (seed
 * count out of range), DG_ENOMEM, or the first level's failure (with
 * `err` filled). Thread-safe. */
int dg_audit_run(const dg_context *context, const dg_request *request, uint64_t first_seed,
                 int seeds, dg_cancel *cancel, dg_audit_progress_fn progress, void *progress_data,
                 dg_audit *out, dg_error *err);

/* The audit as `dungeond.audit/1` JSON: per figure min, max, mean, the
 * nearest-rank quantiles p10, p25, p50, p75, p90, p99, and a histogram of
 * `bins` (1..DG_AUDIT_BINS_MAX) bins of equal width (integer figures: whole
 * numbers). Caller frees *text; length to *length (may be NULL). 0,
 * DG_EINVAL or DG_ENOMEM. Thread-safe. */
int dg_audit_dump_json(const dg_audit *audit, int bins, char **text, size_t *length);

/* Frees what *audit holds (not audit itself); it may be zeroed or partly
 * filled. */
void dg_audit_free(dg_audit *audit);

#ifdef __cplusplus
}
#endif
#endif
