/* POST /v1/audit: one level request over many seeds, answered with the
 * distributions of its figures (dungeond.audit/1, include/dungeon/audit.h),
 * generated as one interactive job under the request's deadline. */
#ifndef DUNGEOND_AUDIT_H
#define DUNGEOND_AUDIT_H

#include "transport/http.h"

/* Handles POST /v1/audit on the loop thread: the body is a level request
 * (as POST /v1/levels, without seed and floors) plus `seeds` (1 to
 * limits.audit_seeds_max), `first_seed` (default 1) and `bins` (1 to
 * DG_AUDIT_BINS_MAX, default DG_AUDIT_BINS_DEFAULT). Answers 200 JSON, or
 * problem+json naming the field. */
void audit_handle(request *r);

#endif
