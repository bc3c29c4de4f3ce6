/* The dice tables of seeds/002 ("Pre-Connecting Random Non-Linear Dungeons,
 * SubMethod II"), kept apart from the generator so that each table can be
 * checked on its own: the d12 clock and the d8 tic-tac-toe board that name a
 * corridor's destination relative to the current room, the d10 that says
 * what an unmapped area holds, and the room size and shape table. Pure. */
#include <stdio.h>
#include <string.h>

#include "nonlinear.h"

/* Clock positions (seed 002: "12 o'clock as the area due north of the
 * current room, 3 o'clock as due east, 6 o'clock as due south, and 9
 * o'clock as due west"). Twelve distinct directions need the ring of areas
 * two steps away: its cardinal points and the eight areas beside them
 * (corners left out), so 1 is north-north-east and 7 south-south-west, the
 * seed's "turns west for about 40 feet, then south until it connects with
 * Room 7". Index 0 is 12 o'clock. */
static const int clock_dx[12] = {0, 1, 2, 2, 2, 1, 0, -1, -2, -2, -2, -1};
static const int clock_dy[12] = {-2, -2, -1, 0, 1, 2, 2, 2, 1, 0, -1, -2};

/* Tic-tac-toe squares around the centre one, "numbered clockwise from 1 to
 * 8, starting at the top". Index 0 is square 1. */
static const int grid_dx[8] = {0, 1, 1, 1, 0, -1, -1, -1};
static const int grid_dy[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

int nl_destination_sides(int method) {
  return method == NL_METHOD_GRID ? 8 : 12;
}

void nl_destination_offset(int method, int roll, int *dx, int *dy) {
  if (method == NL_METHOD_GRID) {
    *dx = grid_dx[(roll - 1) & 7];
    *dy = grid_dy[(roll - 1) & 7];
  } else {
    int index = roll % 12; /* 12 -> 0 */
    *dx = clock_dx[index];
    *dy = clock_dy[index];
  }
}

int nl_roll_destination(dg_rng *dice, int method) {
  return dg_rng_die(dice, nl_destination_sides(method));
}

int nl_roll_d10(dg_rng *dice) {
  return dg_rng_die(dice, 10) - 1;
}

nl_area_roll nl_area_of_d10(int roll, int threshold) {
  if (roll == 0)
    return NL_DEAD_END;
  return roll <= threshold ? NL_JUNCTION : NL_ROOM;
}

/* Reads a decimal side length 1..40 at *at; advances *at. */
static bool read_side(const char **at, int *value) {
  int number = 0, digits = 0;
  while (**at >= '0' && **at <= '9' && digits < 3) {
    number = number * 10 + (**at - '0');
    (*at)++;
    digits++;
  }
  *value = number;
  return digits > 0 && number >= 1 && number <= 40;
}

int nl_room_table_parse(const char *text, nl_room_table *table, dg_error *err) {
  nl_room_table parsed = {.count = 0};
  const char *at = text;
  for (;;) {
    nl_room_entry entry = {0};
    if (parsed.count == NL_ROOM_TABLE_MAX)
      return dg_error_set(err, DG_EINVAL, "params.room_table",
                          "params.room_table has more than %d entries", NL_ROOM_TABLE_MAX);
    if (!read_side(&at, &entry.width) || *at++ != 'x' || !read_side(&at, &entry.height))
      return dg_error_set(err, DG_EINVAL, "params.room_table",
                          "params.room_table entry %d must be WxH or WxHc (cross) with sides "
                          "from 1 to 40, entries separated by '_', e.g. 3x2_4x3_5x3c",
                          parsed.count + 1);
    if (*at == 'c') {
      entry.cross = true;
      at++;
    }
    parsed.entries[parsed.count++] = entry;
    if (*at == '\0')
      break;
    if (*at++ != '_')
      return dg_error_set(err, DG_EINVAL, "params.room_table",
                          "params.room_table entry %d must be followed by '_' or the end",
                          parsed.count);
  }
  *table = parsed;
  return 0;
}
