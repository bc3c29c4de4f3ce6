/* See problem.h. The table is the only place an error code meets a status:
 * a request the library refused as malformed is 400, one past a deadline
 * 504, cancelled work 503, an allocation failure or a broken invariant 500
 * wherever it happened (parsing, a profile, a job, a lobby), and everything
 * else the caller sent (wrong type, out of range, unknown name, over a
 * limit, unsatisfiable) 422. */
#include "api/problem.h"

#include <stdio.h>
#include <string.h>

problem_kind problem_of(int code) {
  switch (code) {
  case DG_EPARSE: return (problem_kind){400, "malformed", "Malformed request body"};
  case DG_ETIMEDOUT: return (problem_kind){504, "deadline", "Deadline exceeded"};
  case DG_ECANCELED: return (problem_kind){503, "unavailable", "Service unavailable"};
  case SRV_EDRAINING: return (problem_kind){503, PROBLEM_DRAINING_SLUG, PROBLEM_DRAINING_TITLE};
  case SRV_EQUEUE_FULL: return (problem_kind){503, "queue-full", "Too busy"};
  case SRV_ELOBBIES: return (problem_kind){503, "too-many-lobbies", "Too many lobbies"};
  case SRV_ELOBBY_BYTES: return (problem_kind){503, "lobby-bytes-full", "Lobby memory full"};
  case SRV_EGONE: return (problem_kind){409, "lobby-gone", "Lobby gone"};
  case SRV_ECLIENT_BUSY: return (problem_kind){429, "client-busy", "Too much queued work"};
  case SRV_ECLIENT_LOBBIES: return (problem_kind){429, "client-lobbies", "Too many lobbies"};
  case SRV_EMISMATCH:
    return (problem_kind){409, "lobby-mismatch", "Not the lobby this replica knows"};
  case SRV_EPRECONDITION:
    return (problem_kind){412, "precondition-failed", "Lobby is not the one you know"};
  case 0:
  case DG_ENOMEM:
  case DG_EINTERNAL:
  case SRV_ESYSTEM: return (problem_kind){500, "internal", "Generation failed"};
  default: return (problem_kind){422, "validation", "Invalid request"};
  }
}

json_t *problem_errors(const dg_error *err) {
  if (err->field[0] == '\0')
    return NULL;
  return json_pack("[{s:s, s:s}]", "field", err->field, "message", err->message);
}
