/* Level metrics, computed the same way for every algorithm: from the grid
 * when there is one (reachability, dead ends, double-wide corridors), the
 * loops of the map's room graph (cycles: the graph trace.c would build
 * from the grid, counted on its tiles by loops.c, whatever graph the
 * generator published), and from the graph (stretch of
 * loop edges; everything for levels whose grid is only a drawing). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/unionfind.h"
#include "passes/grid_metrics.h"
#include "passes/loops.h"

#include "dungeon/level.h"

/* The grid part of the metrics for a grid that only draws the level
 * (authored): other grids get it from a trace (trace.c computes it in
 * passing from the same scan), the generator's or the one counting loops. */
static int grid_metrics(dg_level *level, dg_metrics *m) {
  const dg_grid *grid = &level->grid;
  int width = grid->width, height = grid->height, stride = width + 2;
  long padded = (long)stride * (height + 2);
  uint8_t *walk = calloc((size_t)padded, 1);
  int *cells = malloc(((size_t)width * (size_t)height + 1) * sizeof *cells);
  int rc = DG_ENOMEM;
  if (walk != NULL && cells != NULL) {
    int count = 0;
    for (int y = 0; y < height; y++) {
      const uint8_t *row = grid->tiles + (long)y * width;
      long base = (long)(y + 1) * stride + 1;
      for (int x = 0; x < width; x++) {
        int walkable_here = dg_tile_walkable((dg_tile)row[x]);
        walk[base + x] = (uint8_t)walkable_here;
        cells[count] = (int)(base + x);
        count += walkable_here;
      }
    }
    rc = dg_grid_metrics_scan(level, walk, stride, cells, count, m);
  }
  free(walk);
  free(cells);
  return rc;
}

/* The loop-edge queries' view of the graph: CSR adjacency with each
 * slot's edge (`via`) and its length (`weight`) side by side. */
typedef struct detour_graph {
  const int *offsets, *adjacent, *via, *weight;
} detour_graph;

/* A distance no path reaches (lengths are ints, so a path is shorter than
 * INT_MAX * INT_MAX): two of them still add up without overflow, so the
 * meeting test below needs no branch on "reached". */
#define UNREACHED (LONG_MAX / 4)

/* One end of a two-ended Dijkstra. */
typedef struct search_side {
  long *best;        /* distance from this end; UNREACHED where unreached */
  int *touched;      /* nodes whose best was set, reset after each query */
  int touched_count; /* entries in touched */
  dg_heap heap;      /* open nodes keyed by distance (raw keys) */
} search_side;

/* Settles the nearest open node of `side` (a stale entry is dropped) and
 * offers its neighbours, except over edge `skip`; every edge scanned to a
 * node the other end has reached lowers *meet to the way through it. 0 or
 * DG_ENOMEM. */
static int expand(const detour_graph *g, search_side *side, const search_side *other, int skip,
                  long *meet) {
  uint64_t key;
  uint32_t node;
  if (!dg_heap_pop_key(&side->heap, &key, &node) || (long)key != side->best[node])
    return 0;
  long distance = (long)key;
  for (int k = g->offsets[node]; k < g->offsets[node + 1]; k++) {
    if (g->via[k] == skip)
      continue;
    int next = g->adjacent[k];
    long through = distance + g->weight[k];
    /* Through this edge to the other end's best: a miss (UNREACHED) can
     * never beat a real meeting, and a select, not a branch, keeps the
     * smaller (which way it goes was a coin toss to the predictor). */
    long way = through + other->best[next];
    *meet = way < *meet ? way : *meet;
    if (through < side->best[next]) {
      if (side->best[next] == UNREACHED)
        side->touched[side->touched_count++] = next;
      side->best[next] = through;
      int rc = dg_heap_push_key(&side->heap, (uint64_t)through, (uint32_t)next);
      if (rc != 0)
        return rc;
    }
  }
  return 0;
}

/* Shortest walking distance from `source` to `target` without the edge
 * `skip` (-1 when there is none), by Dijkstra from both ends at once: the
 * end whose frontier is nearer goes next, and the search stops once the
 * two frontiers' distances add up to the best meeting found, which is
 * then the shortest (lengths are >= 1). About half the nodes of a
 * one-ended search are settled. Only the distance leaves here, so the
 * order in which equal keys pop does not matter. Each side's best holds
 * UNREACHED everywhere on entry and again on return; a meeting at or
 * beyond UNREACHED is none. */
static long detour_length(const detour_graph *g, int source, int target, int skip,
                          search_side sides[2], int *rc) {
  const int ends[2] = {source, target};
  for (int s = 0; s < 2; s++) {
    dg_heap_clear(&sides[s].heap);
    sides[s].best[ends[s]] = 0;
    sides[s].touched[0] = ends[s];
    sides[s].touched_count = 1;
    if ((*rc = dg_heap_push_key(&sides[s].heap, 0, (uint32_t)ends[s])) != 0)
      return -1;
  }
  long meet = LONG_MAX;
  while (*rc == 0 && sides[0].heap.count > 0 && sides[1].heap.count > 0) {
    long near0 = (long)dg_heap_min_key(&sides[0].heap),
         near1 = (long)dg_heap_min_key(&sides[1].heap);
    if (meet < UNREACHED && near0 + near1 >= meet)
      break;
    int s = near0 <= near1 ? 0 : 1;
    *rc = expand(g, &sides[s], &sides[1 - s], skip, &meet);
  }
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < sides[s].touched_count; i++)
      sides[s].best[sides[s].touched[i]] = UNREACHED;
  return meet >= UNREACHED ? -1 : meet;
}

/* Stretch of loop edges: (shortest way round without the edge) / (edge
 * length). Each is a shortest-path query, so on huge levels only
 * STRETCH_SAMPLE loop edges, evenly spaced in edge order, are measured:
 * without the bound a 1000x1000 level spent half a minute here. */
#define STRETCH_SAMPLE 64

static int stretch_metrics(const dg_graph *graph, dg_cancel *cancel, dg_metrics *m) {
  int loops = 0;
  for (int e = 0; e < graph->edge_count; e++)
    loops += graph->edges[e].cycle && graph->edges[e].from != graph->edges[e].to;
  if (loops == 0)
    return 0;
  int n = graph->node_count, rc = DG_ENOMEM;
  size_t ends = (size_t)graph->edge_count * 2 + 1;
  int *offsets = malloc((size_t)(n + 1) * sizeof *offsets);
  int *adjacent = malloc(ends * sizeof *adjacent);
  int *via = malloc(ends * sizeof *via);
  int *weight = malloc(ends * sizeof *weight);
  int *touched = malloc(2 * (size_t)n * sizeof *touched);
  long *best = malloc(2 * (size_t)n * sizeof *best);
  search_side sides[2] = {{0}, {0}};
  if (offsets == NULL || adjacent == NULL || via == NULL || weight == NULL || touched == NULL ||
      best == NULL || dg_heap_init(&sides[0].heap, 64) != 0 ||
      dg_heap_init(&sides[1].heap, 64) != 0)
    goto done;
  dg_graph_adjacency(graph, offsets, adjacent, via);
  /* Lengths beside the adjacency: the edges themselves are far apart. */
  for (int k = 0; k < offsets[n]; k++)
    weight[k] = graph->edges[via[k]].length;
  for (int i = 0; i < 2 * n; i++)
    best[i] = UNREACHED;
  for (int s = 0; s < 2; s++) {
    sides[s].best = best + (size_t)s * (size_t)n;
    sides[s].touched = touched + (size_t)s * (size_t)n;
  }
  const detour_graph g = {offsets, adjacent, via, weight};
  int wanted = loops < STRETCH_SAMPLE ? loops : STRETCH_SAMPLE;
  double total = 0;
  int measured = 0, loop_index = 0, next_pick = 0, picked = 0;
  rc = 0;
  for (int e = 0; e < graph->edge_count && picked < wanted && rc == 0; e++) {
    const dg_edge *edge = &graph->edges[e];
    if (!edge->cycle || edge->from == edge->to)
      continue;
    if (loop_index++ != next_pick)
      continue;
    picked++;
    next_pick = (int)((long)picked * loops / wanted);
    if ((rc = dg_cancel_check(cancel)) != 0)
      break;
    long detour = detour_length(&g, edge->from, edge->to, e, sides, &rc);
    if (rc != 0 || detour < 0)
      continue;
    double stretch = (double)detour / edge->length;
    total += stretch;
    measured++;
    if (stretch > m->stretch_max)
      m->stretch_max = stretch;
  }
  m->stretch_mean = measured > 0 ? total / measured : 0.0;
done:
  free(offsets);
  free(adjacent);
  free(via);
  free(weight);
  free(touched);
  free(best);
  dg_heap_close(&sides[0].heap);
  dg_heap_close(&sides[1].heap);
  return rc;
}

/* The graph part of the metrics; with `trace_grid` the grid part too,
 * from the scan that counts the map's loops. */
static int graph_metrics(dg_level *level, dg_cancel *cancel, bool trace_grid, dg_metrics *m) {
  dg_graph *graph = &level->graph;
  int rc = dg_graph_mark_cycles(graph);
  if (rc == 0)
    rc = dg_cancel_check(cancel);
  if (rc != 0)
    return rc;
  int *component = malloc((size_t)(graph->node_count + 1) * sizeof *component);
  if (component == NULL)
    return DG_ENOMEM;
  int count = 0;
  rc = dg_graph_components(graph, component, &count);
  if (rc == 0) {
    /* One definition for every algorithm: the loops the map really has.
     * A landmark or nonlinear graph is the plan (MST and extra edges, the
     * rolls), not the map, so the map's loops are counted on its tiles
     * (loops.c: the count the trace's graph would give, in one pass
     * without building it; loops::*_agrees_with_the_trace). A graph
     * dg_trace_graph made from the map as it still is (grid_metrics_ready)
     * is the map's already: its loops are counted without a second trace
     * (the stairs placement adds are leaves, which change no count). The
     * unit test metrics::classic_cycles_are_loops_of_the_map holds this
     * count to an independent recount of the map over many seeds. */
    if (level->has_grid && !level->grid_is_projection && !level->grid_metrics_ready)
      rc = dg_grid_loops(level, &m->cycles, trace_grid ? m : NULL);
    else
      m->cycles = graph->edge_count - graph->node_count + count;
    if (!level->has_grid || level->grid_is_projection) {
      m->components = count;
      m->connected = true;
      for (int i = 0; i < graph->node_count; i++)
        if (graph->nodes[i].room >= 0 && component[i] != component[0])
          m->connected = false;
    }
  }
  free(component);
  if (rc == 0)
    rc = dg_cancel_check(cancel);
  if (rc != 0)
    return rc;
  return stretch_metrics(graph, cancel, m);
}

int dg_level_compute_metrics(dg_level *level, dg_cancel *cancel) {
  dg_metrics m = {0};
  m.rooms = level->room_count;
  int rc = 0;
  bool trace_grid = false;
  if (level->has_grid && level->grid_metrics_ready) {
    m = level->metrics; /* the grid part, from the generator's trace */
    m.rooms = level->room_count;
    m.cycles = 0;
    m.stretch_mean = m.stretch_max = 0;
  } else if (level->has_grid && !level->grid_is_projection) {
    trace_grid = true; /* the pass that counts the loops scans it too */
  } else if (level->has_grid) {
    rc = grid_metrics(level, &m);
  }
  if (rc == 0)
    rc = graph_metrics(level, cancel, trace_grid, &m);
  if (rc == 0)
    level->metrics = m;
  return rc;
}
