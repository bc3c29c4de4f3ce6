/* The process' own figures for /metrics, named as Prometheus' client
 * libraries name them (process_cpu_seconds_total...), read from /proc at
 * each scrape. Linux only, as the daemon is. */
#ifndef DUNGEOND_PROCESS_H
#define DUNGEOND_PROCESS_H

#include <stdbool.h>

typedef struct process_figures {
  bool known;             /* /proc/self/stat was read */
  double cpu_seconds;     /* user + system CPU time */
  double resident_bytes;  /* resident set size */
  double virtual_bytes;   /* virtual memory size */
  double start_time_s;    /* start, seconds since the Unix epoch */
  long open_fds, max_fds; /* open descriptors (-1: unknown) and RLIMIT_NOFILE's soft limit */
} process_figures;

/* Fills *p from /proc/self; fields it cannot read stay unknown (known
 * false, or -1 for the descriptors). */
void process_read(process_figures *p);

#endif
