#pragma once

// The intra-op threads of the two pools a training step runs on.
//
// LibTorch's pool (at::set_num_threads) does not reach the pthreads
// OpenBLAS that Debian's LibTorch calls for its matrix products: that one
// keeps a worker per core, whatever `--threads` says, and its idle workers
// spin. Two runs of `--threads 1` side by side on two cores were four
// spinning threads, and a run's bits depended on the machine's core count
// (threaded sgemm sums in another order; docs/BENCHMARKS.md, "Freed tensor
// memory and OpenBLAS's idle threads").

namespace synaptic::engine {

// Sets LibTorch's intra-op threads to `threads` (≥ 1) and OpenBLAS's pool
// to the same, unless the environment names OpenBLAS's count itself
// (OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or OMP_NUM_THREADS, which
// OpenBLAS read when it loaded): then it stays as set there, which is how
// a run made before this was tied is reproduced. Call it where a run
// starts, as at::set_num_threads was; it does nothing to OpenBLAS when the
// BLAS loaded is another one.
// `blas` > 0 asks for another OpenBLAS pool than `threads` (a rerun of a
// recording made with one).
void setComputeThreads(int threads, int blas = 0);

// OpenBLAS's pool now; 0 when the BLAS that LibTorch calls is not OpenBLAS.
int blasThreads();

// Whether the environment fixes OpenBLAS's pool (see setComputeThreads).
bool blasThreadsFromEnvironment();

} // namespace synaptic::engine
