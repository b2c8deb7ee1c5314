#!/usr/bin/env bash
# Builds tests/fuzz/session_reader_fuzz with clang++ (libFuzzer + ASan +
# UBSan) in BUILD_DIR, incrementally, and fuzzes the session reader for a
# bounded time over the checked-in seed corpus. Exit status: 0 clean, 77
# skipped (no clang++ or no libFuzzer runtime), anything else a build failure
# or a finding (crash, sanitizer report, timeout, out of memory; the input is
# saved under BUILD_DIR/artifacts/).
#
#   tests/fuzz/run_fuzz.sh [BUILD_DIR] [extra libFuzzer flags...]
#
# Environment:
#   SYNAPTIC_FUZZ_SECONDS  how long to fuzz (default 60)
#   SYNAPTIC_FUZZ_CXX      the compiler (default clang++)
#   SYNAPTIC_FUZZ_JOBS     build parallelism (default 2)
#   SYNAPTIC_FUZZ_KEEP_CORPUS=1  start from the inputs earlier runs found
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../../build/fuzz}
shift || true
seconds=${SYNAPTIC_FUZZ_SECONDS:-60}
cxx=${SYNAPTIC_FUZZ_CXX:-clang++}
jobs=${SYNAPTIC_FUZZ_JOBS:-2}
skip=77

if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "SKIPPED: $cxx not found; the fuzz test needs clang (Debian: apt-get install clang libclang-rt-14-dev)"
    exit $skip
fi
mkdir -p "$build"
build=$(cd "$build" && pwd)

# Can this clang link a libFuzzer target? (libclang-rt-NN-dev holds the runtime.)
probe="$build/probe-$($cxx --version | head -n1 | tr -c 'A-Za-z0-9.\n' '_')"
if [ ! -e "$probe.ok" ]; then
    printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }\n' >"$probe.cpp"
    if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe.cpp" -o "$probe" >"$probe.log" 2>&1; then
        echo "SKIPPED: $cxx cannot link a libFuzzer target (Debian: apt-get install libclang-rt-14-dev):"
        cat "$probe.log"
        exit $skip
    fi
    touch "$probe.ok"
fi

# Configure once; ninja (or make) then rebuilds only what changed, and re-runs
# cmake itself when tests/fuzz/CMakeLists.txt changes.
if [ ! -e "$build/CMakeCache.txt" ]; then
    options=(-DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=)
    command -v ninja >/dev/null 2>&1 && options+=(-G Ninja)
    command -v ccache >/dev/null 2>&1 && options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    cmake -S "$here" -B "$build" "${options[@]}" >"$build/configure.log" 2>&1 ||
        { cat "$build/configure.log"; exit 1; }
fi
start=$(date +%s)
cmake --build "$build" -j "$jobs"
echo "fuzz target up to date ($(( $(date +%s) - start )) s)"

# libFuzzer writes new inputs to the first folder and only reads the
# checked-in seeds. The first folder starts empty each time, so a run's
# length stays what SYNAPTIC_FUZZ_SECONDS says (replaying a grown corpus
# happens before the clock counts); SYNAPTIC_FUZZ_KEEP_CORPUS=1 keeps it, for
# long runs that build on earlier ones.
if [ "${SYNAPTIC_FUZZ_KEEP_CORPUS:-0}" != 1 ]; then
    rm -rf "$build/corpus"
fi
mkdir -p "$build/corpus" "$build/artifacts"
cd "$build"
echo "fuzzing the session reader for $seconds s (SYNAPTIC_FUZZ_SECONDS)"
set +e
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
"$build/session_reader_fuzz" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -dict="$here/session_reader.dict" \
    -artifact_prefix="$build/artifacts/" \
    "$@" "$build/corpus" "$here/corpus/session_reader" 2>&1 |
    grep -v -E '^(#[0-9]+.*(NEW|REDUCE|pulse)|"|###### )' # progress and the recommended dictionary: noise in a CI log
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    echo "FAILED: session_reader_fuzz exited with $status; reproduce with:"
    echo "  $build/session_reader_fuzz $build/artifacts/<the crash-/timeout-/oom- file above>"
fi
exit "$status"
