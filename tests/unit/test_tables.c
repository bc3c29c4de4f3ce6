/* Content tables (docs/population.md): the loader names the field of every
 * problem a broken file can have, loads a good one into a context once,
 * and a table's entities stay inside their budgets and windows, are the
 * same for the same seed, and never change the budgets. The independent
 * checks over many seeds are tests/http/entities_checker.py's. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

static const char good[] =
    "{\"format\":\"dungeond.table/1\",\"name\":\"t\",\"encounters\":["
    "{\"id\":\"rats\",\"cost\":10,\"difficulty\":[0,60],\"weight\":3,\"tags\":[\"beast\"]},"
    "{\"id\":\"ogre\",\"cost\":90,\"difficulty\":[40,100],\"footprint\":[2,2]}],"
    "\"loot\":[{\"id\":\"coin\",\"tier\":0},{\"id\":\"gem\",\"tier\":1},{\"id\":\"ring\",\"tier\":"
    "2},"
    "{\"id\":\"crown\",\"tier\":3,\"weight\":2},{\"id\":\"hoard\",\"tier\":4}]}";

/* Loads `text` into a fresh context; returns the code, `err` filled. */
static int load(const char *text, dg_error *err) {
  json_error_t parse;
  json_t *json = json_loads(text, 0, &parse);
  cr_assert_not_null(json, "%s: %s", text, parse.text);
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  dg_error_clear(err);
  int rc = dg_context_add_table(context, json, err);
  json_decref(json);
  dg_context_free(context);
  return rc;
}

/* `good` with `from` replaced by `to` must fail naming `field`. */
static void broken(const char *from, const char *to, const char *field) {
  char text[2048];
  const char *at = strstr(good, from);
  cr_assert_not_null(at, "%s not in the good table", from);
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
  dg_error err;
  cr_assert_neq(load(text, &err), 0, "%s loaded", text);
  cr_assert_str_eq(err.field, field, "%s: field '%s' (%s)", to, err.field, err.message);
}

Test(tables, a_good_table_loads_once) {
  json_t *json = json_loads(good, 0, NULL);
  dg_context *context = NULL;
  dg_error err;
  cr_assert_eq(dg_context_new(&context), 0);
  cr_assert_eq(dg_context_add_table(context, json, &err), 0, "%s", err.message);
  cr_assert_eq(dg_context_table_count(context), 1);
  dg_table_info info;
  cr_assert_eq(dg_context_table_info(context, 0, &info), 0);
  cr_assert_str_eq(info.name, "t");
  cr_assert_eq(info.encounters, 2);
  cr_assert_eq(info.loot, 5);
  cr_assert_eq(strlen(info.sha256), 64);
  cr_assert_eq(dg_context_add_table(context, json, &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "name");
  json_t *listed = dg_context_tables_to_json(context);
  cr_assert_eq(json_array_size(listed), 1);
  json_decref(listed);
  json_decref(json);
  dg_context_free(context);
}

Test(tables, broken_files_name_the_field) {
  broken("\"name\":\"t\"", "\"name\":\"bad name\"", "name");
  broken("\"format\":\"dungeond.table/1\"", "\"format\":\"other/1\"", "format");
  broken("\"format\":\"dungeond.table/1\",", "\"colour\":1,", "colour");
  broken("\"cost\":10", "\"cost\":0", "encounters[0].cost");
  broken("\"cost\":10", "\"cost\":\"ten\"", "encounters[0].cost");
  broken("\"difficulty\":[0,60]", "\"difficulty\":[70,60]", "encounters[0].difficulty");
  broken("\"difficulty\":[0,60]", "\"difficulty\":[0,101]", "encounters[0].difficulty");
  broken("\"difficulty\":[40,100]", "\"difficulty\":40", "encounters[1].difficulty");
  broken("\"weight\":3", "\"weight\":0", "encounters[0].weight");
  broken("\"tags\":[\"beast\"]", "\"tags\":[3]", "encounters[0].tags");
  broken("\"footprint\":[2,2]", "\"footprint\":[0,2]", "encounters[1].footprint");
  broken("\"id\":\"ogre\"", "\"id\":\"rats\"", "encounters[1].id");
  broken("\"id\":\"ogre\"", "\"id\":\"\"", "encounters[1].id");
  broken("\"id\":\"ogre\",", "\"id\":\"ogre\",\"hp\":4,", "encounters[1].hp");
  broken("\"tier\":0", "\"tier\":5", "loot[0].tier");
  broken("{\"id\":\"gem\",\"tier\":1}", "7", "loot[1]");
}

Test(tables, an_empty_table_is_refused) {
  dg_error err;
  cr_assert_neq(load("{\"name\":\"e\",\"encounters\":[],\"loot\":[]}", &err), 0);
  cr_assert_str_eq(err.field, "encounters");
  cr_assert_neq(load("[1]", &err), 0);
  cr_assert_neq(load("{\"name\":\"e\",\"loot\":{\"a\":1}}", &err), 0);
  cr_assert_str_eq(err.field, "loot");
}

static dg_level *make(dg_context *context, const char *table, const char *pacing) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  cr_assert_eq(dg_request_set_text(&request, "population", "true", &err), 0, "%s", err.message);
  cr_assert_eq(dg_request_set_text(&request, "difficulty", "70", &err), 0, "%s", err.message);
  cr_assert_eq(dg_request_set_text(&request, "pacing", pacing, &err), 0, "%s", err.message);
  if (table != NULL)
    cr_assert_eq(dg_request_set_text(&request, "table", table, &err), 0, "%s", err.message);
  request.seed = 11;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(context, &request, NULL, &level, &err), 0, "%s", err.message);
  return level;
}

Test(tables, entities_fill_budgets_and_leave_them_alone) {
  json_t *json = json_loads(good, 0, NULL);
  dg_context *context = NULL;
  dg_error err;
  cr_assert_eq(dg_context_new(&context), 0);
  cr_assert_eq(dg_context_add_table(context, json, &err), 0, "%s", err.message);
  json_decref(json);
  dg_level *plain = make(context, NULL, "linear");
  dg_level *filled = make(context, "t", "linear");
  dg_level *again = make(context, "t", "linear");
  cr_assert_gt(filled->population.entity_count, 0);
  cr_assert_eq(plain->population.entity_count, 0);
  for (int r = 0; r < filled->room_count; r++) {
    const dg_population_room *room = &filled->population.rooms[r];
    cr_assert_eq(room->threat, plain->population.rooms[r].threat, "room %d's budget moved", r);
    cr_assert_leq(room->spent, room->threat, "room %d overspent", r);
  }
  for (int i = 0; i < filled->population.entity_count; i++) {
    const dg_entity *e = &filled->population.entities[i];
    /* At difficulty 70 only the ogre's window [40,100] holds. */
    if (e->kind == DG_ENTITY_ENCOUNTER)
      cr_assert_str_eq(e->entry, "ogre");
    cr_assert_eq(dg_grid_get(&filled->grid, e->x, e->y), DG_TILE_FLOOR);
  }
  char *a = NULL, *b = NULL;
  cr_assert_eq(dg_level_dump_json(filled, &a, NULL), 0);
  cr_assert_eq(dg_level_dump_json(again, &b, NULL), 0);
  cr_assert_str_eq(a, b);
  cr_assert_not_null(strstr(a, "\"entities\":[{\"id\":\"e1\""));
  free(a);
  free(b);
  dg_level_free(plain);
  dg_level_free(filled);
  dg_level_free(again);
  /* An unknown name is refused on params.table. */
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_request_set_text(&request, "population", "true", &err);
  dg_request_set_text(&request, "table", "nope", &err);
  dg_level *level = NULL;
  request.seed_given = true;
  cr_assert_eq(dg_generate(context, &request, NULL, &level, &err), DG_ENOENT, "%s", err.message);
  cr_assert_str_eq(err.field, "params.table");
  dg_context_free(context);
}

Test(tables, control_points_through_the_corners_are_linear) {
  dg_level *linear = make(NULL, NULL, "linear");
  dg_level *points = make(NULL, NULL, "0:0,100:100");
  for (int r = 0; r < linear->room_count; r++)
    cr_assert_eq(linear->population.rooms[r].threat, points->population.rooms[r].threat);
  dg_level_free(linear);
  dg_level_free(points);
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err;
  static const char *const bad[] = {"0:0",     "0:0,50:1,50:2,100:0", "5:0,100:0", "0:0,100:101",
                                    "0:0,100", "0:0,,100:0",          "0:0,90:0",  "0:-1,100:0"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_assert_neq(dg_request_set_text(&request, "pacing", bad[i], &err), 0, "%s accepted", bad[i]);
    cr_assert_not_null(strstr(err.message, "control points"), "%s", err.message);
  }
}

/* A level with many more entities than the list's first allocation (32):
 * as the list grows, every entity placed before is kept whole. */
Test(tables, entities_past_the_first_allocation_are_kept) {
  static const char cheap[] =
      "{\"format\":\"dungeond.table/1\",\"name\":\"cheap\",\"encounters\":["
      "{\"id\":\"rat\",\"cost\":1,\"difficulty\":[0,100]}],"
      "\"loot\":[{\"id\":\"coin\",\"tier\":0},{\"id\":\"gem\",\"tier\":1},{\"id\":\"ring\","
      "\"tier\":2},{\"id\":\"crown\",\"tier\":3},{\"id\":\"hoard\",\"tier\":4}]}";
  json_t *json = json_loads(cheap, 0, NULL);
  dg_context *context = NULL;
  dg_error err;
  cr_assert_eq(dg_context_new(&context), 0);
  cr_assert_eq(dg_context_add_table(context, json, &err), 0, "%s", err.message);
  json_decref(json);
  dg_level *level = make(context, "cheap", "flat");
  const dg_population *p = &level->population;
  cr_assert_gt(p->entity_count, 64, "only %d entities", p->entity_count);
  for (int i = 0; i < p->entity_count; i++) {
    const dg_entity *e = &p->entities[i];
    if (e->kind == DG_ENTITY_ENCOUNTER)
      cr_assert_str_eq(e->entry, "rat", "entity %d", i);
    cr_assert_eq(dg_grid_get(&level->grid, e->x, e->y), DG_TILE_FLOOR, "entity %d", i);
    for (int j = 0; j < i; j++)
      cr_assert(p->entities[j].x != e->x || p->entities[j].y != e->y, "entities %d, %d", j, i);
  }
  dg_level_free(level);
  dg_context_free(context);
}
