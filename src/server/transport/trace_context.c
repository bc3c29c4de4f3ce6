/* See trace_context.h; the rules are section 3 of the W3C recommendation
 * (Trace Context, Level 1, and the same syntax in Level 2). */
#include "transport/trace_context.h"

#include <stdio.h>
#include <string.h>

static bool lower_hex(const char *text, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
      return false;
  return true;
}

static bool all_zero(const char *text, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (text[i] != '0')
      return false;
  return true;
}

static int hex_value(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c - 'a' + 10;
}

bool trace_parse_parent(const char *header, trace_context *t) {
  /* version "-" trace-id "-" parent-id "-" trace-flags: 2+1+32+1+16+1+2 */
  if (header == NULL)
    return false;
  size_t length = strlen(header);
  if (length < 55 || !lower_hex(header, 2) || header[2] != '-')
    return false;
  if (header[0] == 'f' && header[1] == 'f')
    return false; /* version 255 is forbidden */
  bool v00 = header[0] == '0' && header[1] == '0';
  /* Version 00 is exactly 55 characters; a later one may add fields after
   * another '-', which this parser does not know and skips. */
  if (v00 ? length != 55 : (length > 55 && header[55] != '-'))
    return false;
  const char *trace = header + 3, *parent = header + 36, *flags = header + 53;
  if (!lower_hex(trace, 32) || trace[32] != '-' || !lower_hex(parent, 16) || parent[16] != '-' ||
      !lower_hex(flags, 2))
    return false;
  if (all_zero(trace, 32) || all_zero(parent, 16))
    return false;
  memcpy(t->trace_id, trace, 32);
  t->trace_id[32] = '\0';
  memcpy(t->parent_id, parent, 16);
  t->parent_id[16] = '\0';
  t->flags = (uint8_t)(hex_value(flags[0]) * 16 + hex_value(flags[1]));
  return true;
}

static bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '*' ||
         c == '/';
}

/* key = simple-key / multi-tenant-key (section 3.3.1.3.1):
 *   simple-key = lcalpha 0*255( lcalpha / DIGIT / "_" / "-"/ "*" / "/" )
 *   multi-tenant-key = tenant-id "@" system-id
 *   tenant-id = ( lcalpha / DIGIT ) 0*240( lcalpha / DIGIT / "_" / "-"/ "*" / "/" )
 *   system-id = lcalpha 0*13( lcalpha / DIGIT / "_" / "-"/ "*" / "/" ) */
static bool valid_key(const char *key, size_t n) {
  const char *at = memchr(key, '@', n);
  if (at == NULL) {
    if (n < 1 || n > 256 || key[0] < 'a' || key[0] > 'z')
      return false;
    for (size_t i = 1; i < n; i++)
      if (!key_char(key[i]))
        return false;
    return true;
  }
  size_t tenant = (size_t)(at - key), system = n - tenant - 1;
  if (tenant < 1 || tenant > 241 || system < 1 || system > 14)
    return false;
  if (!((key[0] >= 'a' && key[0] <= 'z') || (key[0] >= '0' && key[0] <= '9')))
    return false;
  for (size_t i = 1; i < tenant; i++)
    if (!key_char(key[i]))
      return false;
  if (at[1] < 'a' || at[1] > 'z')
    return false;
  for (size_t i = 2; i <= system; i++)
    if (!key_char(at[i]))
      return false;
  return true;
}

/* value = 0*255(chr) nblk-chr; chr = %x20 / nblk-chr;
 * nblk-chr = %x21-2B / %x2D-3C / %x3E-7E */
static bool valid_value(const char *value, size_t n) {
  if (n < 1 || n > 256 || value[n - 1] == ' ')
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)value[i];
    if (c < 0x20 || c > 0x7e || c == ',' || c == '=')
      return false;
  }
  return true;
}

bool trace_state_valid(const char *header) {
  size_t length = strlen(header);
  if (length > TRACE_STATE_MAX)
    return false;
  struct {
    const char *key;
    size_t n;
  } keys[TRACE_STATE_MEMBERS_MAX];
  int members = 0;
  const char *cursor = header, *end = header + length;
  while (cursor <= end) {
    const char *comma = memchr(cursor, ',', (size_t)(end - cursor));
    const char *stop = comma != NULL ? comma : end;
    const char *from = cursor, *to = stop;
    while (from < to && (*from == ' ' || *from == '\t'))
      from++;
    while (to > from && (to[-1] == ' ' || to[-1] == '\t'))
      to--;
    if (from < to) { /* an empty member (only spaces) is allowed and ignored */
      const char *equals = memchr(from, '=', (size_t)(to - from));
      if (equals == NULL || members == TRACE_STATE_MEMBERS_MAX)
        return false;
      size_t key_n = (size_t)(equals - from);
      if (!valid_key(from, key_n) || !valid_value(equals + 1, (size_t)(to - equals - 1)))
        return false;
      for (int i = 0; i < members; i++)
        if (keys[i].n == key_n && memcmp(keys[i].key, from, key_n) == 0)
          return false;
      keys[members].key = from;
      keys[members].n = key_n;
      members++;
    }
    if (comma == NULL)
      break;
    cursor = comma + 1;
  }
  return true;
}

void trace_span_text(uint64_t bits, char out[TRACE_SPAN_TEXT]) {
  snprintf(out, TRACE_SPAN_TEXT, "%016llx", (unsigned long long)(bits != 0 ? bits : 1));
}

void trace_id_text(uint64_t high, uint64_t low, char out[TRACE_ID_TEXT]) {
  if (high == 0 && low == 0)
    low = 1;
  snprintf(out, TRACE_ID_TEXT, "%016llx%016llx", (unsigned long long)high, (unsigned long long)low);
}

void trace_format_parent(const trace_context *t, char out[TRACE_PARENT_TEXT]) {
  snprintf(out, TRACE_PARENT_TEXT, "00-%s-%s-%02x", t->trace_id, t->span_id, t->flags);
}
