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

enum { FACING_N, FACING_E, FACING_S, FACING_W };

#define RS_NAME_MAX 32       /* room-set names and room ids, with the NUL */
#define RS_TAG_MAX 16        /* one tag, with the NUL */
#define RS_TAGS_MAX 8        /* tags per room */
#define RS_ROOMS_MAX 1000    /* rooms per set */
#define RS_BOXES_MAX 16      /* boxes per room */
#define RS_CONNECTORS_MAX 16 /* connectors per room */
#define RS_SIZE_MAX 64       /* largest room extent on any axis, in blocks */
#define RS_WEIGHT_MAX 1000000

/* Room tags the generators act on; any other tag is kept and reported. */
enum { TAG_START = 1u << 0, TAG_SHIM = 1u << 1 };

typedef struct rs_box {
  int x0, y0, z0; /* inclusive low corner */
  int x1, y1, z1; /* exclusive high corner */
} rs_box;

typedef struct rs_connector {
  int x, y, z; /* the doorway block, inside the room */
  int facing;  /* FACING_*: the way out */
} rs_connector;

typedef struct rs_room {
  char id[RS_NAME_MAX];       /* unique within the set */
  int weight;                 /* spawn weight, >= 1 */
  int size[3];                /* bounding box extent x, y, z */
  rs_box boxes[RS_BOXES_MAX]; /* filled space, room-local */
  int box_count;
  rs_connector connectors[RS_CONNECTORS_MAX]; /* room-local doorways */
  int connector_count;
  char tags[RS_TAGS_MAX][RS_TAG_MAX]; /* as authored */
  int tag_count;
  unsigned tag_bits; /* TAG_* of the known tags */
} rs_room;

/* A connector of a placed room, relative to the open doorway it attached
 * to. */
typedef struct rs_exit {
  int x, y, z;   /* doorway block relative to the open doorway block */
  int facing;    /* world facing after the move's rotation */
  int connector; /* index in the room's connectors */
  int cost;      /* walking length from the entry doorway, blocks */
} rs_exit;

/* One room entering through one of its connectors at one rotation: what
 * the search and the tree growth apply without any placement math. The
 * open connector it attaches to faces `open_facing`; everything else is
 * relative to that open connector's doorway block. */
typedef struct rs_move {
  int room;        /* index in the set's rooms */
  int connector;   /* the room's entry connector */
  int rotation;    /* quarter turns clockwise (0-3) */
  int open_facing; /* facing of the open connector this attaches to */
  int origin[3];   /* the rotated room's low corner, relative */
  int box_first;   /* boxes in rs_set.boxes[box_first ..] */
  int box_count;
  int exit_first; /* exits in rs_set.exits[exit_first ..] */
  int exit_count;
  rs_box bounds; /* union of the boxes, relative */
  int cost;      /* the room's walking cost: its longest entry-to-exit path */
  int group;     /* the geometric group this move belongs to */
} rs_move;

/* Moves with the same filled space and the same exits (seed 003,
 * "Deduplicating the moves"): explored once, a concrete room chosen by
 * spawn weight on commit. The geometry is that of `members[0]`. */
typedef struct rs_group {
  int open_facing;  /* as the members' */
  int member_first; /* move indices in rs_set.members[member_first ..] */
  int member_count;
  int64_t weight; /* sum of the members' room weights */
  bool shim;      /* every member is tagged shim */
} rs_group;

typedef struct rs_set {
  char name[RS_NAME_MAX]; /* unique within a context */
  char biome[RS_NAME_MAX];
  rs_room *rooms; /* room_count rooms, owned */
  int room_count;
  int connector_count; /* over all rooms */
  rs_move *moves;      /* move_count moves, owned */
  int move_count;
  rs_box *boxes; /* every move's boxes, owned */
  int box_total;
  rs_exit *exits; /* every move's exits, owned */
  int exit_total;
  rs_group *groups; /* group_count groups, owned */
  int group_count;
  int *members;      /* group members (move indices), owned */
  int *by_facing[4]; /* group indices attaching to each open facing, owned */
  int by_facing_count[4];
  int *moves_by_facing[4]; /* move indices per open facing (grouping off), owned */
  int moves_by_facing_count[4];
  rs_pdb pdb;                      /* the pattern database of the cycle search */
  char sha256[DG_SHA256_HEX_SIZE]; /* digest of the set's canonical JSON (sorted keys, compact) */
} rs_set;

/* Collects validation problems: every one up to `max` is kept, the rest
 * are only counted. */
typedef struct rs_report {
  dg_error *items; /* max entries, caller-owned */
  int max;
  int count; /* problems found (may exceed max) */
} rs_report;

/* Parses and validates `json` into a new set (owned by the caller,
 * rs_set_free). Every problem goes to `report`; returns 0, DG_EINVAL /
 * DG_ETYPE when the set has problems, or DG_ENOMEM. */
int rs_set_parse(const struct json_t *json, rs_report *report, rs_set **out);

/* Precomputes the moves and groups of a parsed set. 0 or DG_ENOMEM. */
int rs_set_build_moves(rs_set *set);

void rs_set_free(rs_set *set);

/* Unit steps of each facing. */
static inline int facing_dx(int facing) {
  return facing == FACING_E ? 1 : facing == FACING_W ? -1 : 0;
}
static inline int facing_dz(int facing) {
  return facing == FACING_S ? 1 : facing == FACING_N ? -1 : 0;
}

extern const char *const rs_facing_names[4];

/* Overlap of two half-open boxes (touching faces do not overlap). */
static inline bool rs_box_overlap(const rs_box *a, const rs_box *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1 && a->z0 < b->z1 &&
         b->z0 < a->z1;
}

#endif
