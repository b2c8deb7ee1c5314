#pragma once

// Test functions too slow for the default run. CI runs `ctest -LE long`
// within its time bound; a function that takes tens of seconds and checks
// again, at length, what a shorter function of the same file already
// checks, starts with SYNAPTIC_LONG_TEST() and runs only when
// SYNAPTIC_LONG_TESTS is set. ctest's `<file>_long` entry (label `long`,
// added by synaptic_add_long_entry in tests/CMakeLists.txt) runs the whole
// file with it set: `scripts/test --long` or `ctest -L long`.

#include <QtGlobal>
#include <QtTest/QTest>

namespace synaptic::test {

inline bool longTestsEnabled() { return qEnvironmentVariableIsSet("SYNAPTIC_LONG_TESTS"); }

} // namespace synaptic::test

#define SYNAPTIC_LONG_TEST()                                                                                       \
    do {                                                                                                           \
        if (!synaptic::test::longTestsEnabled())                                                                   \
            QSKIP("long: runs in this file's _long ctest entry (ctest -L long, scripts/test --long)");              \
    } while (false)

// Under ASan + UBSan (scripts/test-asan: -O0, CI's second stage) a
// simulation runs about ten times slower than in the default run. A
// function that runs at length the same simulation a shorter function of
// its file already runs sanitized starts with
// SYNAPTIC_SKIP_UNDER_SANITIZERS(): the default run still runs it, and the
// sanitizers still see that code through the shorter function.
#if defined(__SANITIZE_ADDRESS__)
#define SYNAPTIC_SKIP_UNDER_SANITIZERS()                                                                           \
    QSKIP("sanitized build: this file's shorter simulations cover the same code; the default run runs this one")
#else
#define SYNAPTIC_SKIP_UNDER_SANITIZERS()                                                                           \
    do {                                                                                                           \
    } while (false)
#endif
