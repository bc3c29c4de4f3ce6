/* Room-set loading: turns the parsed JSON of docs/roomset-format.md into an
 * authored_roomset, checking everything a hand-built room can get wrong (seed 003,
 * "The setup": a room is a schematic with connectors, doorways on its walls
 * with a position and a facing). Every problem is reported with the room id
 * and the field, and checking goes on after a problem so that `dungeon
 * check` lists them all at once. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "roomset.h"

const char *const authored_facing_names[4] = {"n", "e", "s", "w"};

#define FORMAT_NAME "dungeond.roomset/1"

static void problem(authored_report *report, int code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void problem(authored_report *report, int code, const char *field, const char *fmt, ...) {
  if (report->count < report->max) {
    dg_error *err = &report->items[report->count];
    err->code = code;
    snprintf(err->field, sizeof err->field, "%s", field);
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
  }
  report->count++;
}

/* Writes a field path such as "rooms[hall].connectors[2].at", cut to the
 * size of dg_error.field. */
static void path(char out[DG_ERROR_FIELD_MAX], const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void path(char out[DG_ERROR_FIELD_MAX], const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(out, DG_ERROR_FIELD_MAX, fmt, args);
  va_end(args);
}

/* Names are what a request's `roomset` parameter and a level's placements
 * carry: short and plain. */
static bool plain_name(const char *text) {
  size_t length = strlen(text);
  if (length == 0 || length >= AUTHORED_NAME_MAX)
    return false;
  for (const char *c = text; *c != '\0'; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
          *c == '_' || *c == '-' || *c == '.'))
      return false;
  return true;
}

/* Rejects members the format does not define, so that a typo ("conectors")
 * is an error rather than a silently ignored key. */
static void unknown_keys(const json_t *object, const char *const *known, const char *where,
                         const char *room_id, authored_report *report) {
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)object, key, value) {
    bool found = false;
    for (int i = 0; known[i] != NULL && !found; i++)
      found = strcmp(known[i], key) == 0;
    if (!found) {
      char field[DG_ERROR_FIELD_MAX];
      path(field, "%s%s", where, key);
      if (room_id != NULL)
        problem(report, DG_EINVAL, field, "room '%s': unknown member '%s' in %s", room_id, key,
                where);
      else
        problem(report, DG_EINVAL, field, "room set: unknown member '%s'", key);
    }
  }
}

/* Reads an array of three integers each within [lo, hi[axis]]. */
static bool read_triple(const json_t *value, int lo, const int *hi, int out[3], const char *field,
                        const char *room_id, authored_report *report) {
  if (!json_is_array(value) || json_array_size(value) != 3) {
    problem(report, DG_ETYPE, field, "room '%s': %s must be an array of three integers [x, y, z]",
            room_id, field);
    return false;
  }
  for (int axis = 0; axis < 3; axis++) {
    const json_t *item = json_array_get(value, (size_t)axis);
    if (!json_is_integer(item)) {
      problem(report, DG_ETYPE, field, "room '%s': %s must hold integers", room_id, field);
      return false;
    }
    json_int_t v = json_integer_value(item);
    if (v < lo || v > hi[axis]) {
      problem(report, DG_EINVAL, field, "room '%s': %s[%d] is %lld, allowed %d to %d", room_id,
              field, axis, (long long)v, lo, hi[axis]);
      return false;
    }
    out[axis] = (int)v;
  }
  return true;
}

static int facing_from_name(const char *name) {
  for (int f = 0; f < 4; f++)
    if (strcmp(authored_facing_names[f], name) == 0)
      return f;
  return -1;
}

static bool in_box(const authored_box *box, int x, int y, int z) {
  return x >= box->x0 && x < box->x1 && y >= box->y0 && y < box->y1 && z >= box->z0 && z < box->z1;
}

/* Returns false when some box was rejected, so that connectors are not
 * also blamed for lying outside the space that remains. */
static bool parse_boxes(const json_t *boxes, authored_room *room, const char *prefix,
                        authored_report *report) {
  int before = report->count;
  char field[DG_ERROR_FIELD_MAX];
  if (boxes == NULL) {
    room->boxes[0] = (authored_box){0, 0, 0, room->size[0], room->size[1], room->size[2]};
    room->box_count = 1;
    return true;
  }
  path(field, "%s.boxes", prefix);
  if (!json_is_array(boxes) || json_array_size(boxes) == 0 ||
      json_array_size(boxes) > AUTHORED_BOXES_MAX) {
    problem(report, DG_EINVAL, field, "room '%s': boxes must be an array of 1 to %d boxes",
            room->id, AUTHORED_BOXES_MAX);
    return false;
  }
  static const char *const known[] = {"at", "size", NULL};
  static const int zero_hi[3] = {AUTHORED_SIZE_MAX, AUTHORED_SIZE_MAX, AUTHORED_SIZE_MAX};
  for (size_t i = 0; i < json_array_size(boxes); i++) {
    const json_t *box = json_array_get(boxes, i);
    path(field, "%s.boxes[%zu]", prefix, i);
    if (!json_is_object(box)) {
      problem(report, DG_ETYPE, field, "room '%s': %s must be an object {at, size}", room->id,
              field);
      continue;
    }
    char where[DG_ERROR_FIELD_MAX];
    path(where, "%s.", field);
    unknown_keys(box, known, where, room->id, report);
    int at[3], size[3];
    int hi_at[3] = {room->size[0] - 1, room->size[1] - 1, room->size[2] - 1};
    char at_field[DG_ERROR_FIELD_MAX], size_field[DG_ERROR_FIELD_MAX];
    path(at_field, "%s.at", field);
    path(size_field, "%s.size", field);
    if (!read_triple(json_object_get(box, "at"), 0, hi_at, at, at_field, room->id, report) ||
        !read_triple(json_object_get(box, "size"), 1, zero_hi, size, size_field, room->id, report))
      continue;
    authored_box b = {at[0], at[1], at[2], at[0] + size[0], at[1] + size[1], at[2] + size[2]};
    if (b.x1 > room->size[0] || b.y1 > room->size[1] || b.z1 > room->size[2]) {
      problem(report, DG_EINVAL, size_field,
              "room '%s': box %zu reaches [%d, %d, %d], outside the room's size [%d, %d, %d]",
              room->id, i, b.x1, b.y1, b.z1, room->size[0], room->size[1], room->size[2]);
      continue;
    }
    bool overlapping = false;
    for (int k = 0; k < room->box_count && !overlapping; k++)
      if (authored_box_overlap(&room->boxes[k], &b)) {
        problem(report, DG_EINVAL, field, "room '%s': box %zu overlaps box %d", room->id, i, k);
        overlapping = true;
      }
    if (!overlapping)
      room->boxes[room->box_count++] = b;
  }
  return report->count == before;
}

/* True when some integer coordinate of the connector's `at` lies outside
 * [0, hi_at]: the commonest slip, reported plainly before read_triple's
 * generic range message. */
static bool at_outside_room(const json_t *at_json, const int hi_at[3]) {
  if (!json_is_array(at_json) || json_array_size(at_json) != 3)
    return false;
  bool outside = false;
  for (int axis = 0; axis < 3; axis++) {
    const json_t *v = json_array_get(at_json, (size_t)axis);
    if (json_is_integer(v) && (json_integer_value(v) < 0 || json_integer_value(v) > hi_at[axis]))
      outside = true;
  }
  return outside;
}

/* Checks that connector `index` at `at` facing `facing` is a doorway on
 * the room's outer wall, facing out, inside a box (when the boxes parsed)
 * and not a repeat; reports the first problem and returns false. */
static bool connector_placed_well(const authored_room *room, size_t index, const int at[3],
                                  int facing, bool boxes_ok, const char *at_field,
                                  const char *facing_field, authored_report *report) {
  bool west = at[0] == 0, east = at[0] == room->size[0] - 1;
  bool north = at[2] == 0, south = at[2] == room->size[2] - 1;
  if (!west && !east && !north && !south) {
    problem(report, DG_EINVAL, at_field,
            "room '%s': connector %zu at [%d, %d, %d] is not on the room's boundary (a "
            "doorway lies on the outer wall: x 0 or %d, or z 0 or %d)",
            room->id, index, at[0], at[1], at[2], room->size[0] - 1, room->size[2] - 1);
    return false;
  }
  bool outward = (facing == AUTHORED_FACING_N && north) || (facing == AUTHORED_FACING_S && south) ||
                 (facing == AUTHORED_FACING_E && east) || (facing == AUTHORED_FACING_W && west);
  if (!outward) {
    problem(report, DG_EINVAL, facing_field,
            "room '%s': connector %zu at [%d, %d, %d] is not facing outward: '%s' points "
            "into the room",
            room->id, index, at[0], at[1], at[2], authored_facing_names[facing]);
    return false;
  }
  bool filled = false;
  for (int k = 0; k < room->box_count && !filled; k++)
    filled = in_box(&room->boxes[k], at[0], at[1], at[2]);
  if (!filled && boxes_ok) {
    problem(report, DG_EINVAL, at_field,
            "room '%s': connector %zu at [%d, %d, %d] is not inside any of the room's boxes",
            room->id, index, at[0], at[1], at[2]);
    return false;
  }
  bool duplicate = false;
  for (int k = 0; k < room->connector_count && !duplicate; k++) {
    const authored_room_connector *o = &room->connectors[k];
    duplicate = o->x == at[0] && o->y == at[1] && o->z == at[2];
  }
  if (duplicate) {
    problem(report, DG_EINVAL, at_field,
            "room '%s': connector %zu at [%d, %d, %d] repeats an earlier connector's doorway",
            room->id, index, at[0], at[1], at[2]);
    return false;
  }
  return true;
}

/* Connector `index` of the room (JSON `connector`, its field path in
 * `field`): added to room->connectors when it is sound, else reported. */
static void parse_connector(const json_t *connector, size_t index, authored_room *room,
                            const char *field, bool boxes_ok, authored_report *report) {
  static const char *const known[] = {"at", "facing", NULL};
  if (!json_is_object(connector)) {
    problem(report, DG_ETYPE, field, "room '%s': %s must be an object {at, facing}", room->id,
            field);
    return;
  }
  char where[DG_ERROR_FIELD_MAX], at_field[DG_ERROR_FIELD_MAX], facing_field[DG_ERROR_FIELD_MAX];
  path(where, "%s.", field);
  path(at_field, "%s.at", field);
  path(facing_field, "%s.facing", field);
  unknown_keys(connector, known, where, room->id, report);
  int hi_at[3] = {room->size[0] - 1, room->size[1] - 1, room->size[2] - 1};
  int at[3];
  const json_t *at_json = json_object_get(connector, "at");
  if (at_outside_room(at_json, hi_at)) {
    problem(report, DG_EINVAL, at_field,
            "room '%s': connector %zu is not on the room's boundary: it lies outside the "
            "room's size [%d, %d, %d]",
            room->id, index, room->size[0], room->size[1], room->size[2]);
    return;
  }
  if (!read_triple(at_json, 0, hi_at, at, at_field, room->id, report))
    return;
  const json_t *facing_json = json_object_get(connector, "facing");
  int facing = json_is_string(facing_json) ? facing_from_name(json_string_value(facing_json)) : -1;
  if (facing < 0) {
    problem(report, DG_EINVAL, facing_field,
            "room '%s': connector %zu facing must be one of n, e, s, w", room->id, index);
    return;
  }
  if (!connector_placed_well(room, index, at, facing, boxes_ok, at_field, facing_field, report))
    return;
  /* parse_connectors caps the array at AUTHORED_CONNECTORS_MAX. */
  assert(room->connector_count < AUTHORED_CONNECTORS_MAX);
  room->connectors[room->connector_count++] =
      (authored_room_connector){at[0], at[1], at[2], facing};
}

static void parse_connectors(const json_t *connectors, authored_room *room, const char *prefix,
                             bool boxes_ok, authored_report *report) {
  char field[DG_ERROR_FIELD_MAX];
  path(field, "%s.connectors", prefix);
  if (connectors == NULL || (json_is_array(connectors) && json_array_size(connectors) == 0)) {
    problem(report, DG_EINVAL, field,
            "room '%s' has no connectors: every room needs at least one doorway", room->id);
    return;
  }
  if (!json_is_array(connectors) || json_array_size(connectors) > AUTHORED_CONNECTORS_MAX) {
    problem(report, DG_EINVAL, field,
            "room '%s': connectors must be an array of 1 to %d connectors", room->id,
            AUTHORED_CONNECTORS_MAX);
    return;
  }
  for (size_t i = 0; i < json_array_size(connectors); i++) {
    path(field, "%s.connectors[%zu]", prefix, i);
    parse_connector(json_array_get(connectors, i), i, room, field, boxes_ok, report);
  }
}

static void parse_tags(const json_t *tags, authored_room *room, const char *prefix,
                       authored_report *report) {
  if (tags == NULL)
    return;
  char field[DG_ERROR_FIELD_MAX];
  path(field, "%s.tags", prefix);
  if (!json_is_array(tags) || json_array_size(tags) > AUTHORED_TAGS_MAX) {
    problem(report, DG_EINVAL, field, "room '%s': tags must be an array of at most %d names",
            room->id, AUTHORED_TAGS_MAX);
    return;
  }
  for (size_t i = 0; i < json_array_size(tags); i++) {
    const json_t *tag = json_array_get(tags, i);
    const char *text = json_is_string(tag) ? json_string_value(tag) : "";
    if (!plain_name(text) || strlen(text) >= AUTHORED_TAG_MAX) {
      problem(report, DG_EINVAL, field,
              "room '%s': tag %zu must be a name of 1 to %d characters [A-Za-z0-9_.-]", room->id, i,
              AUTHORED_TAG_MAX - 1);
      continue;
    }
    snprintf(room->tags[room->tag_count++], AUTHORED_TAG_MAX, "%s", text);
    if (strcmp(text, "start") == 0)
      room->tag_bits |= AUTHORED_TAG_START;
    else if (strcmp(text, "shim") == 0)
      room->tag_bits |= AUTHORED_TAG_SHIM;
  }
}

/* One room; returns false when it cannot be used at all. */
static bool parse_room(const json_t *json, size_t index, authored_room *room,
                       authored_report *report) {
  char prefix[DG_ERROR_FIELD_MAX], field[DG_ERROR_FIELD_MAX];
  path(prefix, "rooms[%zu]", index);
  if (!json_is_object(json)) {
    problem(report, DG_ETYPE, prefix, "%s must be an object", prefix);
    return false;
  }
  const json_t *id = json_object_get(json, "id");
  if (!json_is_string(id) || !plain_name(json_string_value(id))) {
    path(field, "%s.id", prefix);
    problem(report, DG_EINVAL, field,
            "room %zu: id must be a name of 1 to %d characters [A-Za-z0-9_.-]", index,
            AUTHORED_NAME_MAX - 1);
    return false;
  }
  snprintf(room->id, sizeof room->id, "%s", json_string_value(id));
  path(prefix, "rooms[%s]", room->id);
  static const char *const known[] = {"id",         "weight", "size", "boxes",
                                      "connectors", "tags",   "note", NULL};
  char where[DG_ERROR_FIELD_MAX];
  path(where, "%s.", prefix);
  unknown_keys(json, known, where, room->id, report);

  int before = report->count;
  const json_t *weight = json_object_get(json, "weight");
  path(field, "%s.weight", prefix);
  if (weight == NULL) {
    room->weight = 1;
  } else if (!json_is_integer(weight)) {
    problem(report, DG_ETYPE, field, "room '%s': weight must be an integer from 1 to %d", room->id,
            AUTHORED_WEIGHT_MAX);
  } else if (json_integer_value(weight) == 0) {
    problem(report, DG_EINVAL, field,
            "room '%s': weight is zero, so the room could never spawn (allowed 1 to %d; "
            "remove the room instead)",
            room->id, AUTHORED_WEIGHT_MAX);
  } else if (json_integer_value(weight) < 0 || json_integer_value(weight) > AUTHORED_WEIGHT_MAX) {
    problem(report, DG_EINVAL, field, "room '%s': weight is %lld, allowed 1 to %d", room->id,
            (long long)json_integer_value(weight), AUTHORED_WEIGHT_MAX);
  } else {
    room->weight = (int)json_integer_value(weight);
  }

  static const int size_hi[3] = {AUTHORED_SIZE_MAX, AUTHORED_SIZE_MAX, AUTHORED_SIZE_MAX};
  path(field, "%s.size", prefix);
  if (!read_triple(json_object_get(json, "size"), 1, size_hi, room->size, field, room->id, report))
    return false;
  bool boxes_ok = parse_boxes(json_object_get(json, "boxes"), room, prefix, report);
  parse_connectors(json_object_get(json, "connectors"), room, prefix, boxes_ok, report);
  parse_tags(json_object_get(json, "tags"), room, prefix, report);
  return report->count == before;
}

/* The set's own members: format, name and biome; problems reported. */
static void parse_set_header(const json_t *json, authored_roomset *set, authored_report *report) {
  static const char *const known[] = {"format", "name", "biome", "rooms", "note", NULL};
  unknown_keys(json, known, "", NULL, report);
  const json_t *format = json_object_get(json, "format");
  if (!json_is_string(format) || strcmp(json_string_value(format), FORMAT_NAME) != 0)
    problem(report, DG_EINVAL, "format", "format must be \"%s\"", FORMAT_NAME);
  const json_t *name = json_object_get(json, "name");
  if (!json_is_string(name) || !plain_name(json_string_value(name)))
    problem(report, DG_EINVAL, "name", "name must be a name of 1 to %d characters [A-Za-z0-9_.-]",
            AUTHORED_NAME_MAX - 1);
  else
    snprintf(set->name, sizeof set->name, "%s", json_string_value(name));
  const json_t *biome = json_object_get(json, "biome");
  if (!json_is_string(biome) || !plain_name(json_string_value(biome)))
    problem(report, DG_EINVAL, "biome", "biome must be a name of 1 to %d characters [A-Za-z0-9_.-]",
            AUTHORED_NAME_MAX - 1);
  else
    snprintf(set->biome, sizeof set->biome, "%s", json_string_value(biome));
}

/* The rooms array (already checked to be 1 to AUTHORED_ROOMS_MAX rooms): each
 * sound room with a new id goes into set->rooms. 0 or DG_ENOMEM; problems
 * are reported, not returned. */
static int parse_rooms(const json_t *rooms, authored_roomset *set, authored_report *report) {
  set->rooms = calloc(json_array_size(rooms), sizeof *set->rooms);
  if (set->rooms == NULL)
    return DG_ENOMEM;
  for (size_t i = 0; i < json_array_size(rooms); i++) {
    authored_room *room = &set->rooms[set->room_count];
    memset(room, 0, sizeof *room);
    if (!parse_room(json_array_get(rooms, i), i, room, report))
      continue;
    bool duplicate = false;
    for (int k = 0; k < set->room_count && !duplicate; k++)
      duplicate = strcmp(set->rooms[k].id, room->id) == 0;
    if (duplicate) {
      char field[DG_ERROR_FIELD_MAX];
      path(field, "rooms[%zu].id", i);
      problem(report, DG_EINVAL, field, "room '%s': duplicate id (room ids must be unique)",
              room->id);
      continue;
    }
    set->connector_count += room->connector_count;
    set->room_count++;
  }
  return 0;
}

/* A set whose rooms all have one doorway can place only its start; a set
 * of start rooms alone has no moves (start rooms are placed once). */
static void check_set_grows(const authored_roomset *set, authored_report *report) {
  bool grows = false, movable = false;
  for (int i = 0; i < set->room_count; i++) {
    grows = grows || set->rooms[i].connector_count >= 2;
    movable = movable || !(set->rooms[i].tag_bits & AUTHORED_TAG_START);
  }
  if (!grows)
    problem(report, DG_EINVAL, "rooms",
            "no room has two or more connectors, so nothing can grow past the first room");
  else if (!movable)
    problem(report, DG_EINVAL, "rooms",
            "every room is tagged start, so nothing can be attached to the first room");
}

/* The level names its room set by this digest: canonical, so that the
 * file's layout does not matter, only what the parser reads. */
static int digest_set(const json_t *json, authored_roomset *set) {
  char *canonical = json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS);
  if (canonical == NULL)
    return DG_ENOMEM;
  dg_sha256_hex(canonical, strlen(canonical), set->sha256);
  free(canonical);
  return 0;
}

int authored_roomset_parse(const json_t *json, authored_report *report, authored_roomset **out) {
  authored_roomset *set = calloc(1, sizeof *set);
  if (set == NULL)
    return DG_ENOMEM;
  int start_count = report->count, rc = DG_EINVAL;
  if (!json_is_object(json)) {
    problem(report, DG_ETYPE, "", "a room set must be a JSON object");
    goto fail;
  }
  parse_set_header(json, set, report);
  const json_t *rooms = json_object_get(json, "rooms");
  if (!json_is_array(rooms) || json_array_size(rooms) == 0 ||
      json_array_size(rooms) > AUTHORED_ROOMS_MAX) {
    problem(report, DG_EINVAL, "rooms", "rooms must be an array of 1 to %d rooms",
            AUTHORED_ROOMS_MAX);
    goto fail;
  }
  if ((rc = parse_rooms(rooms, set, report)) != 0)
    goto fail;
  if (report->count == start_count)
    check_set_grows(set, report);
  rc = DG_EINVAL;
  if (report->count != start_count)
    goto fail;
  if ((rc = digest_set(json, set)) != 0)
    goto fail;
  *out = set;
  return 0;
fail:
  authored_roomset_free(set);
  return rc;
}

void authored_roomset_free(authored_roomset *set) {
  if (set == NULL)
    return;
  free(set->rooms);
  free(set->moves);
  free(set->boxes);
  free(set->exits);
  free(set->groups);
  free(set->members);
  for (int f = 0; f < 4; f++)
    free(set->by_facing[f]);
  for (int f = 0; f < 4; f++)
    free(set->moves_by_facing[f]);
  authored_pdb_free(&set->pdb);
  free(set);
}
