/* A level to `dungeond.level/1` JSON (docs/level-format.md). Members are
 * added in a fixed order and jansson keeps insertion order, so the bytes are
 * a function of the level alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/level.h"

/* json_object_set_new that remembers the first failure. */
static void put(json_t *object, const char *key, json_t *value, bool *ok) {
  if (value == NULL || json_object_set_new(object, key, value) != 0)
    *ok = false;
}

static void append(json_t *array, json_t *value, bool *ok) {
  if (value == NULL || json_array_append_new(array, value) != 0)
    *ok = false;
}

/* Reals rounded to 4 decimals so that output does not depend on the last
 * bits of a platform's arithmetic in printing. */
static json_t *rounded(double value) {
  return json_real(round(value * 10000.0) / 10000.0);
}

static json_t *grid_json(const dg_grid *grid, bool *ok) {
  json_t *object = json_object();
  if (object == NULL) {
    *ok = false;
    return NULL;
  }
  put(object, "width", json_integer(grid->width), ok);
  put(object, "height", json_integer(grid->height), ok);
  json_t *legend = json_object();
  put(object, "legend", legend, ok);
  if (legend != NULL) {
    static const char glyphs[] = " .#-|+S=(<>~";
    for (const char *g = glyphs; *g != '\0'; g++) {
      char key[2] = {*g, '\0'};
      const char *name;
      switch (*g) {
      case ' ': name = dg_tile_name(DG_TILE_STONE); break;
      case '.': name = dg_tile_name(DG_TILE_FLOOR); break;
      case '#': name = dg_tile_name(DG_TILE_CORRIDOR); break;
      case '-':
      case '|': name = dg_tile_name(DG_TILE_WALL); break;
      case '+': name = dg_tile_name(DG_TILE_DOOR); break;
      case 'S': name = dg_tile_name(DG_TILE_SECRET_DOOR); break;
      case '=': name = dg_tile_name(DG_TILE_SECRET_CORRIDOR); break;
      case '(': name = dg_tile_name(DG_TILE_CHEST); break;
      case '<': name = dg_tile_name(DG_TILE_STAIRS_UP); break;
      case '>': name = dg_tile_name(DG_TILE_STAIRS_DOWN); break;
      default: name = dg_tile_name(DG_TILE_VOID); break;
      }
      put(legend, key, json_string(name), ok);
    }
  }
  json_t *rows = json_array();
  put(object, "rows", rows, ok);
  char *line = malloc((size_t)grid->width + 1);
  if (line == NULL || rows == NULL) {
    *ok = false;
  } else {
    for (int y = 0; y < grid->height; y++) {
      for (int x = 0; x < grid->width; x++)
        line[x] = dg_grid_glyph(grid, x, y);
      line[grid->width] = '\0';
      append(rows, json_stringn(line, (size_t)grid->width), ok);
    }
  }
  free(line);
  return object;
}

static json_t *graph_json(const dg_graph *graph, bool *ok) {
  json_t *object = json_object(), *nodes = json_array(), *edges = json_array();
  if (object == NULL) {
    json_decref(nodes);
    json_decref(edges);
    *ok = false;
    return NULL;
  }
  put(object, "nodes", nodes, ok);
  put(object, "edges", edges, ok);
  if (!*ok)
    return object;
  for (int i = 0; i < graph->node_count; i++) {
    const dg_node *node = &graph->nodes[i];
    json_t *n = json_object();
    append(nodes, n, ok);
    if (n == NULL)
      break;
    put(n, "id", json_integer(i), ok);
    put(n, "kind", json_string(node->kind), ok);
    put(n, "x", json_integer(node->x), ok);
    put(n, "y", json_integer(node->y), ok);
    if (node->room >= 0)
      put(n, "room", json_integer(node->room), ok);
    if (node->depth >= 0)
      put(n, "depth", json_integer(node->depth), ok);
    if (node->label[0] != '\0')
      put(n, "label", json_string(node->label), ok);
  }
  for (int e = 0; e < graph->edge_count; e++) {
    const dg_edge *edge = &graph->edges[e];
    json_t *j = json_object();
    append(edges, j, ok);
    if (j == NULL)
      break;
    put(j, "from", json_integer(edge->from), ok);
    put(j, "to", json_integer(edge->to), ok);
    put(j, "kind", json_string(edge->kind), ok);
    put(j, "length", json_integer(edge->length), ok);
    put(j, "cycle", json_boolean(edge->cycle), ok);
    if (edge->roll >= 0)
      put(j, "roll", json_integer(edge->roll), ok);
  }
  return object;
}

static json_t *metrics_json(const dg_metrics *m, bool *ok) {
  json_t *object = json_object();
  if (object == NULL) {
    *ok = false;
    return NULL;
  }
  put(object, "rooms", json_integer(m->rooms), ok);
  put(object, "connected", json_boolean(m->connected), ok);
  put(object, "components", json_integer(m->components), ok);
  put(object, "cycles", json_integer(m->cycles), ok);
  put(object, "dead_ends", json_integer(m->dead_ends), ok);
  put(object, "double_wide_corridor_tiles", json_integer(m->double_wide), ok);
  put(object, "corridor_tiles", json_integer(m->corridor_tiles), ok);
  put(object, "walkable_tiles", json_integer(m->walkable_tiles), ok);
  put(object, "doors", json_integer(m->doors), ok);
  put(object, "stretch_mean", rounded(m->stretch_mean), ok);
  put(object, "stretch_max", rounded(m->stretch_max), ok);
  return object;
}

json_t *dg_level_to_json(const dg_level *level) {
  bool ok = true;
  json_t *object = json_object();
  if (object == NULL)
    return NULL;
  put(object, "format", json_string(DG_LEVEL_FORMAT), &ok);
  put(object, "algorithm", json_string(level->algorithm->name), &ok);
  put(object, "seed", dg_seed_to_json(level->seed), &ok);
  put(object, "params", dg_params_to_json(level->algorithm, &level->params), &ok);
  if (level->has_grid)
    put(object, "grid", grid_json(&level->grid, &ok), &ok);

  json_t *rooms = json_array();
  put(object, "rooms", rooms, &ok);
  for (int i = 0; ok && i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    json_t *r = json_object();
    append(rooms, r, &ok);
    if (r == NULL)
      break;
    put(r, "id", json_integer(i), &ok);
    put(r, "kind", json_string(room->kind), &ok);
    put(r, "x", json_integer(room->x), &ok);
    put(r, "y", json_integer(room->y), &ok);
    put(r, "width", json_integer(room->width), &ok);
    put(r, "height", json_integer(room->height), &ok);
    if (room->label[0] != '\0')
      put(r, "label", json_string(room->label), &ok);
  }

  json_t *doors = json_array();
  put(object, "doors", doors, &ok);
  for (int i = 0; ok && i < level->door_count; i++) {
    const dg_door *door = &level->doors[i];
    json_t *d = json_object();
    append(doors, d, &ok);
    if (d == NULL)
      break;
    put(d, "x", json_integer(door->x), &ok);
    put(d, "y", json_integer(door->y), &ok);
    put(d, "room", json_integer(door->room), &ok);
    put(d, "secret", json_boolean(door->secret), &ok);
  }

  json_t *objects = json_array();
  put(object, "objects", objects, &ok);
  for (int i = 0; ok && i < level->object_count; i++) {
    const dg_object *item = &level->objects[i];
    json_t *o = json_object(), *contents = json_array();
    append(objects, o, &ok);
    if (o == NULL) {
      json_decref(contents);
      break;
    }
    put(o, "kind", json_string(item->kind), &ok);
    put(o, "x", json_integer(item->x), &ok);
    put(o, "y", json_integer(item->y), &ok);
    put(o, "gold", json_integer(item->gold), &ok);
    put(o, "contents", contents, &ok);
    for (int k = 0; ok && k < item->item_count; k++)
      append(contents, json_string(item->items[k]), &ok);
  }

  put(object, "graph", graph_json(&level->graph, &ok), &ok);
  put(object, "metrics", metrics_json(&level->metrics, &ok), &ok);
  json_t *stats = json_object();
  put(object, "stats", stats, &ok);
  for (int i = 0; ok && i < level->stat_count; i++)
    put(stats, level->stats[i].name, json_integer(level->stats[i].value), &ok);
  if (ok && level->extension.to_json != NULL &&
      level->extension.to_json(level->extension.data, object) != 0)
    ok = false;
  if (!ok) {
    json_decref(object);
    return NULL;
  }
  return object;
}

int dg_level_dump_json(const dg_level *level, char **text, size_t *length) {
  json_t *object = dg_level_to_json(level);
  if (object == NULL)
    return DG_ENOMEM;
  char *dumped = json_dumps(object, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  json_decref(object);
  if (dumped == NULL)
    return DG_ENOMEM;
  *text = dumped;
  if (length != NULL)
    *length = strlen(dumped);
  return 0;
}
