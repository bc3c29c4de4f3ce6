/* The `nonlinear` generator (seeds/002): its dice tables against their
 * definitions (chi-square), the seed's rules as seen in generated levels
 * (doubles make turns, the threshold moves the room/junction ratio,
 * everything is reachable from the start room, sublevel crossings),
 * determinism, golden maps, and every parameter's validation error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/nonlinear/nonlinear.h"
#include "dungeon/dungeon.h"
#include "dungeon/json.h"

/* Chi-square upper 0.001 quantiles by degrees of freedom. */
static double chi_limit(int degrees) {
  static const double limits[] = {0,     10.83, 13.82, 16.27, 18.47, 20.52, 22.46,
                                  24.32, 26.12, 27.88, 29.59, 31.26, 32.91};
  return limits[degrees];
}

static double chi_square(const long *observed, const double *expected, int count) {
  double chi = 0;
  for (int i = 0; i < count; i++)
    chi += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
  return chi;
}

/* A request for nonlinear with `settings` ("name=value", NULL-terminated). */
static void make_request(dg_request *request, const char *const *settings, uint64_t seed) {
  const dg_algorithm *algorithm = dg_algorithm_find("nonlinear");
  cr_assert_not_null(algorithm);
  dg_request_init(request, algorithm);
  dg_error err = {0};
  for (int i = 0; settings != NULL && settings[i] != NULL; i++) {
    char name[64];
    const char *equals = strchr(settings[i], '=');
    snprintf(name, sizeof name, "%.*s", (int)(equals - settings[i]), settings[i]);
    cr_assert_eq(dg_request_set_text(request, name, equals + 1, &err), 0, "%s", err.message);
  }
  cr_assert_eq(dg_request_validate(request, &err), 0, "%s", err.message);
  request->seed = seed;
  request->seed_given = true;
}

static dg_level *generate(const char *const *settings, uint64_t seed) {
  dg_request request;
  make_request(&request, settings, seed);
  dg_level *level = NULL;
  dg_error err = {0};
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "seed %llu: %s",
               (unsigned long long)seed, err.message);
  return level;
}

static int64_t stat_of(const dg_level *level, const char *name) {
  for (int i = 0; i < level->stat_count; i++)
    if (strcmp(level->stats[i].name, name) == 0)
      return level->stats[i].value;
  cr_assert_fail("no stat %s", name);
  return 0;
}

static const nl_extension *extension_of(const dg_level *level) {
  cr_assert_not_null(level->extension.data);
  return level->extension.data;
}

/* --- the dice tables --- */

Test(nonlinear_dice, destination_dice_are_fair) {
  for (int method = NL_METHOD_CLOCK; method <= NL_METHOD_GRID; method++) {
    int sides = nl_destination_sides(method);
    cr_assert_eq(sides, method == NL_METHOD_CLOCK ? 12 : 8);
    dg_rng rng;
    dg_rng_seed(&rng, 2024u, DG_STREAM_DICE);
    long counts[12] = {0};
    double expected[12];
    const long rolls = 120000;
    for (long i = 0; i < rolls; i++) {
      int roll = nl_roll_destination(&rng, method);
      cr_assert(roll >= 1 && roll <= sides, "roll %d outside 1..%d", roll, sides);
      counts[roll - 1]++;
    }
    for (int i = 0; i < sides; i++)
      expected[i] = (double)rolls / sides;
    double chi = chi_square(counts, expected, sides);
    cr_assert_lt(chi, chi_limit(sides - 1), "d%d chi-square %.2f", sides, chi);
  }
}

Test(nonlinear_dice, d10_is_fair_and_numbered_from_zero) {
  dg_rng rng;
  dg_rng_seed(&rng, 7u, DG_STREAM_DICE);
  long counts[10] = {0};
  double expected[10];
  for (long i = 0; i < 100000; i++) {
    int roll = nl_roll_d10(&rng);
    cr_assert(roll >= 0 && roll <= 9, "d10 gave %d", roll);
    counts[roll]++;
  }
  for (int i = 0; i < 10; i++)
    expected[i] = 10000;
  double chi = chi_square(counts, expected, 10);
  cr_assert_lt(chi, chi_limit(9), "d10 chi-square %.2f", chi);
}

Test(nonlinear_dice, d10_table_follows_threshold) {
  for (int threshold = 0; threshold <= 9; threshold++)
    for (int roll = 0; roll <= 9; roll++) {
      nl_area_roll want = roll == 0 ? NL_DEAD_END : roll <= threshold ? NL_JUNCTION : NL_ROOM;
      cr_assert_eq(nl_area_of_d10(roll, threshold), want, "roll %d threshold %d", roll, threshold);
    }
}

Test(nonlinear_dice, clock_positions) {
  /* The seed's four named hours, and its example: 7 is west then south. */
  static const int named[][3] = {{12, 0, -2}, {3, 2, 0}, {6, 0, 2}, {9, -2, 0}, {7, -1, 2}};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    int dx, dy;
    nl_destination_offset(NL_METHOD_CLOCK, named[i][0], &dx, &dy);
    cr_assert(dx == named[i][1] && dy == named[i][2], "%d o'clock gave (%d,%d)", named[i][0], dx,
              dy);
  }
  /* Twelve distinct areas on the ring two steps away, going clockwise:
   * the cross product of successive offsets is positive (y points down). */
  for (int hour = 1; hour <= 12; hour++) {
    int dx, dy, nx, ny;
    nl_destination_offset(NL_METHOD_CLOCK, hour, &dx, &dy);
    nl_destination_offset(NL_METHOD_CLOCK, hour % 12 + 1, &nx, &ny);
    cr_assert_eq(abs(dx) > abs(dy) ? abs(dx) : abs(dy), 2, "hour %d", hour);
    cr_assert(dx != nx || dy != ny);
    cr_assert_gt(dx * ny - dy * nx, 0, "hour %d to %d is not clockwise", hour, hour % 12 + 1);
  }
}

Test(nonlinear_dice, grid_squares) {
  int dx, dy;
  nl_destination_offset(NL_METHOD_GRID, 1, &dx, &dy);
  cr_assert(dx == 0 && dy == -1, "square 1 is the top one");
  bool seen[3][3] = {{false}};
  for (int square = 1; square <= 8; square++) {
    int nx, ny;
    nl_destination_offset(NL_METHOD_GRID, square, &dx, &dy);
    nl_destination_offset(NL_METHOD_GRID, square % 8 + 1, &nx, &ny);
    cr_assert(abs(dx) <= 1 && abs(dy) <= 1 && (dx != 0 || dy != 0));
    cr_assert(!seen[dy + 1][dx + 1], "square %d repeats", square);
    seen[dy + 1][dx + 1] = true;
    cr_assert_gt(dx * ny - dy * nx, 0, "square %d to %d is not clockwise", square, square % 8 + 1);
  }
}

Test(nonlinear_dice, room_table_parses) {
  nl_room_table table;
  dg_error err = {0};
  cr_assert_eq(nl_room_table_parse("3x2_40x1_5x3c", &table, &err), 0, "%s", err.message);
  cr_assert_eq(table.count, 3);
  cr_assert(table.entries[1].width == 40 && table.entries[1].height == 1);
  cr_assert(table.entries[2].cross && !table.entries[0].cross);
  static const char *const bad[] = {"",
                                    "3",
                                    "3x",
                                    "x3",
                                    "0x3",
                                    "41x2",
                                    "3x2_",
                                    "3x2__4x4",
                                    "3x2c_y",
                                    "3x2d",
                                    "1x1_1x1_1x1_1x1_1x1_1x1_1x1_1x1_1x1_1x1_1x1_1x1_1x1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dg_error_clear(&err);
    cr_assert_eq(nl_room_table_parse(bad[i], &table, &err), DG_EINVAL, "'%s' accepted", bad[i]);
    cr_assert_str_eq(err.field, "params.room_table");
  }
}

/* --- the tables as the generator uses them --- */

Test(nonlinear_levels, d10_outcomes_in_levels_match_the_table) {
  static const int thresholds[] = {6, 3};
  for (size_t t = 0; t < 2; t++) {
    char setting[32];
    snprintf(setting, sizeof setting, "threshold=%d", thresholds[t]);
    const char *settings[] = {setting, "rooms=10000", NULL};
    long counts[3] = {0};
    for (uint64_t seed = 1; seed <= 400; seed++) {
      dg_level *level = generate(settings, seed);
      counts[0] += stat_of(level, "d10_dead_end");
      counts[1] += stat_of(level, "d10_junction");
      counts[2] += stat_of(level, "d10_room");
      dg_level_free(level);
    }
    double total = (double)(counts[0] + counts[1] + counts[2]);
    double expected[3] = {total / 10, total * thresholds[t] / 10, total * (9 - thresholds[t]) / 10};
    double chi = chi_square(counts, expected, 3);
    cr_assert_lt(chi, chi_limit(2), "threshold %d: %ld/%ld/%ld, chi-square %.2f", thresholds[t],
                 counts[0], counts[1], counts[2], chi);
  }
}

Test(nonlinear_levels, junction_rolls_and_room_table_rolls_are_fair) {
  const char *settings[] = {"rooms=10000", NULL};
  long destination[12] = {0}, table[8] = {0};
  for (uint64_t seed = 1; seed <= 500; seed++) {
    dg_level *level = generate(settings, seed);
    const nl_extension *e = extension_of(level);
    cr_assert_eq(e->table.count, 8, "the default room table has eight lines");
    for (int i = 0; i < e->point_count; i++) {
      const nl_point *p = &e->points[i];
      if (p->rolls[0] >= 0) {
        destination[p->rolls[0] - 1]++;
        destination[p->rolls[1] - 1]++;
      }
      if (p->shape_entry > 0)
        table[p->shape_entry - 1]++;
    }
    dg_level_free(level);
  }
  long total = 0, rooms = 0;
  for (int i = 0; i < 12; i++)
    total += destination[i];
  for (int i = 0; i < 8; i++)
    rooms += table[i];
  double expected_destination[12], expected_table[8];
  for (int i = 0; i < 12; i++)
    expected_destination[i] = total / 12.0;
  for (int i = 0; i < 8; i++)
    expected_table[i] = rooms / 8.0;
  cr_assert_gt(total, 2000);
  cr_assert_gt(rooms, 1000);
  double chi = chi_square(destination, expected_destination, 12);
  cr_assert_lt(chi, chi_limit(11), "junction d12 chi-square %.2f", chi);
  chi = chi_square(table, expected_table, 8);
  cr_assert_lt(chi, chi_limit(7), "room table d8 chi-square %.2f", chi);
}

Test(nonlinear_levels, edges_carry_their_destination_roll) {
  static const char *const methods[] = {"method=clock", "method=grid"};
  for (int m = 0; m < 2; m++) {
    const char *settings[] = {methods[m], NULL};
    int sides = m == 0 ? 12 : 8;
    for (uint64_t seed = 1; seed <= 100; seed++) {
      dg_level *level = generate(settings, seed);
      for (int e = 0; e < level->graph.edge_count; e++) {
        int roll = level->graph.edges[e].roll;
        cr_assert(roll >= 1 && roll <= sides, "seed %llu edge %d roll %d", (unsigned long long)seed,
                  e, roll);
      }
      dg_level_free(level);
    }
  }
}

Test(nonlinear_levels, doubles_make_turns) {
  const char *settings[] = {"rooms=10000", "method=grid", NULL};
  int turns = 0, intersections = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    dg_level *level = generate(settings, seed);
    const nl_extension *e = extension_of(level);
    for (int i = 0; i < e->point_count; i++) {
      const nl_point *p = &e->points[i];
      if (p->rolls[0] < 0)
        continue;
      bool doubles = p->rolls[0] == p->rolls[1];
      cr_assert_str_eq(p->form, doubles ? "turn" : "intersection", "seed %llu point %d",
                       (unsigned long long)seed, i);
      cr_assert_eq(p->exits, doubles ? 1 : 2, "seed %llu point %d: rolls %d,%d, %d exits",
                   (unsigned long long)seed, i, p->rolls[0], p->rolls[1], p->exits);
      turns += doubles;
      intersections += !doubles;
    }
    cr_assert_eq(stat_of(level, "junction_turns") + stat_of(level, "junction_intersections"),
                 stat_of(level, "d10_junction"));
    dg_level_free(level);
  }
  /* Doubles on 2d8 come up one time in eight. */
  double share = (double)turns / (turns + intersections);
  cr_assert(share > 0.09 && share < 0.16, "turns %d of %d", turns, turns + intersections);
}

/* Rooms per junction made by the d10, summed over many levels. */
static double room_junction_ratio(int threshold) {
  char setting[32];
  snprintf(setting, sizeof setting, "threshold=%d", threshold);
  const char *settings[] = {setting, "rooms=10000", NULL};
  long rooms = 0, junctions = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    dg_level *level = generate(settings, seed);
    rooms += stat_of(level, "d10_room");
    junctions += stat_of(level, "d10_junction");
    dg_level_free(level);
  }
  return (double)rooms / (double)junctions;
}

Test(nonlinear_levels, threshold_shifts_rooms_against_junctions) {
  static const int thresholds[] = {2, 4, 6, 8};
  double previous = 1e9;
  for (size_t i = 0; i < 4; i++) {
    int t = thresholds[i];
    double ratio = room_junction_ratio(t), want = (9.0 - t) / t;
    cr_assert(ratio > want * 0.85 && ratio < want * 1.15,
              "threshold %d: rooms/junctions %.3f, expected about %.3f", t, ratio, want);
    cr_assert_lt(ratio, previous, "a higher threshold must make fewer rooms per junction");
    previous = ratio;
  }
}

Test(nonlinear_levels, everything_reachable_from_the_start_room) {
  static const char *const variants[][4] = {
      {"method=clock", NULL},
      {"method=grid", NULL},
      {"sublevel_chance=1", "threshold=8", NULL},
      {"method=grid", "sublevel_chance=0.5", "width=200", NULL},
      {"area_width=4", "area_height=4", "rooms=10000", NULL},
  };
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
    for (uint64_t seed = 1; seed <= 150; seed++) {
      dg_level *level = generate(variants[v], seed);
      const dg_graph *graph = &level->graph;
      int *distance = malloc((size_t)graph->node_count * sizeof *distance);
      cr_assert_not_null(distance);
      cr_assert_eq(dg_graph_bfs(graph, 0, distance), 0);
      cr_assert_str_eq(graph->nodes[0].label, "1", "node 0 is the start room");
      for (int i = 0; i < graph->node_count; i++)
        cr_assert_geq(distance[i], 0, "variant %zu seed %llu: node %s unreachable", v,
                      (unsigned long long)seed, graph->nodes[i].label);
      cr_assert(level->metrics.connected, "variant %zu seed %llu: map not connected", v,
                (unsigned long long)seed);
      cr_assert_eq(level->metrics.components, 1, "variant %zu seed %llu", v,
                   (unsigned long long)seed);
      free(distance);
      dg_level_free(level);
    }
}

/* True when every tile from (x0, y0) to (x1, y1), turning at (cx, cy), is
 * walkable. */
static bool walkable_l(const dg_grid *grid, int x0, int y0, int cx, int cy, int x1, int y1) {
  int points[3][2] = {{x0, y0}, {cx, cy}, {x1, y1}};
  for (int leg = 0; leg < 2; leg++) {
    int x = points[leg][0], y = points[leg][1];
    int tx = points[leg + 1][0], ty = points[leg + 1][1];
    for (;;) {
      if (!dg_tile_walkable(dg_grid_get(grid, x, y)))
        return false;
      if (x == tx && y == ty)
        break;
      x += (tx > x) - (tx < x);
      y += (ty > y) - (ty < y);
    }
  }
  return true;
}

/* Every edge, including the halves of corridors split by later joins,
 * forks and crossings, is a dug straight line or L between its ends' centre
 * tiles, and its length is that walk's. */
Test(nonlinear_levels, edges_follow_dug_corridors) {
  static const char *const variants[][3] = {
      {"sublevel_chance=0.5", NULL}, {"method=grid", NULL}, {"rooms=10000", "threshold=8", NULL}};
  for (size_t v = 0; v < 3; v++)
    for (uint64_t seed = 1; seed <= 150; seed++) {
      dg_level *level = generate(variants[v], seed);
      const dg_graph *graph = &level->graph;
      for (int e = 0; e < graph->edge_count; e++) {
        const dg_node *a = &graph->nodes[graph->edges[e].from];
        const dg_node *b = &graph->nodes[graph->edges[e].to];
        cr_assert_neq(graph->edges[e].from, graph->edges[e].to);
        cr_assert_eq(graph->edges[e].length, abs(a->x - b->x) + abs(a->y - b->y),
                     "variant %zu seed %llu edge %s-%s", v, (unsigned long long)seed, a->label,
                     b->label);
        cr_assert(walkable_l(&level->grid, a->x, a->y, b->x, a->y, b->x, b->y) ||
                      walkable_l(&level->grid, a->x, a->y, a->x, b->y, b->x, b->y),
                  "variant %zu seed %llu edge %s-%s is not dug", v, (unsigned long long)seed,
                  a->label, b->label);
      }
      dg_level_free(level);
    }
}

Test(nonlinear_levels, labels_are_relative_and_unique) {
  const char *settings[] = {"sublevel_chance=0.5", NULL};
  for (uint64_t seed = 1; seed <= 100; seed++) {
    dg_level *level = generate(settings, seed);
    const dg_graph *graph = &level->graph;
    for (int r = 0; r < level->room_count; r++) {
      char want[DG_LABEL_MAX];
      snprintf(want, sizeof want, "%d", r + 1);
      cr_assert_str_eq(level->rooms[r].label, want, "rooms are numbered 1, 2, ...");
    }
    for (int i = 0; i < graph->node_count; i++) {
      const dg_node *node = &graph->nodes[i];
      cr_assert_neq(node->label[0], '\0');
      if (node->room >= 0) {
        cr_assert_str_eq(node->label, level->rooms[node->room].label);
      } else {
        /* A sub-point: its owning room's number, then letters. */
        char *end = NULL;
        long owner = strtol(node->label, &end, 10);
        cr_assert(owner >= 1 && owner <= level->room_count, "label %s", node->label);
        cr_assert(*end >= 'A' && *end <= 'Z', "label %s", node->label);
      }
      for (int j = 0; j < i; j++)
        cr_assert_str_neq(node->label, graph->nodes[j].label, "seed %llu: label repeats",
                          (unsigned long long)seed);
    }
    dg_level_free(level);
  }
}

Test(nonlinear_levels, sublevel_crossings) {
  const char *always[] = {"sublevel_chance=1", "rooms=10000", NULL};
  const char *never[] = {"sublevel_chance=0", "rooms=10000", NULL};
  long sublevels = 0, crossings = 0;
  for (uint64_t seed = 1; seed <= 100; seed++) {
    dg_level *level = generate(always, seed);
    const dg_graph *graph = &level->graph;
    cr_assert_eq(stat_of(level, "sublevels"), stat_of(level, "crossings"));
    int stairs = 0;
    for (long t = 0; t < (long)level->grid.width * level->grid.height; t++)
      stairs +=
          level->grid.tiles[t] == DG_TILE_STAIRS_UP || level->grid.tiles[t] == DG_TILE_STAIRS_DOWN;
    /* Two per crossing, and the placement pass's entrance and exit. */
    cr_assert_eq(stairs, 2 * stat_of(level, "sublevels") + 2);
    for (int i = 0; i < graph->node_count; i++) {
      if (strcmp(graph->nodes[i].kind, "sublevel") != 0)
        continue;
      /* The passage's two halves, one of them the sublevel link. */
      int degree = 0, links = 0;
      for (int e = 0; e < graph->edge_count; e++)
        if (graph->edges[e].from == i || graph->edges[e].to == i) {
          degree++;
          links += strcmp(graph->edges[e].kind, "sublevel") == 0;
        }
      cr_assert_geq(degree, 2);
      cr_assert_geq(links, 1);
    }
    sublevels += stat_of(level, "sublevels");
    crossings += stat_of(level, "crossings");
    dg_level_free(level);
    level = generate(never, seed);
    cr_assert_eq(stat_of(level, "sublevels"), 0);
    dg_level_free(level);
  }
  cr_assert_gt(sublevels, 20, "crossings happen often enough to test (%ld)", crossings);
}

Test(nonlinear_levels, ends_within_the_map_and_the_room_target) {
  static const char *const variants[][5] = {
      {"rooms=1", NULL},
      {"rooms=3", "threshold=0", NULL},
      {"threshold=9", "rooms=10000", NULL},
      {"width=1000", "height=1000", "area_width=4", "area_height=4", NULL},
      {"start_exits=12", "room_exits_max=12", "rooms=10000", NULL},
      {"room_exits_max=0", NULL},
  };
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
    for (uint64_t seed = 1; seed <= (v == 3 ? 3u : 60u); seed++) {
      dg_level *level = generate(variants[v], seed);
      dg_request request;
      make_request(&request, variants[v], seed);
      int target = dg_param_int(&request.params, NL_P_ROOMS);
      const nl_extension *e = extension_of(level);
      cr_assert_leq(level->room_count, target);
      cr_assert_leq(level->graph.node_count, e->columns * e->rows, "one point per area");
      for (int i = 0; i < level->graph.node_count; i++)
        cr_assert(dg_grid_contains(&level->grid, level->graph.nodes[i].x, level->graph.nodes[i].y));
      for (int r = 0; r < level->room_count; r++) {
        const dg_room *room = &level->rooms[r];
        cr_assert(room->x >= 2 && room->y >= 2 && room->x + room->width <= level->grid.width - 2 &&
                  room->y + room->height <= level->grid.height - 2);
      }
      if (v == 0)
        cr_assert_eq(level->room_count, 1, "rooms=1 stops after the start room");
      if (v == 2)
        cr_assert_eq(level->room_count, 1, "threshold 9 never rolls a room");
      dg_level_free(level);
    }
}

/* Random parameter sets across their whole ranges (maps kept small enough
 * to be quick): every valid one generates, connected, within the map. */
Test(nonlinear_levels, random_parameters_always_generate) {
  const dg_algorithm *algorithm = dg_algorithm_find("nonlinear");
  dg_rng rng;
  dg_rng_seed(&rng, 99u, 1u);
  int generated = 0;
  for (int round = 0; round < 400; round++) {
    dg_request request;
    dg_request_init(&request, algorithm);
    dg_params *p = &request.params;
    p->number[NL_P_AREA_WIDTH] = dg_rng_range(&rng, 4, 40);
    p->number[NL_P_AREA_HEIGHT] = dg_rng_range(&rng, 4, 40);
    p->number[NL_P_WIDTH] = dg_rng_range(&rng, 14, 200);
    p->number[NL_P_HEIGHT] = dg_rng_range(&rng, 14, 200);
    p->number[NL_P_METHOD] = dg_rng_range(&rng, 0, 1);
    p->number[NL_P_THRESHOLD] = dg_rng_range(&rng, 0, 9);
    p->number[NL_P_ROOMS] = dg_rng_range(&rng, 1, 60);
    p->number[NL_P_START_EXITS] = dg_rng_range(&rng, 1, 12);
    p->number[NL_P_ROOM_EXITS_MAX] = dg_rng_range(&rng, 0, 12);
    p->number[NL_P_SUBLEVEL_CHANCE] = dg_rng_unit(&rng);
    snprintf(p->text[NL_P_ROOM_TABLE], DG_PARAM_STRING_MAX, "%dx%d_%dx%dc_1x1",
             dg_rng_range(&rng, 1, 40), dg_rng_range(&rng, 1, 40), dg_rng_range(&rng, 1, 40),
             dg_rng_range(&rng, 1, 40));
    dg_error err = {0};
    if (dg_request_validate(&request, &err) != 0)
      continue;
    request.seed = dg_rng_next(&rng);
    request.seed_given = true;
    dg_level *level = NULL;
    cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "round %d: %s", round,
                 err.message);
    cr_assert(level->metrics.connected, "round %d", round);
    cr_assert_leq(level->room_count, dg_param_int(p, NL_P_ROOMS));
    for (int r = 0; r < level->room_count; r++) {
      const dg_room *room = &level->rooms[r];
      cr_assert(room->x >= 2 && room->y >= 2 && room->x + room->width <= level->grid.width - 2 &&
                    room->y + room->height <= level->grid.height - 2,
                "round %d: room %d outside the map", round, r);
    }
    generated++;
    dg_level_free(level);
  }
  cr_assert_gt(generated, 100, "only %d parameter sets were valid", generated);
}

Test(nonlinear_levels, cancellation_is_honoured) {
  dg_request request;
  make_request(&request, NULL, 1);
  dg_cancel cancel;
  dg_cancel_init(&cancel, 0);
  dg_cancel_request(&cancel);
  dg_level *level = NULL;
  dg_error err = {0};
  cr_assert_eq(dg_generate(NULL, &request, &cancel, &level, &err), DG_ECANCELED);
  cr_assert_null(level);
  dg_cancel_init(&cancel, 1); /* a deadline long past */
  cr_assert_eq(dg_generate(NULL, &request, &cancel, &level, &err), DG_ETIMEDOUT);
  cr_assert_str_eq(err.field, "deadline_ms");
}

/* --- determinism and golden maps --- */

Test(nonlinear_levels, deterministic_bytes) {
  const char *settings[] = {"sublevel_chance=0.3", NULL};
  for (uint64_t seed = 1; seed <= 30; seed++) {
    char *texts[2], *maps[2];
    for (int run = 0; run < 2; run++) {
      dg_level *level = generate(settings, seed * 7919);
      cr_assert_eq(dg_level_dump_json(level, &texts[run], NULL), 0);
      cr_assert_eq(dg_level_dump_ascii(level, &maps[run], NULL), 0);
      dg_level_free(level);
    }
    cr_assert_str_eq(texts[0], texts[1], "seed %llu", (unsigned long long)seed);
    cr_assert_str_eq(maps[0], maps[1]);
    cr_assert_not_null(strstr(texts[0], "\"nonlinear\":{\"method\":\"clock\""));
    for (int run = 0; run < 2; run++) {
      free(texts[run]);
      free(maps[run]);
    }
  }
}

static char *read_file(const char *path) {
  FILE *file = fopen(path, "rb");
  cr_assert_not_null(file, "cannot open %s", path);
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  cr_assert_not_null(text);
  cr_assert_eq(fread(text, 1, (size_t)size, file), (size_t)size);
  text[size] = '\0';
  fclose(file);
  return text;
}

/* Each golden file is `dungeon generate --algorithm nonlinear --format ascii`
 * for the settings below; changing one is a deliberate commit. */
Test(nonlinear_golden, stored_maps) {
  static const struct {
    const char *file;
    uint64_t seed;
    const char *settings[3];
  } goldens[] = {
      {"nonlinear-clock-1.txt", 1, {NULL}},
      {"nonlinear-clock-5-sublevels.txt", 5, {"sublevel_chance=1", NULL}},
      {"nonlinear-grid-7.txt", 7, {"method=grid", "threshold=3", NULL}},
  };
  for (size_t g = 0; g < sizeof goldens / sizeof goldens[0]; g++) {
    char path[512];
    snprintf(path, sizeof path, "%s/golden/%s", TEST_DATA_DIR, goldens[g].file);
    char *want = read_file(path), *got = NULL;
    dg_level *level = generate(goldens[g].settings, goldens[g].seed);
    cr_assert_eq(dg_level_dump_ascii(level, &got, NULL), 0);
    cr_assert_str_eq(got, want, "%s differs:\n%s", goldens[g].file, got);
    free(got);
    free(want);
    dg_level_free(level);
  }
}

/* --- parameters --- */

Test(nonlinear_params, every_parameter_is_range_checked) {
  static const struct {
    const char *name, *bad;
  } cases[] = {
      {"width", "13"},
      {"width", "1001"},
      {"height", "13"},
      {"height", "1001"},
      {"area_width", "3"},
      {"area_width", "41"},
      {"area_height", "3"},
      {"area_height", "41"},
      {"method", "hexagon"},
      {"threshold", "-1"},
      {"threshold", "10"},
      {"rooms", "0"},
      {"rooms", "10001"},
      {"start_exits", "0"},
      {"start_exits", "13"},
      {"room_exits_max", "-1"},
      {"room_exits_max", "13"},
      {"sublevel_chance", "-0.1"},
      {"sublevel_chance", "1.5"},
      {"room_table", "3x2,4x4"},
      {"threshold", "2.5"},
  };
  const dg_algorithm *algorithm = dg_algorithm_find("nonlinear");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    dg_request request;
    dg_request_init(&request, algorithm);
    dg_error err = {0};
    /* The CLI's text path names the bare parameter... */
    cr_assert_eq(dg_request_set_text(&request, cases[i].name, cases[i].bad, &err), DG_EINVAL,
                 "%s=%s accepted", cases[i].name, cases[i].bad);
    cr_assert_str_eq(err.field, cases[i].name);
    /* ...the JSON path (the daemon's) names params.<name>, in the message too. */
    json_t *value = json_loads(cases[i].bad, JSON_DECODE_ANY, NULL);
    if (value == NULL)
      value = json_string(cases[i].bad);
    json_t *params = json_object();
    json_object_set_new(params, cases[i].name, value);
    dg_error_clear(&err);
    cr_assert_eq(dg_request_set_params_json(&request, params, &err), DG_EINVAL, "%s=%s accepted",
                 cases[i].name, cases[i].bad);
    json_decref(params);
    char field[80];
    snprintf(field, sizeof field, "params.%s", cases[i].name);
    cr_assert_str_eq(err.field, field);
    cr_assert_not_null(strstr(err.message, field), "message names the field: %s", err.message);
  }
  cr_assert_eq(algorithm->param_count, NL_P_COUNT);
}

Test(nonlinear_params, cross_checks_name_the_field) {
  static const struct {
    const char *settings[3];
    const char *field;
  } cases[] = {
      {{"width", "25"}, "params.width"},   /* 3 * 8 + 2 = 26 */
      {{"height", "19"}, "params.height"}, /* 3 * 6 + 2 = 20 */
      {{"room_table", "3x2_0x4"}, "params.room_table"},
      {{"room_table", "3x2c_"}, "params.room_table"},
  };
  const dg_algorithm *algorithm = dg_algorithm_find("nonlinear");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    dg_request request;
    dg_request_init(&request, algorithm);
    dg_error err = {0};
    cr_assert_eq(dg_request_set_text(&request, cases[i].settings[0], cases[i].settings[1], &err), 0,
                 "%s", err.message);
    cr_assert_eq(dg_request_validate(&request, &err), DG_EINVAL, "%s=%s passed",
                 cases[i].settings[0], cases[i].settings[1]);
    cr_assert_str_eq(err.field, cases[i].field);
  }
  /* The smallest allowed map still grows. */
  const char *smallest[] = {"width=14", "height=14", "area_width=4", "area_height=4", NULL};
  dg_level *level = generate(smallest, 1);
  cr_assert_geq(level->room_count, 1);
  dg_level_free(level);
}

Test(nonlinear_params, json_request_errors_name_the_field) {
  json_error_t parse_error;
  json_t *body = json_loads("{\"algorithm\":\"nonlinear\",\"seed\":1,"
                            "\"params\":{\"threshold\":12}}",
                            0, &parse_error);
  cr_assert_not_null(body);
  dg_request request;
  dg_error err = {0};
  cr_assert_eq(dg_request_from_json(body, &request, &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "params.threshold");
  cr_assert_not_null(strstr(err.message, "from 0 to 9"), "%s", err.message);
  json_decref(body);
}

/* docs/level-format.md: rooms come first, node i is room i. Growth numbers
 * points as the dice find them, so the graph is renumbered; the legend's
 * points and every edge follow. */
Test(nonlinear_levels, node_i_is_room_i) {
  static const char *const grid_method[] = {"method=grid", NULL};
  for (int m = 0; m < 2; m++)
    for (uint64_t seed = 1; seed <= 300; seed++) {
      dg_level *level = generate(m == 0 ? NULL : grid_method, seed);
      const dg_graph *graph = &level->graph;
      const nl_extension *e = extension_of(level);
      cr_assert_eq(e->point_count, graph->node_count);
      for (int i = 0; i < graph->node_count; i++) {
        if (i < level->room_count) {
          cr_assert_eq(graph->nodes[i].room, i, "seed %llu: node %d is room %d",
                       (unsigned long long)seed, i, graph->nodes[i].room);
          cr_assert_str_eq(graph->nodes[i].kind, "room");
        } else {
          cr_assert_eq(graph->nodes[i].room, -1, "seed %llu: node %d", (unsigned long long)seed, i);
        }
        cr_assert_str_eq(e->points[i].label, graph->nodes[i].label);
      }
      /* Each room's node lies inside the room. */
      for (int r = 0; r < level->room_count; r++) {
        const dg_room *room = &level->rooms[r];
        const dg_node *node = &graph->nodes[r];
        cr_assert(node->x >= room->x - 1 && node->x <= room->x + room->width &&
                      node->y >= room->y - 1 && node->y <= room->y + room->height,
                  "seed %llu: room %d's node at %d,%d", (unsigned long long)seed, r, node->x,
                  node->y);
      }
      dg_level_free(level);
    }
}

/* The default level is the dungeon the defaults promise: 12 rooms in
 * nearly every level of seeds 1-1000, never a start room alone (before:
 * 12 rooms in under 3%, median 5, 3-4% one room). */
Test(nonlinear_levels, defaults_reach_their_rooms) {
  int reached = 0, smallest = 1000;
  for (uint64_t seed = 1; seed <= 1000; seed++) {
    dg_level *level = generate(NULL, seed);
    reached += level->room_count >= 12;
    smallest = level->room_count < smallest ? level->room_count : smallest;
    dg_level_free(level);
  }
  cr_assert_geq(reached, 950, "12 rooms in %d of 1000 levels", reached);
  cr_assert_geq(smallest, 5, "a level of %d rooms", smallest);
}
