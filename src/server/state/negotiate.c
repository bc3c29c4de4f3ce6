/* Content negotiation and encoding of level responses (negotiate.h). The
 * header parsers follow RFC 9110 sections 12.4.2 (qvalue), 12.5.1 (Accept)
 * and 12.5.3 (Accept-Encoding) and never fail: a malformed element is
 * skipped, as a server may. Nothing here touches the daemon's state, so the
 * worker threads call it and the unit tests link it alone; the loop
 * thread's half is level_response.c. */
#include "state/negotiate.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "dungeon/json.h"

static const struct {
  const char *type, *subtype; /* what Accept ranges are matched against */
  const char *content_type;   /* what is sent */
} formats[JOB_FORMATS] = {
    [JOB_FORMAT_JSON] = {"application", "json", "application/json"},
    [JOB_FORMAT_ASCII] = {"text", "plain", "text/plain; charset=utf-8"},
    [JOB_FORMAT_SVG] = {"image", "svg+xml", "image/svg+xml"},
    [JOB_FORMAT_TILED] = {"application", "vnd.dungeond.tiled+json",
                          "application/vnd.dungeond.tiled+json"},
};

const char *negotiate_content_type(job_format format) {
  return formats[format].content_type;
}

static bool is_space(char c) {
  return c == ' ' || c == '\t';
}

/* Trims [*start, *end) of optional whitespace. */
static void trim(const char **start, const char **end) {
  while (*start < *end && is_space(**start))
    (*start)++;
  while (*end > *start && is_space((*end)[-1]))
    (*end)--;
}

/* A qvalue ("0", "0.5", "1.000") in thousandths, or -1 if malformed. */
static int parse_qvalue(const char *text, const char *end) {
  trim(&text, &end);
  if (text == end || (text[0] != '0' && text[0] != '1'))
    return -1;
  int whole = text[0] - '0', thousandths = 0, digits = 0;
  const char *at = text + 1;
  if (at < end) {
    if (*at != '.')
      return -1;
    for (at++; at < end; at++, digits++) {
      if (*at < '0' || *at > '9' || digits == 3)
        return -1;
      thousandths = thousandths * 10 + (*at - '0');
    }
    for (int d = digits; d < 3; d++)
      thousandths *= 10;
  }
  int q = whole * 1000 + thousandths;
  return q > 1000 ? -1 : q;
}

/* The q parameter among `;`-separated parameters [params, end): its value
 * in thousandths, 1000 without one, -1 when malformed. */
static int find_q(const char *params, const char *end) {
  int q = 1000;
  while (params < end) {
    const char *next = memchr(params, ';', (size_t)(end - params));
    const char *stop = next != NULL ? next : end;
    const char *name = params, *name_end = memchr(params, '=', (size_t)(stop - params));
    if (name_end != NULL) {
      const char *value = name_end + 1;
      trim(&name, &name_end);
      if (name_end - name == 1 && (name[0] == 'q' || name[0] == 'Q'))
        q = parse_qvalue(value, stop);
    }
    params = next != NULL ? next + 1 : end;
  }
  return q;
}

static bool same_token(const char *a, size_t a_length, const char *b) {
  return a_length == strlen(b) && strncasecmp(a, b, a_length) == 0;
}

int negotiate_media(const char *accept) {
  if (accept == NULL)
    return JOB_FORMAT_JSON;
  /* Per available format: the quality and specificity of the most specific
   * matching range, and that range's position. */
  int quality[JOB_FORMATS], specificity[JOB_FORMATS], position[JOB_FORMATS];
  for (int f = 0; f < JOB_FORMATS; f++)
    quality[f] = specificity[f] = position[f] = -1;
  bool any = false;
  int index = 0;
  for (const char *at = accept; *at != '\0'; index++) {
    const char *comma = strchr(at, ',');
    const char *end = comma != NULL ? comma : at + strlen(at);
    const char *semicolon = memchr(at, ';', (size_t)(end - at));
    const char *range = at, *range_end = semicolon != NULL ? semicolon : end;
    at = comma != NULL ? comma + 1 : end;
    trim(&range, &range_end);
    if (range == range_end)
      continue;
    const char *slash = memchr(range, '/', (size_t)(range_end - range));
    if (slash == NULL || slash == range || slash + 1 == range_end)
      continue; /* not type/subtype: ignored */
    int q = semicolon != NULL ? find_q(semicolon + 1, end) : 1000;
    if (q < 0)
      continue;
    size_t type_length = (size_t)(slash - range), subtype_length = (size_t)(range_end - slash - 1);
    bool any_type = same_token(range, type_length, "*");
    bool any_subtype = same_token(slash + 1, subtype_length, "*");
    if (any_type && !any_subtype)
      continue; /* "* /json" is not a media range */
    any = true;
    for (int f = 0; f < JOB_FORMATS; f++) {
      int specific;
      if (any_type)
        specific = 0;
      else if (!same_token(range, type_length, formats[f].type))
        continue;
      else if (any_subtype)
        specific = 1;
      else if (same_token(slash + 1, subtype_length, formats[f].subtype))
        specific = 2;
      else
        continue;
      /* The most specific range decides; among equally specific ones the
       * first listed. */
      if (specific > specificity[f]) {
        specificity[f] = specific;
        quality[f] = q;
        position[f] = index;
      }
    }
  }
  if (!any)
    return JOB_FORMAT_JSON; /* nothing usable in the header: as if absent */
  int best = -1;
  for (int f = 0; f < JOB_FORMATS; f++) {
    if (quality[f] <= 0)
      continue;
    if (best < 0 || quality[f] > quality[best] ||
        (quality[f] == quality[best] &&
         (specificity[f] > specificity[best] ||
          (specificity[f] == specificity[best] && position[f] < position[best]))))
      best = f;
  }
  return best;
}

bool negotiate_gzip(const char *accept_encoding) {
  if (accept_encoding == NULL)
    return false;
  int gzip = -1, identity = -1, star = -1;
  for (const char *at = accept_encoding; *at != '\0';) {
    const char *comma = strchr(at, ',');
    const char *end = comma != NULL ? comma : at + strlen(at);
    const char *semicolon = memchr(at, ';', (size_t)(end - at));
    const char *coding = at, *coding_end = semicolon != NULL ? semicolon : end;
    at = comma != NULL ? comma + 1 : end;
    trim(&coding, &coding_end);
    int q = semicolon != NULL ? find_q(semicolon + 1, end) : 1000;
    if (q < 0 || coding == coding_end)
      continue;
    size_t length = (size_t)(coding_end - coding);
    if (same_token(coding, length, "gzip") || same_token(coding, length, "x-gzip"))
      gzip = q > gzip ? q : gzip;
    else if (same_token(coding, length, "identity"))
      identity = q;
    else if (same_token(coding, length, "*"))
      star = q;
  }
  if (gzip < 0)
    gzip = star >= 0 ? star : 0;
  if (identity < 0)
    identity = star >= 0 ? star : 1000;
  /* identity;q=0 with gzip refused too leaves nothing acceptable; the body
   * then goes out uncompressed, which RFC 9110 permits. */
  return gzip > 0 && gzip >= identity;
}

/* Skips optional whitespace and an entity tag's W/ prefix; returns the
 * opaque tag's start and its end in *end (after the closing quote), or NULL
 * when malformed. */
static const char *next_tag(const char *at, const char **end) {
  while (is_space(*at) || *at == ',')
    at++;
  if (at[0] == 'W' && at[1] == '/')
    at += 2;
  if (*at != '"')
    return NULL;
  const char *close = strchr(at + 1, '"');
  if (close == NULL)
    return NULL;
  *end = close + 1;
  return at;
}

bool negotiate_etag_matches(const char *if_none_match, const char *etag) {
  if (if_none_match == NULL || etag == NULL || etag[0] == '\0')
    return false;
  const char *at = if_none_match;
  while (is_space(*at))
    at++;
  if (at[0] == '*')
    return true;
  size_t etag_length = strlen(etag);
  const char *end = NULL;
  for (const char *tag = next_tag(at, &end); tag != NULL; tag = next_tag(end, &end))
    if ((size_t)(end - tag) == etag_length && memcmp(tag, etag, etag_length) == 0)
      return true;
  return false;
}

int negotiate_gzip_bytes(const char *bytes, size_t length, int level, char **out,
                         size_t *out_length) {
  z_stream stream = {0};
  /* windowBits 15 + 16: a gzip wrapper; zlib writes mtime 0 and OS 3
   * (Unix) without a gz_header, so the bytes depend on the input alone. */
  if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return DG_ENOMEM;
  uLong bound = deflateBound(&stream, (uLong)length);
  char *buffer = malloc(bound);
  int rc = DG_ENOMEM;
  if (buffer == NULL)
    goto done;
  stream.next_in = (Bytef *)bytes;
  stream.avail_in = (uInt)length;
  stream.next_out = (Bytef *)buffer;
  stream.avail_out = (uInt)bound;
  if (deflate(&stream, Z_FINISH) != Z_STREAM_END) {
    free(buffer);
    goto done;
  }
  *out = buffer;
  *out_length = stream.total_out;
  rc = 0;
done:
  deflateEnd(&stream);
  return rc;
}

/* A 64-bit hash of the exact body bytes for the ETag: eight bytes per step
 * (a multiply-xorshift mix, as in MurmurHash's finaliser), so tagging a
 * 3 MB level costs about a millisecond. Not cryptographic: a tag only has
 * to change when the bytes do. */
static uint64_t body_hash(const char *bytes, size_t length) {
  uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)length;
  size_t i = 0;
  for (; i + 8 <= length; i += 8) {
    uint64_t word;
    memcpy(&word, bytes + i, 8);
    h ^= word;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  for (size_t k = 0; i + k < length; k++)
    tail |= (uint64_t)(unsigned char)bytes[i + k] << (8 * k);
  h ^= tail;
  h *= 0xc4ceb9fe1a85ec53u;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  return h;
}

void negotiate_identify(job_encoding *encoding, const dg_level *level) {
  /* A content table's digest only when there is one: the tags of levels
   * without a table stay what they were. */
  snprintf(encoding->identity, sizeof encoding->identity, "generator %d roomset %s%s%s",
           DG_GENERATOR_VERSION, level->roomset_sha256[0] != '\0' ? level->roomset_sha256 : "-",
           level->table_sha256[0] != '\0' ? " table " : "", level->table_sha256);
}

int negotiate_job_output(const dg_level *level, job_format format, const dg_svg_options *svg,
                         dg_cancel *cancel, job_encoding *encoding, char **body, size_t *length) {
  negotiate_identify(encoding, level);
  char *text = NULL;
  size_t text_length = 0;
  int rc;
  switch (format) {
  case JOB_FORMAT_ASCII: rc = dg_level_dump_ascii(level, &text, &text_length); break;
  case JOB_FORMAT_SVG: rc = dg_level_dump_svg(level, svg, &text, &text_length); break;
  case JOB_FORMAT_TILED: rc = dg_level_dump_tiled(level, &text, &text_length); break;
  default: rc = dg_level_dump_json_cancellable(level, cancel, &text, &text_length); break;
  }
  if (rc != 0)
    return rc;
  rc = negotiate_encode(encoding, &text, &text_length);
  if (rc != 0) {
    free(text);
    return rc;
  }
  *body = text;
  *length = text_length;
  return 0;
}

int negotiate_encode(job_encoding *encoding, char **body, size_t *length) {
  char *text = *body;
  size_t text_length = *length;
  encoding->gzipped = false;
  encoding->identity_length = text_length;
  encoding->etag[0] = '\0';
  if (encoding->gzip && encoding->gzip_level > 0 && text_length >= encoding->gzip_min_bytes) {
    char *packed = NULL;
    size_t packed_length = 0;
    if (negotiate_gzip_bytes(text, text_length, encoding->gzip_level, &packed, &packed_length) ==
        0) {
      free(text);
      text = packed;
      text_length = packed_length;
      encoding->gzipped = true;
    }
    /* Out of memory while compressing: the identity body still serves. */
  }
  if (encoding->cacheable) {
    /* The bytes and what made them: a new generator version or room set
     * never keeps an old tag, whatever the representation shows. */
    uint64_t made_by = body_hash(encoding->identity, strlen(encoding->identity));
    uint64_t tag = body_hash(text, text_length) ^ (made_by * 0x9e3779b97f4a7c15u);
    snprintf(encoding->etag, sizeof encoding->etag, "\"%016llx\"", (unsigned long long)tag);
  }
  *body = text;
  *length = text_length;
  return 0;
}
