// Bytes the C heap has handed out, for tests that check memory is returned (uninstall).
#include "HeapUsage.h"
#ifdef __linux__
#include <features.h>
#endif
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
long long vbg_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
}
#else
long long vbg_heap_bytes_in_use(void) { return -1; }
#endif
