#ifndef VBG_HEAP_USAGE_H
#define VBG_HEAP_USAGE_H

/// Bytes currently allocated from the C heap (glibc `mallinfo2`: arena `uordblks` + mmapped
/// `hblkhd`), or -1 where unavailable.
long long vbg_heap_bytes_in_use(void);

#endif
