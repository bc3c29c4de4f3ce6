/* Internal: the state of one `authored` generation (seed 003) and the
 * operations every phase shares: the room set, the rooms placed so far with
 * their world-space boxes and connectors, the connections between them,
 * the occupancy index, and placing a move, joining two doorways and
 * checking that a move fits. The bottom of the folder's layering: tree
 * growth (grow.c), the cycle pass (cycles*.c) and the corridor baseline
 * (corridor.c) build on this file and never on each other, except that the
 * cycle driver runs corridor.c; authored.c drives them all. */
#ifndef DUNGEON_AUTHORED_STATE_H
#define DUNGEON_AUTHORED_STATE_H

#include <stdint.h>

#include "core/heap.h"
#include "core/vec.h"
#include "dungeon/cancel.h"
#include "dungeon/level.h"
#include "dungeon/rng.h"
#include "occupancy.h"
#include "roomset.h"

/* Parameter indices: the order of the table in authored.c. */
enum authored_param {
  AUTHORED_P_ROOMSET,
  AUTHORED_P_ROOMS,
  AUTHORED_P_TRIES,
  AUTHORED_P_VERTICAL_LIMIT,
  AUTHORED_P_GRID,
  AUTHORED_P_CYCLES,
  AUTHORED_P_WEIGHT,
  AUTHORED_P_STALL_CUTOFF,
  AUTHORED_P_EXPANSIONS_MAX,
  AUTHORED_P_CANDIDATE_DISTANCE,
  AUTHORED_P_HOP_CAP,
  AUTHORED_P_MIN_STRETCH,
  AUTHORED_P_CHAIN_MAX,
  AUTHORED_P_SHIMS,
  AUTHORED_P_GROUPING,
  AUTHORED_P_SPACING,
  AUTHORED_P_CYCLE_INTERVAL,
  AUTHORED_P_FAILURES_MAX,
  AUTHORED_P_COMMON, /* the common parameters (DG_COMMON_PARAM_DEFS) */
  AUTHORED_P_COUNT = AUTHORED_P_COMMON + DG_COMMON_PARAM_COUNT
};

enum { AUTHORED_CYCLES_CHAINS, AUTHORED_CYCLES_CORRIDORS, AUTHORED_CYCLES_NONE };

/* Stall cutoffs whose effect every search records (seed 003, "Measuring
 * instead of guessing"; the values are authored_cutoffs in cycles.h). */
#define AUTHORED_CUTOFFS 12

enum { AUTHORED_CONN_OPEN, AUTHORED_CONN_CONNECTED, AUTHORED_CONN_CLOSED };

/* A room placed in the world. */
typedef struct authored_placement {
  int room;      /* index in the set's rooms */
  int rotation;  /* quarter turns clockwise */
  int origin[3]; /* world low corner of the rotated room */
  int parent;    /* placement it grew from, -1 for the start */
  int depth;     /* tree depth, 0 for the start */
  int box_first; /* boxes in the occupancy index's array */
  int box_count;
  int conn_first; /* connectors in authored_state.connectors.items */
  int conn_count; /* the room's connector count */
  int chain;      /* the cycle whose chain placed it, -1 for tree rooms */
} authored_placement;

/* A connector of a placed room, in world space. */
typedef struct authored_connector {
  int x, y, z;   /* doorway block */
  int facing;    /* FACING_* in the world */
  int placement; /* owning placement */
  int state;     /* CONN_* */
  int failures;  /* cycle searches from or to it that failed */
} authored_connector;

/* Two connectors joined: for tree and chain connections their doorway
 * blocks are neighbours and their facings opposite; a corridor joins two
 * doorways through carved blocks. */
typedef struct authored_connection {
  int a, b;         /* indices in authored_state.connectors.items */
  const char *kind; /* static: "tree", "chain" or "corridor" */
  int cycle;        /* the cycle it belongs to, -1 for tree connections */
  int path_first;   /* a corridor's blocks in authored_state.path.items (0 otherwise) */
  int path_count;   /* 0 for tree and chain connections */
} authored_connection;

/* One block of a carved corridor's path (the block a walker's feet are
 * in), world space. */
typedef struct authored_block {
  int x, y, z;
} authored_block;

typedef struct authored_state {
  const authored_roomset *set;
  const dg_params *params;
  dg_level *level;
  dg_rng layout; /* which group is tried at an open connector */
  dg_rng choice; /* which concrete room of a group is committed */
  authored_occ_index occupancy;
  DG_VEC(authored_placement) placements;   /* every room placed, tree and chain */
  DG_VEC(authored_connector) connectors;   /* every placed room's doorways */
  DG_VEC(authored_connection) connections; /* doorways joined */
  dg_heap open;                            /* open connectors by squared distance from the centre */
  uint32_t *tried;                         /* per group: the attempt stamp of its last rejection */
  uint32_t attempt;                        /* current stamp */
  int64_t fit_checks, closed_connectors, rejected_moves;
  bool out_of_space;              /* growth stopped before the room count */
  int current_chain;              /* cycle id stamped on placements authored_commit makes */
  int tree_count;                 /* rooms placed by growth (not chains) */
  bool rescue;                    /* closed connectors were given a second chance */
  struct authored_cycles *cycles; /* the cycle pass's results, NULL before it */
  DG_VEC(authored_block) path;    /* every corridor's path, by authored_connection.path_first */
  /* Scratch reused by every search of one generation (issue 6: no
   * allocation per search or per node once warm), NULL until first use;
   * freed by authored_search_free and authored_corridor_free, not authored_state_close. */
  struct authored_search *search;             /* the chain search (cycles.c) */
  struct authored_corridor_search *corridors; /* the corridor baseline (corridor.c) */
  dg_cancel *cancel;                          /* checked inside long searches too; may be NULL */
} authored_state;

/* One cycle built: its ends and what it took. */
typedef struct authored_cycle {
  int from, to;       /* the two connectors joined */
  int rooms;          /* chain rooms placed (0: doorways already met) */
  int cost;           /* walking cost of the chain, blocks */
  int graph_distance; /* rooms apart through the dungeon when it was built */
  int64_t expansions; /* search expansions it took */
} authored_cycle;

/* The cycle pass's results and instrumentation. */
typedef struct authored_cycles {
  DG_VEC(authored_cycle) built;    /* cycles built */
  int64_t candidates;              /* pairs close in space and far in the tree */
  int64_t attempts;                /* searches started */
  int64_t skipped_shortened;       /* pairs no longer far apart when their turn came */
  int64_t skipped_used;            /* pairs whose connector an earlier cycle used */
  int64_t failed_table;            /* failed at once: no table entry */
  int64_t failed_cutoff;           /* abandoned by the stall cutoff or expansion limit */
  int64_t failed_exhausted;        /* searched everything reachable, no chain */
  int64_t expansions;              /* over all searches */
  int64_t failed_expansions;       /* over failed searches */
  int64_t rooms_added;             /* chain rooms placed */
  int64_t cost_total;              /* sum of chain costs */
  int64_t lost[AUTHORED_CUTOFFS];  /* cycles each cutoff would have lost */
  int64_t saved[AUTHORED_CUTOFFS]; /* failed-search expansions each would have saved */
  uint64_t ns;                     /* wall time spent in cycle passes */
  DG_VEC(uint64_t) fail_ns;        /* wall time of each failed search */
} authored_cycles;

/* Frees a cycle pass's results (NULL-safe). */
void authored_cycles_free(authored_cycles *cycles);

/* Places move `m` of the set at open connector `open` (already checked to
 * fit), records the connection of kind `kind` (static) and queues the new
 * room's other doorways as open. 0 or DG_ENOMEM. */
int authored_commit(authored_state *state, int open, int m, const char *kind);

/* Places the start room `room` unrotated with its low corner at `origin`
 * and queues its doorways. 0 or DG_ENOMEM. */
int authored_place_start(authored_state *state, int room, const int origin[3]);

/* Records a connection between connectors a and b (both become connected).
 * 0 or DG_ENOMEM. */
int authored_connect(authored_state *state, int a, int b, const char *kind, int cycle);

/* Queues connector `c` on the open heap by its distance from the centre
 * (seed 003, footnote 1). 0 or DG_ENOMEM. */
int authored_queue(authored_state *state, int c);

/* True when the move fits at open connector `open`: all its boxes free and
 * inside the vertical limit. */
bool authored_fits(authored_state *state, int open, const authored_move *move);

/* A concrete move of group `g`, drawn by its room's spawn weight from the
 * `choice` stream (seed 003, "Deduplicating the moves": the room is chosen
 * only at commit time, by spawn weight). */
int authored_pick_member(authored_state *state, int g);

/* True when connector c's doorway opens onto a free block. */
static inline bool authored_front_free(const authored_state *state, int c) {
  const authored_connector *k = &state->connectors.items[c];
  return authored_occ_block_free(&state->occupancy, k->x + facing_dx(k->facing), k->y,
                                 k->z + facing_dz(k->facing));
}

/* Frees the state's own arrays (not the search scratch). */
void authored_state_close(authored_state *state);

#endif
