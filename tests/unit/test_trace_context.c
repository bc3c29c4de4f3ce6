/* W3C Trace Context parsing (src/server/transport/trace_context.c): the
 * cases of the recommendation's section 3 and of its test suite's
 * traceparent and tracestate checks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "transport/trace_context.h"

#define TRACE "4bf92f3577b34da6a3ce929d0e0e4736"
#define PARENT "00f067aa0ba902b7"

static bool parses(const char *header) {
  trace_context t;
  memset(&t, 0, sizeof t);
  return trace_parse_parent(header, &t);
}

Test(trace_context, valid_traceparent) {
  trace_context t;
  memset(&t, 0, sizeof t);
  cr_assert(trace_parse_parent("00-" TRACE "-" PARENT "-01", &t));
  cr_assert_str_eq(t.trace_id, TRACE);
  cr_assert_str_eq(t.parent_id, PARENT);
  cr_assert_eq(t.flags, 1);
  cr_assert(parses("00-" TRACE "-" PARENT "-00"));
  cr_assert(parses("00-" TRACE "-" PARENT "-ff")); /* unknown flags are kept */
  /* A later version: its first four fields, more after a '-'. */
  cr_assert(parses("01-" TRACE "-" PARENT "-01"));
  cr_assert(parses("cc-" TRACE "-" PARENT "-01-what-the-future-holds"));
}

Test(trace_context, invalid_traceparent) {
  cr_assert_not(parses(NULL));
  cr_assert_not(parses(""));
  cr_assert_not(parses("ff-" TRACE "-" PARENT "-01"));                        /* version 255 */
  cr_assert_not(parses("00-" TRACE "-" PARENT "-01-"));                       /* 00 is exactly 55 */
  cr_assert_not(parses("00-" TRACE "-" PARENT "-1"));                         /* short flags */
  cr_assert_not(parses("00-4BF92F3577B34DA6A3CE929D0E0E4736-" PARENT "-01")); /* upper case */
  cr_assert_not(parses("00-00000000000000000000000000000000-" PARENT "-01")); /* zero trace */
  cr_assert_not(parses("00-" TRACE "-0000000000000000-01"));                  /* zero parent */
  cr_assert_not(parses("00-" TRACE "-" PARENT "-0g"));
  cr_assert_not(parses("00_" TRACE "-" PARENT "-01"));
  cr_assert_not(parses("00-" TRACE "x" PARENT "-01"));
  cr_assert_not(parses("0x-" TRACE "-" PARENT "-01"));
  cr_assert_not(parses("cc-" TRACE "-" PARENT "-01.future")); /* 56th must be '-' */
  cr_assert_not(parses(" 00-" TRACE "-" PARENT "-01"));
}

Test(trace_context, tracestate) {
  cr_assert(trace_state_valid("congo=t61rcWkgMzE"));
  cr_assert(trace_state_valid("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"));
  cr_assert(trace_state_valid("rojo=1 , ,  congo=2\t")); /* spaces, an empty member */
  cr_assert(trace_state_valid("fw529a3039@dt=1, t61rcwkgmze@vendor=x"));
  cr_assert(trace_state_valid("a/b*c_d-e=v a l u e"));     /* inner spaces in a value */
  cr_assert_not(trace_state_valid("Rojo=1"));              /* upper-case key */
  cr_assert_not(trace_state_valid("rojo"));                /* no = */
  cr_assert_not(trace_state_valid("rojo="));               /* empty value */
  cr_assert_not(trace_state_valid("rojo=a=b"));            /* = in a value */
  cr_assert_not(trace_state_valid("rojo=1,rojo=2"));       /* a key twice */
  cr_assert_not(trace_state_valid("1abc=1"));              /* simple keys start a-z */
  cr_assert_not(trace_state_valid("t@=1"));                /* empty system id */
  cr_assert_not(trace_state_valid("t@123456789012345=1")); /* system id of 15 */
  cr_assert_not(trace_state_valid("rojo=\x7f"));
  char many[400] = "";
  for (int i = 0; i < 33; i++) {
    char member[16];
    snprintf(member, sizeof member, "%sk%d=v", i ? "," : "", i);
    strcat(many, member);
  }
  cr_assert_not(trace_state_valid(many)); /* 33 members */
  char long_value[600];
  memset(long_value, 'x', sizeof long_value);
  memcpy(long_value, "a=", 2);
  long_value[sizeof long_value - 1] = '\0';
  cr_assert_not(trace_state_valid(long_value));
}

Test(trace_context, format) {
  trace_context t = {.trace_id = TRACE, .span_id = PARENT, .flags = 1};
  char out[TRACE_PARENT_TEXT];
  trace_format_parent(&t, out);
  cr_assert_str_eq(out, "00-" TRACE "-" PARENT "-01");
  char span[TRACE_SPAN_TEXT];
  trace_span_text(0, span);
  cr_assert_str_eq(span, "0000000000000001"); /* never all zero */
  char id[TRACE_ID_TEXT];
  trace_id_text(0, 0, id);
  cr_assert(parses("00-"
                   "00000000000000000000000000000001"
                   "-" PARENT "-01"));
  cr_assert_str_eq(id, "00000000000000000000000000000001");
}
