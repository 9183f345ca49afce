#include "malloc_stats.h"
#if defined(__linux__)
#include <malloc.h>
#endif

size_t MallocStats_allocatedBytes(void) {
#if defined(__linux__)
    struct mallinfo2 info = mallinfo2();
    // Large blocks (a store's hash table, its heap) are mapped apart and counted in hblkhd.
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}
