/* libdungeon: deterministic dungeon-level generation as a pure library.
 *
 * Include this one header for the model and generation, and dungeon/json.h
 * as well where requests, levels or room sets are read or written as JSON
 * (it is the only public header that needs jansson). Generation is a pure
 * function of the request (algorithm, effective parameters, seed) and the
 * context's room sets: no I/O, no global mutable state, safe to call from
 * many threads at once. */
#ifndef DUNGEON_DUNGEON_H
#define DUNGEON_DUNGEON_H

#include "dungeon/algorithm.h"
#include "dungeon/audit.h"
#include "dungeon/cancel.h"
#include "dungeon/context.h"
#include "dungeon/digest.h"
#include "dungeon/error.h"
#include "dungeon/graph.h"
#include "dungeon/grid.h"
#include "dungeon/level.h"
#include "dungeon/levelset.h"
#include "dungeon/render.h"
#include "dungeon/request.h"
#include "dungeon/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libdungeon's version, "MAJOR.MINOR.PATCH". Static. */
const char *dg_version(void);

/* Generates the level `request` describes. `context` may be NULL for
 * algorithms that need no room set; `cancel` may be NULL. A request without a
 * seed is an error (DG_EINVAL): choosing one is the caller's policy. On
 * success *out is a new level owned by the caller (dg_level_free) with its
 * placement (params.placement: stairs and spawns, level->features) and
 * metrics computed; with request->targets set it tries up to attempts_max
 * seed-derived candidates in a fixed order and keeps the first that meets
 * every target, else the best, with level->target_report saying which it
 * missed (a deadline hit fails the call instead: the answer never depends on
 * timing). On failure *out is untouched and `err` says why (DG_ECANCELED,
 * DG_ETIMEDOUT, DG_EUNSAT, DG_ENOMEM...). Thread-safe. */
int dg_generate(const dg_context *context, const dg_request *request, dg_cancel *cancel,
                dg_level **out, dg_error *err);

#ifdef __cplusplus
}
#endif
#endif
