#ifndef VBG_HEAP_USAGE_H
#define VBG_HEAP_USAGE_H

/// Bytes currently allocated from the C heap (glibc `mallinfo2`: arena `uordblks` + mmapped
/// `hblkhd`), or -1 where unavailable (not glibc, or a sanitizer's allocator is in use).
long long vbg_heap_bytes_in_use(void);

/// 1 when this test build runs under a sanitizer (its allocator replaces malloc, so neither the
/// allocation counter nor `mallinfo2` can measure anything), else 0.
int vbg_built_with_sanitizer(void);

#endif
