/* dg_generate: the one entry point. Checks the request, lets the algorithm
 * fill a fresh level, computes the shared metrics, and hands the level over.
 * Also the context's lifecycle and the library version. */
#include <stdlib.h>

#include "context_internal.h"
#include "dungeon/dungeon.h"

const char *dg_version(void) {
  return DUNGEON_VERSION;
}

int dg_context_new(dg_context **out) {
  dg_context *context = calloc(1, sizeof *context);
  if (context == NULL)
    return DG_ENOMEM;
  *out = context;
  return 0;
}

void dg_context_free(dg_context *context) {
  if (context != NULL)
    dg_context_close_roomsets(context);
  free(context);
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
  dg_level *level = NULL;
  rc = dg_level_new(request, &level);
  if (rc != 0)
    return dg_error_set(err, rc, "", "out of memory");
  rc = request->algorithm->generate(context, request, cancel, level, err);
  if (rc == 0) {
    rc = dg_level_compute_metrics(level, cancel);
    if (rc != 0)
      dg_error_from_code(err, rc);
  } else if (err != NULL && err->code == 0) {
    dg_error_from_code(err, rc);
  }
  if (rc != 0) {
    dg_level_free(level);
    return rc;
  }
  *out = level;
  return 0;
}
