/* Growing a `nonlinear` dungeon door by door (seeds/002, SubMethod II).
 *
 * The map is a coarse grid of areas; every point of interest (room,
 * junction, dead end, sublevel stairs) owns one area and sits at its centre,
 * and corridors run between centres along area rows and columns. Starting
 * from the room in the middle, each exit rolls a destination relative to
 * where it leaves (d12 clock or d8 tic-tac-toe), and its corridor heads
 * there: straight, or first along the short side and then turning, as the
 * seed's "turns west for about 40 feet, then south until it connects with
 * Room 7". On the way the corridor may cross an older corridor (an
 * intersection, or by `sublevel_chance` stairs under or over it), and it
 * stops early where it meets a room, a point or a corridor ("the new
 * corridor connects with it"). An unmapped destination rolls the d10. Every
 * new point takes an empty area, so the growth ends within the map. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "nonlinear.h"

/* Direction bits and their steps. */
static uint8_t direction_of(int dx, int dy) {
  if (dy < 0)
    return NL_NORTH;
  if (dx > 0)
    return NL_EAST;
  if (dy > 0)
    return NL_SOUTH;
  return NL_WEST;
}

static uint8_t opposite(uint8_t direction) {
  return (uint8_t)(((direction << 2) | (direction >> 2)) & 15);
}

static int sign(int value) {
  return (value > 0) - (value < 0);
}

void nl_cell_centre(const nl_state *state, int cell, int *x, int *y) {
  *x = state->origin_x + (cell % state->columns) * state->area_width + state->area_width / 2;
  *y = state->origin_y + (cell / state->columns) * state->area_height + state->area_height / 2;
}

/* Walking length in tiles between two area centres on one row or column. */
static int tile_distance(const nl_state *state, int a, int b) {
  return abs(a % state->columns - b % state->columns) * state->area_width +
         abs(a / state->columns - b / state->columns) * state->area_height;
}

/* One area from `cell` towards `target` (on the same row or column). */
static int step_toward(const nl_state *state, int cell, int target) {
  int dx = sign(target % state->columns - cell % state->columns);
  int dy = sign(target / state->columns - cell / state->columns);
  return cell + dy * state->columns + dx;
}

/* True when `cell` lies on the straight stretch from a to b inclusive. */
static bool on_stretch(const nl_state *state, int a, int b, int cell) {
  int ax = a % state->columns, ay = a / state->columns, bx = b % state->columns,
      by = b / state->columns;
  int x = cell % state->columns, y = cell / state->columns;
  if (ay == by && y == ay)
    return x >= (ax < bx ? ax : bx) && x <= (ax > bx ? ax : bx);
  if (ax == bx && x == ax)
    return y >= (ay < by ? ay : by) && y <= (ay > by ? ay : by);
  return false;
}

/* Sub-point letters: A..Z, then AA, AB... (bijective base 26). */
static void sub_label(char *out, int room_number, int index) {
  char letters[8];
  int count = 0;
  for (int n = index + 1; n > 0 && count < 7; n = (n - 1) / 26)
    letters[count++] = (char)('A' + (n - 1) % 26);
  int at = 0;
  for (int n = room_number; n > 0 || at == 0; n /= 10)
    at++;
  if (at + count >= DG_LABEL_MAX) {
    out[0] = '\0';
    return;
  }
  for (int i = at - 1, n = room_number; i >= 0; i--, n /= 10)
    out[i] = (char)('0' + n % 10);
  for (int i = 0; i < count; i++)
    out[at + i] = letters[count - 1 - i];
  out[at + count] = '\0';
}

/* Appends a point node at `cell`. Its label is a sub-point of room `owner`
 * unless it is a room. */
static int add_point(nl_state *state, const char *kind, int cell, int owner, const char *form,
                     int room, int *id) {
  int x, y;
  nl_cell_centre(state, cell, &x, &y);
  int rc = dg_graph_add_node(&state->level->graph, kind, x, y, room, id);
  if (rc != 0)
    return rc;
  state->points[*id] =
      (nl_point){.cell = cell, .owner = owner, .d10 = -1, .rolls = {-1, -1}, .form = form};
  state->cells[cell].node = *id;
  dg_node *node = &state->level->graph.nodes[*id];
  if (room >= 0)
    memcpy(node->label, state->level->rooms[room].label, DG_LABEL_MAX);
  else
    sub_label(node->label, owner, state->letters[owner]++);
  return 0;
}

/* The room whose area holds tile (x, y), or -1. */
static int room_at_tile(const nl_state *state, int x, int y) {
  int column = (x - state->origin_x) / state->area_width,
      row = (y - state->origin_y) / state->area_height;
  if (x < state->origin_x || y < state->origin_y || column >= state->columns || row >= state->rows)
    return -1;
  int node = state->cells[row * state->columns + column].node;
  return node >= 0 ? state->level->graph.nodes[node].room : -1;
}

/* Digs one tile of corridor: stone becomes corridor, a room wall a door. */
static int dig_tile(nl_state *state, int x, int y) {
  dg_grid *grid = &state->level->grid;
  dg_tile tile = dg_grid_get(grid, x, y);
  if (tile == DG_TILE_STONE) {
    dg_grid_set(grid, x, y, DG_TILE_CORRIDOR);
  } else if (tile == DG_TILE_WALL) {
    dg_grid_set(grid, x, y, DG_TILE_DOOR);
    dg_door door = {.x = x, .y = y, .room = room_at_tile(state, x, y), .secret = false};
    return dg_level_add_door(state->level, &door);
  }
  return 0;
}

static int dig_line(nl_state *state, int from, int to) {
  int x0, y0, x1, y1;
  nl_cell_centre(state, from, &x0, &y0);
  nl_cell_centre(state, to, &x1, &y1);
  int dx = sign(x1 - x0), dy = sign(y1 - y0);
  for (int x = x0, y = y0;; x += dx, y += dy) {
    int rc = dig_tile(state, x, y);
    if (rc != 0)
      return rc;
    if (x == x1 && y == y1)
      return 0;
  }
}

/* Grows the per-edge corner array so that edge `edge` fits. */
static int reserve_edge(nl_state *state, int edge) {
  return dg_vec_grow(&state->corner, &state->edge_capacity, edge + 1, sizeof *state->corner);
}

/* Records a corridor from node `from` to node `to` turning at area
 * `corner` (equal to from's area when straight), digs its tiles, and hands
 * the areas it passed through (state->pending) to the new edge. */
static int add_corridor(nl_state *state, int from, int to, const char *kind, int roll, int corner) {
  int a = state->points[from].cell, b = state->points[to].cell;
  int length = tile_distance(state, a, corner) + tile_distance(state, corner, b);
  int edge = state->level->graph.edge_count;
  int rc = reserve_edge(state, edge);
  if (rc == 0)
    rc = dg_graph_add_edge(&state->level->graph, from, to, kind, length);
  if (rc != 0)
    return rc;
  state->level->graph.edges[edge].roll = roll;
  state->corner[edge] = corner;
  for (int i = 0; i < state->pending_count; i++)
    state->cells[state->pending[i]].edge = edge;
  state->pending_count = 0;
  if ((rc = dig_line(state, a, corner)) != 0)
    return rc;
  return dig_line(state, corner, b);
}

/* Splits the corridor passing through area `cell` with a new junction
 * there, so that a new corridor can join or cross it. *id gets the node. */
static int split_corridor(nl_state *state, int cell, int owner, const char *form, int *id) {
  int edge = state->cells[cell].edge;
  if (edge < 0)
    return DG_EINTERNAL;
  int from = state->level->graph.edges[edge].from, to = state->level->graph.edges[edge].to;
  int a = state->points[from].cell, b = state->points[to].cell, corner = state->corner[edge];
  /* The L from a to b, cut at `cell`: each half is again an L or a line. */
  bool first_leg = on_stretch(state, a, corner, cell);
  int corner_before = first_leg ? a : corner, corner_after = first_leg ? corner : cell;
  int rc = add_point(state, "junction", cell, owner, form, -1, id);
  if (rc != 0)
    return rc;
  int second = state->level->graph.edge_count;
  if ((rc = reserve_edge(state, second)) != 0)
    return rc;
  dg_edge old = state->level->graph.edges[edge];
  /* A sublevel link is the stretch just past the stairs: the far half is an
   * ordinary corridor again. */
  const char *kind = strcmp(old.kind, "sublevel") == 0 ? "corridor" : old.kind;
  rc = dg_graph_add_edge(&state->level->graph, *id, to, kind,
                         tile_distance(state, cell, corner_after) +
                             tile_distance(state, corner_after, b));
  if (rc != 0)
    return rc;
  dg_edge *first = &state->level->graph.edges[edge];
  first->to = *id;
  first->length =
      tile_distance(state, a, corner_before) + tile_distance(state, corner_before, cell);
  state->level->graph.edges[second].roll = old.roll;
  state->corner[edge] = corner_before;
  state->corner[second] = corner_after;
  /* The areas past the cut now belong to the second half. */
  int at = cell;
  while (at != corner_after) {
    at = step_toward(state, at, corner_after);
    if (state->cells[at].edge == edge)
      state->cells[at].edge = second;
  }
  while (at != b) {
    at = step_toward(state, at, b);
    if (state->cells[at].edge == edge)
      state->cells[at].edge = second;
  }
  return 0;
}

static int push_exit(nl_state *state, int node, int roll) {
  if (state->queue_tail >= state->queue_capacity)
    return DG_EINTERNAL;
  state->queue[state->queue_tail++] = (nl_exit){node, roll};
  state->points[node].exits++;
  return 0;
}

/* Paints a room's floor and walls, cutting the corners of a cross. */
static void paint_room(nl_state *state, const dg_room *room, bool cross) {
  dg_grid *grid = &state->level->grid;
  int x0 = room->x, y0 = room->y, x1 = room->x + room->width - 1, y1 = room->y + room->height - 1;
  for (int y = y0 - 1; y <= y1 + 1; y++)
    for (int x = x0 - 1; x <= x1 + 1; x++) {
      bool floor = x >= x0 && x <= x1 && y >= y0 && y <= y1;
      dg_grid_set(grid, x, y, floor ? DG_TILE_FLOOR : DG_TILE_WALL);
    }
  if (!cross)
    return;
  /* Each floor corner becomes wall and the three wall tiles outside it
   * stone, so the outline follows the cut. */
  const int corners[4][4] = {{x0, y0, -1, -1}, {x1, y0, 1, -1}, {x0, y1, -1, 1}, {x1, y1, 1, 1}};
  for (int c = 0; c < 4; c++) {
    int x = corners[c][0], y = corners[c][1], dx = corners[c][2], dy = corners[c][3];
    dg_grid_set(grid, x, y, DG_TILE_WALL);
    dg_grid_set(grid, x + dx, y, DG_TILE_STONE);
    dg_grid_set(grid, x, y + dy, DG_TILE_STONE);
    dg_grid_set(grid, x + dx, y + dy, DG_TILE_STONE);
  }
}

/* A room in area `cell`: a line of the room table (seed 002: "roll on any
 * table you prefer to determine room size, shape"), clamped to the area so
 * that rooms never touch, centred on the area's centre. Then its exits. */
static int add_room(nl_state *state, int cell, const char *form, int exits, int *id) {
  int line = dg_rng_die(&state->layout, state->table.count);
  nl_room_entry entry = state->table.entries[line - 1];
  int width = entry.width < state->area_width - 3 ? entry.width : state->area_width - 3;
  int height = entry.height < state->area_height - 3 ? entry.height : state->area_height - 3;
  bool cross = entry.cross && width >= 3 && height >= 3;
  int cx, cy;
  nl_cell_centre(state, cell, &cx, &cy);
  dg_room room = {.x = cx - (width - 1) / 2,
                  .y = cy - (height - 1) / 2,
                  .width = width,
                  .height = height,
                  .kind = cross ? "cross" : "room"};
  int number = state->level->room_count + 1, index;
  snprintf(room.label, sizeof room.label, "%d", number);
  int rc = dg_level_add_room(state->level, &room, &index);
  if (rc != 0)
    return rc;
  paint_room(state, &room, cross);
  if ((rc = add_point(state, "room", cell, number, form, index, id)) != 0)
    return rc;
  state->points[*id].shape_entry = line;
  for (int i = 0; i < exits && rc == 0; i++)
    rc = push_exit(state, *id, nl_roll_destination(&state->dice, state->method));
  return rc;
}

/* Seed 002's d10 for an unmapped destination: 0 a dead end; up to the
 * threshold a junction that rolls twice for its own destinations, doubles
 * making it a turn rather than an intersection; above it a room. */
static int fill_area(nl_state *state, int cell, int owner, int *id) {
  int d10 = nl_roll_d10(&state->dice);
  nl_area_roll what = nl_area_of_d10(d10, state->threshold);
  state->d10_counts[what]++;
  int rc;
  if (what == NL_DEAD_END) {
    rc = add_point(state, "dead_end", cell, owner, "dead_end", -1, id);
  } else if (what == NL_JUNCTION) {
    rc = add_point(state, "junction", cell, owner, "intersection", -1, id);
    int first = nl_roll_destination(&state->dice, state->method);
    int second = nl_roll_destination(&state->dice, state->method);
    if (rc == 0) {
      state->points[*id].rolls[0] = first;
      state->points[*id].rolls[1] = second;
      if (first == second) {
        state->points[*id].form = "turn";
        state->turns++;
        rc = push_exit(state, *id, first);
      } else {
        state->intersections++;
        rc = push_exit(state, *id, first);
        if (rc == 0)
          rc = push_exit(state, *id, second);
      }
    }
  } else {
    int exits = state->room_exits_max > 0 ? dg_rng_die(&state->layout, state->room_exits_max) : 0;
    rc = add_room(state, cell, "room", exits, id);
  }
  if (rc == 0)
    state->points[*id].d10 = d10;
  return rc;
}

/* One exit's corridor as it is dug, cell by cell. */
typedef struct exit_walk {
  nl_exit exit;               /* the exit being dug */
  int owner;                  /* owner of the exit's point, for new points */
  int target;                 /* the rolled destination (clamped to the map) */
  int corner;                 /* where the corridor turns (target if straight) */
  int at;                     /* the cell the walk stands on */
  int from;                   /* point the current segment starts at */
  int segment_start;          /* cell the current segment starts at */
  bool past_corner;           /* the walk has reached the corner */
  bool segment_before_corner; /* the current segment started before it */
  bool following;             /* walking along an older corridor */
  const char *kind;           /* kind of the next edge: corridor or sublevel */
} exit_walk;

/* A step's result when the walk goes on (else 0 or a DG_E code: it ended). */
enum { WALK_ON = 1 };

/* Rolls where the exit's corridor heads and starts the walk there; false
 * (counted in exits_off_map) when the destination is the exit's own area. */
static bool aim_exit(nl_state *state, nl_exit exit, exit_walk *walk) {
  int start = state->points[exit.node].cell;
  int sx = start % state->columns, sy = start / state->columns, dx, dy;
  nl_destination_offset(state->method, exit.roll, &dx, &dy);
  state->exits_rolled++;
  /* Off the map the corridor stops at its edge: what lies there is rolled
   * like any other destination. */
  int tx = sx + dx < 0 ? 0 : sx + dx >= state->columns ? state->columns - 1 : sx + dx;
  int ty = sy + dy < 0 ? 0 : sy + dy >= state->rows ? state->rows - 1 : sy + dy;
  int target = ty * state->columns + tx;
  if (target == start) {
    state->exits_off_map++;
    return false;
  }
  /* The short side first, then the turn (ties: across first, as the
   * seed's west-then-south example). */
  int corner = abs(dx) <= abs(dy) ? sy * state->columns + tx : ty * state->columns + sx;
  *walk = (exit_walk){.exit = exit,
                      .owner = state->points[exit.node].owner,
                      .target = target,
                      .corner = corner,
                      .at = start,
                      .from = exit.node,
                      .segment_start = start,
                      .past_corner = corner == start,
                      .segment_before_corner = corner != start,
                      .following = false,
                      .kind = "corridor"};
  return true;
}

/* A new segment starts at point `node` in cell `cell`. */
static void start_segment(exit_walk *walk, int node, int cell) {
  walk->from = node;
  walk->segment_start = cell;
  walk->segment_before_corner = !walk->past_corner;
}

/* A corridor already leaves `at` the walk's way (through the same door,
 * or along the same stretch): walk along it rather than dig beside it, and
 * branch off where the ways part. 0 when it leads to the target. */
static int follow_corridor(nl_state *state, exit_walk *walk, int next, bool last) {
  walk->following = true;
  if (last) {
    state->exits_merged++;
    return 0;
  }
  if (state->cells[next].node >= 0)
    start_segment(walk, state->cells[next].node, next);
  walk->at = next;
  return WALK_ON;
}

/* The walk enters `next`, where a corridor lies (`existing` its links)
 * but no point: joins it head on, along it or at a bend, else crosses it,
 * at an intersection or by stairs over or under it. */
static int meet_corridor(nl_state *state, exit_walk *walk, int next, uint8_t way, uint8_t existing,
                         bool ends_here, int ndx, int ndy, int edge_corner) {
  int id, rc;
  uint8_t across = (way & (NL_EAST | NL_WEST)) ? (NL_NORTH | NL_SOUTH) : (NL_EAST | NL_WEST);
  if (ends_here || existing != across) {
    /* Meeting a corridor head on, along it, or at a bend: join it. */
    state->joins++;
    if ((rc = split_corridor(state, next, walk->owner, "joined", &id)) != 0)
      return rc;
    return add_corridor(state, walk->from, id, walk->kind, walk->exit.roll, edge_corner);
  }
  state->crossings++;
  if (dg_rng_chance(&state->crossing, state->sublevel_chance)) {
    /* Seed 002 via SubMethod I's crossing table: stairs take this
     * corridor to a level above or below and back, so the two corridors
     * do not meet. */
    bool below = dg_rng_die(&state->crossing, 2) == 1;
    state->sublevels++;
    int x, y;
    if ((rc = add_point(state, "sublevel", next, walk->owner, below ? "below" : "above", -1,
                        &id)) != 0 ||
        (rc = add_corridor(state, walk->from, id, walk->kind, walk->exit.roll, edge_corner)) != 0)
      return rc;
    nl_cell_centre(state, next, &x, &y);
    dg_grid_set(&state->level->grid, x - sign(ndx), y - sign(ndy),
                below ? DG_TILE_STAIRS_DOWN : DG_TILE_STAIRS_UP);
    dg_grid_set(&state->level->grid, x + sign(ndx), y + sign(ndy),
                below ? DG_TILE_STAIRS_UP : DG_TILE_STAIRS_DOWN);
    walk->kind = "sublevel";
  } else {
    if ((rc = split_corridor(state, next, walk->owner, "crossing", &id)) != 0 ||
        (rc = add_corridor(state, walk->from, id, walk->kind, walk->exit.roll, edge_corner)) != 0)
      return rc;
    walk->kind = "corridor";
  }
  start_segment(walk, id, next);
  walk->at = next;
  return WALK_ON;
}

/* The walk enters `next`, where a room or point already is: connect with
 * it (a dead end it reaches becomes a junction). */
static int join_point(nl_state *state, const exit_walk *walk, int node_id, int edge_corner) {
  state->joins++;
  dg_node *node = &state->level->graph.nodes[node_id];
  if (strcmp(node->kind, "dead_end") == 0) {
    node->kind = "junction";
    state->points[node_id].form = "joined";
  }
  return add_corridor(state, walk->from, node_id, walk->kind, walk->exit.roll, edge_corner);
}

/* Digs the corridor of one exit, as far as it goes. */
static int dig_exit(nl_state *state, nl_exit exit) {
  exit_walk walk;
  if (!aim_exit(state, exit, &walk))
    return 0;
  int id, rc;
  state->pending_count = 0;
  for (;;) {
    if (!walk.past_corner && walk.at == walk.corner)
      walk.past_corner = true;
    int at = walk.at, toward = walk.past_corner ? walk.target : walk.corner;
    /* step_toward's step, keeping its (dx, dy) rather than dividing the
     * cells again to recover it. */
    int ndx = sign(toward % state->columns - at % state->columns),
        ndy = sign(toward / state->columns - at / state->columns);
    int next = at + ndy * state->columns + ndx;
    uint8_t way = direction_of(ndx, ndy);
    bool last = next == walk.target,
         turning = !walk.past_corner && next == walk.corner && walk.corner != walk.target;
    if (state->cells[at].links & way) {
      if ((rc = follow_corridor(state, &walk, next, last)) != WALK_ON)
        return rc;
      continue;
    }
    if (walk.following && state->cells[at].node < 0) {
      /* Leaving a corridor it followed: a fork there. */
      state->forks++;
      if ((rc = split_corridor(state, at, walk.owner, "fork", &id)) != 0)
        return rc;
      start_segment(&walk, id, at);
    }
    walk.following = false;
    int edge_corner =
        walk.segment_before_corner && walk.past_corner ? walk.corner : walk.segment_start;
    nl_cell *cell = &state->cells[next];
    state->cells[at].links |= way;
    uint8_t existing = cell->links;
    cell->links |= opposite(way);
    if (cell->node >= 0)
      return join_point(state, &walk, cell->node, edge_corner);
    if (existing != 0) {
      rc = meet_corridor(state, &walk, next, way, existing, last || turning, ndx, ndy, edge_corner);
      if (rc != WALK_ON)
        return rc;
      continue;
    }
    if (last) {
      rc = fill_area(state, next, walk.owner, &id);
      if (rc == 0)
        rc = add_corridor(state, walk.from, id, walk.kind, walk.exit.roll, edge_corner);
      return rc;
    }
    /* Every step moves towards the corner or the target, so the walk
     * never returns to a cell: pending cannot outgrow the map. */
    assert(state->pending_count < state->columns * state->rows);
    state->pending[state->pending_count++] = next;
    walk.at = next;
  }
}

/* Passes of reopened exits at most (each gives every room one more exit),
 * and passes in a row that may add no point before growth gives up. */
#define REOPEN_PASSES_MAX 64
#define REOPEN_IDLE_MAX 8

/* Every exit is spent and the level has fewer rooms than asked: each room,
 * in order, rolls one more exit (a destination die, as its first ones did),
 * so the dungeon keeps growing door by door instead of ending small (with
 * the defaults, growth alone stopped short of 12 rooms in 97% of levels and
 * at the start room alone in 3%). The queue is empty, so it starts over. */
static int reopen_rooms(nl_state *state) {
  state->queue_head = state->queue_tail = 0;
  const dg_graph *graph = &state->level->graph;
  for (int i = 0; i < graph->node_count; i++) {
    if (graph->nodes[i].room < 0 && strcmp(graph->nodes[i].kind, "junction") != 0)
      continue;
    int rc = push_exit(state, i, nl_roll_destination(&state->dice, state->method));
    if (rc != 0)
      return rc;
    /* A point's `exits` stay the ones it rolled itself (the article's). */
    state->points[i].exits--;
    state->exits_reopened++;
  }
  return 0;
}

int nl_grow(nl_state *state, dg_cancel *cancel) {
  int start = (state->rows / 2) * state->columns + state->columns / 2, id;
  int rc = add_room(state, start, "start", state->start_exits, &id);
  for (int pass = 0, idle = 0; rc == 0; pass++) {
    int points_before = state->level->graph.node_count;
    while (rc == 0 && state->queue_head < state->queue_tail &&
           state->level->room_count < state->rooms_target) {
      if ((state->queue_head & 63) == 0 && (rc = dg_cancel_check(cancel)) != 0)
        break;
      rc = dig_exit(state, state->queue[state->queue_head++]);
    }
    idle = state->level->graph.node_count == points_before ? idle + 1 : 0;
    /* Done: enough rooms, or reopening no longer finds room to grow. */
    if (rc != 0 || state->level->room_count >= state->rooms_target || pass == REOPEN_PASSES_MAX ||
        idle == REOPEN_IDLE_MAX)
      break;
    rc = reopen_rooms(state);
  }
  return rc;
}
