/* Graph storage plus BFS, components, bridges (Tarjan, iterative) and
 * Dijkstra. Everything iterates nodes and edges in index order, so results
 * never depend on memory layout. */
#include "dungeon/graph.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/heap.h"
#include "core/unionfind.h"
#include "core/vec.h"
#include "dungeon/error.h"

void dg_graph_init(dg_graph *graph) {
  memset(graph, 0, sizeof *graph);
}

void dg_graph_close(dg_graph *graph) {
  free(graph->nodes);
  free(graph->edges);
  memset(graph, 0, sizeof *graph);
}

void dg_graph_clear(dg_graph *graph) {
  graph->node_count = 0;
  graph->edge_count = 0;
}

int dg_graph_add_node(dg_graph *graph, const char *kind, int x, int y, int room, int *id) {
  if (dg_vec_grow(&graph->nodes, &graph->node_capacity, graph->node_count + 1,
                  sizeof *graph->nodes) != 0)
    return DG_ENOMEM;
  dg_node *node = &graph->nodes[graph->node_count];
  node->kind = kind;
  node->x = x;
  node->y = y;
  node->room = room;
  node->depth = -1;
  node->label[0] = '\0';
  if (id != NULL)
    *id = graph->node_count;
  graph->node_count++;
  return 0;
}

int dg_graph_add_edge(dg_graph *graph, int from, int to, const char *kind, int length) {
  if (from < 0 || to < 0 || from >= graph->node_count || to >= graph->node_count || length < 1)
    return DG_EINVAL;
  if (dg_vec_grow(&graph->edges, &graph->edge_capacity, graph->edge_count + 1,
                  sizeof *graph->edges) != 0)
    return DG_ENOMEM;
  graph->edges[graph->edge_count++] =
      (dg_edge){.from = from, .to = to, .kind = kind, .length = length, .roll = -1};
  return 0;
}

void dg_graph_adjacency(const dg_graph *graph, int *offsets, int *adjacent, int *via) {
  int n = graph->node_count;
  memset(offsets, 0, (size_t)(n + 1) * sizeof *offsets);
  for (int e = 0; e < graph->edge_count; e++) {
    offsets[graph->edges[e].from + 1]++;
    offsets[graph->edges[e].to + 1]++;
  }
  for (int i = 0; i < n; i++)
    offsets[i + 1] += offsets[i];
  /* Use offsets[i] as node i's fill cursor, then shift the array back by one
   * slot: afterwards offsets[i] is again the start of node i. */
  for (int e = 0; e < graph->edge_count; e++) {
    const dg_edge *edge = &graph->edges[e];
    adjacent[offsets[edge->from]] = edge->to;
    via[offsets[edge->from]++] = e;
    adjacent[offsets[edge->to]] = edge->from;
    via[offsets[edge->to]++] = e;
  }
  for (int i = n; i > 0; i--)
    offsets[i] = offsets[i - 1];
  offsets[0] = 0;
}

/* CSR arrays for one algorithm run; freed by adjacency_free. */
typedef struct adjacency {
  int *offsets, *adjacent, *via;
} adjacency;

static int adjacency_build(const dg_graph *graph, adjacency *adj) {
  size_t ends = (size_t)graph->edge_count * 2 + 1;
  adj->offsets = malloc((size_t)(graph->node_count + 1) * sizeof(int));
  adj->adjacent = malloc(ends * sizeof(int));
  adj->via = malloc(ends * sizeof(int));
  if (adj->offsets == NULL || adj->adjacent == NULL || adj->via == NULL) {
    free(adj->offsets);
    free(adj->adjacent);
    free(adj->via);
    return DG_ENOMEM;
  }
  dg_graph_adjacency(graph, adj->offsets, adj->adjacent, adj->via);
  return 0;
}

static void adjacency_free(adjacency *adj) {
  free(adj->offsets);
  free(adj->adjacent);
  free(adj->via);
}

int dg_graph_bfs(const dg_graph *graph, int source, int *distance) {
  int n = graph->node_count;
  for (int i = 0; i < n; i++)
    distance[i] = -1;
  if (source < 0 || source >= n)
    return DG_EINVAL;
  adjacency adj;
  int *queue = malloc((size_t)n * sizeof *queue);
  if (queue == NULL || adjacency_build(graph, &adj) != 0) {
    free(queue);
    return DG_ENOMEM;
  }
  int head = 0, tail = 0;
  distance[source] = 0;
  queue[tail++] = source;
  while (head < tail) {
    int node = queue[head++];
    for (int k = adj.offsets[node]; k < adj.offsets[node + 1]; k++) {
      int next = adj.adjacent[k];
      if (distance[next] < 0) {
        distance[next] = distance[node] + 1;
        queue[tail++] = next;
      }
    }
  }
  adjacency_free(&adj);
  free(queue);
  return 0;
}

int dg_graph_components(const dg_graph *graph, int *component, int *count) {
  int n = graph->node_count;
  /* Union-find with path halving; components numbered by first node. */
  int *parent = malloc((size_t)(n > 0 ? n : 1) * sizeof *parent);
  if (parent == NULL)
    return DG_ENOMEM;
  dg_uf_init(parent, n);
  for (int e = 0; e < graph->edge_count; e++)
    dg_uf_union(parent, graph->edges[e].from, graph->edges[e].to);
  int components = 0;
  for (int i = 0; i < n; i++) {
    int root = i;
    while (parent[root] != root)
      root = parent[root];
    if (root == i)
      component[i] = components++;
    else
      component[i] = component[root];
  }
  free(parent);
  *count = components;
  return 0;
}

int dg_graph_mark_cycles(dg_graph *graph) {
  int n = graph->node_count;
  int rc = DG_ENOMEM;
  adjacency adj = {0};
  int *order = malloc((size_t)(n + 1) * sizeof *order);
  int *low = malloc((size_t)(n + 1) * sizeof *low);
  int *stack_node = malloc((size_t)(n + 1) * sizeof *stack_node);
  int *stack_edge = malloc((size_t)(n + 1) * sizeof *stack_edge); /* edge used to enter */
  int *stack_next = malloc((size_t)(n + 1) * sizeof *stack_next); /* adjacency cursor */
  if (order == NULL || low == NULL || stack_node == NULL || stack_edge == NULL ||
      stack_next == NULL || adjacency_build(graph, &adj) != 0)
    goto done;
  for (int e = 0; e < graph->edge_count; e++)
    graph->edges[e].cycle = true;
  for (int i = 0; i < n; i++)
    order[i] = -1;
  int counter = 0;
  for (int root = 0; root < n; root++) {
    if (order[root] >= 0)
      continue;
    int top = 0;
    stack_node[0] = root;
    stack_edge[0] = -1;
    stack_next[0] = adj.offsets[root];
    order[root] = low[root] = counter++;
    while (top >= 0) {
      int node = stack_node[top];
      if (stack_next[top] < adj.offsets[node + 1]) {
        int k = stack_next[top]++;
        int edge = adj.via[k], next = adj.adjacent[k];
        if (edge == stack_edge[top])
          continue; /* the edge we came in by (parallel edges still count) */
        if (order[next] < 0) {
          order[next] = low[next] = counter++;
          top++;
          stack_node[top] = next;
          stack_edge[top] = edge;
          stack_next[top] = adj.offsets[next];
        } else if (order[next] < low[node]) {
          low[node] = order[next];
        }
      } else {
        if (top > 0) {
          int parent = stack_node[top - 1];
          if (low[node] < low[parent])
            low[parent] = low[node];
          if (low[node] > order[parent])
            graph->edges[stack_edge[top]].cycle = false;
        }
        top--;
      }
    }
  }
  rc = 0;
done:
  if (rc == 0)
    adjacency_free(&adj);
  free(order);
  free(low);
  free(stack_node);
  free(stack_edge);
  free(stack_next);
  return rc;
}

int dg_graph_shortest(const dg_graph *graph, int source, int target, int skip_edge, long *length) {
  int n = graph->node_count;
  *length = -1;
  if (source < 0 || target < 0 || source >= n || target >= n)
    return DG_EINVAL;
  int rc = DG_ENOMEM;
  adjacency adj = {0};
  bool built = false;
  dg_heap heap = {0};
  long *best = malloc((size_t)n * sizeof *best);
  if (best == NULL || dg_heap_init(&heap, 16) != 0)
    goto done;
  if (adjacency_build(graph, &adj) != 0)
    goto done;
  built = true;
  for (int i = 0; i < n; i++)
    best[i] = LONG_MAX;
  best[source] = 0;
  if (dg_heap_push(&heap, 0, (uint32_t)source) != 0)
    goto done;
  uint64_t priority;
  uint32_t node;
  while (dg_heap_pop(&heap, &priority, &node)) {
    if ((long)priority != best[node])
      continue;
    if ((int)node == target)
      break;
    for (int k = adj.offsets[node]; k < adj.offsets[node + 1]; k++) {
      if (adj.via[k] == skip_edge)
        continue;
      int next = adj.adjacent[k];
      long through = best[node] + graph->edges[adj.via[k]].length;
      if (through < best[next]) {
        best[next] = through;
        if (dg_heap_push(&heap, (uint64_t)through, (uint32_t)next) != 0)
          goto done;
      }
    }
  }
  *length = best[target] == LONG_MAX ? -1 : best[target];
  rc = 0;
done:
  if (built)
    adjacency_free(&adj);
  dg_heap_close(&heap);
  free(best);
  return rc;
}
