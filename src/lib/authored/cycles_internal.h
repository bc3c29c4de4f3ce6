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
typedef struct au_candidate {
  int a, b;          /* connectors */
  int tree_distance; /* rooms apart through the tree */
  int blocks;        /* Manhattan distance between the doorways */
} au_candidate;

/* The dungeon as a graph of placements, for "far apart through the
 * dungeon" (seed 003, footnote 2: a breadth-first search capped at a small
 * number of hops). */
typedef struct au_graph_node {
  int head; /* first edge, -1 for none */
  int mark; /* BFS stamp when visited */
  int dist; /* hops from the BFS source, valid when marked */
} au_graph_node;

typedef struct au_graph_edge {
  int to;   /* placement */
  int next; /* next edge of the same placement, -1 ends */
} au_graph_edge;

typedef struct au_graph {
  DG_VEC(au_graph_node) nodes; /* by placement */
  DG_VEC(au_graph_edge) edges; /* two per connection */
  DG_VEC(int) queue;           /* BFS queue */
  int stamp;                   /* current BFS */
} au_graph;

/* The candidate pairs of one pass and the buckets that find them. */
typedef struct au_pairs {
  DG_VEC(int) usable;          /* connectors that may end a cycle */
  DG_VEC(int) next;            /* by connector: next in the same bucket */
  dg_hash buckets;             /* bucket (x, z) -> first connector */
  DG_VEC(au_candidate) ranked; /* the pairs, worst stretch first */
} au_pairs;

/* ---- the chain search (cycles_search.c) ---- */

/* A search node: a connector state reached by placing one room (`move`,
 * a group or a move index) at the parent's state and leaving by `exit`. */
typedef struct au_node {
  int x, y, z, facing; /* the open doorway this node stands for */
  int parent;          /* node index, -1 for the root */
  int move;            /* move index placed to get here (the group's first member) */
  int group;           /* group index, or -1 when grouping is off */
  int exit;            /* exit index within the move */
  int g;               /* walking cost so far */
  int depth;           /* rooms in the chain so far */
} au_node;

typedef struct au_chain_search {
  DG_VEC(au_node) nodes; /* the current search's nodes */
  dg_heap open;          /* node indices by f = g + w h */
  dg_hash seen;          /* packed state << 8 | chain depth -> best g */
} au_chain_search;

enum { AU_SEEN_FIRST = 1 << 15 }; /* keys the visited table holds before it grows */

struct au_search {
  au_chain_search chain;
  au_graph graph;
  au_pairs pairs;
};

/* Connector c may end a cycle: not yet joined, its doorway onto free space. */
bool au_usable(const au_state *s, int c);

/* Empties the graph for `nodes` placements (edges added later must stay
 * below that). 0 or DG_ENOMEM. */
int au_graph_reset(au_graph *graph, int nodes);

/* An edge both ways between placements a and b. 0 or DG_ENOMEM. */
int au_graph_add(au_graph *graph, int a, int b);

/* Rooms between placements a and b, searching no further than `cap` hops;
 * cap when they are at least that far. */
int au_graph_distance(au_graph *graph, int a, int b, int cap);

void au_graph_close(au_graph *graph);

/* The pass's candidates into pairs->ranked (seed 003, footnote 2). 0 or
 * DG_ENOMEM. */
int au_find_candidates(au_state *s, au_pairs *pairs);

void au_pairs_close(au_pairs *pairs);

/* Weighted A* from connector `from` to connector `to` (seed 003, "The
 * pattern database", "Knowing when to stop"). *result is AU_FOUND (then
 * *goal_node is the node whose doorway meets `to`) or AU_FAIL_*; records
 * the cutoff curve in s->cycles. 0, DG_ENOMEM, DG_ECANCELED, DG_ETIMEDOUT. */
int au_run_search(au_state *s, au_chain_search *q, int from, int to, int *result, int *goal_node,
                  int64_t *expanded);

/* Places the chain the search found ending at node `last` and joins it to
 * `to`, as cycle `cycle`. 0 or DG_ENOMEM. */
int au_commit_chain(au_state *s, const au_chain_search *q, int from, int to, int last, int cycle);

void au_chain_close(au_chain_search *q);

#endif
