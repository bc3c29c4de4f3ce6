/* A validated generation request: which algorithm, which seed, and the
 * effective value of every parameter (defaults filled in).
 *
 * Requests come from JSON (the daemon, tests) or from `name=value` text (the
 * CLI); both paths use the algorithm's parameter table and report a bad value
 * with the field name and the allowed range. A dg_request is a plain value:
 * copy it freely; it holds no pointers but the static algorithm. The JSON
 * entry points (dg_request_from_json, dg_request_set_json, seeds and
 * parameters to and from JSON) are in dungeon/json.h, so that this header
 * and the generators that include it do not need jansson. */
#ifndef DUNGEON_REQUEST_H
#define DUNGEON_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "dungeon/algorithm.h"
#include "dungeon/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dg_request {
  const dg_algorithm *algorithm; /* static registry entry */
  uint64_t seed;                 /* the seed generation uses */
  bool seed_given;               /* false until a seed is set */
  dg_params params;              /* every parameter's effective value */
};

/* Largest seed that round-trips through a JSON number in every client
 * (JavaScript's Number.MAX_SAFE_INTEGER); larger seeds are accepted as
 * decimal strings and printed as strings. */
#define DG_SEED_SAFE_MAX 9007199254740991ULL

/* Starts a request for `algorithm` with every parameter at its default and
 * no seed. */
void dg_request_init(dg_request *request, const dg_algorithm *algorithm);

/* Sets parameter `name` from text ("80", "0.25", "true", "follow"), as the
 * CLI's --param name=value does. Returns 0, DG_ENOENT (unknown parameter),
 * DG_ETYPE (not a value of the parameter's type) or DG_EINVAL (out of range)
 * with `err` filled. */
int dg_request_set_text(dg_request *request, const char *name, const char *text, dg_error *err);

/* Checks every value in `params` against `algorithm`'s table (type, finite,
 * integral, in range, enum index, string charset), as the setters do. For
 * callers that fill dg_params by hand; dg_generate runs it. 0 or DG_EINVAL
 * naming the first bad field. */
int dg_params_check(const dg_algorithm *algorithm, const dg_params *params, dg_error *err);

/* Runs the algorithm's cross-parameter checks (dg_algorithm.validate). */
int dg_request_validate(const dg_request *request, dg_error *err);

/* Typed access to parameter `index` of the request's algorithm. */
static inline int dg_param_int(const dg_params *params, int index) {
  return (int)params->number[index];
}
static inline double dg_param_float(const dg_params *params, int index) {
  return params->number[index];
}
static inline bool dg_param_bool(const dg_params *params, int index) {
  return params->number[index] != 0.0;
}
static inline int dg_param_enum(const dg_params *params, int index) {
  return (int)params->number[index];
}
static inline const char *dg_param_string(const dg_params *params, int index) {
  return params->text[index];
}

#ifdef __cplusplus
}
#endif
#endif
