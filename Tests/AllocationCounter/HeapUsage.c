// Bytes the C heap has handed out, for tests that check memory is returned (uninstall).
#include "HeapUsage.h"
#ifdef __linux__
#include <features.h>
#endif

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define VBG_HEAP_SANITIZED 1
#endif
#endif

int vbg_built_with_sanitizer(void) {
#ifdef VBG_HEAP_SANITIZED
    return 1;
#else
    return 0;
#endif
}

#if defined(__linux__) && defined(__GLIBC__) && !defined(VBG_HEAP_SANITIZED)
#include <malloc.h>
long long vbg_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
}
#else
long long vbg_heap_bytes_in_use(void) { return -1; }
#endif
