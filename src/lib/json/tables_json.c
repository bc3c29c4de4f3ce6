/* The content-table JSON entry points (dungeon/json.h): validating one
 * table file's parsed JSON into a dg_table for the context, and the loaded
 * tables' figures for GET /v1/tables. The format is in docs/population.md
 * ("Content tables"); every problem names its field
 * ("encounters[3].difficulty") so that a broken file stops the daemon with
 * a message a person can act on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/json.h"
#include "model/context_internal.h"
#include "model/table.h"

#define TABLE_FORMAT "dungeond.table/1"

/* A name: 1..max-1 bytes of [A-Za-z0-9_.-], as string parameters are. */
static bool good_name(const char *text, size_t max) {
  size_t length = strlen(text);
  bool ok = length >= 1 && length < max;
  for (size_t i = 0; ok && i < length; i++) {
    char c = text[i];
    ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
  }
  return ok;
}

/* An integer member `key` of `object` within [min, max] into *out; a
 * missing one is `fallback` when `optional`. Problems name `where`.key. */
static int get_int(const json_t *object, const char *key, const char *where, int min, int max,
                   bool optional, int fallback, int *out, dg_error *err) {
  const json_t *value = json_object_get(object, key);
  if (value == NULL && optional) {
    *out = fallback;
    return 0;
  }
  json_int_t number = json_is_integer(value) ? json_integer_value(value) : (json_int_t)min - 1;
  if (number < min || number > max)
    return dg_error_set(err, json_is_integer(value) ? DG_EINVAL : DG_ETYPE, "",
                        "%s.%s must be an integer from %d to %d", where, key, min, max);
  *out = (int)number;
  return 0;
}

/* A pair [a, b] of integers within [min, max] (a <= b when `ordered`). */
static int get_pair(const json_t *object, const char *key, const char *where, int min, int max,
                    bool ordered, int *a, int *b, dg_error *err) {
  const json_t *value = json_object_get(object, key);
  const json_t *first = json_array_get(value, 0), *second = json_array_get(value, 1);
  bool ok = json_is_array(value) && json_array_size(value) == 2 && json_is_integer(first) &&
            json_is_integer(second);
  json_int_t x = ok ? json_integer_value(first) : 0, y = ok ? json_integer_value(second) : 0;
  ok = ok && x >= min && x <= max && y >= min && y <= max && (!ordered || x <= y);
  if (!ok)
    return dg_error_set(err, DG_EINVAL, "", "%s.%s must be [%s, %s], integers from %d to %d%s",
                        where, key, ordered ? "min" : "width", ordered ? "max" : "height", min, max,
                        ordered ? ", min <= max" : "");
  *a = (int)x;
  *b = (int)y;
  return 0;
}

/* Only the members in `known` (NULL-terminated) may appear. */
static int only_known(const json_t *object, const char *const *known, const char *where,
                      dg_error *err) {
  const char *key;
  const json_t *value;
  json_object_foreach((json_t *)object, key, value) {
    bool found = false;
    for (int i = 0; known[i] != NULL && !found; i++)
      found = strcmp(known[i], key) == 0;
    if (!found)
      return dg_error_set(err, DG_EINVAL, "", "%s%s%s: unknown member", where, where[0] ? "." : "",
                          key);
  }
  return 0;
}

/* An entry's id: a name, unique among the `count` ids before it. */
static int get_id(const json_t *entry, const char *where, char *id, const char *ids, size_t stride,
                  int count, dg_error *err) {
  const char *text = json_string_value(json_object_get(entry, "id"));
  if (text == NULL || !good_name(text, DG_ENTITY_ENTRY_MAX))
    return dg_error_set(err, DG_EINVAL, "",
                        "%s.id must be a name of 1 to %d characters [A-Za-z0-9_.-]", where,
                        DG_ENTITY_ENTRY_MAX - 1);
  for (int i = 0; i < count; i++)
    if (strcmp(ids + (size_t)i * stride, text) == 0)
      return dg_error_set(err, DG_EINVAL, "", "%s.id: '%s' is already an id of this list", where,
                          text);
  snprintf(id, DG_ENTITY_ENTRY_MAX, "%s", text);
  return 0;
}

static int parse_encounter(const json_t *entry, const char *where, dg_table *table, dg_error *err) {
  static const char *const known[] = {"id",   "cost",      "difficulty",  "weight",
                                      "tags", "footprint", "description", NULL};
  dg_table_encounter *e = &table->encounters[table->encounter_count];
  int rc;
  if (!json_is_object(entry))
    return dg_error_set(err, DG_ETYPE, "", "%s must be an object", where);
  if ((rc = only_known(entry, known, where, err)) != 0 ||
      (rc = get_id(entry, where, e->id, table->encounters[0].id, sizeof *e, table->encounter_count,
                   err)) != 0 ||
      (rc = get_int(entry, "cost", where, 1, DG_TABLE_COST_MAX, false, 0, &e->cost, err)) != 0 ||
      (rc = get_pair(entry, "difficulty", where, 0, DG_DIFFICULTY_MAX, true, &e->min, &e->max,
                     err)) != 0 ||
      (rc = get_int(entry, "weight", where, 1, DG_TABLE_WEIGHT_MAX, true, 1, &e->weight, err)) != 0)
    return rc;
  e->width = e->height = 1;
  if (json_object_get(entry, "footprint") != NULL &&
      (rc = get_pair(entry, "footprint", where, 1, DG_TABLE_FOOTPRINT_MAX, false, &e->width,
                     &e->height, err)) != 0)
    return rc;
  const json_t *tags = json_object_get(entry, "tags");
  if (tags != NULL) {
    bool ok = json_is_array(tags);
    size_t i;
    const json_t *tag;
    json_array_foreach(tags, i, tag) ok =
        ok && json_is_string(tag) && good_name(json_string_value(tag), DG_ENTITY_ENTRY_MAX);
    if (!ok)
      return dg_error_set(err, DG_EINVAL, "", "%s.tags must be an array of names", where);
    e->tag_count = (int)json_array_size(tags);
  }
  table->encounter_count++;
  return 0;
}

static int parse_loot(const json_t *entry, const char *where, dg_table *table, dg_error *err) {
  static const char *const known[] = {"id", "tier", "weight", "description", NULL};
  dg_table_loot *l = &table->loot[table->loot_count];
  int rc;
  if (!json_is_object(entry))
    return dg_error_set(err, DG_ETYPE, "", "%s must be an object", where);
  if ((rc = only_known(entry, known, where, err)) != 0 ||
      (rc = get_id(entry, where, l->id, table->loot[0].id, sizeof *l, table->loot_count, err)) !=
          0 ||
      (rc = get_int(entry, "tier", where, 0, DG_LOOT_TIER_MAX, false, 0, &l->tier, err)) != 0 ||
      (rc = get_int(entry, "weight", where, 1, DG_TABLE_WEIGHT_MAX, true, 1, &l->weight, err)) != 0)
    return rc;
  table->loot_count++;
  return 0;
}

/* The array member `key` of `json`, each element through `parse`. */
static int parse_list(const json_t *json, const char *key, dg_table *table,
                      int (*parse)(const json_t *, const char *, dg_table *, dg_error *),
                      dg_error *err) {
  const json_t *list = json_object_get(json, key);
  if (list == NULL)
    return 0;
  if (!json_is_array(list) || json_array_size(list) > DG_TABLE_ENTRIES_MAX)
    return dg_error_set(err, DG_EINVAL, "", "%s must be an array of at most %d entries", key,
                        DG_TABLE_ENTRIES_MAX);
  size_t i;
  const json_t *entry;
  json_array_foreach(list, i, entry) {
    char where[DG_ERROR_FIELD_MAX];
    snprintf(where, sizeof where, "%s[%zu]", key, i);
    int rc = parse(entry, where, table, err);
    if (rc != 0)
      return rc;
  }
  return 0;
}

static int by_key(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* table->by_cost: the encounters cheapest first, ties in file order, so
 * that the pass finds the affordable ones as a prefix. Keys pack (cost,
 * index) into one integer: a total order, the same on every qsort. 0 or
 * DG_ENOMEM. */
static int sort_by_cost(dg_table *table) {
  int n = table->encounter_count;
  int64_t *keys = malloc(((size_t)n + 1) * sizeof *keys);
  table->by_cost = malloc(((size_t)n + 1) * sizeof *table->by_cost);
  if (keys == NULL || table->by_cost == NULL) {
    free(keys);
    return DG_ENOMEM;
  }
  for (int i = 0; i < n; i++)
    keys[i] = (int64_t)table->encounters[i].cost << 32 | i;
  qsort(keys, (size_t)n, sizeof *keys, by_key);
  for (int i = 0; i < n; i++)
    table->by_cost[i] = (int)(keys[i] & 0xffffffff);
  free(keys);
  return 0;
}

/* The population pass's read-only views of a parsed table (model/table.h):
 * the encounters' picks in cost order and the loot grouped by tier, built
 * once here instead of per level. 0 or DG_ENOMEM. */
static int index_table(dg_table *table) {
  table->picks = malloc(((size_t)table->encounter_count + 1) * sizeof *table->picks);
  table->loot_by_tier = malloc(((size_t)table->loot_count + 1) * sizeof *table->loot_by_tier);
  table->loot_sum = malloc(((size_t)table->loot_count + 1) * sizeof *table->loot_sum);
  if (table->picks == NULL || table->loot_by_tier == NULL || table->loot_sum == NULL)
    return DG_ENOMEM;
  for (int k = 0; k < table->encounter_count; k++) {
    const dg_table_encounter *e = &table->encounters[table->by_cost[k]];
    table->picks[k] = (dg_table_pick){e->cost,   e->min,    e->max, e->width,
                                      e->height, e->weight, e->id,  (int)strlen(e->id) + 1};
  }
  int at[DG_LOOT_TIER_MAX + 1] = {0};
  for (int i = 0; i < table->loot_count; i++) {
    at[table->loot[i].tier]++;
    table->loot[i].id_size = (int)strlen(table->loot[i].id) + 1;
  }
  table->tier_first[0] = 0;
  for (int t = 0; t <= DG_LOOT_TIER_MAX; t++) {
    table->tier_first[t + 1] = table->tier_first[t] + at[t];
    table->tier_weight[t] = 0;
    at[t] = table->tier_first[t];
  }
  for (int i = 0; i < table->loot_count; i++) {
    const dg_table_loot *l = &table->loot[i];
    table->loot_by_tier[at[l->tier]++] = l;
    table->tier_weight[l->tier] += (uint32_t)l->weight;
  }
  /* Below 2^32: at most DG_TABLE_ENTRIES_MAX weights of DG_TABLE_WEIGHT_MAX. */
  table->loot_sum[0] = 0;
  for (int k = 0; k < table->loot_count; k++)
    table->loot_sum[k + 1] = table->loot_sum[k] + (uint32_t)table->loot_by_tier[k]->weight;
  return 0;
}

/* The field a message starts with ("encounters[3].cost must be ..."), so
 * that err->field names it as every other validation error does. */
static int name_field(dg_error *err) {
  if (err == NULL || err->code == 0)
    return 0;
  size_t length = strcspn(err->message, " :");
  if (length >= sizeof err->field)
    length = sizeof err->field - 1;
  memcpy(err->field, err->message, length);
  err->field[length] = '\0';
  return err->code;
}

/* Validates `json` (borrowed) as a content table into a new *out (the
 * caller frees it with dg_table_free). On failure *out is NULL and `err`
 * names the field ("loot[2].tier"). 0, DG_EINVAL, DG_ETYPE or DG_ENOMEM. */
static int table_parse(const json_t *json, dg_table **out, dg_error *err) {
  static const char *const known[] = {"format", "name", "description", "encounters", "loot", NULL};
  *out = NULL;
  dg_error local;
  dg_error *e = err != NULL ? err : &local;
  dg_error_clear(e);
  if (!json_is_object(json))
    return dg_error_set(err, DG_ETYPE, "", "a table must be a JSON object");
  int rc = only_known(json, known, "", e);
  if (rc != 0)
    return name_field(e);
  const json_t *format = json_object_get(json, "format");
  if (format != NULL &&
      !(json_is_string(format) && strcmp(json_string_value(format), TABLE_FORMAT) == 0))
    return dg_error_set(err, DG_EINVAL, "format", "format must be \"%s\"", TABLE_FORMAT);
  const char *name = json_string_value(json_object_get(json, "name"));
  if (name == NULL || !good_name(name, DG_TABLE_NAME_MAX))
    return dg_error_set(err, DG_EINVAL, "name",
                        "name must be a name of 1 to %d characters [A-Za-z0-9_.-]",
                        DG_TABLE_NAME_MAX - 1);
  const json_t *description = json_object_get(json, "description");
  if (description != NULL && !json_is_string(description))
    return dg_error_set(err, DG_ETYPE, "description", "description must be a string");
  dg_table *table = calloc(1, sizeof *table);
  size_t encounters = json_array_size(json_object_get(json, "encounters"));
  size_t loot = json_array_size(json_object_get(json, "loot"));
  if (table == NULL)
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  table->encounters = calloc(encounters + 1, sizeof *table->encounters);
  table->loot = calloc(loot + 1, sizeof *table->loot);
  char *canonical = json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS);
  if (table->encounters == NULL || table->loot == NULL || canonical == NULL) {
    rc = dg_error_set(err, DG_ENOMEM, "", "out of memory");
    goto fail;
  }
  snprintf(table->name, sizeof table->name, "%s", name);
  dg_sha256_hex(canonical, strlen(canonical), table->sha256);
  if ((rc = parse_list(json, "encounters", table, parse_encounter, e)) != 0 ||
      (rc = parse_list(json, "loot", table, parse_loot, e)) != 0) {
    name_field(e);
    goto fail;
  }
  if ((rc = sort_by_cost(table)) != 0 || (rc = index_table(table)) != 0) {
    dg_error_set(err, rc, "", "out of memory");
    goto fail;
  }
  if (table->encounter_count + table->loot_count == 0) {
    rc = dg_error_set(err, DG_EINVAL, "encounters",
                      "a table needs at least one encounter or loot entry");
    goto fail;
  }
  free(canonical);
  *out = table;
  return 0;
fail:
  free(canonical);
  dg_table_free(table);
  return rc;
}

int dg_context_add_table(dg_context *context, const json_t *json, dg_error *err) {
  dg_table *table = NULL;
  int rc = table_parse(json, &table, err);
  if (rc != 0)
    return rc;
  return dg_context_add_parsed_table(context, table, err);
}

json_t *dg_context_tables_to_json(const dg_context *context) {
  json_t *list = json_array();
  if (list == NULL)
    return NULL;
  for (int i = 0; i < dg_context_table_count(context); i++) {
    dg_table_info info;
    dg_context_table_info(context, i, &info);
    json_t *item = json_pack("{s:s,s:i,s:i,s:s}", "name", info.name, "encounters", info.encounters,
                             "loot", info.loot, "sha256", info.sha256);
    if (item == NULL || json_array_append_new(list, item) != 0) {
      json_decref(item);
      json_decref(list);
      return NULL;
    }
  }
  return list;
}
