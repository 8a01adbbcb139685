#ifndef VBG_ALLOCATION_COUNTER_H
#define VBG_ALLOCATION_COUNTER_H

/// The number of heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// memalign) made so far by the calling thread. Linux/glibc only: elsewhere it stays 0 and
/// `vbg_allocation_counting_is_active()` returns 0.
unsigned long vbg_thread_allocation_count(void);

/// The usable bytes (`malloc_usable_size`) of the calling thread's heap allocations so far, less
/// those of the blocks it freed: before and after code that runs on this thread, the difference
/// is the heap that code took and kept, whatever other threads allocate meanwhile. Linux/glibc
/// only (0 elsewhere, see `vbg_allocation_counting_is_active()`).
long long vbg_thread_heap_balance(void);

/// Whether the interposed allocator is in use (1) or counting is unavailable (0).
int vbg_allocation_counting_is_active(void);

#include "HeapUsage.h"

#endif
