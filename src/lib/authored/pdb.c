/* Building the pattern database (see pdb.h; seed 003, "The pattern
 * database"): a Dijkstra backward from the goal through every move in
 * empty space, bounded by cost. */
#include "pdb.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

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

/* Whether v lies between 0 and end, both included. */
static bool between(int v, int end) {
  return end >= 0 ? v >= 0 && v <= end : v <= 0 && v >= end;
}

/* Drops every edge that two cheaper edges replace at no more cost through
 * a state between its two ends on every axis. The box is convex, so when
 * both ends are in it the middle is too, and the middle costs no more than
 * the end (edges cost at least 0): the Dijkstra finds the same costs
 * without the edge. Each replacement uses strictly cheaper edges, so
 * replacing those in turn ends, with every middle state still inside the
 * spanned box. Fewer edges, the same table. `dropped` holds 4 rows of
 * edge_count[f] flags. */
static void drop_composite_edges(back_edge *edges[4], int edge_count[4], bool *dropped[4]) {
  /* The test is cubic in the edges: a set with more than a few hundred
   * distinct doorway geometries a facing is searched with all of them. */
  for (int f = 0; f < 4; f++)
    if (edge_count[f] > PDB_PRUNE_EDGES_MAX)
      return;
  for (int f = 0; f < 4; f++)
    for (int i = 0; i < edge_count[f]; i++) {
      const back_edge *e = &edges[f][i];
      bool composite = false;
      for (int a = 0; a < edge_count[f] && !composite; a++) {
        const back_edge *first = &edges[f][a];
        if (first->cost >= e->cost || !between(first->dx, e->dx) || !between(first->dy, e->dy) ||
            !between(first->dz, e->dz))
          continue;
        int g = first->facing;
        for (int b = 0; b < edge_count[g] && !composite; b++) {
          const back_edge *second = &edges[g][b];
          composite = second->cost < e->cost && second->facing == e->facing &&
                      first->dx + second->dx == e->dx && first->dy + second->dy == e->dy &&
                      first->dz + second->dz == e->dz && first->cost + second->cost <= e->cost;
        }
      }
      dropped[f][i] = composite;
    }
  for (int f = 0; f < 4; f++) {
    int kept = 0;
    for (int i = 0; i < edge_count[f]; i++)
      if (!dropped[f][i])
        edges[f][kept++] = edges[f][i];
    edge_count[f] = kept;
  }
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
        if (dg_vec_push(&queue[next], (uint32_t)k) != 0)
          return DG_ENOMEM;
      }
    }
    dg_vec_free(&queue[cost]);
  }
  *states_out = states;
  return 0;
}

/* Packs the reached states of the cube into pdb's open-addressed table, at
 * up to 80% load so that a state costs at most 15 bytes. The states are
 * first listed in cube order, then inserted in that order with the slot of
 * a state a few ahead fetched early: the table is larger than the caches
 * and each insert is otherwise a wait on memory. */
static int pack_states(const cost_cube *cube, int states, authored_pdb *pdb) {
  enum { AHEAD = 16 };
  uint32_t slots = 1024;
  while ((uint64_t)states * 5 > (uint64_t)slots * 4)
    slots *= 2;
  pdb->slots = slots;
  pdb->mask = slots - 1;
  pdb->keys = malloc((size_t)slots * sizeof *pdb->keys);
  pdb->costs = malloc((size_t)slots * sizeof *pdb->costs);
  uint32_t *listed = malloc((size_t)states * sizeof *listed);
  uint8_t *listed_cost = malloc((size_t)states);
  if (pdb->keys == NULL || pdb->costs == NULL || listed == NULL || listed_cost == NULL) {
    free(listed);
    free(listed_cost);
    return DG_ENOMEM;
  }
  memset(pdb->keys, 0xff, (size_t)slots * sizeof *pdb->keys); /* AUTHORED_PDB_EMPTY */
  int count = 0, reach = cube->reach;
  for (int layer = -cube->layers; layer <= cube->layers; layer++)
    for (int z = -reach; z <= reach; z++) {
      const uint8_t *row = &cube->cost[cube_cell(cube, -reach, layer, z, 0)];
      for (int x = -reach; x <= reach; x++)
        for (int f = 0; f < 4; f++) {
          uint8_t cost = row[4 * (x + reach) + f];
          if (cost != 0xff && count < states) {
            listed[count] = authored_pdb_key(x, layer * cube->y_step, z, f);
            listed_cost[count++] = cost;
          }
        }
    }
  for (int i = 0; i < count; i++) {
    if (i + AHEAD < count) {
      uint32_t ahead = authored_pdb_slot(listed[i + AHEAD], pdb->mask);
      __builtin_prefetch(&pdb->keys[ahead], 1);
      __builtin_prefetch(&pdb->costs[ahead], 1);
    }
    relax(pdb, listed[i], listed_cost[i]);
  }
  free(listed);
  free(listed_cost);
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
  drop_composite_edges(edges, edge_count, dropped);
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
