#ifndef VBG_ALLOCATION_COUNTER_H
#define VBG_ALLOCATION_COUNTER_H

/// The number of heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// memalign) made so far by the calling thread. Linux/glibc only: elsewhere it stays 0 and
/// `vbg_allocation_counting_is_active()` returns 0.
unsigned long vbg_thread_allocation_count(void);

/// Whether the interposed allocator is in use (1) or counting is unavailable (0).
int vbg_allocation_counting_is_active(void);

#include "HeapUsage.h"

#endif
