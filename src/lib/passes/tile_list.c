/* The walkable tiles of a grid as a list (src/lib/passes/tile_list.h). */
#include "passes/tile_list.h"

#include "core/walkable16.h"

int dg_tile_list_count(const dg_grid *grid) {
  int count = 0;
  for (int y = 0; y < grid->height; y++) {
    const uint8_t *row = grid->tiles + (long)y * grid->width;
    int x = 0;
    for (; x + 16 <= grid->width; x += 16)
      count += dg_bits16(dg_walkable16(row + x));
    for (; x < grid->width; x++)
      count += dg_tile_walkable((dg_tile)row[x]);
  }
  return count;
}

/* Sixteen tiles are tested at once and only the walkable ones visited (a
 * branch per tile mispredicted on every corridor). */
int dg_tile_list_fill(const dg_grid *grid, int stride, uint8_t *walk, int *padded, int *flat) {
  int width = grid->width, count = 0;
  for (int y = 0; y < grid->height; y++) {
    const uint8_t *row = grid->tiles + (long)y * width;
    long base = (long)(y + 1) * stride + 1;
    for (int x = 0; x < width; x += 16) {
      unsigned bits =
          x + 16 <= width ? dg_walkable16(row + x) : dg_walkable_tail(row + x, width - x);
      for (; bits != 0; bits &= bits - 1) {
        int at = x + __builtin_ctz(bits);
        walk[base + at] = 1;
        padded[count] = (int)(base + at);
        if (flat != NULL)
          flat[count] = y * width + at;
        count++;
      }
    }
  }
  return count;
}

void dg_tile_list_rooms(const dg_level *level, int stride, const uint8_t *walk, const int *padded,
                        int count, int *room_of) {
  const dg_grid *grid = &level->grid;
  for (int k = 0; k < count; k++)
    room_of[padded[k]] = -1;
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    for (int y = room->y; y < room->y + room->height; y++)
      for (int x = room->x; x < room->x + room->width; x++)
        if (dg_grid_contains(grid, x, y) && walk[(long)(y + 1) * stride + x + 1])
          room_of[(long)(y + 1) * stride + x + 1] = r;
  }
  for (int d = 0; d < level->door_count; d++) {
    const dg_door *door = &level->doors[d];
    long p = (long)(door->y + 1) * stride + door->x + 1;
    if (dg_grid_contains(grid, door->x, door->y) && walk[p])
      room_of[p] = door->room;
  }
}
