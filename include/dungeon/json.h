/* Every JSON entry point of libdungeon, in one header: requests, seeds and
 * targets from JSON, parameters, requests, levels, multi-floor sets, the
 * algorithm listing and room sets to and from JSON.
 *
 * This is the only public header that includes jansson; the model headers
 * (request.h, level.h, context.h, ...) do not, so a generator never depends
 * on the JSON layer. The daemon, the CLI and tests include this header where
 * they read or write JSON. Values follow jansson's vocabulary: "borrowed"
 * arguments are only read, "new reference" results belong to the caller
 * (json_decref). Every function here is thread-safe on distinct arguments. */
#ifndef DUNGEON_JSON_H
#define DUNGEON_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "dungeon/algorithm.h"
#include "dungeon/context.h"
#include "dungeon/error.h"
#include "dungeon/level.h"
#include "dungeon/levelset.h"
#include "dungeon/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- requests ---------------------------------------------------------- */

/* Builds a complete request from a JSON body of the form
 * {"algorithm": "...", "seed": ..., "params": {...}}. Members not named here
 * are left to the caller (the daemon checks its own: players, profile,
 * deadline_ms). `*request` is written only on success. */
int dg_request_from_json(const json_t *body, dg_request *request, dg_error *err);

/* Sets parameter `name` from a JSON value. `field_prefix` ("params.") is
 * prepended to the field in errors. Returns 0, DG_ENOENT (unknown
 * parameter), DG_ETYPE or DG_EINVAL (out of range) with `err` filled. */
int dg_request_set_json(dg_request *request, const char *name, const json_t *value,
                        const char *field_prefix, dg_error *err);

/* Sets every member of the JSON object `params` (field prefix "params."),
 * then runs the algorithm's cross-parameter checks. */
int dg_request_set_params_json(dg_request *request, const json_t *params, dg_error *err);

/* Parses a seed: a non-negative JSON integer or a string of decimal digits
 * up to 2^64 - 1. Errors name `field`. */
int dg_seed_from_json(const json_t *value, const char *field, uint64_t *seed, dg_error *err);

/* The seed as JSON: a number up to DG_SEED_SAFE_MAX, a decimal string above.
 * New reference, NULL on ENOMEM. */
json_t *dg_seed_to_json(uint64_t seed);

/* The effective parameters as a JSON object {name: value} in table order.
 * New reference, NULL on ENOMEM. */
json_t *dg_params_to_json(const dg_algorithm *algorithm, const dg_params *params);

/* The request as JSON {algorithm, seed, params (every effective value),
 * targets?}: POSTing it to /v1/levels generates the same level. New
 * reference, NULL on ENOMEM. */
json_t *dg_request_to_json(const dg_request *request);

/* Sets targets from a JSON object {name: integer} (`targets` of a request).
 * 0 or DG_ETYPE / DG_ENOENT / DG_EINVAL naming "targets.<name>". */
int dg_targets_from_json(const json_t *object, dg_targets *targets, dg_error *err);

/* ---- the algorithm listing --------------------------------------------- */

/* Every registered algorithm with its parameter table, as the JSON array
 * that `GET /v1/algorithms` and `dungeon algorithms --json` print:
 * [{name, summary, source, params: [{name, type, default, min?, max?,
 * choices?, doc}]}]. New reference; NULL on ENOMEM. */
json_t *dg_algorithms_to_json(void);

/* ---- levels ------------------------------------------------------------ */

/* The level as a `dungeond.level/1` JSON object. New reference; NULL on
 * ENOMEM. Deterministic: the same level gives the same members in the same
 * order. */
json_t *dg_level_to_json(const dg_level *level);

/* The level serialised as compact JSON text, NUL-terminated, into a buffer
 * the caller frees with free(); its length (without NUL) to *length (may be
 * NULL). 0 or DG_ENOMEM. Deterministic: byte-identical for the same level. */
int dg_level_dump_json(const dg_level *level, char **text, size_t *length);

/* dg_level_dump_json that also polls `cancel` (may be NULL: never stops)
 * before it starts and every 64 KiB of output, so a deadline covers
 * serialisation too. The same bytes as dg_level_dump_json when it
 * completes; DG_ECANCELED or DG_ETIMEDOUT (nothing in *text) when the
 * cancel fired. 0, DG_ENOMEM, DG_ECANCELED or DG_ETIMEDOUT. Thread-safe
 * for distinct levels, and for one level read by several threads. */
int dg_level_dump_json_cancellable(const dg_level *level, dg_cancel *cancel, char **text,
                                   size_t *length);

/* ---- multi-floor sets -------------------------------------------------- */

/* The set as `dungeond.levelset/1` JSON text: {format, seed, floors: [{floor,
 * request, level}]}, each level's bytes exactly as dg_level_dump_json writes
 * them. Caller frees *text with free(). 0 or DG_ENOMEM. */
int dg_levelset_dump_json(dg_level *const *levels, const dg_request *requests, int floors,
                          char **text, size_t *length);

/* ---- room sets --------------------------------------------------------- */

/* Validates the room set `json` (borrowed; the parsed content of one room-set
 * file), precomputes its moves and adds it to `context`. On failure the
 * context is unchanged and `err` holds the first problem, its field naming
 * the room and member ("rooms[hall_a].connectors[1].facing"); a set whose
 * name is already loaded is DG_EINVAL on field "name". Returns 0, DG_EINVAL,
 * DG_ETYPE or DG_ENOMEM. Not thread-safe: call before sharing the context. */
int dg_context_add_roomset(dg_context *context, const json_t *json, dg_error *err);

/* The costly half of dg_context_add_roomset: validates `json` (borrowed)
 * and precomputes its moves and pattern database (most of a daemon's
 * start-up) into *out, caller-owned until dg_context_adopt_roomset
 * (dungeon/context.h) takes it; else dg_roomset_free. Errors as
 * dg_context_add_roomset's, *out NULL. Thread-safe: touches nothing but its
 * arguments, so a loader may prepare several files at once. */
int dg_roomset_prepare(const json_t *json, dg_roomset **out, dg_error *err);

/* Validates `json` as a room set without loading it, collecting every
 * problem: up to `max` of them into `errors` (caller-provided), their total
 * number into *count. Returns 0 when the set is valid, DG_EINVAL when it has
 * problems, DG_ENOMEM. Pure; thread-safe. */
int dg_roomset_check(const json_t *json, dg_error *errors, int max, int *count);

/* Every loaded room set's figures as the JSON array GET /v1/roomsets
 * serves: [{name, biome, rooms, connectors, shims, moves, move_groups,
 * table_states, table_bytes}].
 * New reference; NULL on ENOMEM. Thread-safe on a built context. */
json_t *dg_context_roomsets_to_json(const dg_context *context);

/* ---- content tables --------------------------------------------------- */

/* Validates the content table `json` (borrowed; the parsed content of one
 * table file, docs/population.md "Content tables") and adds it to
 * `context`. On failure the context is unchanged and `err` holds the
 * problem, its field naming the entry and member
 * ("encounters[3].difficulty"); a name already loaded is DG_EINVAL on
 * field "name". Returns 0, DG_EINVAL, DG_ETYPE or DG_ENOMEM. Not
 * thread-safe: call before sharing the context. */
int dg_context_add_table(dg_context *context, const json_t *json, dg_error *err);

/* Every loaded table's figures as the JSON array GET /v1/tables serves:
 * [{name, encounters, loot, sha256}]. New reference; NULL on ENOMEM.
 * Thread-safe on a built context. */
json_t *dg_context_tables_to_json(const dg_context *context);

#ifdef __cplusplus
}
#endif
#endif
