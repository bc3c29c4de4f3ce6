/* Error codes to text and the dg_error helpers every module reports with. */
#include "dungeon/error.h"

#include <stdio.h>
#include <string.h>

const char *dg_strerror(int code) {
  switch (code) {
  case DG_OK: return "success";
  case DG_EINVAL: return "invalid value";
  case DG_ENOMEM: return "out of memory";
  case DG_ETYPE: return "wrong type";
  case DG_ENOENT: return "unknown name";
  case DG_EPARSE: return "malformed input";
  case DG_ECANCELED: return "cancelled";
  case DG_ETIMEDOUT: return "deadline exceeded";
  case DG_ELIMIT: return "limit exceeded";
  case DG_EUNSAT: return "cannot be satisfied";
  case DG_EINTERNAL: return "internal error";
  default: return "unknown error";
  }
}

int dg_error_set(dg_error *err, int code, const char *field, const char *fmt, ...) {
  if (err == NULL)
    return code;
  err->code = code;
  snprintf(err->field, sizeof err->field, "%s", field != NULL ? field : "");
  va_list args;
  va_start(args, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, args);
  va_end(args);
  return code;
}

int dg_error_from_code(dg_error *err, int code) {
  if (code == DG_ECANCELED)
    return dg_error_set(err, code, "", "generation was cancelled");
  if (code == DG_ETIMEDOUT)
    return dg_error_set(err, code, "deadline_ms", "generation passed its deadline");
  /* A code no DG_E* names is a bug in whoever returned it: the number is
   * what its report needs. */
  if (code > DG_OK || code < DG_EINTERNAL)
    return dg_error_set(err, code, "", "unknown error (code %d)", code);
  return dg_error_set(err, code, "", "%s", dg_strerror(code));
}

void dg_error_clear(dg_error *err) {
  if (err != NULL)
    memset(err, 0, sizeof *err);
}
