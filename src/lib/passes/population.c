/* The population pass shared by every algorithm (docs/population.md):
 * what a game server fills a level with, as budgets. Every room gets a
 * threat budget from the pacing curve over its walking distance from the
 * entrance (normalised by the farthest room's) times the difficulty, the
 * way Dungeon Architect gives each path node a 0-1 difficulty and
 * Metazelda raises intensity room by room and eases it after each lock;
 * the entrance's and the spawns' rooms get none, the rooms just past a
 * lock are eased, and the boss room peaks. Every room also gets a loot
 * heat (Brogue's item heat map: dead ends, secret closets, rooms behind
 * locks and rooms off the entrance-exit walk are warmer), a tier from it,
 * and its share of the level's loot points.
 *
 * Distances are graph distances over level->graph from the node placement
 * chose for the stairs up (a room's node, or the node a walker from stairs
 * forced into a corridor meets first), as placement measures them, so a
 * lower floor of a set whose stairs up sit in a corridor gets budgets like
 * any other. Everything is integer or fixed-point arithmetic: the budgets
 * are the same bytes on every build. dg_generate runs it after progression
 * and before the metrics; with params.population false it does nothing. */
#include "passes/population.h"

#include "passes/entities.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fp.h"

#define ONE 65536 /* 1.0 in the Q16 fixed point of progress and curves */

/* 2^(4t) - 1 over 15, for t = 0, 1/64, ..., 1, in Q16: the exponential
 * pacing, interpolated linearly between entries (within a quarter of a
 * point of the curve at difficulty 100). round(65536 * (2^(i/16) - 1) /
 * 15). */
static const int32_t exponential_q16[65] = {
    0,     193,   395,   606,   827,   1057,  1297,  1548,  1810,  2083,  2369,  2667,  2979,
    3304,  3644,  3999,  4369,  4756,  5160,  5582,  6022,  6482,  6963,  7465,  7989,  8536,
    9107,  9704,  10327, 10977, 11657, 12366, 13107, 13881, 14689, 15533, 16414, 17334, 18295,
    19298, 20346, 21440, 22583, 23776, 25022, 26324, 27683, 29102, 30583, 32131, 33747, 35434,
    37197, 39037, 40959, 42966, 45061, 47250, 49535, 51922, 54414, 57016, 59734, 62572, 65536};

/* value / divisor for value >= 0 and divisor > 0: a 32-bit division when
 * both fit, the same quotient at a fraction of a 64-bit division's
 * latency (the pass's per-room divisions showed in classic's profile). */
static int64_t quotient(int64_t value, int64_t divisor) {
  if (value <= UINT32_MAX && divisor <= UINT32_MAX)
    return (uint32_t)value / (uint32_t)divisor;
  return value / divisor;
}

/* One divisor used for many quotients: the rooms' progress and curve
 * position by the farthest distance, their loot shares by the total heat.
 * A division takes tens of cycles on the machines we measure and the
 * pass made about thirty a level; a multiply by the divisor's reciprocal
 * takes three. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 uint128; /* GCC and Clang on 64-bit targets */
#endif

typedef struct divider {
  uint64_t magic;  /* floor((2^64 - 1) / divisor) + 1; 0 when not usable */
  int64_t divisor; /* > 0 */
} divider;

static divider divider_of(int64_t divisor) {
  divider v = {0, divisor};
#ifdef __SIZEOF_INT128__
  if (divisor > 1 && divisor <= UINT32_MAX)
    v.magic = UINT64_MAX / (uint64_t)divisor + 1;
#endif
  return v;
}

/* value / v.divisor for value >= 0, the same quotient as the division:
 * magic exceeds 2^64 / divisor by at most 1 (exactly 0 for a power of
 * two), so for value and divisor below 2^32 the product's error stays
 * under value / 2^64 < 1 / divisor, less than the distance from
 * value / divisor to the next integer above it. Integers only: the same
 * on every build. */
static int64_t divide(divider v, int64_t value) {
#ifdef __SIZEOF_INT128__
  if (v.magic != 0 && value <= UINT32_MAX)
    return (int64_t)(((uint128)(uint64_t)value * v.magic) >> 64);
#endif
  return v.divisor == 1 ? value : quotient(value, v.divisor);
}

/* divider_of(d) for d = 0 .. 32 without its 64-bit division: the
 * reciprocals of the small counts the achieved curve divides by. */
#define MAGIC(d) (UINT64_MAX / (d) + 1)
static const uint64_t small_magic[33] = {
    0,         0,         MAGIC(2),  MAGIC(3),  MAGIC(4),  MAGIC(5),  MAGIC(6),
    MAGIC(7),  MAGIC(8),  MAGIC(9),  MAGIC(10), MAGIC(11), MAGIC(12), MAGIC(13),
    MAGIC(14), MAGIC(15), MAGIC(16), MAGIC(17), MAGIC(18), MAGIC(19), MAGIC(20),
    MAGIC(21), MAGIC(22), MAGIC(23), MAGIC(24), MAGIC(25), MAGIC(26), MAGIC(27),
    MAGIC(28), MAGIC(29), MAGIC(30), MAGIC(31), MAGIC(32)};
#undef MAGIC

static divider small_divider(int64_t divisor) {
#ifdef __SIZEOF_INT128__
  if (divisor < 33)
    return (divider){small_magic[divisor], divisor};
#endif
  return divider_of(divisor);
}

/* The pacing curve at progress `t` (Q16, 0..ONE), in Q16. */
/* The curve through control points (x, y in 0..100), piecewise linear,
 * at t (Q16). */
__attribute__((noinline, cold)) static int64_t pace_points(const char *points, int64_t t) {
  int xs[DG_PACING_POINTS_MAX], ys[DG_PACING_POINTS_MAX];
  int count = dg_pacing_points(points, xs, ys);
  int64_t at = t * 100; /* progress in hundredths, Q16 */
  for (int i = 1; i < count; i++)
    if (at <= (int64_t)xs[i] * ONE || i == count - 1) {
      int64_t x0 = (int64_t)xs[i - 1] * ONE, x1 = (int64_t)xs[i] * ONE;
      /* At most 100 x 6.6e6 x 65536 before the division: within int64. */
      int64_t y =
          (int64_t)ys[i - 1] * ONE + ((int64_t)ys[i] - ys[i - 1]) * (at - x0) * ONE / (x1 - x0);
      return y / 100;
    }
  return count > 0 ? (int64_t)ys[count - 1] * ONE / 100 : t;
}

static int64_t pace(const dg_population *population, int64_t t) {
  switch (population->pacing) {
  case DG_PACING_POINTS: return pace_points(population->pacing_points, t);
  case DG_PACING_FLAT: return ONE;
  case DG_PACING_S_CURVE: {
    /* smoothstep: 3t^2 - 2t^3 */
    int64_t t2 = t * t / ONE;
    return t2 * (3 * ONE - 2 * t) / ONE;
  }
  case DG_PACING_EXPONENTIAL: {
    int64_t at = t * 64, i = at / ONE, f = at % ONE;
    if (i >= 64)
      return exponential_q16[64];
    return exponential_q16[i] + (exponential_q16[i + 1] - exponential_q16[i]) * f / ONE;
  }
  default: return t; /* linear */
  }
}

/* A value and the room it belongs to: sorting these keeps the pass free
 * of the global state a comparator without context would need. */
typedef struct keyed {
  int64_t key;
  int room;
} keyed;

/* One entry of the Dijkstra queue: a node and the distance it was reached
 * at. */
typedef struct reached {
  long distance;
  int node;
} reached;

/* The pass's scratch, in one allocation (the pass runs on every level
 * and costs microseconds, so its mallocs show): the graph as adjacency
 * lists, distances from the entrance and from the exit, and the arrays
 * sorting and ranking rooms. */
typedef struct scratch {
  void *block;                   /* everything below */
  bool owned;                    /* block was malloc'd (else the caller's stack buffer) */
  long *from_entrance, *to_exit; /* graph distances, LONG_MAX unreachable */
  int64_t *rank_distance;        /* twice each room's average rank by distance */
  int64_t *rank_threat;          /* ... by threat */
  keyed *sorted;                 /* rooms with a key, for sorting */
  int *offsets, *adjacent, *via; /* CSR adjacency (dg_graph_adjacency) */
  int *node_of_room;             /* room -> its graph node, or -1 */
  int *doors, *secret_doors;     /* per room: doors in its walls, and how many are secret */
  int *degree;                   /* edges touching each node, loops left out */
  reached *queue;                /* Dijkstra's queue: 2 x edges + 1 entries */
  void *fill;                    /* the content picks' scratch (dg_population_fill_bytes) */
} scratch;

static void scratch_free(scratch *s) {
  if (s->owned)
    free(s->block);
}

/* Bytes of the pass's scratch kept on the stack: a classic 80x21 level with
 * a table needs about 6 KiB; larger levels take it from malloc. The malloc
 * and free of every level showed in classic's profile. */
#define SCRATCH_STACK_BYTES 8192

/* Carves the pass's scratch out of `stack` (SCRATCH_STACK_BYTES, 16-byte
 * aligned) when it fits, else out of one malloc, and fills the adjacency,
 * degrees, doors and room nodes. 0 or DG_ENOMEM. */
static int scratch_alloc(scratch *s, const dg_level *level, const dg_table *table, void *stack) {
  const dg_graph *graph = &level->graph;
  size_t nodes = (size_t)graph->node_count + 1, ends = (size_t)graph->edge_count * 2 + 1;
  size_t rooms = (size_t)level->room_count + 1;
  /* The 8-byte arrays first, so that every array is aligned; the fill's
   * scratch last, at the next multiple of 16 bytes. */
  size_t bytes = 2 * nodes * sizeof(long) + 2 * rooms * sizeof(int64_t) + rooms * sizeof(keyed) +
                 ends * sizeof(reached) + (nodes + 2 * ends + nodes + 3 * rooms) * sizeof(int);
  size_t fill_at = (bytes + 15) / 16 * 16;
  size_t total = fill_at + (table != NULL ? dg_population_fill_bytes(level, table) : 0);
  s->owned = total > SCRATCH_STACK_BYTES;
  s->block = s->owned ? malloc(total) : stack;
  if (s->block == NULL)
    return DG_ENOMEM;
  s->fill = (char *)s->block + fill_at;
  s->from_entrance = s->block;
  s->to_exit = s->from_entrance + nodes;
  s->rank_distance = (int64_t *)(s->to_exit + nodes);
  s->rank_threat = s->rank_distance + rooms;
  s->sorted = (keyed *)(s->rank_threat + rooms);
  s->queue = (reached *)(s->sorted + rooms);
  s->offsets = (int *)(s->queue + ends);
  s->adjacent = s->offsets + nodes;
  s->via = s->adjacent + ends;
  s->degree = s->via + ends;
  s->node_of_room = s->degree + nodes;
  s->doors = s->node_of_room + rooms;
  s->secret_doors = s->doors + rooms;
  /* The CSR adjacency serves only the Dijkstras placement did not leave. */
  if (level->walk_distances == NULL || !level->walk_to_exit)
    dg_graph_adjacency(graph, s->offsets, s->adjacent, s->via);
  for (int i = 0; i < graph->node_count; i++)
    s->degree[i] = 0;
  for (int e = 0; e < graph->edge_count; e++)
    if (graph->edges[e].from != graph->edges[e].to) {
      s->degree[graph->edges[e].from]++;
      s->degree[graph->edges[e].to]++;
    }
  /* Slot room_count takes what names no room (a corridor's door or node),
   * so the loops below do not branch on it (they mispredicted). */
  unsigned room_count = (unsigned)level->room_count;
  for (unsigned r = 0; r <= room_count; r++) {
    s->node_of_room[r] = -1;
    s->doors[r] = s->secret_doors[r] = 0;
  }
  /* Doors counted once per level, not scanned per room: landmark levels
   * reach tens of thousands of rooms and doors. */
  for (int i = 0; i < level->door_count; i++) {
    unsigned room = (unsigned)level->doors[i].room;
    room = room < room_count ? room : room_count;
    s->doors[room]++;
    s->secret_doors[room] += level->doors[i].secret;
  }
  /* A room's node is the first node naming it (node i is room i in every
   * generator; the scan serves any other numbering). */
  for (int i = graph->node_count - 1; i >= 0; i--) {
    unsigned room = (unsigned)graph->nodes[i].room;
    s->node_of_room[room < room_count ? room : room_count] = i;
  }
  return 0;
}

/* Sifts the queue's entry `at` up to its place (smaller distances nearer
 * the root). */
static void queue_up(reached *queue, int at) {
  reached moving = queue[at];
  while (at > 0 && queue[(at - 1) / 2].distance > moving.distance) {
    queue[at] = queue[(at - 1) / 2];
    at = (at - 1) / 2;
  }
  queue[at] = moving;
}

/* Removes the root of a queue of `count` entries (count >= 1) into *out,
 * leaving count - 1. */
static void queue_pop(reached *queue, int count, reached *out) {
  *out = queue[0];
  reached moving = queue[--count];
  int at = 0;
  for (;;) {
    int child = 2 * at + 1;
    if (child >= count)
      break;
    if (child + 1 < count && queue[child + 1].distance < queue[child].distance)
      child++;
    if (queue[child].distance >= moving.distance)
      break;
    queue[at] = queue[child];
    at = child;
  }
  queue[at] = moving;
}

/* Dijkstra over the level's graph from `source`: every node's distance
 * (LONG_MAX when unreachable). The queue lives in the pass's scratch (one
 * entry per push: the source and each improvement, at most one per edge
 * end), inline rather than a dg_heap, whose allocations and calls showed
 * in classic's profile; the distances do not depend on the queue. */
__attribute__((noinline)) static void distances(scratch *s, const dg_graph *graph, int source,
                                                long *distance) {
  for (int i = 0; i < graph->node_count; i++)
    distance[i] = LONG_MAX;
  if (source < 0 || source >= graph->node_count)
    return;
  distance[source] = 0;
  reached *queue = s->queue;
  int count = 1;
  queue[0] = (reached){0, source};
  while (count > 0) {
    reached at;
    queue_pop(queue, count--, &at);
    if (at.distance != distance[at.node])
      continue;
    for (int k = s->offsets[at.node]; k < s->offsets[at.node + 1]; k++) {
      long through = at.distance + graph->edges[s->via[k]].length;
      int next = s->adjacent[k];
      if (through < distance[next]) {
        distance[next] = through;
        queue[count] = (reached){through, next};
        queue_up(queue, count++);
      }
    }
  }
}

/* A room reached only through secret doors, or one its generator calls a
 * closet or secret: Brogue's heat map favours them most. */
static bool secret_room(const dg_level *level, const scratch *s, int room) {
  const char *kind = level->rooms[room].kind;
  /* The first letter before strcmp: two calls per room showed in
   * classic's profile. */
  if ((kind[0] == 'c' && strcmp(kind, "closet") == 0) ||
      (kind[0] == 's' && strcmp(kind, "secret") == 0))
    return true;
  return s->doors[room] > 0 && s->doors[room] == s->secret_doors[room];
}

/* Distance and progress of every room, and the farthest distance. */
static void measure(dg_level *level, const scratch *s) {
  dg_population *out = &level->population;
  out->farthest = 0;
  for (int r = 0; r < level->room_count; r++) {
    int node = s->node_of_room[r];
    long d = node >= 0 ? s->from_entrance[node] : LONG_MAX;
    out->rooms[r].distance = d == LONG_MAX ? -1 : (int)d;
    if (d == LONG_MAX)
      out->rooms[r].why |= DG_POPULATION_UNREACHABLE;
    else if (d > out->farthest)
      out->farthest = (int)d;
  }
  divider by_farthest = divider_of(out->farthest > 0 ? out->farthest : 1);
  for (int r = 0; r < level->room_count; r++) {
    dg_population_room *room = &out->rooms[r];
    room->progress =
        room->distance < 0
            ? -1
            : (out->farthest > 0 ? (int)divide(by_farthest, (int64_t)room->distance * 1000) : 0);
  }
}

/* Threat budgets: the curve, eased just past each lock, the boss room's
 * peak, and none where the party arrives (entrance, spawns). */
static void threat(dg_level *level) {
  dg_population *out = &level->population;
  const dg_progression *progression = &level->progression;
  int peak = out->difficulty * 10;
  divider by_farthest = divider_of(out->farthest > 0 ? out->farthest : 1);
  for (int r = 0; r < level->room_count; r++) {
    dg_population_room *room = &out->rooms[r];
    if (room->distance < 0)
      continue;
    int64_t t = out->farthest > 0 ? divide(by_farthest, (int64_t)room->distance * ONE) : 0;
    room->threat = (int)((peak * pace(out, t) + ONE / 2) / ONE);
  }
  /* Just past lock k: the rooms of sphere k nearest the entrance, the
   * first a party enters after opening it. */
  if (progression->placed && out->ease > 0)
    for (int sphere = 1; sphere < progression->sphere_count; sphere++) {
      int nearest = INT_MAX;
      for (int r = 0; r < level->room_count; r++)
        if (progression->room_sphere[r] == sphere && out->rooms[r].distance >= 0 &&
            out->rooms[r].distance < nearest)
          nearest = out->rooms[r].distance;
      for (int r = 0; r < level->room_count; r++)
        if (progression->room_sphere[r] == sphere && out->rooms[r].distance == nearest) {
          out->rooms[r].threat = out->rooms[r].threat * (100 - out->ease) / 100;
          out->rooms[r].why |= DG_POPULATION_EASED;
        }
    }
  /* The boss room a quarter above the curve's top: the level's peak. */
  if (progression->placed && progression->boss_room >= 0 &&
      out->rooms[progression->boss_room].distance >= 0) {
    out->rooms[progression->boss_room].threat = peak + peak / 4;
    out->rooms[progression->boss_room].why |= DG_POPULATION_BOSS;
  }
  for (int i = 0; i < level->feature_count; i++) {
    const dg_feature *feature = &level->features[i];
    /* Both kinds start with 's': the others skip strcmp. */
    unsigned why = feature->kind[0] != 's'                   ? 0
                   : strcmp(feature->kind, "stairs_up") == 0 ? DG_POPULATION_ENTRANCE
                   : strcmp(feature->kind, "spawn") == 0     ? DG_POPULATION_SPAWN
                                                             : 0;
    if (why != 0 && feature->room >= 0 && feature->room < level->room_count) {
      out->rooms[feature->room].threat = 0;
      out->rooms[feature->room].why |= why;
    }
  }
  /* Stairs up forced into a corridor name no room: the room of the node a
   * walker from them meets first is where the party arrives. */
  int entrance = level->placement.entrance_node;
  if (entrance >= 0 && entrance < level->graph.node_count) {
    int room = level->graph.nodes[entrance].room;
    if (room >= 0 && room < level->room_count) {
      out->rooms[room].threat = 0;
      out->rooms[room].why |= DG_POPULATION_ENTRANCE;
    }
  }
}

/* Loot heat and tier of every reachable room: 1, +2 for a dead end, +3
 * for a secret room or closet, +2 behind a lock, +1 off every shortest
 * entrance-exit walk. The rooms the party arrives in stay at 1: loot
 * there is handed out, not found. */
static void heat(dg_level *level, const scratch *s) {
  dg_population *out = &level->population;
  const dg_progression *progression = &level->progression;
  int exit = level->placement.exit_node;
  long walk = exit >= 0 && exit < level->graph.node_count ? s->from_entrance[exit] : LONG_MAX;
  for (int r = 0; r < level->room_count; r++) {
    dg_population_room *room = &out->rooms[r];
    int node = s->node_of_room[r];
    if (room->distance < 0)
      continue;
    int h = 1;
    if (s->degree[node] <= 1)
      h += 2;
    if (secret_room(level, s, r))
      h += 3;
    if (progression->placed && progression->room_sphere[r] > 0)
      h += 2;
    if (walk == LONG_MAX || s->to_exit[node] == LONG_MAX ||
        s->from_entrance[node] + s->to_exit[node] != walk)
      h += 1;
    if (room->why & (DG_POPULATION_ENTRANCE | DG_POPULATION_SPAWN))
      h = 1;
    room->heat = h;
    room->loot_tier = h - 1 < DG_LOOT_TIER_MAX ? h - 1 : DG_LOOT_TIER_MAX;
  }
}

/* Levels with at most this many rooms rank them by pairwise counts
 * instead of sorting (classic's 6-9 rooms, its larger maps' 60-80). */
#define SMALL_LEVEL_ROOMS 32

/* Largest key first, then the lower room index. */
static int by_key_descending(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key)
    return x->key > y->key ? -1 : 1;
  return x->room - y->room;
}

/* Smallest key first, then the lower room index. */
static int by_key(const void *a, const void *b) {
  return by_key_descending(b, a);
}

/* Sorts `count` entries by `compare`: insertion sort for the few rooms
 * of most levels (glibc's qsort costs a merge sort's set-up per call,
 * which showed in classic's profile), qsort beyond. Both give the same
 * order: the comparators are total (keys, then room ids). */
static void sort_keyed(keyed *entries, int count, int (*compare)(const void *, const void *)) {
  if (count > 32) {
    qsort(entries, (size_t)count, sizeof *entries, compare);
    return;
  }
  for (int i = 1; i < count; i++) {
    keyed moving = entries[i];
    int j = i;
    for (; j > 0 && compare(&entries[j - 1], &moving) > 0; j--)
      entries[j] = entries[j - 1];
    entries[j] = moving;
  }
}

/* The `left` leftover loot points of share_loot, one each to the first
 * rooms by (remainder descending, index ascending), for levels of more
 * than SMALL_LEVEL_ROOMS rooms: by sorting. Out of line (and the other
 * large-level paths below), so that a small level's pass runs through
 * less code: its instruction-cache misses showed in classic's profile. */
__attribute__((noinline, cold)) static void give_leftover_sorted(dg_population *out, keyed *sorted,
                                                                 int n, int left) {
  sort_keyed(sorted, n, by_key_descending);
  for (int k = 0; k < left && k < n; k++)
    out->rooms[sorted[k].room].loot++;
}

/* params.loot shared by heat: each room floor(loot * heat / total heat),
 * the points left over one each to the largest remainders (lower index
 * first), so the shares add up to params.loot exactly. */
static void share_loot(dg_level *level, keyed *sorted) {
  dg_population *out = &level->population;
  int n = level->room_count;
  int64_t total_heat = 0, given = 0;
  for (int r = 0; r < n; r++)
    total_heat += out->rooms[r].heat;
  out->loot_total = 0;
  if (total_heat == 0 || out->loot == 0)
    return;
  divider by_heat = divider_of(total_heat);
  bool small = n <= SMALL_LEVEL_ROOMS;
  /* Remainders are below total_heat, within int. */
  int remainder[SMALL_LEVEL_ROOMS];
  for (int r = 0; r < n; r++) {
    int64_t part = (int64_t)out->loot * out->rooms[r].heat, share = divide(by_heat, part);
    out->rooms[r].loot = (int)share;
    if (small)
      remainder[r] = (int)(part - share * total_heat);
    else
      sorted[r] = (keyed){part - share * total_heat, r};
    given += out->rooms[r].loot;
  }
  /* The remainders add up to less than n x total_heat, so fewer than n
   * points are left: the rooms placed first by (remainder descending, index
   * ascending) get one each. */
  int left = (int)(out->loot - given);
  if (small) {
    /* A room's place in that order, counted without branches (the sort's
     * comparisons mispredicted on classic's few rooms). */
    for (int r = 0; r < n; r++) {
      int place = 0;
      for (int j = 0; j < n; j++)
        place += (remainder[j] > remainder[r]) + (remainder[j] == remainder[r] && j < r);
      out->rooms[r].loot += place < left;
    }
  } else
    give_leftover_sorted(out, sorted, n, left);
  out->loot_total = (int)(given + (left < n ? left : n));
}

/* Twice the average rank (ties share the mean of their ranks) of each of
 * the `count` entries of `sorted` (ascending keys), into rank2 by room. */
static void ranks(const keyed *sorted, int count, int64_t *rank2) {
  for (int i = 0; i < count;) {
    int j = i;
    while (j + 1 < count && sorted[j + 1].key == sorted[i].key)
      j++;
    for (int k = i; k <= j; k++)
      rank2[sorted[k].room] = i + j; /* (i + j) / 2, doubled */
    i = j + 1;
  }
}

/* Twice the average rank of each of the n values (ties share the mean of
 * their ranks): the tied run of value[i] spans places below .. below +
 * equal - 1 of the sorted order, so twice its mean is 2 below + equal - 1.
 * Counted pairwise without branches, which beats sorting a small level's
 * few rooms (the sorts' comparisons mispredicted in classic's profile). */
static void small_ranks(const int *value, int n, int *rank2) {
  for (int i = 0; i < n; i++) {
    int below = 0, equal = 0;
    for (int j = 0; j < n; j++) {
      below += value[j] < value[i];
      equal += value[j] == value[i];
    }
    rank2[i] = 2 * below + equal - 1;
  }
}

/* The centred rank sums of achieved() for n <= SMALL_LEVEL_ROOMS rooms,
 * from their distances and threats: the same figures as its sorting
 * path, the sums being exact integers in any order. */
static void small_rank_sums(const int *distance, const int *threat, int n, int64_t *cov,
                            int64_t *vx, int64_t *vy) {
  int rank_distance[SMALL_LEVEL_ROOMS], rank_threat[SMALL_LEVEL_ROOMS];
  small_ranks(distance, n, rank_distance);
  small_ranks(threat, n, rank_threat);
  for (int i = 0; i < n; i++) {
    int64_t x = rank_distance[i] - (n - 1), y = rank_threat[i] - (n - 1);
    *cov += x * y;
    *vx += x * x;
    *vy += y * y;
  }
}

/* The centred rank sums of achieved() for more than SMALL_LEVEL_ROOMS
 * rooms, by sorting: sorted[0 .. n) holds their distances, rank_distance
 * and rank_threat one slot per room. */
__attribute__((noinline, cold)) static void
sorted_rank_sums(const dg_population *out, keyed *sorted, int n, int64_t *rank_distance,
                 int64_t *rank_threat, int64_t *cov, int64_t *vx, int64_t *vy) {
  sort_keyed(sorted, n, by_key);
  ranks(sorted, n, rank_distance);
  for (int i = 0; i < n; i++)
    sorted[i].key = out->rooms[sorted[i].room].threat;
  sort_keyed(sorted, n, by_key);
  ranks(sorted, n, rank_threat);
  /* Doubled average ranks of 0..n-1 always sum to n(n-1): their mean is
   * exactly n - 1, so the sums run over centred integers. Each stays below
   * n^3 (landmark allows 100,000 rooms: 1e15), where the uncentred form,
   * n x the sum of products, would overflow int64 at about 30,000 rooms. */
  for (int i = 0; i < n; i++) {
    int64_t x = rank_distance[sorted[i].room] - (n - 1);
    int64_t y = rank_threat[sorted[i].room] - (n - 1);
    *cov += x * y;
    *vx += x * x;
    *vy += y * y;
  }
}

/* The curve achieved: the mean threat of the reachable rooms in each
 * tenth of progress, and Spearman's rank correlation between distance and
 * threat over them (Pearson's over the ranks, in integers up to the last
 * division), x1000; 0 when either side does not vary. */
static void achieved(dg_level *level, keyed *sorted, int64_t *rank_distance, int64_t *rank_threat) {
  dg_population *out = &level->population;
  int64_t sum[DG_POPULATION_CURVE] = {0};
  int count[DG_POPULATION_CURVE] = {0}, n = 0;
  bool small = level->room_count <= SMALL_LEVEL_ROOMS;
  int distance[SMALL_LEVEL_ROOMS], threat[SMALL_LEVEL_ROOMS];
  out->threat_total = 0;
  for (int r = 0; r < level->room_count; r++) {
    const dg_population_room *room = &out->rooms[r];
    out->threat_total += room->threat;
    if (room->distance < 0)
      continue;
    int bucket = room->progress * DG_POPULATION_CURVE / 1000;
    bucket = bucket < DG_POPULATION_CURVE ? bucket : DG_POPULATION_CURVE - 1;
    sum[bucket] += room->threat;
    count[bucket]++;
    if (small) {
      distance[n] = room->distance;
      threat[n++] = room->threat;
    } else
      sorted[n++] = (keyed){room->distance, r};
  }
  /* By the counts' reciprocals when the sum allows (threats are not
   * negative but for extrapolated control points): the same quotient,
   * without a division's latency ten times a level. */
  for (int b = 0; b < DG_POPULATION_CURVE; b++)
    out->curve[b] = count[b] == 0 ? -1
                    : sum[b] >= 0 ? (int)divide(small_divider(count[b]), sum[b])
                                  : (int)(sum[b] / count[b]);
  int64_t cov = 0, vx = 0, vy = 0;
  if (small)
    small_rank_sums(distance, threat, n, &cov, &vx, &vy);
  else
    sorted_rank_sums(out, sorted, n, rank_distance, rank_threat, &cov, &vx, &vy);
  out->rank_correlation = 0;
  if (n >= 2 && vx > 0 && vy > 0) {
    double r = (double)cov / sqrt(dg_fp_mul((double)vx, (double)vy));
    out->rank_correlation = (int)lround(dg_fp_mul(r, 1000.0));
  }
}

/* Entities a level's rooms' allocation holds room for, with a table: a
 * classic 80x21 level places about 20. */
#define FIRST_ENTITIES 32

/* The rooms' budgets, zeroed, and with a content table on a grid the first
 * FIRST_ENTITIES entities, in one allocation: the second allocation a level
 * (the entities' first) cost about as much as the first in classic's
 * profile, a few hundred cycles each. 0 or DG_ENOMEM. */
static int alloc_rooms(dg_level *level) {
  dg_population *out = &level->population;
  size_t rooms = ((size_t)level->room_count + 1) * sizeof *out->rooms;
  size_t entities = out->table != NULL && level->has_grid ? FIRST_ENTITIES : 0;
  /* dg_population_room's size is a multiple of its pointers' alignment,
   * which dg_entity (ints and chars) does not exceed. */
  char *block = malloc(rooms + entities * sizeof(dg_entity));
  if (block == NULL)
    return DG_ENOMEM;
  memset(block, 0, rooms);
  out->rooms = (dg_population_room *)block;
  if (entities > 0) {
    out->entities = (dg_entity *)(block + rooms);
    out->entity_capacity = FIRST_ENTITIES;
    out->entities_with_rooms = true;
  }
  return 0;
}

int dg_pass_population(dg_level *level, const dg_request *request, dg_rng *rng, dg_error *err) {
  (void)request;
  const dg_algorithm *algorithm = level->algorithm;
  const dg_params *params = &level->params;
  if (!dg_population_wanted(algorithm, params))
    return 0;
  dg_population *out = &level->population;
  out->placed = true;
  out->difficulty = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_DIFFICULTY));
  int pacing = dg_common_param(algorithm, DG_COMMON_PACING);
  out->pacing = dg_param_enum(params, pacing);
  if (out->pacing == DG_PACING_POINTS)
    memcpy(out->pacing_points, params->text[pacing], sizeof out->pacing_points);
  out->loot = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_LOOT));
  out->ease = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_EASE_AFTER_LOCKS));
  scratch s = {0};
  _Alignas(16) unsigned char stack[SCRATCH_STACK_BYTES];
  int rc = alloc_rooms(level);
  if (rc == 0)
    rc = scratch_alloc(&s, level, out->table, stack);
  if (rc != 0)
    goto done;
  /* Placement's distances when it left them (the same Dijkstra over the
   * same graph: the same values), else this pass's own. */
  if (level->walk_distances != NULL)
    s.from_entrance = level->walk_distances;
  else
    distances(&s, &level->graph, level->placement.entrance_node, s.from_entrance);
  if (level->walk_distances != NULL && level->walk_to_exit)
    s.to_exit = level->walk_distances + level->graph.node_count;
  else
    distances(&s, &level->graph, level->placement.exit_node, s.to_exit);
  measure(level, &s);
  threat(level);
  heat(level, &s);
  share_loot(level, s.sorted);
  achieved(level, s.sorted, s.rank_distance, s.rank_threat);
  /* Only the content picks draw from the stream, after every budget is
   * known: adding a table changes no budget. */
  if (out->table != NULL) {
    out->filled = true;
    rc = dg_population_fill(level, out->table, rng, s.fill);
  }
done:
  scratch_free(&s);
  if (rc != 0)
    return dg_error_set(err, rc, "", "out of memory");
  return 0;
}
