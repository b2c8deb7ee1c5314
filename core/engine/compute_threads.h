#pragma once

// The intra-op threads of the two pools a training step runs on.
//
// LibTorch's pool (at::set_num_threads) does not reach the pthreads
// OpenBLAS that Debian's LibTorch calls for its matrix products: that one
// keeps a worker per core, whatever `--threads` says, and its idle workers
// spin. Two runs of `--threads 1` side by side on two cores were four
// spinning threads, and a run's bits depended on the machine's core count
// (threaded sgemm sums in another order; docs/BENCHMARKS.md, "OpenBLAS's
// pool follows `--threads`").
//
// Threads: both settings are process-wide. Call these where a run starts,
// on the thread that will compute, never while another thread of the
// process is inside a BLAS call (the GUI's one training worker is joined
// before the next starts; live processes set it before they serve).

#include <string>

namespace synaptic::engine {

// The threads `requested` resolves to: itself when positive; for 0 (auto)
// the CPUs this process may run on (taskset, a container's cpuset), which
// OpenBLAS's own default counts too, not every core of the machine.
int resolveThreadCount(int requested);

// Sets LibTorch's intra-op threads to `threads` (at least 1) and OpenBLAS's
// pool to the same, unless OPENBLAS_NUM_THREADS or GOTO_NUM_THREADS names
// OpenBLAS's count (it read them when it loaded): then it keeps that, which
// is how a run made before the tie is reproduced. (OMP_NUM_THREADS, which
// OpenBLAS also reads, is not OpenBLAS's own: an explicit `--threads` wins
// over it.) Does nothing to OpenBLAS when the BLAS loaded is another one.
void setComputeThreads(int threads);

// Sets OpenBLAS's pool to `threads` whatever the environment says: a rerun
// restoring its recording's pool. False when the BLAS is not OpenBLAS.
bool setBlasThreads(int threads);

// OpenBLAS's pool now; 0 when the BLAS that LibTorch calls is not OpenBLAS.
int blasThreads();

// Whether the environment fixes OpenBLAS's pool (see setComputeThreads).
bool blasThreadsFromEnvironment();

// "OPENBLAS_NUM_THREADS=2 " (each of the two variables that is set), or "":
// what a benchmark's reproduce line starts with, since the bits follow the
// pool those set.
std::string blasEnvironmentPrefix();

} // namespace synaptic::engine
