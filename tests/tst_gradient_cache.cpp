// push_gradient and the aggregation window: accepted pushes merge into one
// mean per shard; wrong shapes, NaN/Inf, future and too-stale versions are
// refused, counted, and leave the pending merge untouched.
#include "core/engine/synapse/gradient_cache.h"

#include <torch/types.h>

#include <QTest>

using namespace synaptic::engine;
using Push = GradientCache::PushResult;

class TestGradientCache : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mergesMeanPerShard() {
        GradientCache cache({4, 2}, 4);
        cache.setCachedVersion(0, 10);
        cache.setCachedVersion(1, 3);
        QCOMPARE(cache.pushGradient(0, torch::tensor({1.f, 2.f, 3.f, 4.f}), 10), Push::Accepted);
        QCOMPARE(cache.pushGradient(0, torch::tensor({3.f, 2.f, 1.f, 0.f}), 9), Push::Accepted);
        QCOMPARE(cache.pushGradient(0, torch::tensor({2.f, 2.f, 2.f, 2.f}), 10), Push::Accepted);
        QVERIFY(!cache.empty());
        const auto merged = cache.flush();
        QCOMPARE(merged.size(), std::size_t(1)); // shard 1 got nothing
        QCOMPARE(merged[0].shard, 0);
        QCOMPARE(merged[0].contributions, 3);
        QCOMPARE(merged[0].baseVersion, std::uint64_t(9));
        QVERIFY(torch::allclose(merged[0].mean, torch::tensor({2.f, 2.f, 2.f, 2.f})));
        QVERIFY(cache.empty());
        QVERIFY(cache.flush().empty()); // the window really closed
        QCOMPARE(cache.accepted(), std::uint64_t(3));
    }

    void heldShardCountsTheWindowsItSpans() {
        GradientCache cache({2, 2});
        for (int window = 0; window < 3; ++window) {
            QCOMPARE(cache.pushGradient(0, torch::tensor({1.f, 1.f}), 0), Push::Accepted);
            QCOMPARE(cache.pushGradient(1, torch::tensor({float(window), 0.f}), 0), Push::Accepted);
            if (window < 2) {
                const auto sent = cache.flushExcept({false, true}); // shard 1 waits for a slow owner
                QCOMPARE(sent.size(), std::size_t(1));
                QCOMPARE(sent[0].windows, 1);
            }
        }
        const auto merged = cache.flush();
        QCOMPARE(merged.size(), std::size_t(2));
        QCOMPARE(merged[0].windows, 1);
        QCOMPARE(merged[1].windows, 3);
        QCOMPARE(merged[1].contributions, 3);
        QVERIFY(torch::allclose(merged[1].mean, torch::tensor({1.f, 0.f})));
        // Flushed, the count starts over.
        QCOMPARE(cache.pushGradient(1, torch::tensor({1.f, 1.f}), 0), Push::Accepted);
        QCOMPARE(cache.flush()[0].windows, 1);
    }

    void pushedTensorIsCopied() {
        GradientCache cache({3});
        auto g = torch::ones({3});
        QCOMPARE(cache.pushGradient(0, g, 0), Push::Accepted);
        g.fill_(100.f); // the trainer reuses its buffers
        QVERIFY(torch::allclose(cache.flush()[0].mean, torch::ones({3})));
    }

    void refusals_data() {
        QTest::addColumn<int>("shard");
        QTest::addColumn<int>("size");
        QTest::addColumn<float>("poison");
        QTest::addColumn<qulonglong>("version");
        QTest::addColumn<int>("expected");
        // The edge caches version 10; staleness limit 4.
        QTest::newRow("unknown shard") << 5 << 4 << 0.f << 10ull << int(Push::UnknownShard);
        QTest::newRow("wrong size") << 0 << 3 << 0.f << 10ull << int(Push::WrongShape);
        QTest::newRow("NaN") << 0 << 4 << std::nanf("") << 10ull << int(Push::NonFinite);
        QTest::newRow("infinity") << 0 << 4 << INFINITY << 10ull << int(Push::NonFinite);
        QTest::newRow("from the future") << 0 << 4 << 0.f << 11ull << int(Push::FutureVersion);
        QTest::newRow("too stale") << 0 << 4 << 0.f << 5ull << int(Push::Stale);
        QTest::newRow("stale but within limit") << 0 << 4 << 0.f << 6ull << int(Push::Accepted);
    }
    void refusals() {
        QFETCH(int, shard);
        QFETCH(int, size);
        QFETCH(float, poison);
        QFETCH(qulonglong, version);
        QFETCH(int, expected);
        GradientCache cache({4}, 4);
        cache.setCachedVersion(0, 10);
        QCOMPARE(cache.pushGradient(0, torch::ones({4}), 10), Push::Accepted); // a good one pending
        auto g = torch::full({size}, 5.f);
        if (poison != 0.f)
            g[1] = poison;
        QCOMPARE(int(cache.pushGradient(shard, g, version)), expected);
        const auto merged = cache.flush();
        QCOMPARE(merged.size(), std::size_t(1));
        if (expected == int(Push::Accepted)) {
            QCOMPARE(merged[0].contributions, 2);
        } else {
            // The refused push changed nothing: the pending merge is the good one.
            QCOMPARE(merged[0].contributions, 1);
            QVERIFY(torch::allclose(merged[0].mean, torch::ones({4})));
            QCOMPARE(cache.rejected(), std::uint64_t(1));
        }
    }

    void versionsOnlyMoveForward() {
        GradientCache cache({2});
        cache.setCachedVersion(0, 5);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, cache.setCachedVersion(0, 4));
        QCOMPARE(cache.cachedVersion(0), std::uint64_t(5));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cache.setCachedVersion(3, 1));
    }
};

QTEST_APPLESS_MAIN(TestGradientCache)
#include "tst_gradient_cache.moc"
