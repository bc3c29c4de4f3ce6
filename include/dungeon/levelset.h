/* Multi-floor sets: N levels whose stairs line up (the stairs down of floor
 * k at the same x, y as the stairs up of floor k + 1), each reproducible
 * alone from its own effective request. Format `dungeond.levelset/1`, see
 * docs/level-format.md; its JSON writer (dg_levelset_dump_json) is in
 * dungeon/json.h. Pure and thread-safe like dg_generate. */
#ifndef DUNGEON_LEVELSET_H
#define DUNGEON_LEVELSET_H

#include <stddef.h>

#include "dungeon/cancel.h"
#include "dungeon/context.h"
#include "dungeon/level.h"
#include "dungeon/request.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DG_LEVELSET_FORMAT "dungeond.levelset/1"
#define DG_FLOORS_MAX 64 /* the library's bound; the daemon's is limits.floors_max */

/* The request of floor `floor` (0-based) of the set asked for by `set`:
 * floor 0 is `set` itself; floor k > 0 has the seed derived from the set's
 * seed and k (dg_seed_derive, DG_DERIVE_FLOOR), or on retry `retry` > 0 a
 * seed derived from that, and its stairs up forced (params.stairs_up_x/y)
 * onto `stairs_down_x/y`, the stairs down of the floor above. Writes *out. */
void dg_floor_request(const dg_request *set, int floor, int retry, int stairs_down_x,
                      int stairs_down_y, dg_request *out);

/* Generates `floors` (1..DG_FLOORS_MAX) floors for `set` (placement must be
 * on when floors > 1): levels[k] receives floor k (caller frees each with
 * dg_level_free) and requests[k] its effective request, which dg_generate
 * turns into the same level alone. A floor whose map cannot hold the stairs
 * above (authored maps vary in size) is retried with the next derived seed,
 * at most 16 times, in a fixed order. 0 or the first failure's code with
 * `err` filled (nothing left allocated). Thread-safe. */
int dg_levelset_generate(const dg_context *context, const dg_request *set, int floors,
                         dg_cancel *cancel, dg_level **levels, dg_request *requests, dg_error *err);

/* The set as ASCII: for each floor a header line "floor K of N (seed S)"
 * and its map (dg_level_dump_ascii), floors separated by a blank line.
 * Caller frees *text with free(). 0 or DG_ENOMEM. */
int dg_levelset_dump_ascii(dg_level *const *levels, const dg_request *requests, int floors,
                           char **text, size_t *length);

#ifdef __cplusplus
}
#endif
#endif
