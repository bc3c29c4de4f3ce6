/* Error codes and the error record that names the offending field.
 *
 * Every libdungeon function that can fail returns 0 or one of the negative
 * DG_E* codes below; when it takes a dg_error it also fills in a message for
 * a person and, for bad input, the name of the field at fault. */
#ifndef DUNGEON_ERROR_H
#define DUNGEON_ERROR_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  DG_OK = 0,
  DG_EINVAL = -1,     /* a value is outside its allowed range or set */
  DG_ENOMEM = -2,     /* an allocation failed */
  DG_ETYPE = -3,      /* a value has the wrong JSON type */
  DG_ENOENT = -4,     /* an unknown name: algorithm, parameter, room set */
  DG_EPARSE = -5,     /* malformed text (JSON, number, key=value) */
  DG_ECANCELED = -6,  /* cancelled through dg_cancel */
  DG_ETIMEDOUT = -7,  /* the dg_cancel deadline passed */
  DG_ELIMIT = -8,     /* a configured limit was exceeded */
  DG_EUNSAT = -9,     /* the request is valid but cannot be satisfied */
  DG_EINTERNAL = -10, /* a bug: an invariant did not hold */
};

#define DG_ERROR_FIELD_MAX 64
#define DG_ERROR_MESSAGE_MAX 256

/* What went wrong, for a person. `field` is a JSON-pointer-like dotted path
 * ("params.width", "seed") or "" when no single field is at fault. */
typedef struct dg_error {
  int code;                           /* the DG_E* code, 0 when no error */
  char field[DG_ERROR_FIELD_MAX];     /* offending field, "" if none */
  char message[DG_ERROR_MESSAGE_MAX]; /* one sentence, no trailing newline */
} dg_error;

/* Static, human-readable name of a DG_E* code ("invalid value", ...).
 * Never NULL; thread-safe. */
const char *dg_strerror(int code);

/* Fills `err` (which may be NULL) and returns `code`, so that callers can
 * write `return dg_error_set(err, DG_EINVAL, "width", "...", ...)`.
 * `field` may be NULL. Thread-safe on distinct `err`. */
int dg_error_set(dg_error *err, int code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fills `err` for a generation that stopped with `code`, in the words every
 * generator uses: DG_ECANCELED "generation was cancelled", DG_ETIMEDOUT
 * "generation passed its deadline" (field "deadline_ms"), a code no DG_E*
 * names "unknown error (code N)", anything else its dg_strerror. Returns
 * `code`. */
int dg_error_from_code(dg_error *err, int code);

/* Clears `err` to "no error". `err` may be NULL. */
void dg_error_clear(dg_error *err);

#ifdef __cplusplus
}
#endif
#endif
