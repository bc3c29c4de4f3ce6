/* The loop thread's half of level answers (negotiate.h has the pure half):
 * reading Accept, Accept-Encoding and the SVG options into the request,
 * 406, and turning a finished job into a response with Vary,
 * Content-Encoding, ETag and Cache-Control, or a 304 when If-None-Match
 * matches the tag the worker computed. */
#include <stdlib.h>

#include "api/exchange.h"
#include "api/levels.h"
#include "api/respond.h"
#include "server.h"

void level_respond(request *r, job *j) {
  const job_encoding *encoding = &j->encoding;
  const char *headers[14];
  int n = 0;
  /* Every level answer depends on both headers, compressed or not. */
  headers[n++] = MHD_HTTP_HEADER_VARY;
  headers[n++] = "Accept, Accept-Encoding";
  if (encoding->gzipped) {
    headers[n++] = MHD_HTTP_HEADER_CONTENT_ENCODING;
    headers[n++] = "gzip";
  }
  if (encoding->cacheable) {
    headers[n++] = MHD_HTTP_HEADER_ETAG;
    headers[n++] = encoding->etag;
    headers[n++] = MHD_HTTP_HEADER_CACHE_CONTROL;
    headers[n++] = "public, max-age=31536000, immutable";
  } else {
    /* A seed the daemon chose: asking again gives another level. */
    headers[n++] = MHD_HTTP_HEADER_CACHE_CONTROL;
    headers[n++] = "no-store";
  }
  headers[n] = NULL;
  const char *if_none_match = http_header(r, MHD_HTTP_HEADER_IF_NONE_MATCH);
  char *body = j->body;
  j->body = NULL;
  if (encoding->cacheable && negotiate_etag_matches(if_none_match, encoding->etag)) {
    free(body);
    http_respond(r, 304, negotiate_content_type(j->format), malloc(1), 0, headers);
    return;
  }
  http_respond(r, 200, negotiate_content_type(j->format), body, j->body_length, headers);
}

int level_negotiate(request *r) {
  const char *accept = http_header(r, MHD_HTTP_HEADER_ACCEPT);
  const char *accept_encoding = http_header(r, MHD_HTTP_HEADER_ACCEPT_ENCODING);
  const config *cfg = server_of(r)->cfg;
  exchange_of(r)->format = negotiate_media(accept);
  exchange_of(r)->encoding = (job_encoding){
      .gzip = negotiate_gzip(accept_encoding),
      .gzip_level = (int)cfg->compression.gzip_level,
      .gzip_min_bytes = (size_t)cfg->compression.gzip_min_bytes,
  };
  dg_svg_options_init(&exchange_of(r)->svg);
  return exchange_of(r)->format;
}

void level_not_acceptable(request *r) {
  json_t *errors = json_pack("[{s:s, s:s}]", "field", "Accept", "message",
                             "Accept must allow one of " NEGOTIATE_AVAILABLE);
  respond_problem(r, 406, "not-acceptable", "Not acceptable",
                  "levels are served as " NEGOTIATE_AVAILABLE, errors, NULL, NULL);
}

void level_respond_stored(request *r, char *body, size_t length) {
  static const char *const headers[] = {MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding",
                                        MHD_HTTP_HEADER_CACHE_CONTROL, "no-store", NULL};
  http_respond(r, 200, negotiate_content_type(JOB_FORMAT_JSON), body, length, headers);
}
