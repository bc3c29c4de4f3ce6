/* W3C Trace Context (https://www.w3.org/TR/trace-context/): the
 * traceparent and tracestate headers' syntax, and the daemon's span in a
 * trace. Pure: no I/O, no state. */
#ifndef DUNGEOND_TRACE_CONTEXT_H
#define DUNGEOND_TRACE_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#define TRACE_ID_TEXT 33     /* 32 lower-case hex digits and NUL */
#define TRACE_SPAN_TEXT 17   /* 16 and NUL */
#define TRACE_PARENT_TEXT 56 /* "00-" trace "-" span "-" flags, NUL */
#define TRACE_STATE_MAX 512  /* longest tracestate passed on (the spec's minimum to propagate) */
#define TRACE_STATE_MEMBERS_MAX 32

/* A request's place in a trace. */
typedef struct trace_context {
  char trace_id[TRACE_ID_TEXT];    /* the caller's, or a new trace's */
  char parent_id[TRACE_SPAN_TEXT]; /* the caller's span; "" when the trace is new */
  char span_id[TRACE_SPAN_TEXT];   /* the daemon's span for the request */
  uint8_t flags;                   /* trace-flags: bit 0 sampled */
  char state[TRACE_STATE_MAX + 1]; /* tracestate as received when valid, else "" */
} trace_context;

/* Parses a traceparent header value: version 00 exactly as the spec
 * writes it, a later version by its first four fields (followed by the
 * end or '-'). False for anything else: upper-case hex, version ff, an
 * all-zero trace-id or parent-id, a wrong length. On success fills
 * trace_id, parent_id and flags of `t`. */
bool trace_parse_parent(const char *header, trace_context *t);

/* True when `header` is a valid tracestate list: at most 32 members
 * key=value separated by commas (with optional spaces and tabs; empty
 * members allowed), keys simple or tenant@system as the spec defines, no
 * key twice, values 1-256 printable characters but ',' and '=' that do not
 * end in a space, the whole at most TRACE_STATE_MAX bytes. */
bool trace_state_valid(const char *header);

/* Writes a span id of the 64 bits `bits` (never all zero: 0 becomes 1). */
void trace_span_text(uint64_t bits, char out[TRACE_SPAN_TEXT]);
/* Writes a trace id of `high` and `low` (not both zero: then low is 1). */
void trace_id_text(uint64_t high, uint64_t low, char out[TRACE_ID_TEXT]);

/* The traceparent of the daemon's span: "00-TRACE-SPAN-FLAGS". */
void trace_format_parent(const trace_context *t, char out[TRACE_PARENT_TEXT]);

#endif
