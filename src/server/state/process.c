/* See process.h. The fields of /proc/self/stat are proc(5)'s: after the
 * command name in parentheses (which may hold spaces and parentheses, so
 * the scan starts after the last ')'), utime and stime are fields 14 and
 * 15, starttime 22 (clock ticks after boot), vsize 23 (bytes) and rss 24
 * (pages). The boot time is /proc/stat's btime. */
#include "state/process.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Seconds since the epoch at boot, or -1. */
static double boot_time(void) {
  FILE *f = fopen("/proc/stat", "r");
  if (f == NULL)
    return -1;
  char line[256];
  double btime = -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "btime ", 6) == 0) {
      btime = strtod(line + 6, NULL);
      break;
    }
  fclose(f);
  return btime;
}

static void read_stat(process_figures *p) {
  FILE *f = fopen("/proc/self/stat", "r");
  if (f == NULL)
    return;
  char text[1024];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  char *after = strrchr(text, ')');
  if (after == NULL)
    return;
  /* Fields 3 (state) to 24 follow the name: 22 of them. */
  unsigned long long field[25] = {0};
  char *cursor = after + 2;
  for (int i = 3; i <= 24; i++) {
    while (*cursor == ' ')
      cursor++;
    if (i == 3) { /* the state letter */
      cursor++;
      continue;
    }
    char *end = NULL;
    field[i] = strtoull(cursor, &end, 10);
    if (end == cursor)
      return;
    cursor = end;
  }
  double ticks = (double)sysconf(_SC_CLK_TCK), page = (double)sysconf(_SC_PAGESIZE);
  double btime = boot_time();
  if (ticks <= 0 || page <= 0 || btime < 0)
    return;
  p->cpu_seconds = (double)(field[14] + field[15]) / ticks;
  p->start_time_s = btime + (double)field[22] / ticks;
  p->virtual_bytes = (double)field[23];
  p->resident_bytes = (double)field[24] * page;
  p->known = true;
}

/* Entries of /proc/self/fd but . and .., and the one opendir holds. */
static long open_fds(void) {
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL)
    return -1;
  long count = 0;
  for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir))
    if (e->d_name[0] != '.')
      count++;
  closedir(dir);
  return count - 1;
}

void process_read(process_figures *p) {
  memset(p, 0, sizeof *p);
  read_stat(p);
  p->open_fds = open_fds();
  struct rlimit limit;
  p->max_fds = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                   ? (long)limit.rlim_cur
                   : -1;
}
