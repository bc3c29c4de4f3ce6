/* Content negotiation (src/server/state/negotiate.c): Accept with media ranges
 * and q-values (RFC 9110 12.5.1), Accept-Encoding (12.5.3), If-None-Match
 * (13.1.2), and deterministic gzip. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "state/negotiate.h"

static const struct {
  const char *accept;
  int format;
} accept_cases[] = {
    {NULL, JOB_FORMAT_JSON},
    {"", JOB_FORMAT_JSON},
    {"*/*", JOB_FORMAT_JSON},
    {"application/json", JOB_FORMAT_JSON},
    {"text/plain", JOB_FORMAT_ASCII},
    {"text/*", JOB_FORMAT_ASCII},
    {"image/*", JOB_FORMAT_SVG},
    {"image/svg+xml", JOB_FORMAT_SVG},
    {"IMAGE/SVG+XML", JOB_FORMAT_SVG},
    {"application/vnd.dungeond.tiled+json", JOB_FORMAT_TILED},
    {"application/*", JOB_FORMAT_JSON}, /* tie between json and tiled: daemon order */
    {"text/plain;q=0.5, image/svg+xml", JOB_FORMAT_SVG},
    {"text/plain, application/json", JOB_FORMAT_ASCII}, /* tie: listed first */
    {"application/json, text/plain", JOB_FORMAT_JSON},
    {"application/json;q=0.9, text/plain;q=0.9, image/svg+xml;q=0.95", JOB_FORMAT_SVG},
    {"*/*;q=0.1, application/json;q=0", JOB_FORMAT_ASCII},
    {"image/*;q=0, */*", JOB_FORMAT_JSON},
    {"*/*;q=0.5, image/*;q=0.4", JOB_FORMAT_JSON},    /* image's range decides svg's q */
    {"image/*;q=0.4, image/svg+xml", JOB_FORMAT_SVG}, /* the specific range wins */
    {"image/svg+xml;q=0", -1},
    {"image/svg+xml;q=0, text/html", -1},
    {"text/html", -1},
    {"*/*;q=0", -1},
    {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", JOB_FORMAT_JSON},
    {"image/svg+xml; q=0.5, application/vnd.dungeond.tiled+json; q=0.6", JOB_FORMAT_TILED},
    {"text/plain; charset=utf-8; q=0.7, application/json; q=0.3", JOB_FORMAT_ASCII},
    {"application/json;q=2", JOB_FORMAT_JSON},                   /* malformed: as if absent */
    {"application/json;q=0.0001, text/plain", JOB_FORMAT_ASCII}, /* 4 decimals: ignored */
    {"application/json;q=1.000, text/plain;q=0.999", JOB_FORMAT_JSON},
    {"garbage, image/svg+xml", JOB_FORMAT_SVG},
    {"*/json", JOB_FORMAT_JSON}, /* not a media range: ignored */
    {" ,, text/plain ,", JOB_FORMAT_ASCII},
};

Test(negotiate, accept_media_ranges_and_q_values) {
  for (size_t i = 0; i < sizeof accept_cases / sizeof accept_cases[0]; i++)
    cr_expect_eq(negotiate_media(accept_cases[i].accept), accept_cases[i].format,
                 "Accept '%s': got %d, want %d",
                 accept_cases[i].accept ? accept_cases[i].accept : "(none)",
                 negotiate_media(accept_cases[i].accept), accept_cases[i].format);
}

static const struct {
  const char *accept_encoding;
  bool gzip;
} encoding_cases[] = {
    {NULL, false},
    {"", false},
    {"gzip", true},
    {"GZIP", true},
    {"x-gzip", true},
    {"gzip, deflate, br", true},
    {"br, deflate", false},
    {"*", true},
    {"*;q=0", false},
    {"gzip;q=0", false},
    {"gzip;q=0, *", false},
    {"identity", false},
    {"identity;q=1, gzip;q=0.5", false},
    {"gzip;q=0.5, identity;q=0.2", true},
    {"gzip;q=0.5, identity;q=0.5", true},
    {"gzip;q=1.5", false},
    {"deflate;q=0.5, *;q=0.2", true},
};

Test(negotiate, accept_encoding) {
  for (size_t i = 0; i < sizeof encoding_cases / sizeof encoding_cases[0]; i++)
    cr_expect_eq(negotiate_gzip(encoding_cases[i].accept_encoding), encoding_cases[i].gzip,
                 "Accept-Encoding '%s'",
                 encoding_cases[i].accept_encoding ? encoding_cases[i].accept_encoding : "(none)");
}

Test(negotiate, if_none_match) {
  const char *tag = "\"0123456789abcdef\"";
  cr_expect(negotiate_etag_matches("\"0123456789abcdef\"", tag));
  cr_expect(negotiate_etag_matches("W/\"0123456789abcdef\"", tag));
  cr_expect(negotiate_etag_matches("\"x\", \"0123456789abcdef\"", tag));
  cr_expect(negotiate_etag_matches("*", tag));
  cr_expect(negotiate_etag_matches(" *", tag));
  cr_expect(!negotiate_etag_matches("\"0123456789abcde\"", tag));
  cr_expect(!negotiate_etag_matches("0123456789abcdef", tag));
  cr_expect(!negotiate_etag_matches("\"0123456789abcdef", tag));
  cr_expect(!negotiate_etag_matches(NULL, tag));
  cr_expect(!negotiate_etag_matches("*", ""));
}

Test(negotiate, gzip_is_deterministic_and_round_trips) {
  size_t length = 200000;
  char *text = malloc(length);
  for (size_t i = 0; i < length; i++)
    text[i] = "....####--||  +"[(i * 7 + i / 80) % 15];
  char *a = NULL, *b = NULL;
  size_t a_length = 0, b_length = 0;
  cr_assert_eq(negotiate_gzip_bytes(text, length, 6, &a, &a_length), 0);
  cr_assert_eq(negotiate_gzip_bytes(text, length, 6, &b, &b_length), 0);
  cr_assert(a_length == b_length && memcmp(a, b, a_length) == 0, "gzip bytes differ");
  cr_assert(a_length < length / 5, "%zu bytes from %zu", a_length, length);
  cr_assert_eq((unsigned char)a[0], 0x1f);
  cr_assert_eq((unsigned char)a[1], 0x8b);
  cr_assert(a[4] == 0 && a[5] == 0 && a[6] == 0 && a[7] == 0, "mtime must be zero");
  char *back = malloc(length);
  z_stream stream = {0};
  cr_assert_eq(inflateInit2(&stream, 15 + 16), Z_OK);
  stream.next_in = (Bytef *)a;
  stream.avail_in = (uInt)a_length;
  stream.next_out = (Bytef *)back;
  stream.avail_out = (uInt)length;
  cr_assert_eq(inflate(&stream, Z_FINISH), Z_STREAM_END);
  cr_assert_eq(stream.total_out, length);
  inflateEnd(&stream);
  cr_assert(memcmp(back, text, length) == 0);
  free(back);
  free(a);
  free(b);
  free(text);
}

Test(negotiate, job_output_compresses_and_tags_by_representation) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  request.seed = 42;
  request.seed_given = true;
  dg_level *level = NULL;
  dg_error err = {0};
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
  char tags[2][JOB_FORMATS][24];
  for (int gzip = 0; gzip < 2; gzip++)
    for (int format = 0; format < JOB_FORMATS; format++) {
      job_encoding encoding = {
          .gzip = gzip, .gzip_level = 6, .gzip_min_bytes = 1024, .cacheable = true};
      dg_svg_options svg;
      dg_svg_options_init(&svg);
      char *body = NULL;
      size_t length = 0;
      cr_assert_eq(
          negotiate_job_output(level, (job_format)format, &svg, NULL, &encoding, &body, &length),
          0);
      cr_assert_eq(encoding.gzipped, gzip && encoding.identity_length >= 1024);
      cr_assert(encoding.gzipped ? length < encoding.identity_length
                                 : length == encoding.identity_length);
      cr_assert_eq(strlen(encoding.etag), 18, "%s", encoding.etag);
      memcpy(tags[gzip][format], encoding.etag, 24);
      free(body);
    }
  /* Every representation and encoding has its own tag. */
  for (int i = 0; i < 2 * JOB_FORMATS; i++)
    for (int k = i + 1; k < 2 * JOB_FORMATS; k++) {
      const char *a = tags[i / JOB_FORMATS][i % JOB_FORMATS],
                 *b = tags[k / JOB_FORMATS][k % JOB_FORMATS];
      bool same_bytes = false;
      /* A body too small to compress is the same bytes either way. */
      job_encoding probe = {.gzip = false, .cacheable = true};
      char *body = NULL;
      size_t length = 0;
      negotiate_job_output(level, (job_format)(i % JOB_FORMATS), NULL, NULL, &probe, &body,
                           &length);
      same_bytes = (k % JOB_FORMATS == i % JOB_FORMATS) && length < 1024;
      free(body);
      cr_expect(same_bytes ? strcmp(a, b) == 0 : strcmp(a, b) != 0, "tags %d and %d: %s %s", i, k,
                a, b);
    }
  job_encoding untagged = {.cacheable = false};
  char *body = NULL;
  size_t length = 0;
  cr_assert_eq(negotiate_job_output(level, JOB_FORMAT_JSON, NULL, NULL, &untagged, &body, &length),
               0);
  cr_assert_str_eq(untagged.etag, "");
  free(body);
  dg_level_free(level);
}

/* The tag covers what made the level, not only the bytes: an ASCII map
 * made from another room set (or by another generator version) may be the
 * same text, and must not keep a cached answer's tag. */
Test(negotiate, tag_covers_the_room_set) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  request.seed = 7;
  request.seed_given = true;
  dg_level *level = NULL;
  dg_error err = {0};
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
  char tags[2][24], *bodies[2];
  size_t lengths[2];
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1)
      memset(level->roomset_sha256, 'a', 64);
    job_encoding encoding = {.cacheable = true};
    cr_assert_eq(negotiate_job_output(level, JOB_FORMAT_ASCII, NULL, NULL, &encoding, &bodies[pass],
                                      &lengths[pass]),
                 0);
    cr_assert_not_null(strstr(encoding.identity, pass == 0 ? "roomset -" : "roomset aaaa"));
    memcpy(tags[pass], encoding.etag, 24);
  }
  cr_assert(lengths[0] == lengths[1] && memcmp(bodies[0], bodies[1], lengths[0]) == 0);
  cr_assert_str_neq(tags[0], tags[1]);
  free(bodies[0]);
  free(bodies[1]);
  dg_level_free(level);
}
