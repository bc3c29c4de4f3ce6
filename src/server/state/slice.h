/* The kernel's time slice of the calling thread (Linux 6.12 and later,
 * EEVDF). A thread that asks for a short slice gets an earlier virtual
 * deadline when it wakes, and so the core at once from a thread with a
 * longer one (a light request beside a heavy map, or beside the load
 * generator of a benchmark); it still gets only its fair share over time.
 * No privilege is needed: the nice value is left as it is. */
#ifndef DUNGEOND_SLICE_H
#define DUNGEOND_SLICE_H

#include <stdint.h>

/* Asks for a slice of `ns` nanoseconds for the calling thread (the kernel
 * takes 0.1 to 100 ms), or for the kernel's default with 0. 0 when the
 * kernel applied it (read back with sched_getattr: older kernels accept
 * the request and ignore it), ENOTSUP when it did not, or the errno of a
 * refusal. A thread made after this inherits the slice (Linux 6.12+).
 * Thread-safe. */
int slice_set(uint64_t ns);

#endif
