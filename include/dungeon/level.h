/* A generated level and its `dungeond.level/1` JSON form.
 *
 * A level holds what every algorithm shares (grid, rooms, doors, objects,
 * graph, metrics, deterministic stats) plus an optional extension that a
 * generator serialises itself (placements of authored rooms, closets...).
 * Levels are built by one thread and then read-only: safe to serialise from
 * any thread. See docs/level-format.md for the format; the serialisers
 * (dg_level_dump_json, dg_level_to_json) are in dungeon/json.h. */
#ifndef DUNGEON_LEVEL_H
#define DUNGEON_LEVEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dungeon/cancel.h"
#include "dungeon/digest.h"
#include "dungeon/graph.h"
#include "dungeon/grid.h"
#include "dungeon/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's JSON text writer, declared only by name: the extension's
 * JSON hook below writes through one. It is internal to the library (the
 * generators' output.c files use it); the model stays free of jansson and
 * of the writer's definition. */
struct dg_writer;

#define DG_LEVEL_FORMAT "dungeond.level/1"
/* The generator version every level names (`generator_version`). The same
 * version, effective request, seed and room set give the same bytes on any
 * build; any change to what a seed makes, even one byte of one output, bumps
 * it (docs/level-format.md, "Determinism"). A change to the format's shape
 * bumps DG_LEVEL_FORMAT instead. */
#define DG_GENERATOR_VERSION 8
#define DG_STATS_MAX 48
#define DG_OBJECT_ITEMS_MAX 6
/* "sha256:", 64 hex digits and a NUL: a level_hash (dg_level_hash). */
#define DG_LEVEL_HASH_SIZE (7 + DG_SHA256_HEX_SIZE)

typedef struct dg_room {
  int x, y;                 /* top-left floor tile (walls lie outside) */
  int width, height;        /* floor extent in tiles, >= 1 */
  const char *kind;         /* static: "room", "landmark", "cavern", "closet"... */
  char label[DG_LABEL_MAX]; /* designer-facing label or "" */
} dg_room;

typedef struct dg_door {
  int x, y;    /* the door tile, on a room wall */
  int room;    /* index of the room whose wall holds it */
  bool secret; /* a secret door */
} dg_door;

typedef struct dg_object {
  int x, y;                               /* tile */
  const char *kind;                       /* static: "chest" */
  int item_count;                         /* entries in items */
  const char *items[DG_OBJECT_ITEMS_MAX]; /* static item names */
  int gold;                               /* gold pieces inside, 0 if none */
} dg_object;

/* A place a pass marked for a game (docs/level-format.md, `features`):
 * the entrance, the exit and one spawn per player (placement), then keys,
 * locked doors and one-way doors (progression). */
typedef struct dg_feature {
  const char *kind;      /* static: "stairs_up", "stairs_down", "spawn", "key", "locked_door",
                            "one_way_door" */
  int x, y;              /* tile (grid levels) or level coordinates (no grid) */
  int room;              /* index of the room it lies in, or -1 */
  int player;            /* spawn: 0-based player index; -1 otherwise */
  int exit_distance;     /* stairs and spawns: walking distance to the stairs down */
  int key;               /* key, locked_door: the key id (0-based); unused otherwise */
  int edge;              /* progression features of a level without a grid: the graph edge */
  const char *direction; /* one_way_door: static "north", "east", "south", "west" (grid) or
                            NULL; the way it may be crossed */
  int from, to;          /* one_way_door without a grid: crossed from node `from` to `to` */
  const char *player_id; /* spawn: the player's id (the level's players), or NULL */
} dg_feature;

/* What a room or graph node is for in the level's progression
 * (docs/progression.md). */
typedef enum dg_role {
  DG_ROLE_ORDINARY,
  DG_ROLE_ENTRANCE, /* holds the stairs up */
  DG_ROLE_EXIT,     /* holds the stairs down */
  DG_ROLE_BOSS,     /* the room before the exit, behind the last lock (boss_room) */
  DG_ROLE_KEY,      /* holds a key */
  DG_ROLE_TREASURE, /* a dead end behind a lock */
  DG_ROLE_SECRET,   /* a closet or secret room */
  DG_ROLE_COUNT
} dg_role;

/* The room name of a role ("entrance"...); static. */
const char *dg_role_name(dg_role role);

/* What the progression pass placed and its witness (`progression` in the
 * level JSON). Arrays are owned by the level: room_key is one block that
 * also holds room_sphere, key_sphere, room_role and node_role (freeing
 * room_key frees them all); walk is its own. */
typedef struct dg_progression {
  bool placed;             /* the pass ran (params.locks or params.one_way above 0) */
  bool consumable;         /* params.key_kind is consumable */
  int locks_wanted;        /* params.locks */
  int locks_placed;        /* locks placed: fewer when the level cannot hold them */
  int one_way_wanted;      /* params.one_way */
  int one_way_placed;      /* one-way doors placed */
  const char *locks_why;   /* static: why fewer locks were placed, or NULL */
  const char *one_way_why; /* static: why fewer one-way doors, or NULL */
  bool boss_wanted;        /* params.boss_room */
  int boss_room;           /* the boss room, or -1 */
  uint8_t *room_role;      /* room_count dg_role values */
  int *room_key;           /* room_count: the key a room holds, or -1 */
  uint8_t *node_role;      /* graph node_count dg_role values */
  int *room_sphere;        /* room_count: the sphere a room belongs to, -1 unreachable */
  int sphere_count;        /* spheres: locks_placed + 1 */
  int *key_sphere;         /* locks_placed: the sphere where key k lies */
  int *walk;               /* room ids from the entrance's to the exit's, collecting the keys */
  int walk_length;
} dg_progression;

/* Why a room's threat budget is what it is (dg_population_room.why). */
enum {
  DG_POPULATION_ENTRANCE = 1 << 0,    /* holds the stairs up: budget 0 */
  DG_POPULATION_SPAWN = 1 << 1,       /* holds a spawn: budget 0 */
  DG_POPULATION_EASED = 1 << 2,       /* just past a lock: eased by params.ease_after_locks */
  DG_POPULATION_BOSS = 1 << 3,        /* the boss room: the level's peak */
  DG_POPULATION_UNREACHABLE = 1 << 4, /* not reached from the entrance: no budget, no loot */
};

#define DG_LOOT_TIER_MAX 4     /* loot tiers are 0..this */
#define DG_POPULATION_CURVE 10 /* buckets of the achieved curve, by tenth of progress */

/* One room's budgets (`population.rooms[i]`, docs/population.md). */
typedef struct dg_population_room {
  int distance;  /* graph walking distance from the entrance, -1 unreachable */
  int progress;  /* distance over the farthest room's, in thousandths; -1 unreachable */
  int threat;    /* threat budget in points: difficulty x 10 x pacing(progress) */
  int heat;      /* loot heat: dead end, secret, behind locks, off the walk add to it */
  int loot_tier; /* 0..DG_LOOT_TIER_MAX, from the heat */
  int loot;      /* loot points: params.loot shared by heat */
  unsigned why;  /* DG_POPULATION_* bits */
  /* With a content table (params.table) only: */
  int spent;                 /* threat points spent on the room's encounters */
  int loot_items;            /* loot entities placed in the room */
  const char *unfilled;      /* static: why the threat budget was not filled, or NULL */
  const char *loot_unfilled; /* static: why fewer loot entities than its share, or NULL */
} dg_population_room;

/* What an entity is (dg_entity.kind). */
typedef enum dg_entity_kind { DG_ENTITY_ENCOUNTER, DG_ENTITY_LOOT } dg_entity_kind;

#define DG_ENTITY_ENTRY_MAX 64 /* bytes of a table entry's id, NUL included */

/* One thing the population pass placed from a content table (`entities`
 * in the level JSON, docs/population.md): an encounter or a loot item,
 * numbered in generation order ("e1", "e2", ...). */
typedef struct dg_entity {
  dg_entity_kind kind;             /* encounter or loot */
  char entry[DG_ENTITY_ENTRY_MAX]; /* the table entry's id, copied: tables may be reloaded */
  int room;                        /* the room it stands in */
  int x, y;                        /* its top-left tile */
  int width, height;               /* its footprint in tiles (loot: 1 x 1) */
  int cost;                        /* encounter: threat points; loot: 0 */
  int tier;                        /* loot: its tier; encounter: 0 */
} dg_entity;

/* What the population pass computed (`population` in the level JSON). */
typedef struct dg_population {
  bool placed;                             /* the pass ran (params.population) */
  int difficulty;                          /* params.difficulty */
  int pacing;                              /* params.pacing, DG_PACING_* */
  char pacing_points[DG_PARAM_STRING_MAX]; /* DG_PACING_POINTS: params.pacing's points */
  int loot;                                /* params.loot */
  int ease;                                /* params.ease_after_locks, percent */
  int farthest;                            /* the farthest reachable room's distance */
  dg_population_room *rooms;               /* room_count entries, owned by the level */
  int threat_total;                        /* sum of the rooms' threat budgets */
  int loot_total;                 /* sum of their loot points: params.loot, or 0 without heat */
  int curve[DG_POPULATION_CURVE]; /* mean threat of the rooms in each tenth of progress, -1 none */
  int rank_correlation;           /* Spearman distance vs threat over reachable rooms, x1000 */
  const struct dg_table *table;   /* params.table's, borrowed from the context during the pass */
  bool filled;                    /* a content table filled the budgets: entities, spent */
  dg_entity *entities;            /* entity_count entities, owned by the level */
  int entity_count;               /* entities placed (only with a table) */
  int entity_capacity;            /* allocated entries in entities */
  bool entities_with_rooms;       /* entities lie in the rooms' allocation, freed with it */
} dg_population;

/* What the placement pass measured (`placement` in the level JSON). */
typedef struct dg_placement {
  bool placed;            /* the pass ran (params.placement) */
  bool stairs_forced;     /* the stairs up are at params.stairs_up_x/y */
  int carved;             /* tiles dug to join forced stairs up to the level */
  int entrance_to_exit;   /* walking distance from the stairs up to the stairs down */
  int farthest;           /* farthest such distance to any eligible place */
  int spawns_wanted;      /* params.spawns */
  int spawns_placed;      /* spawns placed: fewer only when the level has no room */
  int spawn_distance_min; /* smallest spawn-to-exit walking distance (0 without spawns) */
  int spawn_distance_max; /* largest; max - min is the spread, the fairness figure */
  int entrance_node;      /* the graph node the stairs up belong to, -1 before placement */
  int exit_node;          /* the graph node of the stairs down, -1 before placement */
} dg_placement;

/* Facts about a level computed the same way for every algorithm
 * (dg_level_compute_metrics). */
typedef struct dg_metrics {
  int rooms;           /* rooms in the level */
  bool connected;      /* every walkable tile reachable from every other */
  int components;      /* connected components of walkable tiles (or graph) */
  int cycles;          /* independent cycles of the graph: E - V + C */
  int dead_ends;       /* corridor tiles with exactly one walkable neighbour */
  int double_wide;     /* corridor tiles inside a 2x2 block of corridor */
  int corridor_tiles;  /* corridor and secret corridor tiles */
  int walkable_tiles;  /* tiles for which dg_tile_walkable holds */
  int doors;           /* doors and secret doors */
  double stretch_mean; /* mean over cycle edges of detour / edge length */
  double stretch_max;  /* largest such ratio, 0 without cycle edges */
} dg_metrics;

/* One deterministic figure of how the level was made ("attempts": 12). */
typedef struct dg_stat {
  const char *name; /* static string */
  int64_t value;
} dg_stat;

/* Wall-clock time of one named phase of a generation ("growth"), for
 * people: `dungeon bench` and the daemon's Server-Timing. Never part of the
 * level's JSON, which stays deterministic. */
typedef struct dg_timing {
  const char *name; /* static string */
  uint64_t ns;      /* monotonic nanoseconds spent */
} dg_timing;

#define DG_TIMINGS_MAX 8

/* A level's rooms as they stand in 3D (authored levels), for the
 * pictures drawn by storey (docs/pictures.md). Grid coordinates: x, y as
 * the level's grid and rooms; a storey is the world height of a floor. */
typedef struct dg_storey_box {
  int room;          /* the level's room it belongs to */
  int x, y;          /* top-left tile of the box, walls included */
  int width, height; /* in tiles, walls included */
  int storey;        /* the height its floor stands at */
} dg_storey_box;

/* A connected doorway of a room, on the storey it opens onto. */
typedef struct dg_storey_door {
  int room;
  int x, y;
  int storey;
} dg_storey_door;

/* A tile of a carved corridor (authored cycles=corridors): the floor a
 * walker stands on there, in the corridor's path order, doorway to
 * doorway. A stair's steps lie between two storeys. */
typedef struct dg_storey_tile {
  int corridor; /* which corridor, counted from 0; its tiles are consecutive */
  int x, y;
  int floor; /* the height of its floor */
} dg_storey_tile;

typedef struct dg_storey_plan {
  dg_storey_box *boxes; /* box_count boxes, by room, owned */
  int box_count;
  dg_storey_door *doors; /* door_count doorways, by room, owned */
  int door_count;
  dg_storey_tile *tiles; /* tile_count corridor tiles, by corridor, owned */
  int tile_count;
} dg_storey_plan;

/* Frees a plan's arrays and empties it. NULL-safe. */
void dg_storey_plan_free(dg_storey_plan *plan);

/* Generator-specific data serialised into the level object. */
typedef struct dg_level_extension {
  void *data;                    /* owned by the level */
  void (*free_data)(void *data); /* frees `data` */
  /* Optional: writes the extension's members into the level object, each
   * as `,"name":value`, through the same writer as the rest of the level
   * (so its deadline polls reach into large extensions). Returns 0, or the
   * writer's failure (DG_ENOMEM, DG_ECANCELED, DG_ETIMEDOUT). */
  int (*write_json)(const void *data, struct dg_writer *writer);
  /* Optional text printed under the ASCII map (a legend), NULL for none:
   * reads `level` (its own data is level->extension.data) and puts a
   * malloc'd, NUL-terminated string in *text; 0 or DG_ENOMEM. */
  int (*to_text)(const struct dg_level *level, char **text);
} dg_level_extension;

struct dg_level {
  const dg_algorithm *algorithm; /* what made it */
  uint64_t seed;                 /* the seed used */
  dg_params params;              /* effective parameters */
  bool has_grid;                 /* false for levels without tiles */
  dg_grid grid;                  /* tiles when has_grid */
  dg_room *rooms;                /* room_count rooms, owned */
  int room_count, room_capacity;
  dg_door *doors; /* door_count doors, owned */
  int door_count, door_capacity;
  dg_object *objects; /* object_count objects, owned */
  int object_count, object_capacity;
  dg_feature *features; /* feature_count stairs and spawns, owned */
  int feature_count, feature_capacity;
  dg_placement placement;         /* filled by the placement pass */
  dg_player_ids players;          /* whose spawns (copied from the request) */
  dg_progression progression;     /* filled by the progression pass */
  dg_population population;       /* filled by the population pass */
  dg_targets targets;             /* the structural targets asked for (copied from the request) */
  dg_target_report target_report; /* how candidates fared, when targets were asked for */
  dg_graph graph;                 /* connectivity graph */
  dg_metrics metrics;             /* filled by dg_level_compute_metrics */
  dg_stat stats[DG_STATS_MAX];    /* deterministic figures, in insertion order */
  int stat_count;
  dg_level_extension extension; /* optional generator data */
  /* Optional, for a level whose rooms stand on several storeys (authored):
   * fills *plan from extension.data with malloc'd arrays (the caller frees
   * them with dg_storey_plan_free); 0 or DG_ENOMEM. NULL for the others. */
  int (*storey_plan)(const void *extension_data, dg_storey_plan *plan);
  bool grid_metrics_ready;           /* the grid part of metrics is computed (by dg_trace_graph) */
  dg_timing timings[DG_TIMINGS_MAX]; /* phase timings, not serialised */
  int timing_count;
  /* SHA-256 of the room set used (its canonical JSON), "" when none */
  char roomset_sha256[DG_SHA256_HEX_SIZE];
  /* SHA-256 of the content table params.table named (its canonical JSON),
   * "" when none: a level id carries it (not the level's JSON) */
  char table_sha256[DG_SHA256_HEX_SIZE];
  int *room_of; /* grid tile -> room index or -1, owned; NULL: rooms' rectangles and doors */
  /* Internal, between the placement and population passes of one
   * generation (dg_generate frees it after population; NULL otherwise):
   * placement's graph distances, graph.node_count from the entrance node,
   * then as many to the exit node when walk_to_exit (LONG_MAX unreachable),
   * so that population need not run the same two Dijkstras again. */
  long *walk_distances;
  bool walk_to_exit;
  /* Internal, between the generator and the progression pass (dg_generate
   * frees it after that pass; NULL otherwise): for each of the first
   * trace_passage_count edges of the graph dg_trace_graph made, the tile
   * (y * width + x) where a lock or one-way door closes that edge and its
   * neighbours toward the edge's `from` and `to` nodes, or -1 three times
   * when no tile does. Recorded only when the level asks for progression,
   * so that the pass can plan on the graph instead of tracing the map again. */
  int *trace_passages;
  int trace_passage_count;
  bool grid_is_projection; /* the grid only draws the level (authored): metrics use the graph */
  /* The client view (dg_level_client_view): every writer then leaves out
   * what only the game server may know (docs/level-format.md, "The client
   * view"). False for every level a generator makes. */
  bool client_view;
  bool client_progression_tiles; /* client view of a level with locks or one-way doors: their
                                    visible tiles stay, so the legend lists them */
  /* "sha256:" and the hex SHA-256 of the full level's JSON (dg_level_hash),
   * or "" when nobody asked; SVG and Tiled carry it when set. */
  char level_hash[DG_LEVEL_HASH_SIZE];
};

/* Allocates an empty level for `request` (algorithm, seed, params copied).
 * The caller owns *out and frees it with dg_level_free. 0 or DG_ENOMEM. */
int dg_level_new(const dg_request *request, dg_level **out);

/* Frees everything the level owns. NULL is a no-op. */
void dg_level_free(dg_level *level);

/* Appends a room / door / object; the index goes to *index (may be NULL).
 * 0 or DG_ENOMEM. */
int dg_level_add_room(dg_level *level, const dg_room *room, int *index);
int dg_level_add_door(dg_level *level, const dg_door *door);
int dg_level_add_object(dg_level *level, const dg_object *object);
int dg_level_add_feature(dg_level *level, const dg_feature *feature);

/* Copies `room_of` (grid tile -> room index or -1, width * height ints)
 * into the level, for the passes after the generator (metrics trace the map
 * with it). 0 or DG_ENOMEM. */
int dg_level_keep_room_of(dg_level *level, const int *room_of);

/* Records (or overwrites) the deterministic stat `name` (static string).
 * Silently ignores more than DG_STATS_MAX distinct names. */
void dg_level_set_stat(dg_level *level, const char *name, int64_t value);

/* Records (or overwrites) the wall-clock time of phase `name` (static
 * string). Ignores more than DG_TIMINGS_MAX distinct names. */
void dg_level_set_timing(dg_level *level, const char *name, uint64_t ns);

/* Computes level->metrics from the grid (when present) and the graph, and
 * marks the graph's cycle edges. Stretch is measured over at most 64 loop
 * edges, evenly spaced in edge order. `cancel` (may be NULL) is polled
 * between shortest-path queries. 0, DG_ENOMEM, DG_ECANCELED or
 * DG_ETIMEDOUT. */
int dg_level_compute_metrics(dg_level *level, dg_cancel *cancel);

/* The level as an ASCII map: the grid rows, one per line, each ending in
 * '\n' (a level without a grid draws its graph as a list), followed by the
 * extension's text (a legend) when it has one. Caller frees with free().
 * 0 or DG_ENOMEM. */
int dg_level_dump_ascii(const dg_level *level, char **text, size_t *length);

/* Which view of a level a request asks for (`view`, `--view`). */
typedef enum dg_view {
  DG_VIEW_DEFAULT, /* not asked: the full level, bytes as before views existed */
  DG_VIEW_FULL,    /* "full": the full level, carrying its level_hash in every representation */
  DG_VIEW_CLIENT,  /* "client": dg_level_client_view */
} dg_view;

/* The values `view` takes, for error messages: "full, client". Static. */
#define DG_VIEW_CHOICES "full, client"

/* Parses "full" or "client" into *view. 0, or DG_EINVAL for anything else
 * (the caller names the field and DG_VIEW_CHOICES). Thread-safe. */
int dg_view_parse(const char *name, dg_view *view);

/* Turns *level into the view asked for: DG_VIEW_DEFAULT leaves it alone,
 * DG_VIEW_FULL sets its level_hash, DG_VIEW_CLIENT replaces it with its
 * client view (the full level is freed; on failure *level is unchanged).
 * 0, DG_ENOMEM, DG_ECANCELED or DG_ETIMEDOUT. */
int dg_level_apply_view(dg_level **level, dg_view view, dg_cancel *cancel);

/* The level's identity for desync checks: "sha256:" and the lowercase hex
 * SHA-256 of its `dungeond.level/1` JSON as dg_level_dump_json writes it
 * (which never holds level_id or level_hash), into `out`. The daemon's
 * level_hash is the same figure. `cancel` (may be NULL) is polled while
 * the JSON is written. 0, DG_ENOMEM, DG_ECANCELED or DG_ETIMEDOUT.
 * Thread-safe for a level nobody modifies. */
int dg_level_hash(const dg_level *level, dg_cancel *cancel, char out[DG_LEVEL_HASH_SIZE]);

/* The client view of `full`: what a game server may send its players
 * without giving a secret away (docs/level-format.md, "The client view").
 * A new level in *out (the caller frees it with dg_level_free) with
 * client_view set and level_hash the full level's (full->level_hash when
 * set, else computed): secret doors drawn as wall and gone from `doors`,
 * secret corridors as stone, walkable bits cut off by them (closets) as
 * stone too, key tiles as what lies under them; no keys, no seed or
 * parameters, no progression, population, placement figures, metrics,
 * stats, targets or generator extension; objects without their contents;
 * features without distances or key ids; a grid level without its graph.
 * Every writer (JSON, ASCII, SVG, Tiled, and the set writers) renders it.
 * 0, DG_ENOMEM, DG_ECANCELED or DG_ETIMEDOUT (nothing in *out).
 * Thread-safe for a `full` nobody modifies. */
int dg_level_client_view(const dg_level *full, dg_cancel *cancel, dg_level **out);

#ifdef __cplusplus
}
#endif
#endif
