/* The progression pass's members of `dungeond.level/1` (docs/progression.md):
 * written only when the pass ran, so every other level keeps its bytes. */
#include "json/progression_json.h"

#include <string.h>

static bool is_kind(const dg_feature *feature, const char *kind) {
  return strcmp(feature->kind, kind) == 0;
}

bool dg_progression_write_feature(dg_writer *w, const dg_level *level, const dg_feature *feature) {
  bool key = is_kind(feature, "key"), lock = is_kind(feature, "locked_door");
  bool one_way = is_kind(feature, "one_way_door");
  if (!key && !lock && !one_way)
    return false;
  if (key || lock) {
    dg_writer_key(w, "key", false);
    dg_writer_int(w, feature->key);
  }
  dg_progression_write_door(w, level, feature);
  return true;
}

void dg_progression_write_door(dg_writer *w, const dg_level *level, const dg_feature *feature) {
  bool lock = is_kind(feature, "locked_door"), one_way = is_kind(feature, "one_way_door");
  if (!level->has_grid && (lock || one_way)) {
    dg_writer_key(w, "edge", false);
    dg_writer_int(w, feature->edge);
  }
  if (one_way && feature->direction != NULL) {
    dg_writer_key(w, "direction", false);
    dg_writer_cstring(w, feature->direction);
  }
  if (one_way && !level->has_grid) {
    dg_writer_key(w, "from", false);
    dg_writer_int(w, feature->from);
    dg_writer_key(w, "to", false);
    dg_writer_int(w, feature->to);
  }
}

void dg_progression_write_room(dg_writer *w, const dg_progression *progression, int room) {
  dg_writer_key(w, "role", false);
  dg_writer_cstring(w, dg_role_name((dg_role)progression->room_role[room]));
  if (progression->room_key[room] >= 0) {
    dg_writer_key(w, "key", false);
    dg_writer_int(w, progression->room_key[room]);
  }
}

static void write_ints(dg_writer *w, const int *values, int count) {
  dg_writer_char(w, '[');
  for (int i = 0; i < count; i++) {
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_int(w, values[i]);
  }
  dg_writer_char(w, ']');
}

/* One sphere: its rooms, the keys lying in it, and the lock its keys open
 * (the one closed lock a party standing in it can reach). */
static void write_sphere(dg_writer *w, const dg_level *level, int sphere) {
  const dg_progression *p = &level->progression;
  dg_writer_key(w, "sphere", true);
  dg_writer_int(w, sphere);
  dg_writer_literal(w, ",\"rooms\":[");
  bool first = true;
  for (int r = 0; r < level->room_count; r++)
    if (p->room_sphere[r] == sphere) {
      if (!first)
        dg_writer_char(w, ',');
      dg_writer_int(w, r);
      first = false;
    }
  dg_writer_literal(w, "],\"keys\":[");
  first = true;
  for (int k = 0; k < p->locks_placed; k++)
    if (p->key_sphere[k] == sphere) {
      if (!first)
        dg_writer_char(w, ',');
      dg_writer_int(w, k);
      first = false;
    }
  dg_writer_literal(w, "],\"opens\":");
  if (sphere < p->locks_placed)
    dg_writer_int(w, sphere);
  else
    dg_writer_literal(w, "null");
  if (p->consumable) {
    /* Keys picked up in spheres 0..sphere, less the locks 0..sphere-1
     * already opened to get here: what is in hand at this sphere's lock,
     * whatever the order of pickups. */
    int collected = 0;
    for (int k = 0; k < p->locks_placed; k++)
      collected += p->key_sphere[k] <= sphere;
    dg_writer_key(w, "keys_in_hand", false);
    dg_writer_int(w, collected - sphere);
    dg_writer_key(w, "closed_locks_reachable", false);
    dg_writer_int(w, sphere < p->locks_placed ? 1 : 0);
  }
  dg_writer_char(w, '}');
}

void dg_progression_write_json(dg_writer *w, const dg_level *level) {
  const dg_progression *p = &level->progression;
  dg_writer_literal(w, ",\"progression\":{\"locks_wanted\":");
  dg_writer_int(w, p->locks_wanted);
  dg_writer_key(w, "locks_placed", false);
  dg_writer_int(w, p->locks_placed);
  dg_writer_key(w, "key_kind", false);
  dg_writer_cstring(w, p->consumable ? "consumable" : "reusable");
  dg_writer_key(w, "one_way_wanted", false);
  dg_writer_int(w, p->one_way_wanted);
  dg_writer_key(w, "one_way_placed", false);
  dg_writer_int(w, p->one_way_placed);
  dg_writer_literal(w, ",\"why\":{");
  bool first = true;
  if (p->locks_why != NULL) {
    dg_writer_key(w, "locks", true);
    dg_writer_cstring(w, p->locks_why);
    first = false;
  }
  if (p->one_way_why != NULL) {
    dg_writer_key(w, "one_way", first);
    dg_writer_cstring(w, p->one_way_why);
  }
  dg_writer_char(w, '}');
  if (p->boss_wanted) {
    dg_writer_key(w, "boss_room", false);
    if (p->boss_room >= 0)
      dg_writer_int(w, p->boss_room);
    else
      dg_writer_literal(w, "null");
  }
  dg_writer_literal(w, ",\"spheres\":[");
  for (int s = 0; s < p->sphere_count; s++) {
    dg_writer_char(w, s > 0 ? ',' : '{');
    if (s > 0)
      dg_writer_char(w, '{');
    write_sphere(w, level, s);
  }
  dg_writer_literal(w, "],\"key_order\":[");
  for (int k = 0; k < p->locks_placed; k++) {
    if (k > 0)
      dg_writer_char(w, ',');
    dg_writer_int(w, k);
  }
  dg_writer_literal(w, "],\"walk\":");
  write_ints(w, p->walk, p->walk_length);
  if (p->consumable)
    dg_writer_literal(w, ",\"safety\":\"every lock is a chokepoint of the way to the exit, "
                         "placed in order, so while lock k is closed it is the only closed lock "
                         "a party can reach, and each sphere's keys_in_hand is at least 1: no "
                         "order of pickups can spend a key where it strands the party\"");
  dg_writer_char(w, '}');
}
