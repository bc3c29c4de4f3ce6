/* The population pass's member of `dungeond.level/1` (docs/population.md):
 * written only when the pass ran, so every other level keeps its bytes;
 * with a content table also the top-level `entities` array after it. */
#include "json/population_json.h"

#include <stdio.h>

#include "dungeon/algorithm.h"
#include "model/params_internal.h"
#include "json/pacing_json.h"

static const char *const pacing_names[] = {"flat", "linear", "s_curve", "exponential"};

/* The reasons of `why` as an array of names, in bit order. */
static void write_why(dg_writer *w, unsigned why) {
  static const char *const names[] = {"entrance", "spawn", "eased", "boss", "unreachable"};
  dg_writer_char(w, '[');
  bool first = true;
  for (int bit = 0; bit < 5; bit++)
    if (why & (1u << bit)) {
      if (!first)
        dg_writer_char(w, ',');
      dg_writer_cstring(w, names[bit]);
      first = false;
    }
  dg_writer_char(w, ']');
}

static void write_room(dg_writer *w, const dg_population_room *room, int id) {
  dg_writer_key(w, "room", true);
  dg_writer_int(w, id);
  dg_writer_key(w, "distance", false);
  dg_writer_int(w, room->distance);
  dg_writer_key(w, "progress", false);
  if (room->progress >= 0)
    dg_writer_real(w, room->progress / 1000.0);
  else
    dg_writer_literal(w, "null");
  dg_writer_key(w, "threat", false);
  dg_writer_int(w, room->threat);
  dg_writer_key(w, "heat", false);
  dg_writer_int(w, room->heat);
  dg_writer_key(w, "loot_tier", false);
  dg_writer_int(w, room->loot_tier);
  dg_writer_key(w, "loot", false);
  dg_writer_int(w, room->loot);
  dg_writer_key(w, "why", false);
  write_why(w, room->why);
}

/* What a content table made of the room's budgets: only with a table, so
 * levels without one keep their bytes. */
static void write_filled(dg_writer *w, const dg_population_room *room) {
  dg_writer_key(w, "spent", false);
  dg_writer_int(w, room->spent);
  if (room->unfilled != NULL) {
    dg_writer_key(w, "unfilled", false);
    dg_writer_cstring(w, room->unfilled);
  }
  dg_writer_key(w, "loot_items", false);
  dg_writer_int(w, room->loot_items);
  if (room->loot_unfilled != NULL) {
    dg_writer_key(w, "loot_unfilled", false);
    dg_writer_cstring(w, room->loot_unfilled);
  }
}

/* The top-level `entities` array: the server's own members, which a
 * client view leaves out by that name. */
static void write_entities(dg_writer *w, const dg_population *p) {
  dg_writer_literal(w, ",\"entities\":[");
  for (int i = 0; i < p->entity_count; i++) {
    const dg_entity *e = &p->entities[i];
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_char(w, '{');
    /* "e<n>" without snprintf: this runs once per entity of every level. */
    dg_writer_literal(w, "\"id\":\"e");
    dg_writer_int(w, i + 1);
    dg_writer_char(w, '"');
    dg_writer_key(w, "kind", false);
    dg_writer_cstring(w, e->kind == DG_ENTITY_ENCOUNTER ? "encounter" : "loot");
    dg_writer_key(w, "entry", false);
    dg_writer_cstring(w, e->entry);
    dg_writer_key(w, "room", false);
    dg_writer_int(w, e->room);
    dg_writer_key(w, "x", false);
    dg_writer_int(w, e->x);
    dg_writer_key(w, "y", false);
    dg_writer_int(w, e->y);
    if (e->kind == DG_ENTITY_ENCOUNTER) {
      dg_writer_key(w, "cost", false);
      dg_writer_int(w, e->cost);
      if (e->width != 1 || e->height != 1) {
        dg_writer_key(w, "w", false);
        dg_writer_int(w, e->width);
        dg_writer_key(w, "h", false);
        dg_writer_int(w, e->height);
      }
    } else {
      dg_writer_key(w, "tier", false);
      dg_writer_int(w, e->tier);
    }
    dg_writer_char(w, '}');
  }
  dg_writer_char(w, ']');
}

void dg_population_write_json(dg_writer *w, const dg_level *level) {
  const dg_population *p = &level->population;
  dg_writer_literal(w, ",\"population\":{");
  dg_writer_key(w, "difficulty", true);
  dg_writer_int(w, p->difficulty);
  dg_writer_key(w, "pacing", false);
  if (p->pacing == DG_PACING_POINTS)
    dg_pacing_points_write(w, p->pacing_points);
  else
    dg_writer_cstring(w, pacing_names[p->pacing]);
  dg_writer_key(w, "loot", false);
  dg_writer_int(w, p->loot);
  dg_writer_key(w, "ease_after_locks", false);
  dg_writer_int(w, p->ease);
  dg_writer_key(w, "farthest", false);
  dg_writer_int(w, p->farthest);
  dg_writer_key(w, "threat_total", false);
  dg_writer_int(w, p->threat_total);
  dg_writer_key(w, "loot_total", false);
  dg_writer_int(w, p->loot_total);
  dg_writer_literal(w, ",\"curve\":{\"threat_by_tenth\":[");
  for (int b = 0; b < DG_POPULATION_CURVE; b++) {
    if (b > 0)
      dg_writer_char(w, ',');
    if (p->curve[b] >= 0)
      dg_writer_int(w, p->curve[b]);
    else
      dg_writer_literal(w, "null");
  }
  dg_writer_literal(w, "],\"rank_correlation\":");
  dg_writer_real(w, p->rank_correlation / 1000.0);
  dg_writer_literal(w, "},\"rooms\":[");
  for (int r = 0; r < level->room_count; r++) {
    if (r > 0)
      dg_writer_char(w, ',');
    dg_writer_char(w, '{');
    write_room(w, &p->rooms[r], r);
    if (p->filled)
      write_filled(w, &p->rooms[r]);
    dg_writer_char(w, '}');
  }
  dg_writer_literal(w, "]}");
  if (p->filled)
    write_entities(w, p);
}
