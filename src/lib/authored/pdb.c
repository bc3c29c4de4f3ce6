/* Building the pattern database (see pdb.h; seed 003, "The pattern
 * database"): a Dijkstra backward from the goal through every move in
 * empty space, bounded by cost. */
#include "pdb.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/vec.h"
#include "dungeon/cancel.h"
#include "roomset.h"

/* Inserts or lowers `key`; returns true when the entry is new or cheaper. */
static bool relax(authored_pdb *pdb, uint32_t key, int cost) {
  uint32_t slot = authored_pdb_find(pdb, key);
  if (pdb->keys[slot] == key) {
    if (pdb->costs[slot] <= cost)
      return false;
    pdb->costs[slot] = (uint16_t)cost;
    return true;
  }
  pdb->keys[slot] = key;
  pdb->costs[slot] = (uint16_t)cost;
  pdb->states++;
  return true;
}

/* One backward step: a group whose exit k has facing f turns state
 * (p, f) into predecessor (p - exit offset, group's open facing). */
typedef struct back_edge {
  int dx, dy, dz; /* exit offset */
  int facing;     /* the predecessor's facing: the group's open facing */
  int cost;       /* the exit's walking cost */
} back_edge;

static int by_cost(const void *a, const void *b) {
  const back_edge *p = a, *q = b;
  if (p->cost != q->cost)
    return p->cost < q->cost ? -1 : 1;
  int x[4] = {p->dx, p->dy, p->dz, p->facing}, y[4] = {q->dx, q->dy, q->dz, q->facing};
  for (int i = 0; i < 4; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}

/* Dial's bucket queue: costs are small integers, so one growable list per
 * cost value replaces a heap (O(1) push and pop). */
typedef DG_VEC(uint32_t) bucket;

/* The search's dense cube of costs, one byte a state. A state's relative
 * x and z cannot pass cost_max + 1 (reach), its height AUTHORED_PDB_Y_RANGE.
 * Heights come in layers of y_step blocks, the greatest common divisor of
 * the back edges' rises: from the goal (y = 0) every state a chain reaches
 * lies on a multiple of it (rooms climb whole storeys), so the heights
 * between can never hold an entry and are not stored (the shipped sets:
 * 9 layers instead of 33, a quarter of the memory the search sweeps).
 * Around that box lies a margin as wide as the longest back edge, held at
 * cost 0 so that no relaxation ever lowers it: a step out of the box lands
 * there and stops, with no bounds test and no decoding of x, y and z in the
 * inner loop (a back edge is one constant offset in the cube). 0xff: not
 * reached. */
typedef struct cost_cube {
  uint8_t *cost;  /* span_y * span_xz * span_xz positions of 4 facings */
  int reach;      /* cost_max + 1: the largest |x| or |z| */
  int margin_xz;  /* the longest back edge's |dx| or |dz| */
  int y_step;     /* blocks from one stored height to the next */
  int layers;     /* AUTHORED_PDB_Y_RANGE / y_step: the box's top layer */
  int margin_y;   /* the longest back edge's |dy|, in layers */
  size_t span_xz; /* 2 (reach + margin_xz) + 1 */
  size_t span_y;  /* 2 (layers + margin_y) + 1 */
} cost_cube;

/* The cell of state (x, layer * y_step, z, f). */
static inline size_t cube_cell(const cost_cube *cube, int x, int layer, int z, int f) {
  return (((size_t)(layer + cube->layers + cube->margin_y) * cube->span_xz +
           (size_t)(z + cube->reach + cube->margin_xz)) *
              cube->span_xz +
          (size_t)(x + cube->reach + cube->margin_xz)) *
             4 +
         (size_t)f;
}

/* Sizes the cube for back edges that move at most margin_xz across and
 * margin_y blocks up or down, all rises multiples of y_step, and fills it:
 * the box unreached, the margin at 0 (calloc's zero pages: the layers of
 * the margin that no step reaches are never written). 0 or DG_ENOMEM. */
static int cube_open(cost_cube *cube, int cost_max, int margin_xz, int margin_y, int y_step) {
  cube->reach = cost_max + 1;
  cube->margin_xz = margin_xz;
  cube->y_step = y_step;
  cube->layers = AUTHORED_PDB_Y_RANGE / y_step;
  cube->margin_y = margin_y / y_step;
  cube->span_xz = 2 * (size_t)(cube->reach + margin_xz) + 1;
  cube->span_y = 2 * (size_t)(cube->layers + cube->margin_y) + 1;
  size_t cells = cube->span_y * cube->span_xz * cube->span_xz * 4;
  if ((cube->cost = calloc(cells, 1)) == NULL)
    return DG_ENOMEM;
  for (int layer = -cube->layers; layer <= cube->layers; layer++)
    for (int z = -cube->reach; z <= cube->reach; z++)
      memset(&cube->cost[cube_cell(cube, -cube->reach, layer, z, 0)], 0xff,
             4 * (2 * (size_t)cube->reach + 1));
  return 0;
}

/* The backward edges of every group, by the facing they step back from,
 * cheapest first and without repeats. edges[f] must hold exit_total
 * entries; edge_count[f] is set. */
static void collect_back_edges(const authored_roomset *set, back_edge *edges[4],
                               int edge_count[4]) {
  /* Each group once: members share the geometry. */
  for (int g = 0; g < set->group_count; g++) {
    const authored_move *m = &set->moves[set->members[set->groups[g].member_first]];
    for (int e = 0; e < m->exit_count; e++) {
      const authored_exit *x = &set->exits[m->exit_first + e];
      edges[x->facing][edge_count[x->facing]++] =
          (back_edge){x->x, x->y, x->z, m->open_facing, x->cost};
    }
  }
  for (int f = 0; f < 4; f++) {
    qsort(edges[f], (size_t)edge_count[f], sizeof *edges[f], by_cost);
    /* Rooms of different shapes often share a doorway geometry: in empty
     * space only the cheapest such edge matters. */
    int kept = 0;
    for (int i = 0; i < edge_count[f]; i++) {
      const back_edge *b = &edges[f][i];
      bool seen = false;
      for (int j = 0; j < kept && !seen; j++) {
        const back_edge *o = &edges[f][j];
        seen = o->dx == b->dx && o->dy == b->dy && o->dz == b->dz && o->facing == b->facing;
      }
      if (!seen)
        edges[f][kept++] = *b;
    }
    edge_count[f] = kept;
  }
}

#define PDB_PRUNE_EDGES_MAX 256
#define PDB_PRUNE_BOX_MAX (1 << 16) /* states of the largest box tested */

/* An edge as the composite test takes it: its move along each axis in the
 * direction of the edge tested (so that the box runs from 0 to its size on
 * every axis), the facing it leads to, and its cost. */
typedef struct box_step {
  int t[3];
  int facing;
  int cost;
} box_step;

/* The composite test's scratch: one byte a state of the box, the open
 * list, and the steps that fit the box. */
typedef struct composite_scratch {
  uint8_t *cost;      /* PDB_PRUNE_BOX_MAX states */
  dg_heap open;       /* (cost, packed state) */
  box_step *steps[4]; /* each facing's steps, PDB_PRUNE_EDGES_MAX of them */
  int step_count[4];
} composite_scratch;

/* A state of the box packed into the heap's value: t[0], t[1], t[2] and
 * the facing in 9, 9, 9 and 2 bits (the box is at most 512 a side). */
static uint32_t box_pack(const int t[3], int f) {
  return (uint32_t)t[0] << 20 | (uint32_t)t[1] << 11 | (uint32_t)t[2] << 2 | (uint32_t)f;
}

/* A lower bound on the cost of covering `left` blocks (summed over the
 * three axes) when no step covers more than reach_blocks per reach_cost;
 * INT_MAX when no step moves at all and blocks are left. */
static int cost_bound(int left, int reach_blocks, int reach_cost) {
  if (left == 0)
    return 0;
  if (reach_blocks == 0)
    return INT_MAX;
  return (int)(((int64_t)left * reach_cost + reach_blocks - 1) / reach_blocks);
}

/* Keeps in scratch->steps the edges strictly cheaper than `e` that fit its
 * box (moves along each axis in e's direction, so the box runs from 0 to
 * size[a] - 1); the best blocks per cost among them goes to *reach_blocks /
 * *reach_cost. */
static void box_steps(back_edge *const edges[4], const int edge_count[4], const back_edge *e,
                      const int sign[3], const int size[3], composite_scratch *scratch,
                      int *reach_blocks, int *reach_cost) {
  *reach_blocks = 0;
  *reach_cost = 1;
  for (int h = 0; h < 4; h++) {
    scratch->step_count[h] = 0;
    for (int i = 0; i < edge_count[h] && edges[h][i].cost < e->cost; i++) {
      const back_edge *b = &edges[h][i];
      box_step step = {{b->dx * sign[0], b->dy * sign[1], b->dz * sign[2]}, b->facing, b->cost};
      int blocks = abs(b->dx) + abs(b->dy) + abs(b->dz);
      if (abs(step.t[0]) >= size[0] || abs(step.t[1]) >= size[1] || abs(step.t[2]) >= size[2])
        continue;
      scratch->steps[h][scratch->step_count[h]++] = step;
      if ((int64_t)blocks * *reach_cost > (int64_t)*reach_blocks * b->cost) {
        *reach_blocks = blocks;
        *reach_cost = b->cost;
      }
    }
  }
}

/* Whether edges each strictly cheaper than `e`, no dearer than it in all,
 * lead from (0, 0, 0, f) to e's end and facing through states that are all
 * between e's two ends on every axis: an A* over e's box (one byte a state,
 * the cheapest cost found) ordered and pruned by cost_bound, which never
 * overestimates, so a state dearer than e's cost with the bound added is
 * never needed. It stops when it reaches e's end. */
static int is_composite(back_edge *const edges[4], const int edge_count[4], int f,
                        const back_edge *e, composite_scratch *scratch, bool *composite) {
  int d[3] = {e->dx, e->dy, e->dz}, size[3], sign[3], reach_blocks, reach_cost;
  for (int a = 0; a < 3; a++) {
    sign[a] = d[a] < 0 ? -1 : 1;
    size[a] = abs(d[a]) + 1;
  }
  box_steps(edges, edge_count, e, sign, size, scratch, &reach_blocks, &reach_cost);
  int rc = 0, states = size[0] * size[1] * size[2] * 4, origin[3] = {0, 0, 0};
  int goal = ((size[0] * size[1] * size[2] - 1) * 4) + e->facing;
  memset(scratch->cost, 0xff, (size_t)states);
  dg_heap_clear(&scratch->open);
  scratch->cost[f] = 0;
  *composite = f == e->facing && states == 4; /* no move, no turn: never cheaper */
  int left0 = size[0] + size[1] + size[2] - 3;
  if ((rc = dg_heap_push(&scratch->open, (uint64_t)cost_bound(left0, reach_blocks, reach_cost),
                         box_pack(origin, f))) != 0)
    return rc;
  uint64_t popped;
  uint32_t at;
  while (!*composite && dg_heap_pop(&scratch->open, &popped, &at)) {
    int t[3] = {(int)(at >> 20), (int)(at >> 11 & 511), (int)(at >> 2 & 511)}, h = (int)(at & 3);
    int g = scratch->cost[((t[0] * size[1] + t[1]) * size[2] + t[2]) * 4 + h];
    int left = (size[0] - 1 - t[0]) + (size[1] - 1 - t[1]) + (size[2] - 1 - t[2]);
    if ((uint64_t)g + (uint64_t)cost_bound(left, reach_blocks, reach_cost) != popped)
      continue; /* reached more cheaply since it was queued */
    for (int i = 0; i < scratch->step_count[h] && !*composite; i++) {
      const box_step *b = &scratch->steps[h][i];
      int n[3] = {t[0] + b->t[0], t[1] + b->t[1], t[2] + b->t[2]}, next = g + b->cost;
      if ((unsigned)n[0] >= (unsigned)size[0] || (unsigned)n[1] >= (unsigned)size[1] ||
          (unsigned)n[2] >= (unsigned)size[2])
        continue;
      int k = ((n[0] * size[1] + n[1]) * size[2] + n[2]) * 4 + b->facing;
      int bound = cost_bound((size[0] - 1 - n[0]) + (size[1] - 1 - n[1]) + (size[2] - 1 - n[2]),
                             reach_blocks, reach_cost);
      if (bound > e->cost - next || scratch->cost[k] <= next)
        continue; /* cannot end within e's cost, or reached as cheaply */
      scratch->cost[k] = (uint8_t)next;
      *composite = k == goal;
      if ((rc = dg_heap_push(&scratch->open, (uint64_t)(next + bound), box_pack(n, b->facing))) !=
          0)
        return rc;
    }
  }
  return 0;
}

/* Drops every edge that a chain of strictly cheaper edges replaces at no
 * more cost through states between its two ends on every axis. The box is
 * convex, so when both ends are in it every state of the chain is too, and
 * each costs no more than the end (edges cost at least 0): the Dijkstra
 * finds the same costs without the edge. Each replacement uses strictly
 * cheaper edges, so replacing those in turn ends, with every state still
 * inside the spanned box. Fewer edges, the same table: the shipped sets
 * keep 24 to 28 of their 41 to 46 edges a facing, where testing chains of
 * two alone kept 41 to 46. `dropped` holds 4 rows of edge_count[f] flags.
 * 0 or DG_ENOMEM. */
static int drop_composite_edges(back_edge *edges[4], int edge_count[4], bool *dropped[4]) {
  /* A set with more than a few hundred distinct doorway geometries a
   * facing, or with an edge whose box is huge, is searched with those
   * edges kept (always exact, only slower). */
  for (int f = 0; f < 4; f++)
    if (edge_count[f] > PDB_PRUNE_EDGES_MAX)
      return 0;
  composite_scratch scratch = {.cost = malloc(PDB_PRUNE_BOX_MAX)};
  int rc = dg_heap_init(&scratch.open, 1024);
  for (int f = 0; f < 4; f++)
    if ((scratch.steps[f] = malloc(PDB_PRUNE_EDGES_MAX * sizeof *scratch.steps[f])) == NULL)
      rc = DG_ENOMEM;
  if (scratch.cost == NULL || rc != 0) {
    rc = DG_ENOMEM;
    goto done;
  }
  for (int f = 0; f < 4; f++)
    for (int i = 0; i < edge_count[f]; i++) {
      const back_edge *e = &edges[f][i];
      int64_t states = ((int64_t)abs(e->dx) + 1) * (abs(e->dy) + 1) * (abs(e->dz) + 1) * 4;
      dropped[f][i] = false;
      if (states <= PDB_PRUNE_BOX_MAX && abs(e->dx) < 512 && abs(e->dy) < 512 && abs(e->dz) < 512 &&
          (rc = is_composite(edges, edge_count, f, e, &scratch, &dropped[f][i])) != 0)
        goto done;
    }
  for (int f = 0; f < 4; f++) {
    int kept = 0;
    for (int i = 0; i < edge_count[f]; i++)
      if (!dropped[f][i])
        edges[f][kept++] = edges[f][i];
    edge_count[f] = kept;
  }
done:
  free(scratch.cost);
  dg_heap_close(&scratch.open);
  for (int f = 0; f < 4; f++)
    free(scratch.steps[f]);
  return rc;
}

static int gcd(int a, int b) {
  while (b != 0) {
    int r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* An edge longer than the box (2 reach across, 2 Y_RANGE up) leads from
 * every state in it to one outside: it can never count, so it is dropped
 * rather than let widen the margin. Outputs: the longest kept edge's
 * *margin_xz across and *margin_y up or down, and *y_step, the greatest
 * common divisor of the kept edges' rises (AUTHORED_PDB_Y_RANGE + 1 when
 * none rises: then only the goal's height is reachable). */
static void drop_long_edges(back_edge *edges[4], int edge_count[4], int reach, int *margin_xz,
                            int *margin_y, int *y_step) {
  int across_max = 0, rise_max = 0, rise_gcd = 0;
  for (int f = 0; f < 4; f++) {
    int kept = 0;
    for (int i = 0; i < edge_count[f]; i++) {
      const back_edge *b = &edges[f][i];
      int across = abs(b->dx) > abs(b->dz) ? abs(b->dx) : abs(b->dz), rise = abs(b->dy);
      if (across > 2 * reach || rise > 2 * AUTHORED_PDB_Y_RANGE)
        continue;
      across_max = across > across_max ? across : across_max;
      rise_max = rise > rise_max ? rise : rise_max;
      rise_gcd = gcd(rise, rise_gcd);
      edges[f][kept++] = *b;
    }
    edge_count[f] = kept;
  }
  *margin_xz = across_max;
  *margin_y = rise_max;
  *y_step = rise_gcd > 0 ? rise_gcd : AUTHORED_PDB_Y_RANGE + 1;
}

/* One back edge as the search uses it: the cube offset from a state to its
 * predecessor, and the cost. */
typedef struct cube_step {
  ptrdiff_t offset;
  int cost;
} cube_step;

/* Dijkstra backward from the goal over the cube, bounded by cost_max, with
 * queue[] (cost_max + 1 buckets, each freed once drained) and steps[f]
 * (edge_count[f] of them, cheapest first). The result is the same whatever
 * order states are relaxed in: each reached state ends at its exact cost.
 * Output: *states_out, the number of states reached. */
static int search_backward(cost_cube *cube, cube_step *const steps[4], const int edge_count[4],
                           bucket *queue, int cost_max, int *states_out) {
  uint8_t *dense = cube->cost;
  /* The goal faces north at the origin; a chain ends in an exit standing in
   * front of it (z = -1) facing back south. */
  size_t goal = cube_cell(cube, 0, 0, -1, AUTHORED_FACING_S);
  dense[goal] = 0;
  int states = 1;
  if (dg_vec_push(&queue[0], (uint32_t)goal) != 0)
    return DG_ENOMEM;
  for (int cost = 0; cost <= cost_max; cost++) {
    for (int at = 0; at < queue[cost].count; at++) {
      size_t cell = queue[cost].items[at];
      if (dense[cell] != cost)
        continue; /* reached more cheaply since it was queued */
      int f = (int)(cell & 3);
      const cube_step *step = steps[f];
      for (int i = 0; i < edge_count[f]; i++) {
        int next = cost + step[i].cost;
        if (next > cost_max)
          break;
        size_t k = (size_t)((ptrdiff_t)cell + step[i].offset);
        if (dense[k] <= next)
          continue; /* cheaper already, or the margin */
        states += dense[k] == 0xff;
        dense[k] = (uint8_t)next;
        bucket *into = &queue[next]; /* pushed inline: the call is a tenth of the loop */
        if (into->count == into->capacity && dg_vec_reserve(into, into->count + 1) != 0)
          return DG_ENOMEM;
        into->items[into->count++] = (uint32_t)k;
      }
    }
    dg_vec_free(&queue[cost]);
  }
  *states_out = states;
  return 0;
}

/* Packs the reached states of the cube into pdb's open-addressed table, at
 * up to 80% load so that a state costs at most 15 bytes. The states are
 * inserted in cube order, each AHEAD states after its slot was fetched
 * early (a ring of the states in between): the table is larger than the
 * caches and each insert is otherwise a wait on memory. */
static int pack_states(const cost_cube *cube, int states, authored_pdb *pdb) {
  enum { AHEAD = 16 };
  uint32_t slots = 1024;
  while ((uint64_t)states * 5 > (uint64_t)slots * 4)
    slots *= 2;
  pdb->slots = slots;
  pdb->mask = slots - 1;
  pdb->keys = malloc((size_t)slots * sizeof *pdb->keys);
  pdb->costs = malloc((size_t)slots * sizeof *pdb->costs);
  if (pdb->keys == NULL || pdb->costs == NULL)
    return DG_ENOMEM;
  memset(pdb->keys, 0xff, (size_t)slots * sizeof *pdb->keys); /* AUTHORED_PDB_EMPTY */
  uint32_t ring_key[AHEAD];
  uint8_t ring_cost[AHEAD];
  int count = 0, reach = cube->reach;
  for (int layer = -cube->layers; layer <= cube->layers; layer++)
    for (int z = -reach; z <= reach; z++) {
      const uint8_t *row = &cube->cost[cube_cell(cube, -reach, layer, z, 0)];
      for (int x = -reach; x <= reach; x++)
        for (int f = 0; f < 4; f++) {
          uint8_t cost = row[4 * (x + reach) + f];
          if (cost == 0xff)
            continue;
          int at = count++ % AHEAD;
          if (count > AHEAD)
            relax(pdb, ring_key[at], ring_cost[at]);
          ring_key[at] = authored_pdb_key(x, layer * cube->y_step, z, f);
          ring_cost[at] = cost;
          uint32_t slot = authored_pdb_slot(ring_key[at], pdb->mask);
          __builtin_prefetch(&pdb->keys[slot], 1);
          __builtin_prefetch(&pdb->costs[slot], 1);
        }
    }
  for (int i = count > AHEAD ? count - AHEAD : 0; i < count; i++)
    relax(pdb, ring_key[i % AHEAD], ring_cost[i % AHEAD]);
  /* Each cube cell is one distinct key: the table holds exactly the
   * states the search counted, so it never filled past 80%. */
  assert(pdb->states == states && count == states);
  return 0;
}

int authored_pdb_build(const authored_roomset *set, int cost_max, authored_pdb *pdb) {
  uint64_t started = dg_monotonic_ns();
  *pdb = (authored_pdb){.cost_max = cost_max};
  cost_cube cube = {0};
  back_edge *edges[4] = {NULL, NULL, NULL, NULL};
  cube_step *steps[4] = {NULL, NULL, NULL, NULL};
  bool *dropped[4] = {NULL, NULL, NULL, NULL};
  int edge_count[4] = {0, 0, 0, 0};
  bucket *queue = calloc((size_t)cost_max + 1, sizeof *queue);
  int states = 0, rc = DG_ENOMEM;
  if (queue == NULL || cost_max > 250)
    goto fail;
  for (int f = 0; f < 4; f++)
    if ((edges[f] = calloc((size_t)set->exit_total + 1, sizeof *edges[f])) == NULL ||
        (steps[f] = calloc((size_t)set->exit_total + 1, sizeof *steps[f])) == NULL ||
        (dropped[f] = calloc((size_t)set->exit_total + 1, sizeof *dropped[f])) == NULL)
      goto fail;
  collect_back_edges(set, edges, edge_count);
  if ((rc = drop_composite_edges(edges, edge_count, dropped)) != 0)
    goto fail;
  int margin_xz, margin_y, y_step;
  drop_long_edges(edges, edge_count, cost_max + 1, &margin_xz, &margin_y, &y_step);
  if ((rc = cube_open(&cube, cost_max, margin_xz, margin_y, y_step)) != 0)
    goto fail;
  for (int f = 0; f < 4; f++)
    for (int i = 0; i < edge_count[f]; i++) {
      const back_edge *b = &edges[f][i];
      steps[f][i] =
          (cube_step){(ptrdiff_t)cube_cell(&cube, -b->dx, -b->dy / y_step, -b->dz, b->facing) -
                          (ptrdiff_t)cube_cell(&cube, 0, 0, 0, f),
                      b->cost};
    }
  if ((rc = search_backward(&cube, steps, edge_count, queue, cost_max, &states)) != 0)
    goto fail;
  if ((rc = pack_states(&cube, states, pdb)) != 0)
    goto fail;
  pdb->build_ns = dg_monotonic_ns() - started;
fail:
  free(cube.cost);
  for (int f = 0; f < 4; f++) {
    free(edges[f]);
    free(steps[f]);
    free(dropped[f]);
  }
  for (int c = 0; queue != NULL && c <= cost_max; c++)
    dg_vec_free(&queue[c]);
  free(queue);
  if (rc != 0)
    authored_pdb_free(pdb);
  return rc;
}

void authored_pdb_free(authored_pdb *pdb) {
  free(pdb->keys);
  free(pdb->costs);
  *pdb = (authored_pdb){0};
}
