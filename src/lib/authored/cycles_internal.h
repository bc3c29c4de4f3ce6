/* Internal to the cycle pass (cycles.c, cycles_candidates.c,
 * cycles_search.c): the scratch that every pass and every search of one
 * generation reuses (issue 6: no allocation per search or per node; arrays
 * grow only past the largest use so far), split by the part that uses it.
 * The driver (cycles.c) owns the whole and calls the other two files; they
 * call neither each other nor the driver. */
#ifndef DUNGEON_AUTHORED_CYCLES_INTERNAL_H
#define DUNGEON_AUTHORED_CYCLES_INTERNAL_H

#include "core/hash.h"
#include "core/vec.h"
#include "cycles.h"

/* ---- candidates (cycles_candidates.c) ---- */

/* A pair of doorways worth joining. */
typedef struct authored_candidate {
  int a, b;          /* connectors */
  int tree_distance; /* rooms apart through the tree */
  int blocks;        /* Manhattan distance between the doorways */
} authored_candidate;

/* The dungeon as a graph of placements, for "far apart through the
 * dungeon" (seed 003, footnote 2: a breadth-first search capped at a small
 * number of hops). */
typedef struct authored_graph_node {
  int head; /* first edge, -1 for none */
  int mark; /* BFS stamp when visited */
  int dist; /* hops from the BFS source, valid when marked */
} authored_graph_node;

typedef struct authored_graph_edge {
  int to;   /* placement */
  int next; /* next edge of the same placement, -1 ends */
} authored_graph_edge;

typedef struct authored_graph {
  DG_VEC(authored_graph_node) nodes; /* by placement */
  DG_VEC(authored_graph_edge) edges; /* two per connection */
  DG_VEC(int) queue;                 /* BFS queue */
  int stamp;                         /* current BFS */
} authored_graph;

/* The candidate pairs of one pass and the buckets that find them. */
typedef struct authored_pairs {
  DG_VEC(int) usable;                /* connectors that may end a cycle */
  DG_VEC(int) next;                  /* by connector: next in the same bucket */
  dg_hash buckets;                   /* bucket (x, z) -> first connector */
  DG_VEC(authored_candidate) ranked; /* the pairs, worst stretch first */
} authored_pairs;

/* ---- the chain search (cycles_search.c) ---- */

/* A search node: a connector state reached by placing one room (`move`,
 * a group or a move index) at the parent's state and leaving by `exit`. */
typedef struct authored_node {
  int x, y, z, facing; /* the open doorway this node stands for */
  int parent;          /* node index, -1 for the root */
  int move;            /* move index placed to get here (the group's first member) */
  int group;           /* group index, or -1 when grouping is off */
  int exit;            /* exit index within the move */
  int g;               /* walking cost so far */
  int depth;           /* rooms in the chain so far */
} authored_node;

/* A room the search may place at a doorway: a group (its first member's
 * geometry) or, with grouping off, a single move. */
typedef struct authored_search_move {
  int move;  /* move index */
  int group; /* group index, or -1 when grouping is off */
} authored_search_move;

typedef struct authored_chain_search {
  DG_VEC(authored_node) nodes; /* the current search's nodes */
  dg_heap open;                /* node indices by f = g + w h */
  dg_hash seen;                /* packed state << 8 | chain depth -> best g */
  authored_box_vec near;       /* the placed boxes near the doorway being expanded */
  DG_VEC(int32_t) near_sides;  /* the same in its frame, one array per side */
  /* By open facing, the rooms worth trying there under this generation's
   * parameters (shims allowed or not, grouping on or off; dead ends never),
   * listed at the first search. */
  DG_VEC(authored_search_move) tries[4];
  bool tries_listed;
  int answer_words; /* 64-bit words for one bit per try of any facing */
  /* What the occupancy said of each try at each doorway state expanded
   * since the occupancy last changed: the search comes back to the same
   * doorway (another chain length, another search between the same
   * commits) about half the time. */
  dg_hash doorways;         /* packed doorway state -> its answers' offset */
  DG_VEC(uint64_t) answers; /* per doorway: answer_words asked, then answer_words clear */
  int answers_boxes;        /* occupancy boxes when the answers were given */
} authored_chain_search;

enum { AUTHORED_SEEN_FIRST = 1 << 15 }; /* keys the visited table holds before it grows */

struct authored_search {
  authored_chain_search chain;
  authored_graph graph;
  authored_pairs pairs;
};

/* Connector c may end a cycle: not yet joined, its doorway onto free space. */
bool authored_usable(const authored_state *state, int c);

/* Empties the graph for `nodes` placements (edges added later must stay
 * below that). 0 or DG_ENOMEM. */
int authored_graph_reset(authored_graph *graph, int nodes);

/* An edge both ways between placements a and b. 0 or DG_ENOMEM. */
int authored_graph_add(authored_graph *graph, int a, int b);

/* Rooms between placements a and b, searching no further than `cap` hops;
 * cap when they are at least that far. */
int authored_graph_distance(authored_graph *graph, int a, int b, int cap);

void authored_graph_close(authored_graph *graph);

/* The pass's candidates into pairs->ranked (seed 003, footnote 2). 0 or
 * DG_ENOMEM. */
int authored_find_candidates(authored_state *state, authored_pairs *pairs);

void authored_pairs_close(authored_pairs *pairs);

/* Weighted A* from connector `from` to connector `to` (seed 003, "The
 * pattern database", "Knowing when to stop"). *result is AUTHORED_FOUND (then
 * *goal_node is the node whose doorway meets `to`) or AUTHORED_FAIL_*; records
 * the cutoff curve in state->cycles. 0, DG_ENOMEM, DG_ECANCELED, DG_ETIMEDOUT. */
int authored_run_search(authored_state *state, authored_chain_search *chain, int from, int to,
                        int *result, int *goal_node, int64_t *expanded);

/* Places the chain the search found ending at node `last` and joins it to
 * `to`, as cycle `cycle`. 0 or DG_ENOMEM. */
int authored_commit_chain(authored_state *state, const authored_chain_search *chain, int from,
                          int to, int last, int cycle);

void authored_chain_close(authored_chain_search *chain);

#endif
