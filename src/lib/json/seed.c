/* Seeds to and from JSON: an integer up to 2^53 - 1 (what every JSON
 * reader holds exactly), a decimal string above it. Requests, targets,
 * levels and level sets all write seeds through here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/json.h"

int dg_seed_from_json(const json_t *value, const char *field, uint64_t *seed, dg_error *err) {
  if (json_is_integer(value)) {
    json_int_t number = json_integer_value(value);
    if (number < 0)
      return dg_error_set(err, DG_EINVAL, field,
                          "%s must be an integer from 0 to 18446744073709551615", field);
    *seed = (uint64_t)number;
    return 0;
  }
  if (json_is_string(value)) {
    const char *text = json_string_value(value);
    size_t length = strlen(text);
    bool digits = length >= 1 && length <= 20;
    for (size_t i = 0; digits && i < length; i++)
      digits = text[i] >= '0' && text[i] <= '9';
    if (digits) {
      errno = 0;
      unsigned long long parsed = strtoull(text, NULL, 10);
      if (errno == 0) {
        *seed = (uint64_t)parsed;
        return 0;
      }
    }
  }
  return dg_error_set(err, json_is_string(value) ? DG_EINVAL : DG_ETYPE, field,
                      "%s must be an integer from 0 to 18446744073709551615 "
                      "(a decimal string above 9007199254740991)",
                      field);
}

json_t *dg_seed_to_json(uint64_t seed) {
  if (seed <= DG_SEED_SAFE_MAX)
    return json_integer((json_int_t)seed);
  char text[24];
  snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
  return json_string(text);
}
