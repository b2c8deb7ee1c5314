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
// function that runs at length what shorter functions of its file mostly
// run sanitized too starts with SYNAPTIC_SKIP_UNDER_SANITIZERS(): the
// default run still runs it, and SYNAPTIC_LONG_TESTS runs it sanitized as
// well (docs/RELIABILITY.md, "Sanitizers", says what it alone covers).
#if defined(__SANITIZE_ADDRESS__)
#define SYNAPTIC_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYNAPTIC_SANITIZED_BUILD 1
#endif
#endif

#ifdef SYNAPTIC_SANITIZED_BUILD
#define SYNAPTIC_SKIP_UNDER_SANITIZERS()                                                                           \
    do {                                                                                                           \
        if (!synaptic::test::longTestsEnabled())                                                                   \
            QSKIP("sanitized build: long; SYNAPTIC_LONG_TESTS=1 runs it here, the default run runs it unsanitized"); \
    } while (false)
#else
#define SYNAPTIC_SKIP_UNDER_SANITIZERS()                                                                           \
    do {                                                                                                           \
    } while (false)
#endif
