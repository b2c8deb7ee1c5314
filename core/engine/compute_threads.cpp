#include "compute_threads.h"

#include <ATen/Parallel.h>

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

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

int resolveThreadCount(int requested) {
    if (requested > 0)
        return requested;
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0)
        return CPU_COUNT(&allowed);
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
}

bool blasThreadsFromEnvironment() { return positiveEnv("OPENBLAS_NUM_THREADS") || positiveEnv("GOTO_NUM_THREADS"); }

bool setBlasThreads(int threads) {
    const auto set = openblasSet();
    const auto get = openblasGet();
    if (!set || !get)
        return false;
    threads = std::max(1, threads);
    if (get() != threads)
        set(threads);
    return true;
}

void setComputeThreads(int threads) {
    threads = std::max(1, threads);
    at::set_num_threads(threads);
    if (!blasThreadsFromEnvironment())
        setBlasThreads(threads);
}

std::string blasEnvironmentPrefix() {
    std::string prefix;
    for (const char *name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"})
        if (const char *v = std::getenv(name); v && *v)
            prefix += std::string(name) + '=' + v + ' ';
    return prefix;
}

int blasThreads() {
    const auto get = openblasGet();
    return get ? get() : 0;
}

} // namespace synaptic::engine
