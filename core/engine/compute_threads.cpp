#include "compute_threads.h"

#include <ATen/Parallel.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

namespace synaptic::engine {

namespace {

// Looked up at run time: the BLAS is chosen by Debian's alternatives
// (libblas.so.3), so OpenBLAS may not be the one loaded, and linking it
// directly would pull it in even where another BLAS is configured.
using SetThreads = void (*)(int);
using GetThreads = int (*)();

SetThreads openblasSet() {
    static const auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    return fn;
}

GetThreads openblasGet() {
    static const auto fn = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return fn;
}

bool positiveEnv(const char *name) {
    const char *v = std::getenv(name);
    return v && std::atoi(v) > 0; // OpenBLAS ignores zero, negative and non-numbers the same way
}

} // namespace

bool blasThreadsFromEnvironment() {
    return positiveEnv("OPENBLAS_NUM_THREADS") || positiveEnv("GOTO_NUM_THREADS") || positiveEnv("OMP_NUM_THREADS");
}

void setComputeThreads(int threads, int blas) {
    threads = std::max(1, threads);
    at::set_num_threads(threads);
    if (blasThreadsFromEnvironment())
        return;
    const int want = blas > 0 ? blas : threads;
    const auto set = openblasSet();
    const auto get = openblasGet();
    if (set && get && get() != want)
        set(want);
}

int blasThreads() {
    const auto get = openblasGet();
    return get ? get() : 0;
}

} // namespace synaptic::engine
