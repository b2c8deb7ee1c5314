// setComputeThreads on the real OpenBLAS that Debian's LibTorch calls:
// `--threads N` reaches OpenBLAS's pool too, unless the environment fixes
// that pool, and a matrix product's bits follow the pool
// (core/engine/compute_threads.h).
#include "core/engine/compute_threads.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <QTest>

#include <sched.h>

using namespace synaptic::engine;

class TestComputeThreads : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (blasThreads() == 0)
            QSKIP("the BLAS loaded is not OpenBLAS (Debian's alternatives: libblas.so.3)");
    }

    // Each function starts with no thread variables (ctest sets
    // OPENBLAS_NUM_THREADS=1). OpenBLAS read them when it loaded; what
    // counts now is whether setComputeThreads sees them set.
    void init() {
        for (const char *name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"})
            qunsetenv(name);
    }

    void threadsReachOpenBlas() {
        QVERIFY(!blasThreadsFromEnvironment());
        setComputeThreads(2);
        QCOMPARE(at::get_num_threads(), 2);
        QCOMPARE(blasThreads(), 2);
        setComputeThreads(1);
        QCOMPARE(at::get_num_threads(), 1);
        QCOMPARE(blasThreads(), 1);
        // OMP_NUM_THREADS is OpenMP's, not OpenBLAS's own: --threads wins.
        qputenv("OMP_NUM_THREADS", "2");
        QVERIFY(!blasThreadsFromEnvironment());
        setComputeThreads(1);
        QCOMPARE(blasThreads(), 1);
        setComputeThreads(0); // at least one
        QCOMPARE(at::get_num_threads(), 1);
        QCOMPARE(blasThreads(), 1);
    }

    void environmentKeepsItsPool() {
        setComputeThreads(2);
        for (const char *name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"}) {
            qputenv(name, "2");
            QVERIFY2(blasThreadsFromEnvironment(), name);
            setComputeThreads(1);
            QCOMPARE(at::get_num_threads(), 1);
            QVERIFY2(blasThreads() == 2, name);
            // A rerun restores its recording's pool whatever the environment says.
            QVERIFY(setBlasThreads(1));
            QVERIFY2(blasThreads() == 1, name);
            setBlasThreads(2);
            qunsetenv(name);
        }
        // OpenBLAS ignores zero and non-numbers; so does this.
        qputenv("OPENBLAS_NUM_THREADS", "0");
        QVERIFY(!blasThreadsFromEnvironment());
        qputenv("OPENBLAS_NUM_THREADS", "many");
        QVERIFY(!blasThreadsFromEnvironment());
        qunsetenv("OPENBLAS_NUM_THREADS");
    }

    void autoCountsTheCpusThisProcessMayUse() {
        QCOMPARE(resolveThreadCount(3), 3);
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        QCOMPARE(sched_getaffinity(0, sizeof allowed, &allowed), 0);
        QCOMPARE(resolveThreadCount(0), CPU_COUNT(&allowed));
        // Narrowed to one CPU (as taskset would), auto follows.
        cpu_set_t one;
        CPU_ZERO(&one);
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &allowed)) {
                CPU_SET(c, &one);
                break;
            }
        QCOMPARE(sched_setaffinity(0, sizeof one, &one), 0);
        const int narrowed = resolveThreadCount(0);
        sched_setaffinity(0, sizeof allowed, &allowed);
        QCOMPARE(narrowed, 1);
    }

    // Why the pool is recorded with a run: a product large enough for
    // OpenBLAS to split gives the same bits on one pool every time. (Whether
    // two pools differ depends on the kernel's split and is not asserted.)
    void oneProductOnOnePoolIsRepeatable() {
        auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
        const auto a = at::randn({512, 784}, gen), b = at::randn({784, 256}, gen);
        setComputeThreads(2);
        const auto first = at::mm(a, b);
        QVERIFY(at::equal(at::mm(a, b), first));
        setComputeThreads(1);
        const auto single = at::mm(a, b);
        QVERIFY(at::equal(at::mm(a, b), single));
        QVERIFY(at::allclose(single, first, 1e-4, 1e-3));
    }
};

QTEST_GUILESS_MAIN(TestComputeThreads)
#include "tst_compute_threads.moc"
