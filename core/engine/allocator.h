#pragma once

// How the process's C library allocator treats freed tensor memory.
//
// Each training step allocates and frees the same activation and gradient
// buffers (megabytes each). With glibc's defaults those blocks went back to
// the kernel on free (munmap, or a heap trimmed past its threshold) and came
// back as fresh zeroed pages on the next step: on this project's VM a
// simulated run of the test suite spent as long in page faults as in
// training (docs/BENCHMARKS.md, "Freed tensor memory and OpenBLAS's idle
// threads").

namespace synaptic::engine {

// Call at the top of main(), before other threads start (glibc marks
// mallopt MT-Unsafe; the tests call it first thing in initTestCase).
// Blocks below 32 MiB (glibc's largest threshold on 64-bit) then come from
// the heap instead of their own mappings, and a heap keeps up to 64 MiB
// free at its top instead of trimming it. Freed memory below a block still
// in use also stays, until releaseFreedTensorMemory(). Returns whether the
// setting took: false where the allocator is not glibc's (a sanitizer's
// refuses it), or where SYNAPTIC_MALLOC_DEFAULTS is set to anything (keeps
// glibc's defaults, which is how the benchmark measures the difference).
// An allocator preloaded in glibc's place (jemalloc, tcmalloc) may accept
// the call and ignore it.
bool keepFreedTensorMemory();

// Hands every heap's free pages back to the kernel (malloc_trim). For a
// long-lived process once a run has ended, so memory a finished run kept
// for its next step does not stay resident while the app sits idle.
void releaseFreedTensorMemory();

} // namespace synaptic::engine
