/* The population pass seen from the library's API: the defaults change
 * nothing, the pass is deterministic and leaves the map alone, the rules
 * hold on the level's own members (arrival rooms at 0, linear pacing
 * monotone in distance, the curves' order, loot shares adding up), and bad
 * values name their field and range. Re-deriving every budget from the
 * output over many seeds is the independent checker's job
 * (tests/http/population_checker.py). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"
#include "dungeon/render.h"

static dg_level *make(const char *algorithm, uint64_t seed, const char *const *settings) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find(algorithm));
  dg_error err = {0};
  for (int i = 0; settings != NULL && settings[i] != NULL; i++) {
    char name[64];
    const char *equals = strchr(settings[i], '=');
    snprintf(name, sizeof name, "%.*s", (int)(equals - settings[i]), settings[i]);
    cr_assert_eq(dg_request_set_text(&request, name, equals + 1, &err), 0, "%s", err.message);
  }
  request.seed = seed;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
  return level;
}

static char *json_of(const dg_level *level) {
  char *text = NULL;
  cr_assert_eq(dg_level_dump_json(level, &text, NULL), 0);
  return text;
}

Test(population, defaults_write_nothing_of_the_pass) {
  static const char *const defaults[] = {"population=false", "difficulty=50",       "pacing=linear",
                                         "loot=100",         "ease_after_locks=50", NULL};
  static const char *const locks[] = {"locks=2", NULL};
  const char *algorithms[] = {"classic", "landmark", "nonlinear"};
  for (int a = 0; a < 3; a++) {
    dg_level *plain = make(algorithms[a], 42, NULL), *explicit = make(algorithms[a], 42, defaults);
    char *x = json_of(plain), *y = json_of(explicit);
    cr_assert_str_eq(x, y, "%s: explicit defaults changed the bytes", algorithms[a]);
    cr_assert_null(strstr(x, "population"), "%s", algorithms[a]);
    cr_assert_null(strstr(x, "difficulty"), "%s", algorithms[a]);
    cr_assert(!plain->population.placed);
    free(x);
    free(y);
    dg_level_free(plain);
    dg_level_free(explicit);
  }
  /* Progression on, population at its defaults: only the progression
   * group is listed. */
  dg_level *level = make("classic", 42, locks);
  char *text = json_of(level);
  cr_assert_not_null(strstr(text, "\"locks\":2"));
  cr_assert_null(strstr(text, "difficulty"));
  free(text);
  dg_level_free(level);
}

Test(population, deterministic_and_leaves_the_map_alone) {
  static const char *const on[] = {"population=true", "locks=2", "boss_room=true", NULL};
  static const char *const off[] = {"locks=2", "boss_room=true", NULL};
  dg_level *a = make("landmark", 9, on), *b = make("landmark", 9, on),
           *c = make("landmark", 9, off);
  char *x = json_of(a), *y = json_of(b);
  cr_assert_str_eq(x, y, "two generations differ");
  cr_assert_eq(a->grid.width * a->grid.height, c->grid.width * c->grid.height);
  cr_assert_eq(memcmp(a->grid.tiles, c->grid.tiles, (size_t)(a->grid.width * a->grid.height)), 0,
               "population changed the map");
  cr_assert_eq(a->feature_count, c->feature_count, "population changed the features");
  free(x);
  free(y);
  dg_level_free(a);
  dg_level_free(b);
  dg_level_free(c);
}

/* The rules on the level's own members, over seeds and algorithms. */
Test(population, rules_hold_over_seeds) {
  static const char *const settings[] = {"population=true", "difficulty=80", "loot=1000", NULL};
  const char *algorithms[] = {"classic", "landmark", "nonlinear"};
  for (int a = 0; a < 3; a++)
    for (uint64_t seed = 1; seed <= 40; seed++) {
      dg_level *level = make(algorithms[a], seed, settings);
      const dg_population *p = &level->population;
      cr_assert(p->placed);
      int loot = 0, threat = 0;
      for (int r = 0; r < level->room_count; r++) {
        const dg_population_room *room = &p->rooms[r];
        loot += room->loot;
        threat += room->threat;
        cr_assert(room->loot_tier >= 0 && room->loot_tier <= DG_LOOT_TIER_MAX);
        cr_assert_leq(room->threat, 800, "%s seed %llu room %d", algorithms[a],
                      (unsigned long long)seed, r);
        if (room->why & (DG_POPULATION_ENTRANCE | DG_POPULATION_SPAWN))
          cr_assert_eq(room->threat, 0, "%s seed %llu: arrival room %d has threat", algorithms[a],
                       (unsigned long long)seed, r);
        /* Linear pacing without locks: threat never falls as distance
         * grows, among the rooms on the curve. */
        for (int q = 0; q < level->room_count; q++) {
          const dg_population_room *other = &p->rooms[q];
          if ((room->why | other->why) != 0)
            continue;
          if (room->distance < other->distance)
            cr_assert_leq(room->threat, other->threat, "%s seed %llu rooms %d, %d", algorithms[a],
                          (unsigned long long)seed, r, q);
        }
      }
      cr_assert_eq(loot, 1000, "%s seed %llu: loot shares add up to %d", algorithms[a],
                   (unsigned long long)seed, loot);
      cr_assert_eq(threat, p->threat_total);
      dg_level_free(level);
    }
}

/* Exponential pacing lies under linear everywhere (convex, same ends);
 * flat gives every room on the curve the peak. */
Test(population, curves_keep_their_order) {
  static const char *const linear[] = {"population=true", "pacing=linear", NULL};
  static const char *const exponential[] = {"population=true", "pacing=exponential", NULL};
  static const char *const flat[] = {"population=true", "pacing=flat", NULL};
  for (uint64_t seed = 1; seed <= 20; seed++) {
    dg_level *l = make("nonlinear", seed, linear), *e = make("nonlinear", seed, exponential);
    dg_level *f = make("nonlinear", seed, flat);
    for (int r = 0; r < l->room_count; r++) {
      cr_assert_leq(e->population.rooms[r].threat, l->population.rooms[r].threat);
      if (f->population.rooms[r].why == 0)
        cr_assert_eq(f->population.rooms[r].threat, 500);
    }
    dg_level_free(l);
    dg_level_free(e);
    dg_level_free(f);
  }
}

Test(population, bad_values_name_their_field) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  cr_assert_eq(dg_request_set_text(&request, "difficulty", "101", &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "difficulty");
  cr_assert_not_null(strstr(err.message, "an integer from 0 to 100"));
  cr_assert_eq(dg_request_set_text(&request, "pacing", "steep", &err), DG_EINVAL);
  cr_assert_not_null(strstr(err.message, "one of flat, linear, s_curve, exponential"));
  cr_assert_eq(dg_request_set_text(&request, "population", "true", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "placement", "false", &err), 0);
  request.seed = 1;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "params.population");
  cr_assert_null(level);
}

/* The SVG picture draws the budgets only on a populated level. */
Test(population, svg_layer_only_when_populated) {
  static const char *const on[] = {"population=true", NULL};
  dg_level *plain = make("classic", 7, NULL), *populated = make("classic", 7, on);
  char *a = NULL, *b = NULL;
  cr_assert_eq(dg_level_dump_svg(plain, NULL, &a, NULL), 0);
  cr_assert_eq(dg_level_dump_svg(populated, NULL, &b, NULL), 0);
  cr_assert_null(strstr(a, "population"));
  cr_assert_not_null(strstr(b, "<g class=\"population\">"));
  cr_assert_not_null(strstr(b, "data-threat="));
  free(a);
  free(b);
  dg_level_free(plain);
  dg_level_free(populated);
}
