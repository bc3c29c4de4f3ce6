/* Internal: a loaded room set (seed 003, "The setup") and the moves
 * precomputed from it ("Rooms as moves"), as the authored generator and the
 * cycle search read them. Built once by dg_context_add_roomset, then
 * read-only and shared by every worker thread.
 *
 * Coordinates are Minecraft-style blocks: x east, y up, z south. Facings are
 * horizontal: n (-z), e (+x), s (+z), w (-x), numbered clockwise seen from
 * above so that a quarter turn adds 1 and the opposite facing is f ^ 2.
 * Boxes are half-open: [x0, x1) x [y0, y1) x [z0, z1). */
#ifndef DUNGEON_AUTHORED_ROOMSET_H
#define DUNGEON_AUTHORED_ROOMSET_H

#include <stdbool.h>
#include <stdint.h>

#include "dungeon/digest.h"
#include "dungeon/error.h"
#include "pdb.h"

/* jansson's value type by name only (the same type as json_t): only
 * roomset.c, the parser, needs jansson itself. */
struct json_t;

enum { AUTHORED_FACING_N, AUTHORED_FACING_E, AUTHORED_FACING_S, AUTHORED_FACING_W };

#define AUTHORED_NAME_MAX 32       /* room-set names and room ids, with the NUL */
#define AUTHORED_TAG_MAX 16        /* one tag, with the NUL */
#define AUTHORED_TAGS_MAX 8        /* tags per room */
#define AUTHORED_ROOMS_MAX 1000    /* rooms per set */
#define AUTHORED_BOXES_MAX 16      /* boxes per room */
#define AUTHORED_CONNECTORS_MAX 16 /* connectors per room */
#define AUTHORED_SIZE_MAX 64       /* largest room extent on any axis, in blocks */
#define AUTHORED_WEIGHT_MAX 1000000

/* Room tags the generators act on; any other tag is kept and reported. */
enum { AUTHORED_TAG_START = 1u << 0, AUTHORED_TAG_SHIM = 1u << 1 };

typedef struct authored_box {
  int x0, y0, z0; /* inclusive low corner */
  int x1, y1, z1; /* exclusive high corner */
} authored_box;

typedef struct authored_room_connector {
  int x, y, z; /* the doorway block, inside the room */
  int facing;  /* FACING_*: the way out */
} authored_room_connector;

typedef struct authored_room {
  char id[AUTHORED_NAME_MAX];             /* unique within the set */
  int weight;                             /* spawn weight, >= 1 */
  int size[3];                            /* bounding box extent x, y, z */
  authored_box boxes[AUTHORED_BOXES_MAX]; /* filled space, room-local */
  int box_count;
  authored_room_connector connectors[AUTHORED_CONNECTORS_MAX]; /* room-local doorways */
  int connector_count;
  char tags[AUTHORED_TAGS_MAX][AUTHORED_TAG_MAX]; /* as authored */
  int tag_count;
  unsigned tag_bits; /* TAG_* of the known tags */
} authored_room;

/* A connector of a placed room, relative to the open doorway it attached
 * to. */
typedef struct authored_exit {
  int x, y, z;   /* doorway block relative to the open doorway block */
  int facing;    /* world facing after the move's rotation */
  int connector; /* index in the room's connectors */
  int cost;      /* walking length from the entry doorway, blocks */
} authored_exit;

/* One room entering through one of its connectors at one rotation: what
 * the search and the tree growth apply without any placement math. The
 * open connector it attaches to faces `open_facing`; everything else is
 * relative to that open connector's doorway block. */
typedef struct authored_move {
  int room;        /* index in the set's rooms */
  int connector;   /* the room's entry connector */
  int rotation;    /* quarter turns clockwise (0-3) */
  int open_facing; /* facing of the open connector this attaches to */
  int origin[3];   /* the rotated room's low corner, relative */
  int box_first;   /* boxes in authored_roomset.boxes[box_first ..] */
  int box_count;
  int exit_first; /* exits in authored_roomset.exits[exit_first ..] */
  int exit_count;
  authored_box bounds; /* union of the boxes, relative */
  int cost;            /* the room's walking cost: its longest entry-to-exit path */
  int group;           /* the geometric group this move belongs to */
} authored_move;

/* Moves with the same filled space and the same exits (seed 003,
 * "Deduplicating the moves"): explored once, a concrete room chosen by
 * spawn weight on commit. The geometry is that of `members[0]`. */
typedef struct authored_group {
  int open_facing;  /* as the members' */
  int member_first; /* move indices in authored_roomset.members[member_first ..] */
  int member_count;
  int64_t weight; /* sum of the members' room weights */
  bool shim;      /* every member is tagged shim */
} authored_group;

typedef struct authored_roomset {
  char name[AUTHORED_NAME_MAX]; /* unique within a context */
  char biome[AUTHORED_NAME_MAX];
  authored_room *rooms; /* room_count rooms, owned */
  int room_count;
  int connector_count;  /* over all rooms */
  authored_move *moves; /* move_count moves, owned */
  int move_count;
  authored_box *boxes; /* every move's boxes, owned */
  int box_total;
  authored_exit *exits; /* every move's exits, owned */
  int exit_total;
  authored_group *groups; /* group_count groups, owned */
  int group_count;
  int *members;      /* group members (move indices), owned */
  int *by_facing[4]; /* group indices attaching to each open facing, owned */
  int by_facing_count[4];
  int *moves_by_facing[4]; /* move indices per open facing (grouping off), owned */
  int moves_by_facing_count[4];
  authored_box reach[4];           /* per open facing: union of its moves' bounds, relative */
  authored_pdb pdb;                /* the pattern database of the cycle search */
  char sha256[DG_SHA256_HEX_SIZE]; /* digest of the set's canonical JSON (sorted keys, compact) */
} authored_roomset;

/* Collects validation problems: every one up to `max` is kept, the rest
 * are only counted. */
typedef struct authored_report {
  dg_error *items; /* max entries, caller-owned */
  int max;
  int count; /* problems found (may exceed max) */
} authored_report;

/* Parses and validates `json` into a new set (owned by the caller,
 * authored_roomset_free). Every problem goes to `report`; returns 0, DG_EINVAL /
 * DG_ETYPE when the set has problems, or DG_ENOMEM. */
int authored_roomset_parse(const struct json_t *json, authored_report *report,
                           authored_roomset **out);

/* Precomputes the moves and groups of a parsed set. 0 or DG_ENOMEM. */
int authored_roomset_build_moves(authored_roomset *set);

void authored_roomset_free(authored_roomset *set);

/* Unit steps of each facing. */
static inline int facing_dx(int facing) {
  return facing == AUTHORED_FACING_E ? 1 : facing == AUTHORED_FACING_W ? -1 : 0;
}
static inline int facing_dz(int facing) {
  return facing == AUTHORED_FACING_S ? 1 : facing == AUTHORED_FACING_N ? -1 : 0;
}

extern const char *const authored_facing_names[4];

/* Overlap of two half-open boxes (touching faces do not overlap). */
static inline bool authored_box_overlap(const authored_box *a, const authored_box *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1 && a->z0 < b->z1 &&
         b->z0 < a->z1;
}

#endif
