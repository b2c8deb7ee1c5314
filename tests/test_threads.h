#pragma once

// LibTorch's intra-op threads for a test: `fallback` (2: this machine's
// cores), or SYNAPTIC_TEST_THREADS when set. ctest runs the CONCURRENT
// tests two at a time with 1 each (tests/CMakeLists.txt): two tests of two
// threads on two cores spin against each other's OpenMP workers and take
// longer side by side than one after the other. It also keeps freed
// tensor memory in the heap, as every Synaptic main() does
// (core/engine/allocator.h): the simulations take about a third of the time.
#include "core/engine/allocator.h"

#include <ATen/Parallel.h>

#include <QtGlobal>

inline void setTestThreads(int fallback = 2) {
    synaptic::engine::keepFreedTensorMemory();
    bool ok = false;
    const int n = qEnvironmentVariableIntValue("SYNAPTIC_TEST_THREADS", &ok);
    at::set_num_threads(ok && n > 0 ? n : fallback);
}
