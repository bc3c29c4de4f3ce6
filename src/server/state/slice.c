/* See slice.h. glibc 2.36 has no wrapper for sched_setattr(2) or
 * sched_getattr(2), hence the syscalls and the structure of their first
 * version (48 bytes). */
#include "state/slice.h"

#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SLICE_MIN_NS 100000ULL
#define SLICE_MAX_NS 100000000ULL
#define SLICE_RESET_ON_FORK 0x01 /* SCHED_FLAG_RESET_ON_FORK */

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

int slice_set(uint64_t ns) {
  pid_t thread = (pid_t)syscall(SYS_gettid);
  int policy = sched_getscheduler(thread);
  if (policy < 0)
    return errno;
  /* systemd's CPUSchedulingResetOnFork= ors this into the policy; only
   * privilege may clear it, so it is passed on. */
  uint64_t flags = (policy & SCHED_RESET_ON_FORK) != 0 ? SLICE_RESET_ON_FORK : 0;
  policy &= ~SCHED_RESET_ON_FORK;
  if (policy != SCHED_OTHER && policy != SCHED_BATCH && policy != SCHED_IDLE)
    return EPERM; /* a real-time thread keeps what it was given */
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, (id_t)thread);
  if (errno != 0)
    return errno;
  /* The nice value must be passed: sched_setattr sets it too, and raising
   * it back would need privilege. */
  struct slice_attr attr = {
      .size = sizeof attr, .policy = (uint32_t)policy, .flags = flags, .nice = nice, .runtime = ns};
  if (syscall(SYS_sched_setattr, thread, &attr, 0) != 0)
    return errno;
  if (ns == 0)
    return 0;
  /* Kernels before 6.12 accept sched_runtime for the fair policies and
   * ignore it; since 6.12 sched_getattr reports the slice in force there,
   * and before it 0. */
  struct slice_attr now = {0};
  if (syscall(SYS_sched_getattr, thread, &now, sizeof now, 0) != 0)
    return errno;
  uint64_t asked = ns < SLICE_MIN_NS ? SLICE_MIN_NS : ns > SLICE_MAX_NS ? SLICE_MAX_NS : ns;
  return now.runtime == asked ? 0 : ENOTSUP;
}
