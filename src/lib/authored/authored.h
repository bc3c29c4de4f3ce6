/* Internal state of one `authored` generation (seed 003): the room set, the
 * rooms placed so far with their world-space boxes and connectors, the
 * connections between them, and the occupancy index. Shared by the files
 * of src/lib/authored/; the cycle pass (issue 6) extends the same state. */
#ifndef DUNGEON_AUTHORED_H
#define DUNGEON_AUTHORED_H

#include <stdint.h>

#include "dungeon/cancel.h"
#include "dungeon/heap.h"
#include "dungeon/level.h"
#include "dungeon/rng.h"
#include "occupancy.h"
#include "roomset.h"

/* Parameter indices: the order of the table in authored.c. */
enum {
  P_ROOMSET,
  P_ROOMS,
  P_TRIES,
  P_VERTICAL_LIMIT,
  P_GRID,
  P_CYCLES,
  P_WEIGHT,
  P_STALL_CUTOFF,
  P_EXPANSIONS_MAX,
  P_CANDIDATE_DISTANCE,
  P_HOP_CAP,
  P_MIN_STRETCH,
  P_CHAIN_MAX,
  P_SHIMS,
  P_GROUPING,
  P_SPACING,
  P_CYCLE_INTERVAL,
  P_COMMON, /* the common parameters (DG_COMMON_PARAM_DEFS) */
  P_COUNT = P_COMMON + DG_COMMON_PARAM_COUNT
};

enum { CYCLES_CHAINS, CYCLES_CORRIDORS, CYCLES_NONE };

/* Stall cutoffs whose effect every search records (seed 003, "Measuring
 * instead of guessing"); the last is "never". */
#define AU_CUTOFFS 12
extern const int au_cutoffs[AU_CUTOFFS];

enum { CONN_OPEN, CONN_CONNECTED, CONN_CLOSED };

/* A room placed in the world. */
typedef struct au_placement {
  int room;      /* index in the set's rooms */
  int rotation;  /* quarter turns clockwise */
  int origin[3]; /* world low corner of the rotated room */
  int parent;    /* placement it grew from, -1 for the start */
  int depth;     /* tree depth, 0 for the start */
  int box_first; /* boxes in the occupancy index's array */
  int box_count;
  int conn_first; /* connectors in au_state.connectors */
  int conn_count; /* the room's connector count */
  int chain;      /* the cycle whose chain placed it, -1 for tree rooms */
} au_placement;

/* A connector of a placed room, in world space. */
typedef struct au_connector {
  int x, y, z;   /* doorway block */
  int facing;    /* FACING_* in the world */
  int placement; /* owning placement */
  int state;     /* CONN_* */
  int failures;  /* cycle searches from or to it that failed */
} au_connector;

/* Two connectors joined: for tree and chain connections their doorway
 * blocks are neighbours and their facings opposite; a corridor joins two
 * doorways through carved blocks. */
typedef struct au_connection {
  int a, b;         /* indices in au_state.connectors */
  const char *kind; /* static: "tree", "chain" or "corridor" */
  int cycle;        /* the cycle it belongs to, -1 for tree connections */
  int path_first;   /* a corridor's blocks in au_state.path (0 otherwise) */
  int path_count;   /* 0 for tree and chain connections */
} au_connection;

/* One block of a carved corridor's path (the block a walker's feet are
 * in), world space. */
typedef struct au_block {
  int x, y, z;
} au_block;

typedef struct au_state {
  const rs_set *set;
  const dg_params *params;
  dg_level *level;
  dg_rng layout; /* which group is tried at an open connector */
  dg_rng choice; /* which concrete room of a group is committed */
  occ_index occupancy;
  au_placement *placements;
  int placement_count, placement_capacity;
  au_connector *connectors;
  int connector_count, connector_capacity;
  au_connection *connections;
  int connection_count, connection_capacity;
  dg_heap open;     /* open connectors by squared distance from the centre */
  uint32_t *tried;  /* per group: the attempt stamp of its last rejection */
  uint32_t attempt; /* current stamp */
  int64_t fit_checks, closed_connectors, rejected_moves;
  bool out_of_space;        /* growth stopped before the room count */
  int current_chain;        /* cycle id stamped on placements au_commit makes */
  int tree_count;           /* rooms placed by growth (not chains) */
  bool rescue;              /* closed connectors were given a second chance */
  struct au_cycles *cycles; /* the cycle pass's results, NULL before it */
  au_block *path;           /* every corridor's path, by au_connection.path_first */
  int path_count, path_capacity;
  /* Scratch reused by every search of one generation (issue 6: no
   * allocation per search or per node once warm), NULL until first use. */
  struct au_search *search;             /* the chain search (cycles.c) */
  struct au_corridor_search *corridors; /* the corridor baseline (corridor.c) */
  dg_cancel *cancel;        /* checked inside long searches too; may be NULL */
} au_state;

/* One cycle built: its ends and what it took. */
typedef struct au_cycle {
  int from, to;       /* the two connectors joined */
  int rooms;          /* chain rooms placed (0: doorways already met) */
  int cost;           /* walking cost of the chain, blocks */
  int graph_distance; /* rooms apart through the dungeon when it was built */
  int64_t expansions; /* search expansions it took */
} au_cycle;

/* The cycle pass's results and instrumentation. */
typedef struct au_cycles {
  au_cycle *items; /* cycles built, owned */
  int count, capacity;
  int64_t candidates;        /* pairs close in space and far in the tree */
  int64_t attempts;          /* searches started */
  int64_t skipped_shortened; /* pairs no longer far apart when their turn came */
  int64_t skipped_used;      /* pairs whose connector an earlier cycle used */
  int64_t failed_table;      /* failed at once: no table entry */
  int64_t failed_cutoff;     /* abandoned by the stall cutoff or expansion limit */
  int64_t failed_exhausted;  /* searched everything reachable, no chain */
  int64_t expansions;        /* over all searches */
  int64_t failed_expansions; /* over failed searches */
  int64_t rooms_added;       /* chain rooms placed */
  int64_t cost_total;        /* sum of chain costs */
  int64_t lost[AU_CUTOFFS];  /* cycles each cutoff would have lost */
  int64_t saved[AU_CUTOFFS]; /* failed-search expansions each would have saved */
  uint64_t ns;               /* wall time spent in cycle passes */
  uint64_t *fail_ns;         /* wall time of each failed search, owned */
  int fail_count, fail_capacity;
} au_cycles;

/* One pass closing cycles (seed 003) among the connectors open now; may
 * run several times, accumulating into s->cycles. Closes cycles (seed 003): candidates ranked worst
 * stretch first, each searched by weighted A* over room moves (or carved as a corridor when
 * cycles=corridors). Fills s->cycles. 0, DG_ENOMEM, DG_ECANCELED,
 * DG_ETIMEDOUT. */
int au_close_cycles(au_state *s, dg_cancel *cancel);

enum { AU_FOUND, AU_FAIL_TABLE, AU_FAIL_CUTOFF, AU_FAIL_EXHAUSTED };

/* One cycle search from connector `from` to connector `to` without
 * committing anything (tests and tools): *status is AU_FOUND or why it
 * failed; *cost and *rooms describe the chain found (-1 otherwise).
 * 0 or DG_ENOMEM. */
int au_search_pair(au_state *s, int from, int to, int *status, int *cost, int *rooms,
                   int64_t *expanded);

void au_cycles_free(au_cycles *cycles);

/* The corridor baseline between connectors `from` and `to` (corridor.c):
 * *built, its walking *length and the cells *expanded. A built corridor is
 * carved into the occupancy, recorded as a "corridor" connection of cycle
 * `cycle` and its path appended to s->path. 0 or DG_ENOMEM. */
int au_corridor(au_state *s, int from, int to, int cycle, bool *built, int *length,
                int64_t *expanded);

/* Frees the scratch of au_corridor and of the chain search (NULL-safe). */
void au_corridor_free(au_state *s);
void au_search_free(au_state *s);

/* Grows the tree (seed 003, footnote 1): start room at the origin, then
 * always the open connector nearest the centre. 0, DG_ENOMEM, DG_ECANCELED,
 * DG_ETIMEDOUT. */
int au_grow(au_state *s, dg_cancel *cancel);

/* Places move `m` of the set at open connector `open` (already checked to
 * fit) and records the connection. 0 or DG_ENOMEM. */
int au_commit(au_state *s, int open, int m, const char *kind);

/* Records a connection between connectors a and b (both become connected).
 * 0 or DG_ENOMEM. */
int au_connect(au_state *s, int a, int b, const char *kind, int cycle);

/* True when the move fits at open connector `open`: all its boxes free and
 * inside the vertical limit. */
bool au_fits(au_state *s, int open, const rs_move *move);

void au_state_close(au_state *s);

#endif
