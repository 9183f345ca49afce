#ifndef FAKEENTRA_MALLOC_STATS_H
#define FAKEENTRA_MALLOC_STATS_H
#include <stddef.h>

/// Bytes the allocator has handed out and not yet had back (glibc's mallinfo2(): small blocks plus mapped large ones), or 0 where
/// the C library has no such count. The state benchmark measures memory per record with it: exact to the
/// byte, where RSS moves by pages and never shrinks. malloc.h is not part of Swift's Glibc module.
size_t MallocStats_allocatedBytes(void);

#endif
