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
enum { P_ROOMSET, P_ROOMS, P_TRIES, P_VERTICAL_LIMIT, P_GRID, P_COUNT };

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
} au_placement;

/* A connector of a placed room, in world space. */
typedef struct au_connector {
  int x, y, z;   /* doorway block */
  int facing;    /* FACING_* in the world */
  int placement; /* owning placement */
  int state;     /* CONN_* */
} au_connector;

/* Two connectors joined: their doorway blocks are neighbours and their
 * facings opposite. */
typedef struct au_connection {
  int a, b;         /* indices in au_state.connectors */
  const char *kind; /* static: "tree" */
} au_connection;

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
  bool out_of_space; /* growth stopped before the room count */
} au_state;

/* Grows the tree (seed 003, footnote 1): start room at the origin, then
 * always the open connector nearest the centre. 0, DG_ENOMEM, DG_ECANCELED,
 * DG_ETIMEDOUT. */
int au_grow(au_state *s, dg_cancel *cancel);

/* Places move `m` of the set at open connector `open` (already checked to
 * fit) and records the connection. 0 or DG_ENOMEM. */
int au_commit(au_state *s, int open, int m, const char *kind);

/* True when the move fits at open connector `open`: all its boxes free and
 * inside the vertical limit. */
bool au_fits(au_state *s, int open, const rs_move *move);

void au_state_close(au_state *s);

#endif
