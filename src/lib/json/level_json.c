/* A level to `dungeond.level/1` JSON text (docs/level-format.md), written
 * directly into a buffer: members in a fixed order, integers exact, reals as
 * %.10g, so the bytes are a function of the level alone. The jansson form
 * (dg_level_to_json) is parsed back from this text, so there is one
 * serialiser and the two can never disagree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/legend.h"
#include "core/writer.h"
#include "dungeon/json.h"
#include "model/params_internal.h"
#include "json/pacing_json.h"
#include "json/population_json.h"
#include "json/progression_json.h"

static void write_seed(dg_writer *w, uint64_t seed) {
  if (seed <= DG_SEED_SAFE_MAX) {
    dg_writer_uint(w, seed);
  } else {
    dg_writer_char(w, '"');
    dg_writer_uint(w, seed);
    dg_writer_char(w, '"');
  }
}

static void write_params(dg_writer *w, const dg_algorithm *algorithm, const dg_params *params) {
  dg_writer_char(w, '{');
  for (int i = 0; i < algorithm->param_count; i++) {
    const dg_param_def *def = &algorithm->params[i];
    if (!dg_param_listed(algorithm, params, i))
      continue;
    dg_writer_key(w, def->name, i == 0);
    switch (def->type) {
    case DG_PARAM_INT: dg_writer_int(w, (int64_t)params->number[i]); break;
    case DG_PARAM_FLOAT: dg_writer_real(w, params->number[i]); break;
    case DG_PARAM_BOOL:
      dg_writer_raw(w, params->number[i] != 0.0 ? "true" : "false",
                    params->number[i] != 0.0 ? 4 : 5);
      break;
    case DG_PARAM_ENUM:
      if (params->number[i] == DG_PACING_POINTS && dg_param_takes_points(def))
        dg_pacing_points_write(w, params->text[i]);
      else
        dg_writer_cstring(w, def->choices[(int)params->number[i]]);
      break;
    case DG_PARAM_STRING: dg_writer_cstring(w, params->text[i]); break;
    }
  }
  dg_writer_char(w, '}');
}

/* The tiles a level's legend lists, as a bit mask by tile: the base tiles,
 * and the progression's only when that pass ran, so that other levels keep
 * their bytes. A client view lists no secret tile and no key: a legend
 * naming them would say what the map hides. */
static uint32_t legend_tiles(const dg_level *level) {
  uint32_t base = (1u << DG_TILE_BASE_COUNT) - 1;
  uint32_t all = (1u << DG_TILE_COUNT) - 1;
  if (!level->client_view)
    return level->progression.placed ? all : base;
  uint32_t hidden =
      (1u << DG_TILE_SECRET_DOOR) | (1u << DG_TILE_SECRET_CORRIDOR) | (1u << DG_TILE_KEY);
  return (level->client_progression_tiles ? all : base) & ~hidden;
}

static void write_grid(dg_writer *w, const dg_grid *grid, uint32_t tiles) {
  dg_writer_raw(w, "{\"width\":", 9);
  dg_writer_int(w, grid->width);
  dg_writer_raw(w, ",\"height\":", 10);
  dg_writer_int(w, grid->height);
  /* Every glyph the rows use with its tile's name, in tile order (a wall's
   * joined glyph before its plain one). Assembled on the stack and written
   * at once: it is on every grid level's path. Glyphs and names need no
   * escaping. */
  char legend[2 * DG_TILE_COUNT * (6 + DG_LEGEND_NAME_MAX) + 16];
  memcpy(legend, ",\"legend\":{", 11);
  size_t at = 11;
  for (int tile = 0; tile < DG_TILE_COUNT; tile++) {
    if (!(tiles & (1u << tile)))
      continue;
    const dg_legend_entry *entry = &dg_legend[tile];
    size_t name_length = strlen(entry->name);
    for (int pass = entry->joined_glyph != '\0' ? 0 : 1; pass < 2; pass++) {
      if (at > 11)
        legend[at++] = ',';
      legend[at++] = '"';
      legend[at++] = pass == 0 ? entry->joined_glyph : entry->glyph;
      memcpy(legend + at, "\":\"", 3);
      at += 3;
      memcpy(legend + at, entry->name, name_length);
      at += name_length;
      legend[at++] = '"';
    }
  }
  legend[at++] = '}';
  dg_writer_raw(w, legend, at);
  dg_writer_raw(w, ",\"rows\":[", 9);
  /* One row at a time into a line buffer: ",\"" + glyphs + "\"". Glyphs need
   * no escaping: none is a quote, backslash or control character. */
  char *line = malloc((size_t)grid->width + 3);
  if (line == NULL) {
    w->failed = true;
    return;
  }
  for (int y = 0; y < grid->height; y++) {
    line[0] = ',';
    line[1] = '"';
    dg_grid_glyph_row(grid, y, line + 2);
    line[grid->width + 2] = '"';
    dg_writer_raw(w, y > 0 ? line : line + 1, (size_t)grid->width + (y > 0 ? 3 : 2));
  }
  free(line);
  dg_writer_raw(w, "]}", 2);
}

/* `roles`: the progression's role of each node, or NULL when it did not run. */
static void write_graph(dg_writer *w, const dg_graph *graph, const uint8_t *roles) {
  dg_writer_raw(w, "{\"nodes\":[", 10);
  for (int i = 0; i < graph->node_count; i++) {
    const dg_node *node = &graph->nodes[i];
    dg_writer_raw(w, i > 0 ? ",{\"id\":" : "{\"id\":", i > 0 ? 7 : 6);
    dg_writer_int(w, i);
    dg_writer_key(w, "kind", false);
    dg_writer_cstring(w, node->kind);
    dg_writer_key(w, "x", false);
    dg_writer_int(w, node->x);
    dg_writer_key(w, "y", false);
    dg_writer_int(w, node->y);
    if (node->room >= 0) {
      dg_writer_key(w, "room", false);
      dg_writer_int(w, node->room);
    }
    if (node->depth >= 0) {
      dg_writer_key(w, "depth", false);
      dg_writer_int(w, node->depth);
    }
    if (node->label[0] != '\0') {
      dg_writer_key(w, "label", false);
      dg_writer_string(w, node->label, strnlen(node->label, DG_LABEL_MAX));
    }
    if (roles != NULL) {
      dg_writer_key(w, "role", false);
      dg_writer_cstring(w, dg_role_name((dg_role)roles[i]));
    }
    dg_writer_char(w, '}');
  }
  dg_writer_raw(w, "],\"edges\":[", 11);
  for (int e = 0; e < graph->edge_count; e++) {
    const dg_edge *edge = &graph->edges[e];
    dg_writer_raw(w, e > 0 ? ",{\"from\":" : "{\"from\":", e > 0 ? 9 : 8);
    dg_writer_int(w, edge->from);
    dg_writer_key(w, "to", false);
    dg_writer_int(w, edge->to);
    dg_writer_key(w, "kind", false);
    dg_writer_cstring(w, edge->kind);
    dg_writer_key(w, "length", false);
    dg_writer_int(w, edge->length);
    dg_writer_key(w, "cycle", false);
    dg_writer_raw(w, edge->cycle ? "true" : "false", edge->cycle ? 4 : 5);
    if (edge->roll >= 0) {
      dg_writer_key(w, "roll", false);
      dg_writer_int(w, edge->roll);
    }
    dg_writer_char(w, '}');
  }
  dg_writer_raw(w, "]}", 2);
}

/* Reals rounded to 4 decimals so that output does not depend on the last
 * bits of a platform's arithmetic. */
static void write_rounded(dg_writer *w, double value) {
  dg_writer_real(w, round(value * 10000.0) / 10000.0);
}

static void write_metrics(dg_writer *w, const dg_metrics *m) {
  dg_writer_key(w, "rooms", true);
  dg_writer_int(w, m->rooms);
  dg_writer_key(w, "connected", false);
  dg_writer_raw(w, m->connected ? "true" : "false", m->connected ? 4 : 5);
  dg_writer_key(w, "components", false);
  dg_writer_int(w, m->components);
  dg_writer_key(w, "cycles", false);
  dg_writer_int(w, m->cycles);
  dg_writer_key(w, "dead_ends", false);
  dg_writer_int(w, m->dead_ends);
  dg_writer_key(w, "double_wide_corridor_tiles", false);
  dg_writer_int(w, m->double_wide);
  dg_writer_key(w, "corridor_tiles", false);
  dg_writer_int(w, m->corridor_tiles);
  dg_writer_key(w, "walkable_tiles", false);
  dg_writer_int(w, m->walkable_tiles);
  dg_writer_key(w, "doors", false);
  dg_writer_int(w, m->doors);
  dg_writer_key(w, "stretch_mean", false);
  write_rounded(w, m->stretch_mean);
  dg_writer_key(w, "stretch_max", false);
  write_rounded(w, m->stretch_max);
}

static void write_placement(dg_writer *w, const dg_placement *p) {
  dg_writer_raw(w, ",\"placement\":{\"entrance_to_exit\":", 33);
  dg_writer_int(w, p->entrance_to_exit);
  dg_writer_key(w, "farthest", false);
  dg_writer_int(w, p->farthest);
  dg_writer_key(w, "stairs_forced", false);
  dg_writer_raw(w, p->stairs_forced ? "true" : "false", p->stairs_forced ? 4 : 5);
  dg_writer_key(w, "carved", false);
  dg_writer_int(w, p->carved);
  dg_writer_key(w, "spawns_wanted", false);
  dg_writer_int(w, p->spawns_wanted);
  dg_writer_key(w, "spawns_placed", false);
  dg_writer_int(w, p->spawns_placed);
  dg_writer_key(w, "spawn_distance_min", false);
  dg_writer_int(w, p->spawn_distance_min);
  dg_writer_key(w, "spawn_distance_max", false);
  dg_writer_int(w, p->spawn_distance_max);
  dg_writer_key(w, "spawn_spread", false);
  dg_writer_int(w, p->spawn_distance_max - p->spawn_distance_min);
  dg_writer_char(w, '}');
}

/* The figure each target is about, as `achieved` names it. */
static const char *target_figure(int id) {
  static const char *const figures[DG_TARGET_COUNT] = {
      "path",  "path",  "cycles",       "cycles", "dead_ends", "dead_ends",
      "rooms", "rooms", "spawn_spread", "locks",  "locks"};
  return figures[id];
}

static void write_targets(dg_writer *w, const dg_targets *t, const dg_target_report *r) {
  dg_writer_raw(w, ",\"targets\":{\"wanted\":{", 22);
  bool first = true;
  for (int id = 0; id < DG_TARGET_COUNT; id++)
    if (t->set_mask & (1u << id)) {
      dg_writer_key(w, dg_target_name(id), first);
      dg_writer_int(w, t->value[id]);
      first = false;
    }
  dg_writer_raw(w, "},\"attempts_max\":", 17);
  dg_writer_int(w, t->attempts_max > 0 ? t->attempts_max : DG_TARGET_ATTEMPTS_DEFAULT);
  dg_writer_key(w, "attempts", false);
  dg_writer_int(w, r->attempts);
  dg_writer_key(w, "chosen", false);
  dg_writer_int(w, r->chosen);
  dg_writer_key(w, "seed", false);
  write_seed(w, r->seed);
  dg_writer_key(w, "met", false);
  dg_writer_raw(w, r->met ? "true" : "false", r->met ? 4 : 5);
  dg_writer_raw(w, ",\"missed\":[", 11);
  first = true;
  for (int id = 0; id < DG_TARGET_COUNT; id++)
    if (r->missed_mask & (1u << id)) {
      if (!first)
        dg_writer_char(w, ',');
      dg_writer_cstring(w, dg_target_name(id));
      first = false;
    }
  dg_writer_raw(w, "],\"achieved\":{", 14);
  first = true;
  for (int id = 0; id < DG_TARGET_COUNT; id++) {
    if (!(t->set_mask & (1u << id)))
      continue;
    /* One figure per quantity, even when both its bounds were asked for. */
    bool seen = false;
    for (int before = 0; before < id; before++)
      seen = seen || ((t->set_mask & (1u << before)) && target_figure(before) == target_figure(id));
    if (seen)
      continue;
    dg_writer_key(w, target_figure(id), first);
    dg_writer_int(w, r->achieved[id]);
    first = false;
  }
  dg_writer_raw(w, "}}", 2);
}

/* The generator's own members, written by its output.c straight into the
 * same writer, so the deadline polls reach into large extensions too. */
static int write_extension(dg_writer *w, const dg_level *level) {
  if (dg_writer_poll(w) != 0)
    return w->cancel_rc;
  int rc = level->extension.write_json(level->extension.data, w);
  return rc != 0 ? rc : dg_writer_status(w);
}

/* The members every view of a feature has: "{" (",{" unless `first`),
 * its kind, its player (index and id) when it has one, where it is and its
 * room when inside one. The object is left open. */
static void write_feature_head(dg_writer *w, const dg_feature *feature, bool first) {
  dg_writer_raw(w, first ? "{\"kind\":" : ",{\"kind\":", first ? 8 : 9);
  dg_writer_cstring(w, feature->kind);
  if (feature->player >= 0) {
    dg_writer_key(w, "player", false);
    dg_writer_int(w, feature->player);
  }
  if (feature->player_id != NULL) {
    dg_writer_key(w, "player_id", false);
    dg_writer_cstring(w, feature->player_id);
  }
  dg_writer_key(w, "x", false);
  dg_writer_int(w, feature->x);
  dg_writer_key(w, "y", false);
  dg_writer_int(w, feature->y);
  if (feature->room >= 0) {
    dg_writer_key(w, "room", false);
    dg_writer_int(w, feature->room);
  }
}

/* A feature as a client sees it: what it is and where (a spawn's player),
 * a one-way door's direction; never a distance or a key id. */
static void write_client_feature(dg_writer *w, const dg_level *level, const dg_feature *feature,
                                 bool first) {
  write_feature_head(w, feature, first);
  dg_progression_write_door(w, level, feature);
  dg_writer_char(w, '}');
}

/* ",\"rooms\":[" and each room, with its progression role when placed. */
static void write_rooms(dg_writer *w, const dg_level *level) {
  dg_writer_raw(w, ",\"rooms\":[", 10);
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    dg_writer_raw(w, i > 0 ? ",{\"id\":" : "{\"id\":", i > 0 ? 7 : 6);
    dg_writer_int(w, i);
    dg_writer_key(w, "kind", false);
    dg_writer_cstring(w, room->kind);
    dg_writer_key(w, "x", false);
    dg_writer_int(w, room->x);
    dg_writer_key(w, "y", false);
    dg_writer_int(w, room->y);
    dg_writer_key(w, "width", false);
    dg_writer_int(w, room->width);
    dg_writer_key(w, "height", false);
    dg_writer_int(w, room->height);
    if (room->label[0] != '\0') {
      dg_writer_key(w, "label", false);
      dg_writer_string(w, room->label, strnlen(room->label, DG_LABEL_MAX));
    }
    if (level->progression.placed)
      dg_progression_write_room(w, &level->progression, i);
    dg_writer_char(w, '}');
  }
}

/* "],\"doors\":[" and each door. */
static void write_doors(dg_writer *w, const dg_level *level) {
  dg_writer_raw(w, "],\"doors\":[", 11);
  for (int i = 0; i < level->door_count; i++) {
    const dg_door *door = &level->doors[i];
    dg_writer_raw(w, i > 0 ? ",{\"x\":" : "{\"x\":", i > 0 ? 6 : 5);
    dg_writer_int(w, door->x);
    dg_writer_key(w, "y", false);
    dg_writer_int(w, door->y);
    dg_writer_key(w, "room", false);
    dg_writer_int(w, door->room);
    if (level->client_view) {
      dg_writer_char(w, '}');
      continue;
    }
    dg_writer_key(w, "secret", false);
    dg_writer_raw(w, door->secret ? "true}" : "false}", door->secret ? 5 : 6);
  }
}

/* "],\"objects\":[" and each object with its gold and contents. */
static void write_objects(dg_writer *w, const dg_level *level) {
  dg_writer_raw(w, "],\"objects\":[", 13);
  for (int i = 0; i < level->object_count; i++) {
    const dg_object *object = &level->objects[i];
    dg_writer_raw(w, i > 0 ? ",{\"kind\":" : "{\"kind\":", i > 0 ? 9 : 8);
    dg_writer_cstring(w, object->kind);
    dg_writer_key(w, "x", false);
    dg_writer_int(w, object->x);
    dg_writer_key(w, "y", false);
    dg_writer_int(w, object->y);
    if (level->client_view) { /* what it holds is the server's */
      dg_writer_char(w, '}');
      continue;
    }
    dg_writer_key(w, "gold", false);
    dg_writer_int(w, object->gold);
    dg_writer_raw(w, ",\"contents\":[", 13);
    for (int k = 0; k < object->item_count; k++) {
      if (k > 0)
        dg_writer_char(w, ',');
      dg_writer_cstring(w, object->items[k]);
    }
    dg_writer_raw(w, "]}", 2);
  }
}

/* "],\"features\":[" and each feature (the array is closed by the caller). */
static void write_features(dg_writer *w, const dg_level *level) {
  dg_writer_raw(w, "],\"features\":[", 14);
  for (int i = 0; i < level->feature_count; i++) {
    const dg_feature *feature = &level->features[i];
    write_feature_head(w, feature, i == 0);
    if (!dg_progression_write_feature(w, level, feature)) {
      dg_writer_key(w, "exit_distance", false);
      dg_writer_int(w, feature->exit_distance);
    }
    dg_writer_char(w, '}');
  }
}

/* A client view (dg_level_client_view) as JSON: a whitelist of members,
 * in the full level's order, then its level_hash (docs/level-format.md,
 * "The client view"). */
static void write_client(dg_writer *w, const dg_level *level) {
  dg_writer_raw(w, "{\"format\":\"" DG_LEVEL_FORMAT "\",\"generator_version\":",
                sizeof("{\"format\":\"" DG_LEVEL_FORMAT "\",\"generator_version\":") - 1);
  dg_writer_int(w, DG_GENERATOR_VERSION);
  dg_writer_key(w, "algorithm", false);
  dg_writer_cstring(w, level->algorithm->name);
  dg_writer_literal(w, ",\"view\":\"client\"");
  if (level->has_grid) {
    dg_writer_key(w, "grid", false);
    write_grid(w, &level->grid, legend_tiles(level));
  }
  /* A client view holds no progression, secret door or object contents
   * (dg_level_client_view): the full view's writers leave them out. */
  write_rooms(w, level);
  write_doors(w, level);
  write_objects(w, level);
  dg_writer_raw(w, "],\"features\":[", 14);
  for (int i = 0; i < level->feature_count; i++)
    write_client_feature(w, level, &level->features[i], i == 0);
  dg_writer_char(w, ']');
  if (!level->has_grid) {
    dg_writer_raw(w, ",\"graph\":", 9);
    write_graph(w, &level->graph, NULL);
  }
  dg_writer_key(w, "level_hash", false);
  dg_writer_cstring(w, level->level_hash);
  dg_writer_char(w, '}');
}

int dg_level_dump_json(const dg_level *level, char **text, size_t *length) {
  return dg_level_dump_json_cancellable(level, NULL, text, length);
}

int dg_level_dump_json_cancellable(const dg_level *level, dg_cancel *cancel, char **text,
                                   size_t *length) {
  dg_writer w = {.cancel = cancel};
  /* A level finished just at its deadline is not worth serialising. */
  if (dg_writer_poll(&w) != 0)
    return w.cancel_rc;
  if (level->client_view) {
    write_client(&w, level);
    return dg_writer_take(&w, text, length);
  }
  dg_writer_raw(&w, "{\"format\":\"" DG_LEVEL_FORMAT "\",\"generator_version\":",
                sizeof("{\"format\":\"" DG_LEVEL_FORMAT "\",\"generator_version\":") - 1);
  dg_writer_int(&w, DG_GENERATOR_VERSION);
  dg_writer_key(&w, "algorithm", false);
  dg_writer_cstring(&w, level->algorithm->name);
  dg_writer_key(&w, "seed", false);
  write_seed(&w, level->seed);
  dg_writer_key(&w, "params", false);
  write_params(&w, level->algorithm, &level->params);
  if (level->roomset_sha256[0] != '\0') {
    dg_writer_key(&w, "roomset_sha256", false);
    dg_writer_cstring(&w, level->roomset_sha256);
  }
  if (level->has_grid) {
    dg_writer_key(&w, "grid", false);
    write_grid(&w, &level->grid, legend_tiles(level));
  }
  write_rooms(&w, level);
  write_doors(&w, level);
  write_objects(&w, level);
  write_features(&w, level);
  dg_writer_char(&w, ']');
  if (level->placement.placed)
    write_placement(&w, &level->placement);
  if (level->progression.placed)
    dg_progression_write_json(&w, level);
  if (level->population.placed)
    dg_population_write_json(&w, level);
  dg_writer_raw(&w, ",\"graph\":", 9);
  write_graph(&w, &level->graph, level->progression.placed ? level->progression.node_role : NULL);
  dg_writer_raw(&w, ",\"metrics\":{", 12);
  write_metrics(&w, &level->metrics);
  dg_writer_raw(&w, "},\"stats\":{", 11);
  for (int i = 0; i < level->stat_count; i++) {
    dg_writer_key(&w, level->stats[i].name, i == 0);
    dg_writer_int(&w, level->stats[i].value);
  }
  dg_writer_char(&w, '}');
  if (level->targets.set_mask != 0)
    write_targets(&w, &level->targets, &level->target_report);
  int rc = 0;
  if (level->extension.write_json != NULL)
    rc = write_extension(&w, level);
  dg_writer_char(&w, '}');
  if (rc == 0 && w.failed)
    rc = w.cancel_rc != 0 ? w.cancel_rc : DG_ENOMEM;
  if (rc != 0) {
    free(w.text);
    return rc;
  }
  *text = w.text;
  if (length != NULL)
    *length = w.length;
  return 0;
}

json_t *dg_level_to_json(const dg_level *level) {
  char *text = NULL;
  size_t length = 0;
  if (dg_level_dump_json(level, &text, &length) != 0)
    return NULL;
  json_t *object = json_loadb(text, length, 0, NULL);
  free(text);
  return object;
}
