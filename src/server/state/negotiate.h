/* Content negotiation and encoding of level responses (docs/pictures.md,
 * docs/openapi.yaml): which representation a client gets from its Accept
 * header (RFC 9110 section 12.5.1: media ranges, q-values, specificity),
 * whether it is gzip-compressed from Accept-Encoding (section 12.5.3), the
 * strong ETag and Cache-Control of levels asked for with an explicit seed,
 * and If-None-Match (304).
 *
 * The parsers are pure functions of header text (unit-tested in
 * tests/unit/test_negotiate.c). Serialising and compressing run on the
 * worker thread inside the job (negotiate_job_output); the loop thread only
 * adds headers (level_response.c). */
#ifndef DUNGEOND_NEGOTIATE_H
#define DUNGEOND_NEGOTIATE_H

#include <stdbool.h>
#include <stddef.h>

#include "dungeon/dungeon.h"

/* Level representations, in the daemon's order of preference (a tie in
 * quality goes to the earlier one). */
typedef enum job_format {
  JOB_FORMAT_JSON,  /* application/json: dungeond.level/1 */
  JOB_FORMAT_ASCII, /* text/plain: the ASCII map */
  JOB_FORMAT_SVG,   /* image/svg+xml: the picture */
  JOB_FORMAT_TILED, /* application/vnd.dungeond.tiled+json: a Tiled map */
  JOB_FORMATS
} job_format;

/* The media types above, comma-separated, for 406 answers. */
#define NEGOTIATE_AVAILABLE                                                                        \
  "application/json, text/plain, image/svg+xml, application/vnd.dungeond.tiled+json"

/* What the worker does to a level body after serialising it, and what it
 * reports back. The submitter fills the inputs; the worker the outputs. */
typedef struct job_encoding {
  bool gzip;              /* in: the client accepts gzip */
  int gzip_level;         /* in: zlib level 1..9; 0 never compresses */
  size_t gzip_min_bytes;  /* in: smaller bodies are sent as they are */
  bool cacheable;         /* in: explicit seed: ETag + Cache-Control immutable */
  bool gzipped;           /* out: the body is gzip (Content-Encoding: gzip) */
  size_t identity_length; /* out: the body's length before compression */
  char etag[24];          /* out: "\"<16 hex digits>\"" when cacheable, else "" */
  /* in: the generator version, room-set digest and content-table digest
   * the tag covers besides the bytes (an ASCII map or an SVG does not carry
   * them); set by negotiate_identify, "" until then */
  char identity[176];
} job_encoding;

/* The representation an Accept header asks for: JOB_FORMAT_*, or -1 when
 * none of NEGOTIATE_AVAILABLE is acceptable (406). NULL or empty: JSON.
 * Each available type takes the q-value of the most specific media range
 * that matches it (type/subtype over type/ over * / *); q=0 excludes it;
 * the highest q wins, then the more specific range, then the range listed
 * first, then the daemon's order. Malformed ranges are ignored. Pure. */
int negotiate_media(const char *accept);

/* True when Accept-Encoding lets the response be gzip: gzip (or x-gzip,
 * or *) with q > 0 and at least identity's q. NULL: false. Pure. */
bool negotiate_gzip(const char *accept_encoding);

/* The Content-Type of a representation. Static. */
const char *negotiate_content_type(job_format format);

/* True when If-None-Match (a list of entity tags or "*") matches `etag`
 * by the weak comparison RFC 9110 section 13.1.2 asks for. Pure. */
bool negotiate_etag_matches(const char *if_none_match, const char *etag);

/* Worker thread: serialises `level` as `format` (SVG with `svg`), then
 * compresses and tags it as `encoding` says. The body (malloc'd) goes to
 * *body / *length. JSON, the largest output, polls `cancel` (may be NULL)
 * while it is written, so a deadline covers serialisation. 0 or DG_ENOMEM /
 * DG_EINVAL / DG_ETIMEDOUT / DG_ECANCELED. */
int negotiate_job_output(const dg_level *level, job_format format, const dg_svg_options *svg,
                         dg_cancel *cancel, job_encoding *encoding, char **body, size_t *length);

/* Sets encoding->identity from `level`: the generator version and the
 * room-set digest, so that a tag changes when either does even where the
 * representation's bytes would not show it. Pure. */
void negotiate_identify(job_encoding *encoding, const dg_level *level);

/* Worker thread: compresses *body (malloc'd, *length bytes) in place when
 * `encoding` asks for gzip and it is large enough, and tags the final bytes
 * when cacheable; fills the outputs of `encoding`. 0 (an allocation failure
 * while compressing leaves the body as it was). */
int negotiate_encode(job_encoding *encoding, char **body, size_t *length);

/* Compresses `length` bytes as one gzip member at `level` (1..9) with a
 * zero mtime, so equal input gives equal bytes. The result (malloc'd) goes
 * to *out / *out_length. 0 or DG_ENOMEM. Thread-safe. */
int negotiate_gzip_bytes(const char *bytes, size_t length, int level, char **out,
                         size_t *out_length);

#endif
