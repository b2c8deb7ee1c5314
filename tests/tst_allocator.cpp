// keepFreedTensorMemory (core/engine/allocator.h): after it, a block of a
// training step's size comes from the heap instead of its own mapping, and
// freeing it leaves the memory in the heap for the next step instead of
// handing it back to the kernel (the page faults that saves are measured in
// docs/BENCHMARKS.md, "Freed tensor memory and OpenBLAS's idle
// threads").
// releaseFreedTensorMemory hands it back when asked. With
// SYNAPTIC_MALLOC_DEFAULTS set, keepFreedTensorMemory changes nothing,
// which is how the benchmark measures glibc's own way.
#include "core/engine/allocator.h"

#include <QScopeGuard>
#include <QTest>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// ASan brings its own allocator, which these knobs do not reach.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZER_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZER_ALLOCATOR 1
#endif
#if defined(__GLIBC__) && !defined(SANITIZER_ALLOCATOR)
#define GLIBC_ALLOCATOR 1
#include <malloc.h> // mallinfo2: glibc 2.33 or later
#include <unistd.h>
#endif

class TestAllocator : public QObject {
    Q_OBJECT

#if defined(GLIBC_ALLOCATOR)
    bool m_tuned = false; // glibc's defaults can be seen only before the first call

    // Allocates `count` blocks of `bytes`, writing every page so they are
    // really taken, then frees them all. Returns how many of them had
    // their own mapping, and how many bytes the heaps shrank by at the free.
    struct Trace {
        std::size_t mapped = 0;
        std::size_t heapReturned = 0;
    };
    static Trace allocateAndFree(std::size_t bytes, int count = 1) {
        const std::size_t mappedBefore = mallinfo2().hblks;
        std::vector<char *> blocks;
        blocks.reserve(std::size_t(count)); // below the blocks: nothing may sit above them at the free
        for (int i = 0; i < count; ++i) {
            auto *block = static_cast<char *>(std::malloc(bytes));
            if (!block)
                qFatal("malloc(%zu) failed", bytes);
            std::memset(block, 1, bytes);
            // Without this GCC drops the malloc, memset and free as unobserved.
            asm volatile("" : : "r"(block) : "memory");
            blocks.push_back(block);
        }
        Trace t;
        t.mapped = mallinfo2().hblks - mappedBefore;
        const std::size_t heapWhileHeld = mallinfo2().arena;
        for (char *block : blocks)
            std::free(block);
        const std::size_t heapAfter = mallinfo2().arena;
        t.heapReturned = heapWhileHeld > heapAfter ? heapWhileHeld - heapAfter : 0;
        return t;
    }

    static std::size_t residentBytes() {
        std::FILE *f = std::fopen("/proc/self/statm", "r");
        if (!f)
            qFatal("cannot read /proc/self/statm");
        unsigned long size = 0, resident = 0;
        const int read = std::fscanf(f, "%lu %lu", &size, &resident);
        std::fclose(f);
        if (read != 2)
            qFatal("cannot parse /proc/self/statm");
        return std::size_t(resident) * std::size_t(sysconf(_SC_PAGESIZE));
    }

    static bool mallocTunedFromOutside() {
        for (const char *name : {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                                 "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_", "SYNAPTIC_MALLOC_DEFAULTS"})
            if (std::getenv(name))
                return true;
        return false;
    }
#endif

private Q_SLOTS:
    void defaultsMapAStepSizedBlockAndTheOptOutKeepsThem() {
#if !defined(GLIBC_ALLOCATOR)
        QSKIP("not glibc's allocator: nothing to tune");
#else
        if (m_tuned || mallocTunedFromOutside())
            QSKIP("glibc's defaults are no longer in force in this process");
        constexpr std::size_t kStep = 6 << 20; // a 32-batch conv activation is 3-6 MiB
        const std::size_t mapped = allocateAndFree(kStep).mapped;
        if (mapped != 1)
            QSKIP("something freed a larger mapped block before this test: glibc already raised its threshold");
        {
            qputenv("SYNAPTIC_MALLOC_DEFAULTS", "1");
            const auto unset = qScopeGuard([] { qunsetenv("SYNAPTIC_MALLOC_DEFAULTS"); });
            QVERIFY(!synaptic::engine::keepFreedTensorMemory());
        }
        // glibc raised its own threshold after that free; a larger block
        // is still mapped: the opt-out really left the defaults alone.
        QCOMPARE(allocateAndFree(3 * kStep).mapped, std::size_t(1));
#endif
    }

    void stepSizedBlocksComeFromTheHeapAndStayThere() {
#if !defined(GLIBC_ALLOCATOR)
        QSKIP("not glibc's allocator: nothing to tune");
#else
        if (qEnvironmentVariableIsSet("SYNAPTIC_MALLOC_DEFAULTS"))
            QSKIP("SYNAPTIC_MALLOC_DEFAULTS is set: glibc's defaults were asked for");
        QVERIFY(synaptic::engine::keepFreedTensorMemory());
        m_tuned = true;
        // Above the threshold a block still gets its own mapping (while the
        // heap has no free space that large: the blocks below leave some).
        QCOMPARE(allocateAndFree(std::size_t(40) << 20).mapped, std::size_t(1));
        // Two blocks under the 32 MiB threshold: 48 MiB free at the heap's
        // top, more than glibc's own trim threshold after the first test's
        // 18 MiB block (36 MiB; 128 KiB if it was skipped) and less than the
        // 64 MiB set.
        constexpr std::size_t kBlock = 24 << 20;
        const Trace t = allocateAndFree(kBlock, 2);
        QCOMPARE(t.mapped, std::size_t(0));
        QCOMPARE(t.heapReturned, std::size_t(0));
        // And the memory the heap kept goes back when asked.
        const std::size_t freeBefore = mallinfo2().fordblks;
        QVERIFY2(freeBefore >= 2 * kBlock, qPrintable(QString("%1 bytes free in the heaps").arg(freeBefore)));
        // Resident memory, not the heap's size: malloc_trim gives free pages
        // inside a heap back without shrinking it.
        const std::size_t residentBefore = residentBytes();
        synaptic::engine::releaseFreedTensorMemory();
        const std::size_t residentAfter = residentBytes();
        QVERIFY2(residentAfter + kBlock < residentBefore,
                 qPrintable(QString("%1 bytes resident, %2 after the release").arg(residentBefore).arg(residentAfter)));
#endif
    }
};

QTEST_GUILESS_MAIN(TestAllocator)
#include "tst_allocator.moc"
