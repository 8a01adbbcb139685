// Counts heap allocations per thread by interposing the C allocator.
//
// Method: this file defines malloc, calloc, realloc, free and the aligned allocation functions
// in the test executable. ELF symbol interposition makes every call in the process (the Swift
// runtime included, which allocates through malloc / posix_memalign) land here first; each call
// bumps a thread-local counter and forwards to glibc's own entry points (__libc_malloc, ...).
// A test reads the counter on its thread before and after the code under test: the difference
// is the number of allocations that code made, whatever other tests do on other threads.
#include "AllocationCounter.h"
#include <stddef.h>
#include <errno.h>  // any libc header defines __GLIBC__

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
// Sanitizers bring their own malloc; interposing it too would bypass them (and crash).
#define VBG_SANITIZED 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(VBG_SANITIZED)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

extern size_t malloc_usable_size(void *pointer);

static __thread unsigned long allocations __attribute__((tls_model("initial-exec")));
/// Usable bytes this thread's allocations hold less what this thread freed.
static __thread long long balance __attribute__((tls_model("initial-exec")));
static int active;

static void *counted(void *pointer) {
    if (pointer != NULL) balance += (long long)malloc_usable_size(pointer);
    return pointer;
}

void *malloc(size_t size) { allocations++; active = 1; return counted(__libc_malloc(size)); }
void *calloc(size_t count, size_t size) { allocations++; return counted(__libc_calloc(count, size)); }
void *realloc(void *pointer, size_t size) {
    allocations++;
    long long old = pointer != NULL ? (long long)malloc_usable_size(pointer) : 0;
    void *moved = __libc_realloc(pointer, size);
    if (moved != NULL || size == 0) balance -= old;
    return counted(moved);
}
void free(void *pointer) {
    if (pointer != NULL) balance -= (long long)malloc_usable_size(pointer);
    __libc_free(pointer);
}
void *memalign(size_t alignment, size_t size) { allocations++; return counted(__libc_memalign(alignment, size)); }
void *aligned_alloc(size_t alignment, size_t size) { allocations++; return counted(__libc_memalign(alignment, size)); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = counted(__libc_memalign(alignment, size));
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

unsigned long vbg_thread_allocation_count(void) { return allocations; }
long long vbg_thread_heap_balance(void) { return balance; }
int vbg_allocation_counting_is_active(void) { return active; }
#else
unsigned long vbg_thread_allocation_count(void) { return 0; }
long long vbg_thread_heap_balance(void) { return 0; }
int vbg_allocation_counting_is_active(void) { return 0; }
#endif
