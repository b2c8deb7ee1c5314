// The flood guard's budget belongs to the calling host, not to one
// connection (issue 13 §8): a new connection from the same address gets
// no fresh budget, another host does, and idle buckets do not pile up.
#include "core/rpc/live/flood_guard.h"

#include <QTest>

#include <string>
#include <thread>

using synaptic::rpc::FloodGuard;

class TestFloodGuard : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void hostDropsThePort() {
        QCOMPARE(FloodGuard::hostOf("ipv4:10.0.0.5:43120"), std::string("ipv4:10.0.0.5"));
        QCOMPARE(FloodGuard::hostOf("ipv6:[::1]:5000"), std::string("ipv6:[::1]"));
        QCOMPARE(FloodGuard::hostOf("ipv6:%5B::1%5D:5000"), std::string("ipv6:%5B::1%5D"));
        QCOMPARE(FloodGuard::hostOf("unix:/tmp/node.sock"), std::string("unix:/tmp/node.sock"));
        QCOMPARE(FloodGuard::hostOf("ipv4:10.0.0.5"), std::string("ipv4:10.0.0.5"));
    }

    void aNewConnectionBuysNoFreshBudget() {
        FloodGuard guard(0.001, 3); // refills one call in 1,000 s: nothing refills during the test
        QVERIFY(guard.allow("ipv4:127.0.0.1:40001"));
        QVERIFY(guard.allow("ipv4:127.0.0.1:40002"));
        QVERIFY(guard.allow("ipv4:127.0.0.1:40003"));
        QVERIFY(!guard.allow("ipv4:127.0.0.1:40004")); // same host, fourth connection: over
        QVERIFY(!guard.allow("ipv4:127.0.0.1:40001"));
        QVERIFY(guard.allow("ipv4:127.0.0.2:40001")); // another host has its own budget
    }

    void theBudgetRefills() {
        FloodGuard guard(1000, 1);
        QVERIFY(guard.allow("ipv4:127.0.0.1:1"));
        QVERIFY(!guard.allow("ipv4:127.0.0.1:1"));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        QVERIFY(guard.allow("ipv4:127.0.0.1:1"));
    }

    void refilledBucketsAreDropped() {
        FloodGuard guard(1e6, 1); // every bucket refills within a microsecond
        for (int i = 0; i < int(FloodGuard::kMaxBuckets) * 3; ++i)
            QVERIFY(guard.allow("ipv4:10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ":9"));
        QVERIFY2(guard.buckets() <= FloodGuard::kMaxBuckets, qPrintable(QString::number(guard.buckets())));
        FloodGuard busy(0.001, 2); // nothing refills: the longest idle goes
        for (int i = 0; i < int(FloodGuard::kMaxBuckets) + 10; ++i)
            busy.allow("ipv4:10.2." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ":9");
        QCOMPARE(busy.buckets(), FloodGuard::kMaxBuckets);
        // The newest host kept its spent budget; the first one was dropped.
        const int last = int(FloodGuard::kMaxBuckets) + 9;
        const std::string newest = "ipv4:10.2." + std::to_string(last / 256) + "." + std::to_string(last % 256) + ":9";
        QVERIFY(busy.allow(newest));
        QVERIFY(!busy.allow(newest));
    }
};

QTEST_GUILESS_MAIN(TestFloodGuard)
#include "tst_flood_guard.moc"
