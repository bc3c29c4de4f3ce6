/* Internal: the algorithm descriptors that registry.c lists. Each generator
 * defines exactly one of these in its own file. Its internal names carry
 * one prefix (classic_, landmark_, nl_, authored_; capitals for macros and
 * enum values) and its parameter indexes <PREFIX>_P_<NAME> in an enum
 * <prefix>_param: README.md, "Development". */
#ifndef DUNGEON_GENERATORS_H
#define DUNGEON_GENERATORS_H

#include "dungeon/algorithm.h"

/* The common parameters (DG_COMMON_* in dungeon/algorithm.h) as table
 * entries from index `first` on: every generator ends its table with
 * DG_COMMON_PARAM_DEFS(<PREFIX>_P_COMMON), so they are declared once. Ranges are
 * the library's own; the daemon may hold them tighter (limits.*). Their
 * role stays DG_PARAM_ROLE_NONE: they are in every table, so a role here
 * would make every algorithm answer dg_algorithm_param_with_role() with a
 * placement knob. */
#define DG_COMMON_PARAM_DEFS(first)                                                                \
  [(first) +                                                                                       \
      DG_COMMON_PLACEMENT] = {"placement",                                                         \
                              DG_PARAM_BOOL,                                                       \
                              1,                                                                   \
                              0,                                                                   \
                              1,                                                                   \
                              NULL,                                                                \
                              NULL,                                                                \
                              "place an entrance (stairs up), an exit (stairs down) and "          \
                              "player spawns (see features)",                                      \
                              DG_PARAM_ROLE_NONE},                                                 \
      [(first) +                                                                                   \
          DG_COMMON_EXIT_DISTANCE] = {"exit_distance",                                             \
                                      DG_PARAM_FLOAT,                                              \
                                      0.7,                                                         \
                                      0,                                                           \
                                      1,                                                           \
                                      NULL,                                                        \
                                      NULL,                                                        \
                                      "exit at least this fraction of the farthest walking "       \
                                      "distance from the entrance (1: the farthest place)",        \
                                      DG_PARAM_ROLE_NONE},                                         \
      [(first) +                                                                                   \
          DG_COMMON_SPAWNS] = {"spawns",                                                           \
                               DG_PARAM_INT,                                                       \
                               1,                                                                  \
                               0,                                                                  \
                               64,                                                                 \
                               NULL,                                                               \
                               NULL,                                                               \
                               "player spawn points near the entrance, at similar walking "        \
                               "distance to the exit (the daemon defaults it to the players)",     \
                               DG_PARAM_ROLE_NONE},                                                \
      [(first) +                                                                                   \
          DG_COMMON_STAIRS_UP_X] = {"stairs_up_x",                                                 \
                                    DG_PARAM_INT,                                                  \
                                    -1,                                                            \
                                    -1,                                                            \
                                    65535,                                                         \
                                    NULL,                                                          \
                                    NULL,                                                          \
                                    "column of the stairs up, -1 to choose (multi-floor sets "     \
                                    "set it to the floor above's stairs down)",                    \
                                    DG_PARAM_ROLE_NONE},                                           \
      [(first) + DG_COMMON_STAIRS_UP_Y] = {"stairs_up_y",                                          \
                                           DG_PARAM_INT,                                           \
                                           -1,                                                     \
                                           -1,                                                     \
                                           65535,                                                  \
                                           NULL,                                                   \
                                           NULL,                                                   \
                                           "row of the stairs up, -1 to choose",                   \
                                           DG_PARAM_ROLE_NONE},                                    \
      [(first) + DG_COMMON_LOCKS] = {"locks",                                                      \
                                     DG_PARAM_INT,                                                 \
                                     0,                                                            \
                                     0,                                                            \
                                     DG_LOCKS_MAX,                                                 \
                                     NULL,                                                         \
                                     NULL,                                                         \
                                     "locked doors on chokepoints of the way to the exit, each "   \
                                     "with its key before it (fewer when the level has too few; "  \
                                     "see progression)",                                           \
                                     DG_PARAM_ROLE_NONE},                                          \
      [(first) + DG_COMMON_KEY_KIND] = {"key_kind",                                                \
                                        DG_PARAM_ENUM,                                             \
                                        DG_KEY_REUSABLE,                                           \
                                        0,                                                         \
                                        0,                                                         \
                                        dg_key_kind_choices,                                       \
                                        NULL,                                                      \
                                        "reusable: key k opens lock k; consumable: any key opens " \
                                        "any lock and is spent",                                   \
                                        DG_PARAM_ROLE_NONE},                                       \
      [(first) + DG_COMMON_ONE_WAY] = {"one_way",                                                  \
                                       DG_PARAM_INT,                                               \
                                       0,                                                          \
                                       0,                                                          \
                                       DG_ONE_WAY_MAX,                                             \
                                       NULL,                                                       \
                                       NULL,                                                       \
                                       "one-way doors on loops, passable only from the deep side " \
                                       "back toward the entrance (shortcuts back)",                \
                                       DG_PARAM_ROLE_NONE},                                        \
      [(first) + DG_COMMON_BOSS_ROOM] = {"boss_room",                                              \
                                         DG_PARAM_BOOL,                                            \
                                         0,                                                        \
                                         0,                                                        \
                                         1,                                                        \
                                         NULL,                                                     \
                                         NULL,                                                     \
                                         "with locks: mark the room before the exit, behind the "  \
                                         "last lock, as the boss room",                            \
                                         DG_PARAM_ROLE_NONE},                                      \
      [(first) + DG_COMMON_POPULATION] = {"population",                                            \
                                          DG_PARAM_BOOL,                                           \
                                          0,                                                       \
                                          0,                                                       \
                                          1,                                                       \
                                          NULL,                                                    \
                                          NULL,                                                    \
                                          "give every room a threat budget and a loot tier "       \
                                          "(see population)",                                      \
                                          DG_PARAM_ROLE_NONE},                                     \
      [(first) + DG_COMMON_DIFFICULTY] = {"difficulty",                                            \
                                          DG_PARAM_INT,                                            \
                                          50,                                                      \
                                          0,                                                       \
                                          DG_DIFFICULTY_MAX,                                       \
                                          NULL,                                                    \
                                          NULL,                                                    \
                                          "with population: the threat budget of the hardest "     \
                                          "ordinary room is 10 points per unit",                   \
                                          DG_PARAM_ROLE_NONE},                                     \
      [(first) + DG_COMMON_PACING] = {"pacing",                                                    \
                                      DG_PARAM_ENUM,                                               \
                                      DG_PACING_LINEAR,                                            \
                                      0,                                                           \
                                      0,                                                           \
                                      dg_pacing_choices,                                           \
                                      NULL,                                                        \
                                      "with population: how threat rises with distance from "      \
                                      "the entrance",                                              \
                                      DG_PARAM_ROLE_NONE},                                         \
      [(first) + DG_COMMON_LOOT] = {"loot",                                                        \
                                    DG_PARAM_INT,                                                  \
                                    100,                                                           \
                                    0,                                                             \
                                    DG_LOOT_MAX,                                                   \
                                    NULL,                                                          \
                                    NULL,                                                          \
                                    "with population: loot points shared among the rooms by "      \
                                    "their heat",                                                  \
                                    DG_PARAM_ROLE_NONE},                                           \
      [(first) + DG_COMMON_EASE_AFTER_LOCKS] = {"ease_after_locks",                                \
                                                DG_PARAM_INT,                                      \
                                                50,                                                \
                                                0,                                                 \
                                                100,                                               \
                                                NULL,                                              \
                                                NULL,                                              \
                                                "with population and locks: percent taken off "    \
                                                "the threat of the rooms just past each lock "     \
                                                "(0: none)",                                       \
                                                DG_PARAM_ROLE_NONE},                               \
      [(first) + DG_COMMON_TABLE] = {"table",                                                      \
                                     DG_PARAM_STRING,                                              \
                                     0,                                                            \
                                     0,                                                            \
                                     0,                                                            \
                                     NULL,                                                         \
                                     "",                                                           \
                                     "with population: the content table whose encounters and "    \
                                     "loot fill the budgets (GET /v1/tables); empty for none",     \
                                     DG_PARAM_ROLE_NONE}

/* The choices of the key_kind parameter, in DG_KEY_* order (model/params.c). */
extern const char *const dg_key_kind_choices[];
/* The choices of the pacing parameter, in DG_PACING_* order (model/params.c). */
extern const char *const dg_pacing_choices[];

extern const dg_algorithm dg_algorithm_classic;
extern const dg_algorithm dg_algorithm_nonlinear;
extern const dg_algorithm dg_algorithm_landmark;
extern const dg_algorithm dg_algorithm_authored;

#endif
