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

/* The search's dense cube of costs, one byte a state (0xff: not reached).
 * A state's relative x and z cannot pass cost_max + 1 (reach), its height
 * AUTHORED_PDB_Y_RANGE: direct indexing with neighbours close in memory. */
typedef struct cost_cube {
  uint8_t *cost; /* span_xz * span_xz * span_y * 4 entries */
  int reach;     /* cost_max + 1: the largest |x| or |z| */
  int span_xz;   /* 2 reach + 1 */
  int span_y;    /* 2 AUTHORED_PDB_Y_RANGE + 1 */
} cost_cube;

static inline size_t cube_cell(const cost_cube *cube, int x, int y, int z, int f) {
  return (((size_t)f * (size_t)cube->span_y + (size_t)(y + AUTHORED_PDB_Y_RANGE)) *
              (size_t)cube->span_xz +
          (size_t)(z + cube->reach)) *
             (size_t)cube->span_xz +
         (size_t)(x + cube->reach);
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

/* Dijkstra backward from the goal over the cube, bounded by cost_max, with
 * queue[] (cost_max + 1 buckets, each freed once drained). Output:
 * *states_out, the number of states reached. */
static int search_backward(cost_cube *cube, back_edge *const edges[4], const int edge_count[4],
                           bucket *queue, int cost_max, int *states_out) {
  int reach = cube->reach, span_xz = cube->span_xz, span_y = cube->span_y;
  uint8_t *dense = cube->cost;
  /* The goal faces north at the origin; a chain ends in an exit standing in
   * front of it (z = -1) facing back south. */
  dense[cube_cell(cube, 0, 0, -1, AUTHORED_FACING_S)] = 0;
  int states = 1;
  if (dg_vec_push(&queue[0], (uint32_t)cube_cell(cube, 0, 0, -1, AUTHORED_FACING_S)) != 0)
    return DG_ENOMEM;
  for (int cost = 0; cost <= cost_max; cost++) {
    for (int at = 0; at < queue[cost].count; at++) {
      size_t cell = queue[cost].items[at];
      if (dense[cell] != cost)
        continue; /* reached more cheaply since it was queued */
      size_t rest = cell;
      int x = (int)(rest % (size_t)span_xz) - reach;
      rest /= (size_t)span_xz;
      int z = (int)(rest % (size_t)span_xz) - reach;
      rest /= (size_t)span_xz;
      int y = (int)(rest % (size_t)span_y) - AUTHORED_PDB_Y_RANGE;
      int f = (int)(rest / (size_t)span_y);
      for (int i = 0; i < edge_count[f]; i++) {
        const back_edge *b = &edges[f][i];
        int next = cost + b->cost;
        if (next > cost_max)
          break;
        int px = x - b->dx, py = y - b->dy, pz = z - b->dz;
        if (py < -AUTHORED_PDB_Y_RANGE || py > AUTHORED_PDB_Y_RANGE || px < -reach || px > reach ||
            pz < -reach || pz > reach)
          continue;
        size_t k = cube_cell(cube, px, py, pz, b->facing);
        if (dense[k] <= next)
          continue;
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
 * up to 80% load so that a state costs at most 15 bytes. */
static int pack_states(const cost_cube *cube, int states, authored_pdb *pdb) {
  uint32_t slots = 1024;
  while ((uint64_t)states * 5 > (uint64_t)slots * 4)
    slots *= 2;
  pdb->slots = slots;
  pdb->mask = slots - 1;
  pdb->keys = malloc((size_t)slots * sizeof *pdb->keys);
  pdb->costs = malloc((size_t)slots * sizeof *pdb->costs);
  if (pdb->keys == NULL || pdb->costs == NULL)
    return DG_ENOMEM;
  for (uint32_t i = 0; i < slots; i++)
    pdb->keys[i] = AUTHORED_PDB_EMPTY;
  int reach = cube->reach;
  for (int f = 0; f < 4; f++)
    for (int y = -AUTHORED_PDB_Y_RANGE; y <= AUTHORED_PDB_Y_RANGE; y++)
      for (int z = -reach; z <= reach; z++)
        for (int x = -reach; x <= reach; x++) {
          uint8_t cost = cube->cost[cube_cell(cube, x, y, z, f)];
          if (cost != 0xff)
            relax(pdb, authored_pdb_key(x, y, z, f), cost);
        }
  /* Each cube cell is one distinct key: the table holds exactly the
   * states the search counted, so it never filled past 80%. */
  assert(pdb->states == states);
  return 0;
}

int authored_pdb_build(const authored_roomset *set, int cost_max, authored_pdb *pdb) {
  uint64_t started = dg_monotonic_ns();
  *pdb = (authored_pdb){.cost_max = cost_max};
  /* The search runs over a dense cube of costs; the result is then
   * packed. */
  cost_cube cube = {.reach = cost_max + 1, .span_y = 2 * AUTHORED_PDB_Y_RANGE + 1};
  cube.span_xz = 2 * cube.reach + 1;
  size_t cells = (size_t)cube.span_xz * (size_t)cube.span_xz * (size_t)cube.span_y * 4;
  cube.cost = malloc(cells);
  back_edge *edges[4] = {NULL, NULL, NULL, NULL};
  int edge_count[4] = {0, 0, 0, 0};
  bucket *queue = calloc((size_t)cost_max + 1, sizeof *queue);
  int states = 0, rc = DG_ENOMEM;
  if (cube.cost == NULL || queue == NULL || cost_max > 250)
    goto fail;
  memset(cube.cost, 0xff, cells);
  for (int f = 0; f < 4; f++)
    if ((edges[f] = calloc((size_t)set->exit_total + 1, sizeof *edges[f])) == NULL)
      goto fail;
  collect_back_edges(set, edges, edge_count);
  if ((rc = search_backward(&cube, edges, edge_count, queue, cost_max, &states)) != 0)
    goto fail;
  if ((rc = pack_states(&cube, states, pdb)) != 0)
    goto fail;
  pdb->build_ns = dg_monotonic_ns() - started;
fail:
  free(cube.cost);
  for (int f = 0; f < 4; f++)
    free(edges[f]);
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
