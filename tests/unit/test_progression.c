/* The progression pass seen from the library's API: the defaults change
 * nothing, the pass is deterministic and touches only the tiles it places
 * (locks, keys, one-way doors) and the members it owns, fewer locks come
 * with a reason, every representation carries the new tiles, and bad
 * values name their field and range. Solvability over many seeds is the
 * independent checker's job (tests/http/progression_checker.py). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/passes/progression.h"
#include "../../src/lib/passes/trace.h"
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

Test(progression, defaults_write_nothing_of_the_pass) {
  static const char *const zero[] = {"locks=0", "one_way=0", "key_kind=reusable", NULL};
  dg_level *plain = make("classic", 42, NULL), *explicit = make("classic", 42, zero);
  char *a = json_of(plain), *b = json_of(explicit);
  cr_assert_str_eq(a, b, "explicit defaults changed the bytes");
  cr_assert_null(strstr(a, "progression"));
  cr_assert_null(strstr(a, "\"locks\""));
  cr_assert_null(strstr(a, "locked_door"));
  cr_assert(!plain->progression.placed);
  free(a);
  free(b);
  dg_level_free(plain);
  dg_level_free(explicit);
}

Test(progression, only_its_own_tiles_change_and_bytes_repeat) {
  static const char *const asked[] = {"locks=2", "one_way=2", "boss_room=true", NULL};
  for (uint64_t seed = 1; seed <= 40; seed++) {
    dg_level *plain = make("landmark", seed, NULL);
    dg_level *locked = make("landmark", seed, asked);
    dg_level *again = make("landmark", seed, asked);
    const dg_grid *g = &plain->grid, *h = &locked->grid;
    cr_assert_eq(g->width, h->width);
    int changed = 0;
    for (long i = 0; i < (long)g->width * g->height; i++) {
      if (g->tiles[i] == h->tiles[i])
        continue;
      changed++;
      cr_assert(dg_tile_progression(h->tiles[i]), "seed %llu: tile %ld became %s",
                (unsigned long long)seed, i, dg_tile_name((dg_tile)h->tiles[i]));
    }
    const dg_progression *p = &locked->progression;
    cr_assert(p->placed);
    cr_assert_eq(changed, 2 * p->locks_placed + p->one_way_placed, "seed %llu",
                 (unsigned long long)seed);
    cr_assert_leq(p->locks_placed, 2);
    cr_assert((p->locks_placed < 2) == (p->locks_why != NULL), "a reason exactly when fewer");
    cr_assert((p->one_way_placed < 2) == (p->one_way_why != NULL));
    cr_assert_eq(p->sphere_count, p->locks_placed + 1);
    cr_assert_gt(p->walk_length, 0);
    if (p->locks_placed > 0) {
      cr_assert_geq(p->boss_room, 0, "seed %llu: no boss room behind the last lock",
                    (unsigned long long)seed);
      cr_assert_eq(p->room_sphere[p->boss_room], p->locks_placed);
    }
    for (int k = 0; k < p->locks_placed; k++)
      cr_assert_leq(p->key_sphere[k], k, "key %d lies behind its own lock", k);
    char *a = json_of(locked), *b = json_of(again);
    cr_assert_str_eq(a, b, "seed %llu: not deterministic", (unsigned long long)seed);
    free(a);
    free(b);
    dg_level_free(plain);
    dg_level_free(locked);
    dg_level_free(again);
  }
}

Test(progression, a_level_without_chokepoints_says_why) {
  /* One room: the exit shares the entrance's room, no door lies between. */
  static const char *const asked[] = {"locks=3", "rooms_min=1", "rooms_max=1", NULL};
  dg_level *level = make("classic", 7, asked);
  const dg_progression *p = &level->progression;
  cr_assert_eq(p->locks_placed, 0);
  cr_assert_not_null(p->locks_why);
  char *text = json_of(level);
  cr_assert_not_null(strstr(text, "\"why\":{\"locks\":"));
  free(text);
  dg_level_free(level);
}

Test(progression, every_representation_shows_locks_keys_and_one_way_doors) {
  static const char *const asked[] = {"locks=2", "one_way=1", NULL};
  dg_level *level = make("landmark", 3, asked);
  cr_assert_eq(level->progression.locks_placed, 2);
  cr_assert_eq(level->progression.one_way_placed, 1);
  char *ascii = NULL, *svg = NULL, *tiled = NULL;
  cr_assert_eq(dg_level_dump_ascii(level, &ascii, NULL), 0);
  cr_assert_not_null(strchr(ascii, 'L'));
  cr_assert_not_null(strchr(ascii, 'k'));
  dg_svg_options options;
  dg_svg_options_init(&options);
  cr_assert_eq(dg_level_dump_svg(level, &options, &svg, NULL), 0);
  cr_assert_not_null(strstr(svg, "class=\"lock k1\" data-key=\"1\""));
  cr_assert_not_null(strstr(svg, "class=\"key k0\" data-key=\"0\""));
  cr_assert_not_null(strstr(svg, "class=\"arrow\" data-direction="));
  cr_assert_eq(dg_level_dump_tiled(level, &tiled, NULL), 0);
  cr_assert_not_null(strstr(tiled, "\"key_id\""));
  cr_assert_not_null(strstr(tiled, "\"direction\""));
  cr_assert_not_null(strstr(tiled, DG_TILED_TILESET_IMAGE_PROGRESSION));
  free(ascii);
  free(svg);
  free(tiled);
  dg_level_free(level);
}

Test(progression, out_of_range_values_name_field_and_range) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("nonlinear"));
  dg_error err = {0};
  cr_assert_neq(dg_request_set_text(&request, "locks", "17", &err), 0);
  cr_assert_str_eq(err.field, "locks");
  cr_assert_not_null(strstr(err.message, "an integer from 0 to 16"), "%s", err.message);
  cr_assert_neq(dg_request_set_text(&request, "key_kind", "skeleton", &err), 0);
  cr_assert_not_null(strstr(err.message, "one of reusable, consumable"), "%s", err.message);
  cr_assert_neq(dg_request_set_text(&request, "one_way", "-1", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "locks", "1", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "placement", "false", &err), 0);
  cr_assert_neq(dg_request_validate(&request, &err), 0);
  cr_assert_str_eq(err.field, "params.locks");
}

/* Runs the pass on `level` (made without it) as dg_generate would, with
 * `locks` asked for and no one-way door. */
static void progress(dg_level *level, int locks) {
  const dg_algorithm *algorithm = level->algorithm;
  level->params.number[dg_common_param(algorithm, DG_COMMON_LOCKS)] = locks;
  level->params.number[dg_common_param(algorithm, DG_COMMON_ONE_WAY)] = 0;
  dg_rng rng;
  dg_rng_seed(&rng, level->seed, DG_STREAM_PROGRESSION);
  dg_error err = {0};
  cr_assert_eq(dg_pass_progression(level, NULL, &rng, &err), 0, "%s", err.message);
}

/* A classic level plans on the graph its generator traced (the nodes and
 * corridors, each corridor closed at one tile the trace recorded) instead
 * of gathering the map's tiles again. Both describe the same map, so the
 * chokepoints with a key place before them are the same: over 300 seeds
 * the traced graph holds exactly as many locks as the tiles do, for 1, 2
 * and 4 asked. (Solvability is the checker's, over the HTTP API.) */
Test(progression, the_traced_graph_holds_as_many_locks_as_the_tiles) {
  int fewer = 0, differ = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    int locks = seed % 3 == 0 ? 1 : seed % 3 == 1 ? 2 : 4;
    dg_level *tiles = make("classic", seed, NULL), *traced = make("classic", seed, NULL);
    traced->params.number[dg_common_param(traced->algorithm, DG_COMMON_LOCKS)] = locks;
    /* What dg_generate's classic run records when locks are asked for. */
    cr_assert_eq(dg_trace_graph(traced, traced->room_of), 0);
    cr_assert_not_null(traced->trace_passages, "seed %llu", (unsigned long long)seed);
    cr_assert_null(tiles->trace_passages);
    progress(tiles, locks);
    progress(traced, locks);
    cr_assert_eq(traced->progression.locks_placed, tiles->progression.locks_placed,
                 "seed %llu, %d asked: %d locks on the traced graph, %d on the tiles",
                 (unsigned long long)seed, locks, traced->progression.locks_placed,
                 tiles->progression.locks_placed);
    fewer += traced->progression.locks_placed < locks;
    char *a = json_of(tiles), *b = json_of(traced);
    differ += strcmp(a, b) != 0;
    free(a);
    free(b);
    dg_level_free(tiles);
    dg_level_free(traced);
  }
  /* Not a vacuous comparison: some levels hold fewer than asked, and the
   * two plans differ in places (other vertices, other hops). */
  cr_assert(fewer > 0 && fewer < 300, "fewer locks than asked in %d of 300", fewer);
  cr_assert(differ > 0, "the traced graph planned every level as the tiles did");
}
