/* See slice.h. glibc 2.36 has no wrapper for sched_setattr(2), hence the
 * syscall and the structure of its first version (48 bytes). */
#include "state/slice.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SLICE_MIN_NS 100000ULL
#define SLICE_MAX_NS 100000000ULL

struct slice_attr {
  uint32_t size;
  uint32_t policy;
  uint64_t flags;
  int32_t nice;
  uint32_t priority;
  uint64_t runtime; /* for the fair policies: the requested slice, 0 for the default */
  uint64_t deadline;
  uint64_t period;
};

/* The calling thread's se.slice and whether the kernel shows one at all. */
static bool read_slice(unsigned long long *ns) {
  FILE *sched = fopen("/proc/thread-self/sched", "re");
  if (sched == NULL)
    return false;
  char line[160];
  bool found = false;
  while (!found && fgets(line, sizeof line, sched) != NULL)
    if (strncmp(line, "se.slice ", 9) == 0) {
      const char *colon = strchr(line, ':');
      found = colon != NULL && sscanf(colon + 1, "%llu", ns) == 1;
    }
  fclose(sched);
  return found;
}

int slice_set(uint64_t ns) {
  pid_t thread = (pid_t)syscall(SYS_gettid);
  int policy = sched_getscheduler(thread);
  if (policy < 0)
    return errno;
  if (policy != SCHED_OTHER && policy != SCHED_BATCH && policy != SCHED_IDLE)
    return EPERM; /* a real-time thread keeps what it was given */
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, (id_t)thread);
  if (errno != 0)
    return errno;
  /* The nice value must be passed: sched_setattr sets it too, and raising
   * it back would need privilege. */
  struct slice_attr attr = {
      .size = sizeof attr, .policy = (uint32_t)policy, .nice = nice, .runtime = ns};
  if (syscall(SYS_sched_setattr, thread, &attr, 0) != 0)
    return errno;
  unsigned long long now = 0;
  if (!read_slice(&now))
    return ENOTSUP;
  uint64_t asked = ns < SLICE_MIN_NS ? SLICE_MIN_NS : ns > SLICE_MAX_NS ? SLICE_MAX_NS : ns;
  return ns == 0 || now == asked ? 0 : ENOTSUP;
}
