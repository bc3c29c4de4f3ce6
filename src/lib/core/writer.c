/* The text writer (writer.h). Its JSON writers serve the level serialiser: building the text
 * directly is about twenty times faster than building a jansson tree and dumping it, and
 * serialisation is on every request's path. */
#include "core/writer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/error.h"

int dg_writer_poll(dg_writer *w) {
  if (w->cancel_rc == 0 && w->cancel != NULL)
    w->cancel_rc = dg_cancel_check(w->cancel);
  w->next_poll = w->length + DG_WRITER_POLL_BYTES;
  if (w->cancel_rc != 0)
    w->failed = true;
  return w->cancel_rc;
}

static bool reserve(dg_writer *w, size_t extra) {
  if (w->failed)
    return false;
  if (w->cancel != NULL && w->length >= w->next_poll && dg_writer_poll(w) != 0)
    return false;
  if (w->length + extra + 1 <= w->capacity)
    return true;
  size_t capacity = w->capacity != 0 ? w->capacity : 4096;
  while (capacity < w->length + extra + 1)
    capacity *= 2;
  char *text = realloc(w->text, capacity);
  if (text == NULL) {
    w->failed = true;
    return false;
  }
  w->text = text;
  w->capacity = capacity;
  return true;
}

void dg_writer_raw(dg_writer *w, const char *bytes, size_t length) {
  if (!reserve(w, length))
    return;
  memcpy(w->text + w->length, bytes, length);
  w->length += length;
  w->text[w->length] = '\0';
}

void dg_writer_char(dg_writer *w, char c) {
  if (!reserve(w, 1))
    return;
  w->text[w->length++] = c;
  w->text[w->length] = '\0';
}

/* `length` bytes of `text` quoted and escaped at `out`, which has room
 * for the worst case (length * 6 + 2: every byte as \u00XX); returns the
 * end of what it wrote. */
static char *put_quoted(char *out, const char *text, size_t length) {
  *out++ = '"';
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '"' || c == '\\') {
      *out++ = '\\';
      *out++ = (char)c;
    } else if (c < 0x20) {
      static const char hex[] = "0123456789abcdef";
      memcpy(out, "\\u00", 4);
      out[4] = hex[c >> 4];
      out[5] = hex[c & 15];
      out += 6;
    } else {
      *out++ = (char)c;
    }
  }
  *out++ = '"';
  return out;
}

void dg_writer_string(dg_writer *w, const char *text, size_t length) {
  if (!reserve(w, length * 6 + 2))
    return;
  w->length = (size_t)(put_quoted(w->text + w->length, text, length) - w->text);
  w->text[w->length] = '\0';
}

void dg_writer_cstring(dg_writer *w, const char *text) {
  dg_writer_string(w, text, strlen(text));
}

void dg_writer_uint(dg_writer *w, uint64_t value) {
  char digits[24];
  int at = (int)sizeof digits;
  do {
    digits[--at] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  dg_writer_raw(w, digits + at, sizeof digits - (size_t)at);
}

void dg_writer_int(dg_writer *w, int64_t value) {
  if (value < 0) {
    dg_writer_char(w, '-');
    dg_writer_uint(w, (uint64_t)0 - (uint64_t)value);
  } else {
    dg_writer_uint(w, (uint64_t)value);
  }
}

void dg_writer_real(dg_writer *w, double value) {
  if (!isfinite(value)) {
    dg_writer_raw(w, "null", 4); /* JSON has no NaN or infinity */
    return;
  }
  char text[40];
  int length = snprintf(text, sizeof text, "%.10g", value);
  /* JSON wants '.', whatever LC_NUMERIC a host program chose. */
  for (int i = 0; i < length; i++)
    if (text[i] == ',')
      text[i] = '.';
  dg_writer_raw(w, text, (size_t)length);
  if (strpbrk(text, ".eEn") == NULL) /* keep it a real: 1 -> 1.0 */
    dg_writer_raw(w, ".0", 2);
}

void dg_writer_key(dg_writer *w, const char *key, bool first) {
  /* One reservation for the comma, the quoted key and the colon: a level
   * writes a key for every member of every room, node and edge. */
  size_t length = strlen(key);
  if (!reserve(w, length * 6 + 4))
    return;
  char *out = w->text + w->length;
  if (!first)
    *out++ = ',';
  out = put_quoted(out, key, length);
  *out++ = ':';
  w->length = (size_t)(out - w->text);
  w->text[w->length] = '\0';
}

void dg_writer_bool(dg_writer *w, bool value) {
  dg_writer_raw(w, value ? "true" : "false", value ? 4 : 5);
}

int dg_writer_status(const dg_writer *w) {
  if (!w->failed)
    return 0;
  return w->cancel_rc != 0 ? w->cancel_rc : DG_ENOMEM;
}

void dg_writer_format(dg_writer *w, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char small[256];
  int needed = vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (needed < 0) {
    w->failed = true;
    return;
  }
  if ((size_t)needed < sizeof small) {
    dg_writer_raw(w, small, (size_t)needed);
    return;
  }
  if (!reserve(w, (size_t)needed))
    return;
  va_start(args, format);
  vsnprintf(w->text + w->length, (size_t)needed + 1, format, args);
  va_end(args);
  w->length += (size_t)needed;
}

int dg_writer_take(dg_writer *w, char **text, size_t *length) {
  if (!w->failed && w->text == NULL)
    reserve(w, 0);
  int rc = dg_writer_status(w);
  if (rc != 0) {
    free(w->text);
    w->text = NULL;
    w->length = w->capacity = 0;
    return rc;
  }
  w->text[w->length] = '\0';
  *text = w->text;
  if (length != NULL)
    *length = w->length;
  w->text = NULL;
  w->length = w->capacity = 0;
  return 0;
}
