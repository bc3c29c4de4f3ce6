/* Internal: the two steps every parameter setter shares, so that the CLI's
 * text (request.c) and JSON (json/params.c) go through the same lookup and
 * the same range check, and give the same error words. */
#ifndef DUNGEON_PARAMS_INTERNAL_H
#define DUNGEON_PARAMS_INTERNAL_H

#include "dungeon/request.h"

/* Index of parameter `name` in the request's algorithm, or DG_ENOENT with
 * `err` naming `field` and listing the known parameters. */
int dg_param_find(const dg_request *request, const char *name, const char *field, dg_error *err);

/* Checks a parsed value of parameter `index` against its table entry (for an
 * enum `text` is the choice's name; for a string, the text) and stores it as
 * explicitly set. 0, or DG_EINVAL with `err` naming `field` and the allowed
 * range; the request is unchanged on error. */
int dg_param_set_checked(dg_request *request, int index, double number, const char *text,
                         const char *field, dg_error *err);

/* Whether enum parameter `def` also takes control points (pacing: a
 * curve given as points, docs/population.md). */
bool dg_param_takes_points(const dg_param_def *def);

/* Writes the control points of `text` (a DG_PACING_POINTS parameter's)
 * as "x:y,x:y,..." into `buffer` (at least 8 x DG_PACING_POINTS_MAX
 * bytes), as the CLI and query strings take them. Returns `buffer`. */
const char *dg_pacing_points_text(const char *text, char *buffer, size_t size);

#endif
