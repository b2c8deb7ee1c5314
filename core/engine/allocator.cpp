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
    // Setting either value stops glibc from moving both on its own, so
    // both are set: with only the trim threshold, the mmap threshold stays
    // at 128 KiB and every step buffer gets its own mapping (a
    // tst_invariants run took 2.4x as long as with neither); with only the
    // mmap threshold, the trim threshold stays wherever glibc last moved
    // it, and a freed buffer at the heap's top still goes back (no gain).
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
