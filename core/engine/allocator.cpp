#include "allocator.h"

#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace synaptic::engine {

bool keepFreedTensorMemory() {
    if (std::getenv("SYNAPTIC_MALLOC_DEFAULTS"))
        return false;
#if defined(__GLIBC__)
    // Setting the mmap threshold also stops glibc from moving it (and the
    // trim threshold with it) on its own. Both are needed: with either
    // alone a tst_invariants run took as long as with neither.
    constexpr int kMmapThreshold = 32 << 20;
    constexpr int kTrimThreshold = 64 << 20;
    return mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
#else
    return false;
#endif
}

void releaseFreedTensorMemory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace synaptic::engine
