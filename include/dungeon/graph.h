/* The connectivity graph of a level: nodes (rooms, junctions, dead ends...)
 * and weighted, undirected edges, with the few algorithms every generator and
 * metric needs (BFS, components, bridges, shortest paths).
 *
 * Node and edge kinds are static strings ("room", "junction", "corridor",
 * "mst"...) so that generators add kinds without touching this file. A graph
 * owns its arrays; it is not thread-safe but may be read from many threads
 * once built. */
#ifndef DUNGEON_GRAPH_H
#define DUNGEON_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DG_LABEL_MAX 12

typedef struct dg_node {
  const char *kind;         /* static string: "room", "junction", "dead_end"... */
  int x, y;                 /* a representative tile (or block) of the node */
  int room;                 /* index into the level's rooms, or -1 */
  int depth;                /* tree depth where the generator has one, else -1 */
  char label[DG_LABEL_MAX]; /* designer-facing label ("1", "1A"), or "" */
} dg_node;

typedef struct dg_edge {
  int from, to;     /* node indices; from may equal to (a loop) */
  const char *kind; /* static string: "corridor", "mst", "extra", "door"... */
  int length;       /* walking length in tiles (or blocks), >= 1 */
  int roll;         /* the die roll that made the edge, or -1 */
  bool cycle;       /* true when the edge lies on a cycle (is not a bridge) */
} dg_edge;

typedef struct dg_graph {
  dg_node *nodes; /* node_count nodes, owned */
  int node_count;
  int node_capacity;
  dg_edge *edges; /* edge_count edges, owned */
  int edge_count;
  int edge_capacity;
} dg_graph;

/* Empties `graph` (no allocation). */
void dg_graph_init(dg_graph *graph);

/* Frees the arrays; safe on a zeroed graph. */
void dg_graph_close(dg_graph *graph);

/* Forgets every node and edge, keeping the memory. */
void dg_graph_clear(dg_graph *graph);

/* Appends a node; its index goes to *id (may be NULL). `kind` must be a
 * static string. Depth -1, label "". Returns 0 or DG_ENOMEM. */
int dg_graph_add_node(dg_graph *graph, const char *kind, int x, int y, int room, int *id);

/* Appends an edge between existing nodes (roll -1, cycle false). `kind` must
 * be static. Returns 0, DG_EINVAL (bad index, length < 1) or DG_ENOMEM. */
int dg_graph_add_edge(dg_graph *graph, int from, int to, const char *kind, int length);

/* Edges touching each node as a CSR adjacency: offsets[node_count + 1] and
 * targets/edge ids (each edge appears once per end). The caller provides the
 * arrays: offsets of node_count + 1 ints, adjacent and via of 2 * edge_count.
 * Pure: reads the graph only. */
void dg_graph_adjacency(const dg_graph *graph, int *offsets, int *adjacent, int *via);

/* Connected components: component[i] is in [0, *count). The caller provides
 * `component` (node_count ints). Returns 0 or DG_ENOMEM. */
int dg_graph_components(const dg_graph *graph, int *component, int *count);

/* Marks every edge's `cycle` field: true unless the edge is a bridge (its
 * removal would disconnect its ends). Returns 0 or DG_ENOMEM. */
int dg_graph_mark_cycles(dg_graph *graph);

/* Hop counts from `source` (breadth-first); unreachable nodes get -1.
 * `distance` has node_count ints. Returns 0 or DG_ENOMEM. */
int dg_graph_bfs(const dg_graph *graph, int source, int *distance);

/* Length of the shortest path from `source` to `target` using edge lengths,
 * ignoring edge `skip_edge` (-1 for none); -1 if unreachable. Returns 0,
 * DG_EINVAL (a node index out of range) or DG_ENOMEM; the length goes to
 * *length. */
int dg_graph_shortest(const dg_graph *graph, int source, int target, int skip_edge, long *length);

#ifdef __cplusplus
}
#endif
#endif
