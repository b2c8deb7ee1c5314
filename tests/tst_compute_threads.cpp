// setComputeThreads on the real OpenBLAS that Debian's LibTorch calls:
// `--threads N` reaches OpenBLAS's pool too, unless the environment fixes
// that pool, and a matrix product's bits follow the pool
// (core/engine/compute_threads.h).
#include "core/engine/compute_threads.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <QTest>

using namespace synaptic::engine;

class TestComputeThreads : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (blasThreads() == 0)
            QSKIP("the BLAS loaded is not OpenBLAS (Debian's alternatives: libblas.so.3)");
    }

    void threadsReachOpenBlas() {
        // OpenBLAS read the environment when it loaded; what counts now is
        // whether setComputeThreads sees it set.
        qunsetenv("OPENBLAS_NUM_THREADS");
        qunsetenv("GOTO_NUM_THREADS");
        qunsetenv("OMP_NUM_THREADS");
        QVERIFY(!blasThreadsFromEnvironment());
        setComputeThreads(2);
        QCOMPARE(at::get_num_threads(), 2);
        QCOMPARE(blasThreads(), 2);
        setComputeThreads(1);
        QCOMPARE(at::get_num_threads(), 1);
        QCOMPARE(blasThreads(), 1);
        // A rerun asks for its recording's pool.
        setComputeThreads(1, 2);
        QCOMPARE(at::get_num_threads(), 1);
        QCOMPARE(blasThreads(), 2);
        setComputeThreads(0); // at least one
        QCOMPARE(at::get_num_threads(), 1);
        QCOMPARE(blasThreads(), 1);
    }

    void environmentKeepsItsPool() {
        setComputeThreads(2);
        for (const char *name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"}) {
            qputenv(name, "2");
            QVERIFY2(blasThreadsFromEnvironment(), name);
            setComputeThreads(1);
            QCOMPARE(at::get_num_threads(), 1);
            QVERIFY2(blasThreads() == 2, name);
            qunsetenv(name);
        }
        // OpenBLAS ignores zero and non-numbers; so does this.
        qputenv("OPENBLAS_NUM_THREADS", "0");
        QVERIFY(!blasThreadsFromEnvironment());
        qputenv("OPENBLAS_NUM_THREADS", "many");
        QVERIFY(!blasThreadsFromEnvironment());
        qunsetenv("OPENBLAS_NUM_THREADS");
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
