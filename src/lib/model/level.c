/* dg_level storage: creation, the growable arrays, stats, and freeing. */
#include "dungeon/level.h"

#include <stdlib.h>
#include <string.h>

#include "core/vec.h"

int dg_level_new(const dg_request *request, dg_level **out) {
  dg_level *level = calloc(1, sizeof *level);
  if (level == NULL)
    return DG_ENOMEM;
  level->algorithm = request->algorithm;
  level->seed = request->seed;
  level->params = request->params;
  level->targets = request->targets;
  level->players = request->players;
  dg_graph_init(&level->graph);
  *out = level;
  return 0;
}

void dg_level_free(dg_level *level) {
  if (level == NULL)
    return;
  dg_grid_close(&level->grid);
  free(level->rooms);
  free(level->doors);
  free(level->objects);
  free(level->features);
  free(level->progression.room_key); /* and the arrays in its block */
  free(level->progression.walk);
  free(level->population.rooms);
  if (!level->population.entities_with_rooms)
    free(level->population.entities);
  dg_graph_close(&level->graph);
  free(level->room_of);
  free(level->walk_distances);
  free(level->trace_passages);
  if (level->extension.free_data != NULL)
    level->extension.free_data(level->extension.data);
  free(level);
}

int dg_level_add_room(dg_level *level, const dg_room *room, int *index) {
  if (dg_vec_grow(&level->rooms, &level->room_capacity, level->room_count + 1, sizeof *room) != 0)
    return DG_ENOMEM;
  if (index != NULL)
    *index = level->room_count;
  level->rooms[level->room_count++] = *room;
  return 0;
}

int dg_level_add_door(dg_level *level, const dg_door *door) {
  if (dg_vec_grow(&level->doors, &level->door_capacity, level->door_count + 1, sizeof *door) != 0)
    return DG_ENOMEM;
  level->doors[level->door_count++] = *door;
  return 0;
}

int dg_level_add_object(dg_level *level, const dg_object *object) {
  if (dg_vec_grow(&level->objects, &level->object_capacity, level->object_count + 1,
                  sizeof *object) != 0)
    return DG_ENOMEM;
  level->objects[level->object_count++] = *object;
  return 0;
}

void dg_level_set_stat(dg_level *level, const char *name, int64_t value) {
  for (int i = 0; i < level->stat_count; i++)
    if (strcmp(level->stats[i].name, name) == 0) {
      level->stats[i].value = value;
      return;
    }
  if (level->stat_count < DG_STATS_MAX)
    level->stats[level->stat_count++] = (dg_stat){name, value};
}

void dg_level_set_timing(dg_level *level, const char *name, uint64_t ns) {
  for (int i = 0; i < level->timing_count; i++)
    if (strcmp(level->timings[i].name, name) == 0) {
      level->timings[i].ns = ns;
      return;
    }
  if (level->timing_count < DG_TIMINGS_MAX)
    level->timings[level->timing_count++] = (dg_timing){name, ns};
}

int dg_level_add_feature(dg_level *level, const dg_feature *feature) {
  if (dg_vec_grow(&level->features, &level->feature_capacity, level->feature_count + 1,
                  sizeof *feature) != 0)
    return DG_ENOMEM;
  level->features[level->feature_count++] = *feature;
  return 0;
}

int dg_level_keep_room_of(dg_level *level, const int *room_of) {
  size_t bytes = (size_t)level->grid.width * (size_t)level->grid.height * sizeof *room_of;
  int *copy = malloc(bytes > 0 ? bytes : 1);
  if (copy == NULL)
    return DG_ENOMEM;
  memcpy(copy, room_of, bytes);
  free(level->room_of);
  level->room_of = copy;
  return 0;
}
