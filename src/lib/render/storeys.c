/* A level's storeys (include/dungeon/render.h, docs/pictures.md): which
 * rooms stand on which storey, read from the generator's storey plan, and
 * the `storey` option's text and check. A room is on storey S when one of
 * its connected doorways opens at S (a staircase opens on two storeys), or,
 * when it has none, when one of its boxes stands at S: the same rule as the
 * viewer page's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/render.h"
#include "render_internal.h"

void dg_storey_plan_free(dg_storey_plan *plan) {
  if (plan == NULL)
    return;
  free(plan->boxes);
  free(plan->doors);
  free(plan->tiles);
  *plan = (dg_storey_plan){0};
}

void dg_storeys_close(dg_storeys *s) {
  dg_storey_plan_free(&s->plan);
  free(s->box_first);
  free(s->door_first);
  free(s->list);
  *s = (dg_storeys){0};
}

static int by_value(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* room r's items are first[r]..first[r + 1]: the plan lists them by room. */
static void index_rooms(int *first, int rooms, const void *items, size_t size, int count) {
  int at = 0;
  for (int r = 0; r <= rooms; r++) {
    while (at < count && *(const int *)((const char *)items + (size_t)at * size) < r)
      at++;
    first[r] = at;
  }
}

/* The distinct storeys of the rooms, ascending, into s->list. */
static int collect_storeys(dg_storeys *s) {
  int total = s->plan.box_count + s->plan.door_count;
  s->list = malloc((size_t)(total > 0 ? total : 1) * sizeof *s->list);
  if (s->list == NULL)
    return DG_ENOMEM;
  for (int r = 0; r < s->room_count; r++) {
    bool doors = s->door_first[r + 1] > s->door_first[r];
    for (int i = s->door_first[r]; i < s->door_first[r + 1]; i++)
      s->list[s->count++] = s->plan.doors[i].storey;
    for (int i = s->box_first[r]; !doors && i < s->box_first[r + 1]; i++)
      s->list[s->count++] = s->plan.boxes[i].storey;
  }
  qsort(s->list, (size_t)s->count, sizeof *s->list, by_value);
  int kept = 0;
  for (int i = 0; i < s->count; i++)
    if (kept == 0 || s->list[kept - 1] != s->list[i])
      s->list[kept++] = s->list[i];
  s->count = kept;
  return 0;
}

int dg_storeys_open(const dg_level *level, dg_storeys *s) {
  *s = (dg_storeys){0};
  if (level->storey_plan == NULL || level->extension.data == NULL || level->client_view)
    return 0;
  int rc = level->storey_plan(level->extension.data, &s->plan);
  if (rc != 0)
    return rc;
  s->room_count = level->room_count;
  s->box_first = malloc((size_t)(s->room_count + 1) * sizeof *s->box_first);
  s->door_first = malloc((size_t)(s->room_count + 1) * sizeof *s->door_first);
  if (s->box_first == NULL || s->door_first == NULL) {
    dg_storeys_close(s);
    return DG_ENOMEM;
  }
  /* `room` is each item's first member. */
  index_rooms(s->box_first, s->room_count, s->plan.boxes, sizeof *s->plan.boxes, s->plan.box_count);
  index_rooms(s->door_first, s->room_count, s->plan.doors, sizeof *s->plan.doors,
              s->plan.door_count);
  s->has_plan = true;
  if ((rc = collect_storeys(s)) != 0)
    dg_storeys_close(s);
  return rc;
}

bool dg_storeys_room_on(const dg_storeys *s, int room, int storey) {
  if (room < 0 || room >= s->room_count)
    return false;
  bool doors = s->door_first[room + 1] > s->door_first[room];
  for (int i = s->door_first[room]; i < s->door_first[room + 1]; i++)
    if (s->plan.doors[i].storey == storey)
      return true;
  for (int i = s->box_first[room]; !doors && i < s->box_first[room + 1]; i++)
    if (s->plan.boxes[i].storey == storey)
      return true;
  return false;
}

void dg_storeys_floor(const dg_storeys *s, int room,
                      void (*box)(void *data, int x, int y, int width, int height), void *data) {
  for (int i = s->box_first[room]; i < s->box_first[room + 1]; i++) {
    const dg_storey_box *a = &s->plan.boxes[i];
    if (a->width > 2 && a->height > 2)
      box(data, a->x + 1, a->y + 1, a->width - 2, a->height - 2);
    for (int k = s->box_first[room]; k < s->box_first[room + 1]; k++) {
      const dg_storey_box *b = &s->plan.boxes[k];
      if (a->x + a->width == b->x) { /* b just east of a */
        int from = (a->y > b->y ? a->y : b->y) + 1;
        int to = (a->y + a->height < b->y + b->height ? a->y + a->height : b->y + b->height) - 1;
        if (to > from)
          box(data, b->x - 1, from, 2, to - from);
      }
      if (a->y + a->height == b->y) { /* b just south of a */
        int from = (a->x > b->x ? a->x : b->x) + 1;
        int to = (a->x + a->width < b->x + b->width ? a->x + a->width : b->x + b->width) - 1;
        if (to > from)
          box(data, from, b->y - 1, to - from, 2);
      }
    }
  }
}

bool dg_storeys_stairs(const dg_storeys *s, int room) {
  for (int i = s->door_first[room] + 1; i < s->door_first[room + 1]; i++)
    if (s->plan.doors[i].storey != s->plan.doors[s->door_first[room]].storey)
      return true;
  return false;
}

/* Whether `height` is one of the level's storeys. */
static bool is_storey(const dg_storeys *s, int height) {
  for (int k = 0; k < s->count; k++)
    if (s->list[k] == height)
      return true;
  return false;
}

int dg_storeys_tile_on(const dg_storeys *s, int tile, int storey) {
  int floor = s->plan.tiles[tile].floor;
  if (floor == storey)
    return DG_CORRIDOR_FLOOR;
  int k = 0;
  while (k < s->count && s->list[k] != storey)
    k++;
  if (k == s->count)
    return DG_CORRIDOR_OFF;
  bool above = floor > storey && (k + 1 == s->count || floor < s->list[k + 1]);
  bool below = floor < storey && (k == 0 || floor > s->list[k - 1]);
  return above || below ? DG_CORRIDOR_STAIRS : DG_CORRIDOR_OFF;
}

void dg_storeys_corridor_stairs(const dg_storeys *s, int storey,
                                void (*mark)(void *data, const dg_storey_tile *at, int to),
                                void *data) {
  const dg_storey_tile *t = s->plan.tiles;
  /* From each tile on a storey to the corridor's next tile on one: when
   * the two storeys differ the corridor climbs between them, and each end
   * of the climb is marked on its storey with the other. */
  for (int i = 0; i < s->plan.tile_count; i++) {
    if (!is_storey(s, t[i].floor))
      continue;
    int j = i + 1;
    while (j < s->plan.tile_count && t[j].corridor == t[i].corridor && !is_storey(s, t[j].floor))
      j++;
    if (j == s->plan.tile_count || t[j].corridor != t[i].corridor || t[j].floor == t[i].floor)
      continue;
    if (t[i].floor == storey)
      mark(data, &t[i + 1], t[j].floor);
    else if (t[j].floor == storey)
      mark(data, &t[j - 1], t[i].floor);
  }
}

int dg_svg_storey_parse(const char *text, dg_svg_options *options) {
  if (strcmp(text, "flat") == 0) {
    options->storeys = DG_SVG_STOREYS_FLAT;
    return 0;
  }
  if (strcmp(text, "all") == 0) {
    options->storeys = DG_SVG_STOREYS_ALL;
    return 0;
  }
  char *end = NULL;
  errno = 0;
  long value = text[0] != '\0' ? strtol(text, &end, 10) : 0;
  if (text[0] == '\0' || *end != '\0' || errno != 0 || value < -DG_SVG_STOREY_LIMIT ||
      value > DG_SVG_STOREY_LIMIT)
    return DG_EINVAL;
  options->storeys = DG_SVG_STOREYS_ONE;
  options->storey = (int)value;
  return 0;
}

int dg_level_storeys(const dg_level *level, int *storeys, int capacity, int *count) {
  dg_storeys s;
  int rc = dg_storeys_open(level, &s);
  if (rc != 0)
    return rc;
  if (!s.has_plan) {
    if (capacity > 0)
      storeys[0] = 0;
    *count = 1;
    return 0;
  }
  for (int i = 0; i < s.count && i < capacity; i++)
    storeys[i] = s.list[i];
  *count = s.count;
  dg_storeys_close(&s);
  return 0;
}

/* "0, 4 and 8" (up to a dozen, then "..."), for an error message. */
static void name_storeys(const dg_storeys *s, char *text, size_t size) {
  size_t at = 0;
  text[0] = '\0';
  int shown = s->count < 12 ? s->count : 12;
  for (int i = 0; i < shown && at < size; i++)
    at += (size_t)snprintf(text + at, size - at, "%s%d",
                           i == 0              ? ""
                           : i + 1 == s->count ? " and "
                                               : ", ",
                           s->list[i]);
  if (shown < s->count && at < size)
    snprintf(text + at, size - at, ", ... (%d storeys)", s->count);
}

int dg_svg_check_storey(const dg_level *level, const dg_svg_options *options, dg_error *err) {
  if (options->storeys != DG_SVG_STOREYS_ONE)
    return 0;
  dg_storeys s;
  int rc = dg_storeys_open(level, &s);
  if (rc != 0)
    return dg_error_set(err, rc, "", "out of memory");
  bool found = !s.has_plan ? options->storey == 0 : false;
  for (int i = 0; i < s.count; i++)
    found = found || s.list[i] == options->storey;
  if (!found) {
    char names[160] = "0";
    if (s.has_plan)
      name_storeys(&s, names, sizeof names);
    rc = dg_error_set(err, DG_EINVAL, "storey",
                      "storey %d is not a storey of this level: it has storey%s %s (or ask "
                      "for 'all' or 'flat')",
                      options->storey, s.has_plan && s.count > 1 ? "s" : "", names);
  }
  dg_storeys_close(&s);
  return rc;
}
