// The engine-to-observer queue: bounded, drops oldest (and counts), keeps
// order, and loses nothing else while a real consumer thread drains it.
#include "core/engine/events/bounded_queue.h"

#include <QTest>

#include <atomic>
#include <thread>

using namespace synaptic::engine;

class TestBoundedQueue : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dropsOldestWhenFull() {
        BoundedQueue<int> q(3);
        QVERIFY(q.push(1));
        QVERIFY(q.push(2));
        QVERIFY(q.push(3));
        QVERIFY(!q.push(4)); // 1 is dropped
        QCOMPARE(q.size(), std::size_t(3));
        QCOMPARE(q.dropped(), std::uint64_t(1));
        QCOMPARE(q.drain(), (std::vector<int>{2, 3, 4}));
        QCOMPARE(q.size(), std::size_t(0));
        QVERIFY(q.drain().empty());
    }

    void concurrentConsumerLosesOnlyCountedItems() {
        BoundedQueue<std::uint64_t> q(64);
        constexpr std::uint64_t kItems = 200000;
        std::atomic<bool> done{false};
        std::vector<std::uint64_t> received;
        std::thread consumer([&] {
            while (!done || q.size() > 0) {
                auto batch = q.drain();
                received.insert(received.end(), batch.begin(), batch.end());
                std::this_thread::yield();
            }
        });
        for (std::uint64_t i = 0; i < kItems; ++i)
            q.push(i);
        done = true;
        consumer.join();
        QCOMPARE(q.pushed(), kItems);
        QCOMPARE(std::uint64_t(received.size()) + q.dropped(), kItems);
        // Strictly increasing: nothing duplicated or reordered.
        for (std::size_t i = 1; i < received.size(); ++i)
            QVERIFY(received[i] > received[i - 1]);
        QCOMPARE(received.back(), kItems - 1); // the newest is never dropped
    }

    void zeroCapacityRefused() { QVERIFY_THROWS_EXCEPTION(std::invalid_argument, BoundedQueue<int>(0)); }
};

QTEST_APPLESS_MAIN(TestBoundedQueue)
#include "tst_bounded_queue.moc"
