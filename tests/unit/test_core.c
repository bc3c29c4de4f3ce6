/* Library core: heap order and ties, arena, grid glyphs, graph algorithms
 * (BFS, components, bridges, Dijkstra) against brute force, cancellation,
 * the grid-to-graph tracer on hand-drawn maps, and the internal containers
 * (growable arrays, the hash table, union-find) against plain arrays. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/core/hash.h"
#include "../../src/lib/core/unionfind.h"
#include "../../src/lib/core/vec.h"
#include "core/arena.h"
#include "core/heap.h"
#include "core/legend.h"
#include "core/writer.h"
#include "dungeon/dungeon.h"
#include "dungeon/json.h"
#include "dungeon/render.h"
#include "passes/trace.h"

Test(heap, pops_in_priority_then_push_order) {
  dg_heap heap;
  cr_assert_eq(dg_heap_init(&heap, 0), 0);
  dg_rng rng;
  dg_rng_seed(&rng, 3, 3);
  uint64_t last_priority = 0;
  uint32_t last_value = 0;
  for (uint32_t i = 0; i < 5000; i++)
    cr_assert_eq(dg_heap_push(&heap, dg_rng_below(&rng, 50), i), 0);
  for (int i = 0; i < 5000; i++) {
    uint64_t priority;
    uint32_t value;
    cr_assert(dg_heap_pop(&heap, &priority, &value));
    cr_assert_geq(priority, last_priority);
    if (i > 0 && priority == last_priority)
      cr_assert_gt(value, last_value, "equal priorities must pop in push order");
    last_priority = priority;
    last_value = value;
  }
  cr_assert(!dg_heap_pop(&heap, NULL, NULL));
  dg_heap_clear(&heap);
  cr_assert_eq(dg_heap_push(&heap, 7, 1), 0);
  cr_assert(dg_heap_pop(&heap, NULL, NULL));
  dg_heap_close(&heap);
}

Test(arena, aligned_zeroed_and_reusable) {
  dg_arena arena;
  dg_arena_init(&arena, 128);
  for (int i = 1; i < 200; i++) {
    unsigned char *p = dg_arena_alloc(&arena, (size_t)i);
    cr_assert_not_null(p);
    cr_assert_eq((uintptr_t)p % 16, 0u);
    for (int k = 0; k < i; k++)
      cr_assert_eq(p[k], 0);
    memset(p, 0xab, (size_t)i);
  }
  void *big = dg_arena_alloc(&arena, 100000);
  cr_assert_not_null(big);
  cr_assert_null(dg_arena_calloc(&arena, SIZE_MAX / 2, 4), "overflow must fail");
  dg_arena_reset(&arena);
  cr_assert_eq(arena.bytes_used, 0u);
  unsigned char *again = dg_arena_alloc(&arena, 64);
  for (int k = 0; k < 64; k++)
    cr_assert_eq(again[k], 0);
  dg_arena_close(&arena);
}

Test(grid, bounds_glyphs_and_limits) {
  dg_grid grid;
  cr_assert_eq(dg_grid_init(&grid, 0, 5), DG_EINVAL);
  cr_assert_eq(dg_grid_init(&grid, 70000, 5), DG_EINVAL);
  cr_assert_eq(dg_grid_init(&grid, 5, 3), 0);
  cr_assert(dg_grid_contains(&grid, 4, 2));
  cr_assert(!dg_grid_contains(&grid, 5, 2));
  cr_assert(!dg_grid_contains(&grid, -1, 0));
  for (int x = 0; x < 5; x++)
    dg_grid_set(&grid, x, 0, DG_TILE_WALL);
  dg_grid_set(&grid, 0, 1, DG_TILE_WALL);
  dg_grid_set(&grid, 1, 1, DG_TILE_FLOOR);
  cr_assert_eq(dg_grid_glyph(&grid, 2, 0), '-');
  cr_assert_eq(dg_grid_glyph(&grid, 0, 1), '|');
  cr_assert_eq(dg_grid_glyph(&grid, 1, 1), '.');
  cr_assert_str_eq(dg_tile_name(DG_TILE_SECRET_CORRIDOR), "secret_corridor");
  cr_assert(dg_tile_walkable(DG_TILE_SECRET_DOOR));
  cr_assert(!dg_tile_walkable(DG_TILE_WALL));
  cr_assert(!dg_tile_walkable(DG_TILE_VOID));
  dg_grid_close(&grid);
}

/* dg_grid_glyph_row (the JSON rows and the ASCII map) draws what
 * dg_grid_glyph draws tile by tile: rows of random tiles biased to walls
 * and doors (so joins happen at both ends of a row), values past the
 * legend, and one-tile-wide grids. */
Test(grid, glyph_row_is_glyph_tile_by_tile) {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  const int widths[] = {1, 2, 3, 17, 80};
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
    dg_grid grid;
    cr_assert_eq(dg_grid_init(&grid, widths[w], 40), 0);
    for (int y = 0; y < grid.height; y++)
      for (int x = 0; x < grid.width; x++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        unsigned pick = (unsigned)(state >> 33);
        /* Half walls and doors; the rest any byte, past the legend too. */
        unsigned tile = pick % 2 ? (pick >> 1) % 2 ? DG_TILE_WALL : DG_TILE_DOOR + (pick >> 2) % 14
                                 : (pick >> 1) % 256;
        grid.tiles[(long)y * grid.width + x] = (uint8_t)tile;
      }
    char row[81];
    for (int y = 0; y < grid.height; y++) {
      memset(row, 0, sizeof row);
      dg_grid_glyph_row(&grid, y, row);
      for (int x = 0; x < grid.width; x++)
        cr_assert_eq(row[x], dg_grid_glyph(&grid, x, y), "(%d, %d) of a %d-wide grid, tile %u", x,
                     y, grid.width, grid.tiles[(long)y * grid.width + x]);
      cr_assert_eq(row[grid.width], '\0', "wrote past the row");
    }
    dg_grid_close(&grid);
  }
}

/* The one legend (core/legend.h): every glyph of the JSON rows, the ASCII
 * map and the Tiled tileset names its tile through the JSON legend. */
Test(grid, one_legend_for_json_ascii_and_tiled) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_level *level = NULL;
  cr_assert_eq(dg_level_new(&request, &level), 0);
  /* Row 0: each tile kind alone (a lone wall is '|'); row 2: a wall run
   * ('-'). */
  cr_assert_eq(dg_grid_init(&level->grid, 2 * DG_TILE_COUNT, 3), 0);
  level->has_grid = true;
  /* The progression's tiles are listed only in levels the pass ran on. */
  level->progression.placed = true;
  for (int tile = 0; tile < DG_TILE_COUNT; tile++) {
    dg_grid_set(&level->grid, 2 * tile, 0, (dg_tile)tile);
    dg_grid_set(&level->grid, 2 * tile, 2, DG_TILE_WALL);
    dg_grid_set(&level->grid, 2 * tile + 1, 2, DG_TILE_WALL);
  }
  json_t *json = dg_level_to_json(level);
  cr_assert_not_null(json);
  const json_t *legend = json_object_get(json_object_get(json, "grid"), "legend");
  const json_t *rows = json_object_get(json_object_get(json, "grid"), "rows");
  cr_assert_eq(json_object_size(legend), DG_TILE_COUNT + 1, "one glyph per tile, two for walls");
  for (int tile = 0; tile < DG_TILE_COUNT; tile++)
    cr_assert_leq(strlen(dg_legend[tile].name), DG_LEGEND_NAME_MAX);
  char *ascii = NULL;
  cr_assert_eq(dg_level_dump_ascii(level, &ascii, NULL), 0);
  const char *line = ascii;
  for (int y = 0; y < level->grid.height; y++) {
    const char *row = json_string_value(json_array_get(rows, (size_t)y));
    cr_assert_not_null(row);
    cr_assert_eq(strncmp(line, row, strlen(row)), 0, "ASCII row %d differs from JSON", y);
    line += strlen(row) + 1;
    for (int x = 0; x < level->grid.width; x++) {
      char glyph[2] = {row[x], '\0'};
      const char *name = json_string_value(json_object_get(legend, glyph));
      cr_assert_not_null(name, "glyph '%s' at (%d, %d) is not in the legend", glyph, x, y);
      cr_assert_str_eq(name, dg_tile_name(dg_grid_get(&level->grid, x, y)));
    }
  }
  cr_assert_eq(dg_grid_glyph(&level->grid, 2 * DG_TILE_WALL, 0), '|');
  cr_assert_eq(dg_grid_glyph(&level->grid, 0, 2), '-');
  char *tmj = NULL;
  cr_assert_eq(dg_level_dump_tiled(level, &tmj, NULL), 0);
  json_t *map = json_loads(tmj, 0, NULL);
  cr_assert_not_null(map);
  const json_t *tiles =
      json_object_get(json_array_get(json_object_get(map, "tilesets"), 0), "tiles");
  cr_assert_eq(json_array_size(tiles), DG_TILE_COUNT);
  for (int tile = 0; tile < DG_TILE_COUNT; tile++) {
    const json_t *entry = json_array_get(tiles, (size_t)tile);
    const char *type = json_string_value(json_object_get(entry, "type"));
    const json_t *glyph_property = json_array_get(json_object_get(entry, "properties"), 0);
    const char *glyph = json_string_value(json_object_get(glyph_property, "value"));
    cr_assert_str_eq(type, dg_tile_name((dg_tile)tile));
    cr_assert_str_eq(json_string_value(json_object_get(legend, glyph)), type);
  }
  json_decref(map);
  free(tmj);
  free(ascii);
  json_decref(json);
  dg_level_free(level);
}

/* A triangle 0-1-2 with a tail 2-3 and an isolated node 4. */
static void small_graph(dg_graph *graph) {
  dg_graph_init(graph);
  for (int i = 0; i < 5; i++)
    cr_assert_eq(dg_graph_add_node(graph, "room", i, 0, i, NULL), 0);
  cr_assert_eq(dg_graph_add_edge(graph, 0, 1, "corridor", 4), 0);
  cr_assert_eq(dg_graph_add_edge(graph, 1, 2, "corridor", 1), 0);
  cr_assert_eq(dg_graph_add_edge(graph, 2, 0, "corridor", 2), 0);
  cr_assert_eq(dg_graph_add_edge(graph, 2, 3, "corridor", 5), 0);
}

Test(graph, bfs_components_bridges_shortest) {
  dg_graph graph;
  small_graph(&graph);
  cr_assert_eq(dg_graph_add_edge(&graph, 0, 9, "corridor", 1), DG_EINVAL);
  cr_assert_eq(dg_graph_add_edge(&graph, 0, 1, "corridor", 0), DG_EINVAL);
  int distance[5];
  cr_assert_eq(dg_graph_bfs(&graph, 0, distance), 0);
  cr_assert_eq(distance[3], 2);
  cr_assert_eq(distance[4], -1);
  int component[5], count;
  cr_assert_eq(dg_graph_components(&graph, component, &count), 0);
  cr_assert_eq(count, 2);
  cr_assert_eq(component[3], component[0]);
  cr_assert_neq(component[4], component[0]);
  cr_assert_eq(dg_graph_mark_cycles(&graph), 0);
  cr_assert(graph.edges[0].cycle && graph.edges[1].cycle && graph.edges[2].cycle);
  cr_assert(!graph.edges[3].cycle, "the tail is a bridge");
  long length;
  cr_assert_eq(dg_graph_shortest(&graph, 0, 1, -1, &length), 0);
  cr_assert_eq(length, 3, "0-2-1 (2 + 1) beats the direct 4");
  cr_assert_eq(dg_graph_shortest(&graph, 0, 1, 1, &length), 0);
  cr_assert_eq(length, 4, "without edge 1-2 the direct edge is left");
  cr_assert_eq(dg_graph_shortest(&graph, 0, 4, -1, &length), 0);
  cr_assert_eq(length, -1);
  dg_graph_close(&graph);
}

/* Bridges against brute force (remove each edge, count components) on
 * random multigraphs with loops and parallel edges. */
Test(graph, bridges_match_brute_force) {
  dg_rng rng;
  dg_rng_seed(&rng, 11, 11);
  for (int round = 0; round < 200; round++) {
    dg_graph graph;
    dg_graph_init(&graph);
    int nodes = 2 + (int)dg_rng_below(&rng, 12), edges = (int)dg_rng_below(&rng, 20);
    for (int i = 0; i < nodes; i++)
      dg_graph_add_node(&graph, "room", 0, 0, -1, NULL);
    for (int e = 0; e < edges; e++)
      dg_graph_add_edge(&graph, (int)dg_rng_below(&rng, (uint32_t)nodes),
                        (int)dg_rng_below(&rng, (uint32_t)nodes), "corridor", 1);
    cr_assert_eq(dg_graph_mark_cycles(&graph), 0);
    int component[32], before, after;
    dg_graph_components(&graph, component, &before);
    for (int e = 0; e < graph.edge_count; e++) {
      dg_graph copy = graph;
      dg_edge *kept = malloc(sizeof(dg_edge) * (size_t)(graph.edge_count + 1));
      int k = 0;
      for (int f = 0; f < graph.edge_count; f++)
        if (f != e)
          kept[k++] = graph.edges[f];
      copy.edges = kept;
      copy.edge_count = k;
      dg_graph_components(&copy, component, &after);
      cr_assert_eq(graph.edges[e].cycle, after == before, "round %d edge %d", round, e);
      free(kept);
    }
    dg_graph_close(&graph);
  }
}

Test(cancel, flag_and_deadline) {
  dg_cancel cancel;
  dg_cancel_init(&cancel, 0);
  cr_assert_eq(dg_cancel_check(&cancel), 0);
  cr_assert_eq(dg_cancel_check(NULL), 0);
  dg_cancel_request(&cancel);
  cr_assert_eq(dg_cancel_check(&cancel), DG_ECANCELED);
  dg_cancel_init(&cancel, dg_monotonic_ns() - 1);
  cr_assert_eq(dg_cancel_check(&cancel), DG_ETIMEDOUT);
  dg_cancel_init(&cancel, dg_monotonic_ns() + 60ull * 1000000000ull);
  cr_assert_eq(dg_cancel_check(&cancel), 0);
}

/* dg_error_from_code words each code as every generator does; a code no
 * DG_E* names (a bug in whoever returned it) carries its number. */
Test(error, from_code_names_every_code) {
  dg_error err = {0};
  cr_assert_eq(dg_error_from_code(&err, DG_ETIMEDOUT), DG_ETIMEDOUT);
  cr_assert_str_eq(err.field, "deadline_ms");
  cr_assert_eq(dg_error_from_code(&err, DG_ENOMEM), DG_ENOMEM);
  cr_assert_str_eq(err.message, "out of memory");
  cr_assert_str_eq(err.field, "");
  cr_assert_eq(dg_error_from_code(&err, 1), 1);
  cr_assert_str_eq(err.message, "unknown error (code 1)");
  dg_error_from_code(&err, -11);
  cr_assert_str_eq(err.message, "unknown error (code -11)");
  cr_assert_eq(err.code, -11);
}

static void count_pause(void *data) {
  (*(int *)data)++;
}

/* The pause hook runs at every check, before the flag and the deadline are
 * read (so a pause that outlasts the deadline is reported at once), and
 * dg_cancel_init clears it. */
Test(cancel, pause_hook_runs_at_every_check) {
  dg_cancel cancel;
  int pauses = 0;
  dg_cancel_init(&cancel, 0);
  dg_cancel_set_pause(&cancel, count_pause, &pauses);
  cr_assert_eq(dg_cancel_check(&cancel), 0);
  cr_assert_eq(dg_cancel_check(&cancel), 0);
  cr_assert_eq(pauses, 2);
  dg_cancel_request(&cancel);
  cr_assert_eq(dg_cancel_check(&cancel), DG_ECANCELED);
  cr_assert_eq(pauses, 3);
  dg_cancel_init(&cancel, 0);
  cr_assert_eq(dg_cancel_check(&cancel), 0);
  cr_assert_eq(pauses, 3, "init clears the hook");
}

Test(cancel, deadline_moves) {
  dg_cancel cancel;
  dg_cancel_init(&cancel, dg_monotonic_ns() - 1);
  cr_assert_eq(dg_cancel_check(&cancel), DG_ETIMEDOUT);
  dg_cancel_set_deadline(&cancel, dg_monotonic_ns() + 60ull * 1000000000ull);
  cr_assert_eq(dg_cancel_check(&cancel), 0, "a later deadline revives the job");
  dg_cancel_set_deadline(&cancel, 0);
  cr_assert_eq(dg_cancel_check(&cancel), 0, "0: no deadline");
}

/* The writer polls its cancel every DG_WRITER_POLL_BYTES: once the cancel
 * fires, writing stops within one interval and the writer reports why. */
Test(cancel, writer_polls_as_it_writes) {
  dg_cancel cancel;
  dg_cancel_init(&cancel, 0);
  dg_writer w = {.cancel = &cancel};
  char block[1000];
  memset(block, 'x', sizeof block);
  for (int i = 0; i < 100; i++)
    dg_writer_raw(&w, block, sizeof block);
  cr_assert_eq(w.length, 100000u);
  cr_assert(!w.failed);
  dg_cancel_request(&cancel);
  for (int i = 0; i < 1000; i++)
    dg_writer_raw(&w, block, sizeof block);
  cr_assert(w.failed);
  cr_assert_eq(w.cancel_rc, DG_ECANCELED);
  cr_assert_lt(w.length, 100000u + DG_WRITER_POLL_BYTES + sizeof block,
               "wrote %zu bytes after the cancel", w.length - 100000u);
  free(w.text);
}

/* dg_level_dump_json_cancellable: the same bytes as dg_level_dump_json
 * unless the cancel fires; a passed deadline or a request stops it with no
 * text. */
/* An extension that writes a member, then cancels its own dump (data is
 * the dg_cancel), then tries to write far more than one poll interval. */
static int cancelling_extension(const void *data, struct dg_writer *w) {
  dg_writer_literal(w, ",\"big\":[0");
  dg_cancel_request((dg_cancel *)(uintptr_t)data);
  for (int i = 0; i < 4 * DG_WRITER_POLL_BYTES && !w->failed; i++)
    dg_writer_literal(w, ",0");
  cr_assert(w->failed, "the writer never polled inside the extension");
  cr_assert_leq(w->length, (size_t)2 * DG_WRITER_POLL_BYTES + 64);
  dg_writer_char(w, ']');
  return dg_writer_status(w);
}

static int small_extension(const void *data, struct dg_writer *w) {
  (void)data;
  dg_writer_literal(w, ",\"ext\":{\"n\":");
  dg_writer_int(w, 7);
  dg_writer_char(w, '}');
  return dg_writer_status(w);
}

/* Extensions write through the level's own writer: their members land in
 * the level object and the writer's cancel polls reach into them. */
Test(cancel, extension_writes_through_the_level_writer) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_level *level = NULL;
  cr_assert_eq(dg_level_new(&request, &level), 0);
  level->extension.write_json = small_extension;
  json_t *json = dg_level_to_json(level);
  cr_assert_not_null(json);
  cr_assert_eq(json_integer_value(json_object_get(json_object_get(json, "ext"), "n")), 7);
  json_decref(json);
  dg_cancel cancel;
  dg_cancel_init(&cancel, 0);
  level->extension.data = &cancel;
  level->extension.write_json = cancelling_extension;
  char *text = NULL;
  cr_assert_eq(dg_level_dump_json_cancellable(level, &cancel, &text, NULL), DG_ECANCELED);
  cr_assert_null(text);
  level->extension.data = NULL; /* not owned: free_data is NULL */
  dg_level_free(level);
}

Test(cancel, level_dump_stops_at_the_deadline) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  int width = dg_algorithm_param_index(request.algorithm, "width");
  int height = dg_algorithm_param_index(request.algorithm, "height");
  dg_error err;
  json_t *size = json_integer(400);
  cr_assert_eq(dg_request_set_json(&request, "width", size, "params.", &err), 0);
  cr_assert_eq(dg_request_set_json(&request, "height", size, "params.", &err), 0);
  json_decref(size);
  cr_assert_eq(request.params.number[width] * request.params.number[height], 160000.0);
  request.seed = 9;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
  char *plain = NULL, *polled = NULL;
  size_t plain_length = 0, polled_length = 0;
  cr_assert_eq(dg_level_dump_json(level, &plain, &plain_length), 0);
  cr_assert_gt(plain_length, 2u * DG_WRITER_POLL_BYTES, "the level spans several polls");
  dg_cancel cancel;
  dg_cancel_init(&cancel, dg_monotonic_ns() + 60ull * 1000000000ull);
  cr_assert_eq(dg_level_dump_json_cancellable(level, &cancel, &polled, &polled_length), 0);
  cr_assert_eq(polled_length, plain_length);
  cr_assert(memcmp(polled, plain, plain_length) == 0, "polling changed the bytes");
  free(polled);
  polled = NULL;
  cr_assert_eq(dg_level_dump_json_cancellable(level, NULL, &polled, &polled_length), 0);
  cr_assert(polled_length == plain_length && memcmp(polled, plain, plain_length) == 0);
  free(polled);
  polled = NULL;
  dg_cancel_init(&cancel, dg_monotonic_ns() - 1);
  cr_assert_eq(dg_level_dump_json_cancellable(level, &cancel, &polled, &polled_length),
               DG_ETIMEDOUT);
  cr_assert_null(polled);
  dg_cancel_init(&cancel, 0);
  dg_cancel_request(&cancel);
  cr_assert_eq(dg_level_dump_json_cancellable(level, &cancel, &polled, &polled_length),
               DG_ECANCELED);
  cr_assert_null(polled);
  free(plain);
  dg_level_free(level);
}

/* Draws `rows` into a level with one room per given rectangle. */
static dg_level *level_from_rows(const char *const *rows, int height, const dg_room *rooms,
                                 int room_count) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_level *level = NULL;
  cr_assert_eq(dg_level_new(&request, &level), 0);
  int width = (int)strlen(rows[0]);
  cr_assert_eq(dg_grid_init(&level->grid, width, height), 0);
  level->has_grid = true;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      dg_tile tile = DG_TILE_STONE;
      switch (rows[y][x]) {
      case '.': tile = DG_TILE_FLOOR; break;
      case '#': tile = DG_TILE_CORRIDOR; break;
      case '|': tile = DG_TILE_WALL; break;
      case '+': tile = DG_TILE_DOOR; break;
      default: break;
      }
      dg_grid_set(&level->grid, x, y, tile);
      if (tile == DG_TILE_DOOR) {
        for (int r = 0; r < room_count; r++)
          if (x >= rooms[r].x - 1 && x <= rooms[r].x + rooms[r].width && y >= rooms[r].y - 1 &&
              y <= rooms[r].y + rooms[r].height) {
            dg_door door = {.x = x, .y = y, .room = r};
            dg_level_add_door(level, &door);
          }
      }
    }
  for (int r = 0; r < room_count; r++)
    dg_level_add_room(level, &rooms[r], NULL);
  return level;
}

Test(trace, rooms_junction_dead_end_and_loop) {
  /* Two rooms joined by two corridors (a loop) plus a spur to a dead end
   * off a junction. */
  static const char *const rows[] = {
      "||||        ||||", "|..+########+..|", "|..|    #   |..|",
      "|..+########+..|", "||||        ||||",
  };
  dg_room rooms[2] = {{.x = 1, .y = 1, .width = 2, .height = 3, .kind = "room"},
                      {.x = 13, .y = 1, .width = 2, .height = 3, .kind = "room"}};
  dg_level *level = level_from_rows(rows, 5, rooms, 2);
  cr_assert_eq(dg_trace_graph(level, NULL), 0);
  cr_assert_eq(dg_level_compute_metrics(level, NULL), 0);
  const dg_graph *graph = &level->graph;
  cr_assert_eq(graph->edge_count, 5);
  int junctions = 0, dead_ends = 0;
  for (int i = 0; i < graph->node_count; i++) {
    junctions += strcmp(graph->nodes[i].kind, "junction") == 0;
    dead_ends += strcmp(graph->nodes[i].kind, "dead_end") == 0;
  }
  cr_assert_eq(junctions, 2, "the spur's top and bottom meetings");
  cr_assert_eq(dead_ends, 0, "the spur joins both corridors");
  cr_assert_eq(level->metrics.cycles, 2, "two corridors plus the spur: two loops");
  cr_assert(level->metrics.connected);
  cr_assert_eq(level->metrics.components, 1);
  long total = 0;
  for (int e = 0; e < graph->edge_count; e++)
    total += graph->edges[e].length;
  cr_assert_gt(total, 0);
  dg_level_free(level);
}

Test(trace, dead_end_spur) {
  static const char *const rows[] = {
      "||||        ||||", "|..+########+..|", "|..|    #   |..|",
      "|..|    #   |..|", "||||        ||||",
  };
  dg_room rooms[2] = {{.x = 1, .y = 1, .width = 2, .height = 3, .kind = "room"},
                      {.x = 13, .y = 1, .width = 2, .height = 3, .kind = "room"}};
  dg_level *level = level_from_rows(rows, 5, rooms, 2);
  cr_assert_eq(dg_trace_graph(level, NULL), 0);
  cr_assert_eq(dg_level_compute_metrics(level, NULL), 0);
  const dg_graph *graph = &level->graph;
  cr_assert_eq(graph->node_count, 4, "two rooms, a junction, a dead end");
  cr_assert_eq(graph->edge_count, 3);
  cr_assert_eq(level->metrics.cycles, 0);
  cr_assert_eq(level->metrics.dead_ends, 1);
  int lengths = 0;
  for (int e = 0; e < graph->edge_count; e++)
    lengths += graph->edges[e].length;
  /* door (3,1) -> junction (8,1): 5 steps; junction -> door (12,1): 4;
   * junction -> dead end (8,3): 2. */
  cr_assert_eq(lengths, 5 + 4 + 2);
  dg_level_free(level);
}

Test(vec, push_reserve_and_parallel_arrays) {
  DG_VEC(int64_t) v = {0};
  cr_assert_eq(dg_vec_reserve(&v, 0), 0);
  cr_assert_null(v.items, "reserving nothing allocates nothing");
  for (int64_t i = 0; i < 10000; i++)
    cr_assert_eq(dg_vec_push(&v, i * 3), 0);
  cr_assert_eq(v.count, 10000);
  cr_assert_geq(v.capacity, 10000);
  cr_assert_lt(v.capacity, 20000, "capacity doubles, it does not run away");
  for (int i = 0; i < 10000; i++)
    cr_assert_eq(v.items[i], (int64_t)i * 3);
  int64_t *before = v.items;
  cr_assert_eq(dg_vec_reserve(&v, v.capacity), 0);
  cr_assert_eq(v.items, before, "a reserve within capacity keeps the array");
  /* Compound literals with commas go through the variadic push. */
  typedef struct pair {
    int a, b;
  } pair;
  DG_VEC(pair) pairs = {0};
  cr_assert_eq(dg_vec_push(&pairs, (pair){1, 2}), 0);
  cr_assert_eq(pairs.items[0].b, 2);
  /* Parallel arrays: one count, each its own capacity. */
  double *weights = NULL;
  int weight_capacity = 0;
  cr_assert_eq(dg_vec_grow(&weights, &weight_capacity, 100, sizeof *weights), 0);
  cr_assert_geq(weight_capacity, 100);
  weights[99] = 1.5;
  /* A size past int is refused without touching the array. */
  cr_assert_eq(dg_vec_grow(&weights, &weight_capacity, (1 << 30) + 1, sizeof *weights), DG_ENOMEM);
  cr_assert_eq(weights[99], 1.5);
  free(weights);
  dg_vec_free(&v);
  dg_vec_free(&pairs);
  cr_assert_null(v.items);
  cr_assert_eq(v.count + v.capacity, 0);
}

/* The table against a plain array of (key, value) over random keys,
 * including 0 and UINT64_MAX (empty slots are told by stamp, not key). */
Test(hash, matches_a_plain_array_across_growth_and_clears) {
  enum { KEYS = 3000 };
  uint64_t *keys = malloc(KEYS * sizeof *keys);
  int32_t *values = malloc(KEYS * sizeof *values);
  cr_assert(keys != NULL && values != NULL);
  dg_hash table;
  cr_assert_eq(dg_hash_init(&table, 4), 0);
  dg_rng rng;
  dg_rng_seed(&rng, 11, 4);
  for (int round = 0; round < 3; round++) {
    int n = 0;
    for (int i = 0; i < KEYS; i++) {
      uint64_t key = i == 0   ? 0
                     : i == 1 ? UINT64_MAX
                              : (uint64_t)dg_rng_next(&rng) << 32 | dg_rng_below(&rng, 64);
      int32_t value = (int32_t)dg_rng_below(&rng, 1000000);
      int known = -1;
      for (int k = 0; k < n && known < 0; k++)
        known = keys[k] == key ? k : -1;
      int32_t *slot;
      int added = dg_hash_put(&table, key, value, &slot);
      cr_assert_eq(added, known < 0 ? 1 : 0);
      if (known < 0) {
        keys[n] = key;
        values[n++] = value;
        cr_assert_eq(*slot, value, "a new key starts at the initial value");
      } else {
        cr_assert_eq(*slot, values[known], "an old key keeps its value");
        *slot = values[known] = value;
      }
      cr_assert_eq(table.used, (uint32_t)n);
      cr_assert_leq(table.used * 2, table.mask + 1, "at most half full");
    }
    for (int k = 0; k < n; k++) {
      const int32_t *found = dg_hash_get(&table, keys[k]);
      cr_assert_not_null(found);
      cr_assert_eq(*found, values[k]);
    }
    cr_assert_null(dg_hash_get(&table, 0x5555555555555555ull));
    dg_hash_clear(&table);
    cr_assert_eq(table.used, 0u);
    for (int k = 0; k < n; k++)
      cr_assert_null(dg_hash_get(&table, keys[k]), "a clear empties the table");
  }
  /* Reserve makes room without losing keys; a stamp that wraps does not
   * bring back keys of 2^32 clears ago. */
  int32_t *slot;
  cr_assert_eq(dg_hash_put(&table, 42, 7, &slot), 1);
  uint32_t slots = table.mask + 1;
  cr_assert_eq(dg_hash_reserve(&table, slots * 4), 0);
  cr_assert_gt(table.mask + 1, slots);
  cr_assert_eq(*dg_hash_get(&table, 42), 7);
  table.stamp = UINT32_MAX;
  cr_assert_eq(dg_hash_put(&table, 43, 8, &slot), 1);
  dg_hash_clear(&table);
  cr_assert_eq(table.stamp, 1u);
  cr_assert_null(dg_hash_get(&table, 43));
  cr_assert_null(dg_hash_get(&table, 42));
  dg_hash_close(&table);
  dg_hash_close(&table); /* closing twice is safe */
  free(keys);
  free(values);
}

/* Union-find against labels merged by brute force: same sets, and each
 * set's root is its lowest element. */
Test(unionfind, matches_brute_force_labels) {
  enum { N = 400 };
  int parent[N], label[N];
  dg_uf_init(parent, N);
  for (int i = 0; i < N; i++)
    label[i] = i;
  dg_rng rng;
  dg_rng_seed(&rng, 5, 9);
  for (int step = 0; step < 300; step++) {
    int a = (int)dg_rng_below(&rng, N), b = (int)dg_rng_below(&rng, N);
    int apart = label[a] != label[b];
    cr_assert_eq(dg_uf_union(parent, a, b), apart);
    if (apart) {
      int from = label[a] > label[b] ? label[a] : label[b];
      int to = label[a] > label[b] ? label[b] : label[a];
      for (int i = 0; i < N; i++)
        label[i] = label[i] == from ? to : label[i];
    }
  }
  for (int i = 0; i < N; i++) {
    int lowest = i;
    for (int k = 0; k < N; k++)
      lowest = label[k] == label[i] && k < lowest ? k : lowest;
    cr_assert_eq(dg_uf_find(parent, i), lowest);
  }
}
