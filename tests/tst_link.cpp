// Link queueing arithmetic (DESIGN.md §3): a 400 KB message on a 100 Mb/s
// link occupies it 32 ms; messages queue FIFO behind each other; latency is
// added after the last bit; loss is seeded and still occupies the link.
#include "core/engine/sim/link.h"

#include <QTest>

using namespace synaptic::engine;

class TestLink : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void arithmetic_data() {
        QTest::addColumn<double>("latency");
        QTest::addColumn<double>("bandwidth");
        QTest::addColumn<double>("sendAt");
        QTest::addColumn<qulonglong>("bytes");
        QTest::addColumn<double>("arrival");
        // The design's example plus the default config's two link kinds.
        QTest::newRow("400 KB @ 100 Mb/s, 40 ms") << 0.040 << 100e6 << 0.0 << 400'000ull << 0.032 + 0.040;
        QTest::newRow("400 KB @ 1 Gb/s, 1 ms") << 0.001 << 1e9 << 0.0 << 400'000ull << 0.0032 + 0.001;
        QTest::newRow("sent later") << 0.040 << 100e6 << 2.5 << 1'250ull << 2.5 + 0.0001 + 0.040;
        QTest::newRow("empty message: latency only") << 0.010 << 1e6 << 1.0 << 0ull << 1.010;
    }
    void arithmetic() {
        QFETCH(double, latency);
        QFETCH(double, bandwidth);
        QFETCH(double, sendAt);
        QFETCH(qulonglong, bytes);
        QFETCH(double, arrival);
        Link link({latency, bandwidth, 0.0, true});
        const auto got = link.send(sendAt, bytes);
        QVERIFY(got.has_value());
        QVERIFY2(qAbs(*got - arrival) < 1e-12, qPrintable(QString::number(*got, 'g', 17)));
        QCOMPARE(link.bytesSent(), quint64(bytes));
    }

    void fifoQueueing() {
        Link link({0.040, 100e6, 0.0, true});
        // Three 400 KB messages at t=0: the link is busy 32 ms with each.
        QCOMPARE(*link.send(0.0, 400'000), 0.072);
        QVERIFY(qAbs(*link.send(0.0, 400'000) - 0.104) < 1e-12);
        QVERIFY(qAbs(*link.send(0.010, 400'000) - 0.136) < 1e-12);
        QVERIFY(qAbs(link.busyUntil() - 0.096) < 1e-12);
        // After the queue drains, a new message starts at once.
        QVERIFY(qAbs(*link.send(1.0, 400'000) - 1.072) < 1e-12);
        QCOMPARE(link.messagesSent(), quint64(4));
    }

    void downLinkSendsNothing() {
        Link link({0.001, 1e9, 0.0, false});
        QVERIFY(!link.send(0.0, 1000).has_value());
        QCOMPARE(link.bytesSent(), quint64(0));
        QCOMPARE(link.busyUntil(), 0.0);
        LinkSpec up = link.spec();
        up.up = true;
        link.setSpec(up);
        QVERIFY(link.send(0.0, 1000).has_value());
    }

    void lossIsSeededAndOccupiesTheLink() {
        Link a({0.001, 1e9, 0.3, true}, 42);
        Link b({0.001, 1e9, 0.3, true}, 42);
        int lostA = 0;
        for (int i = 0; i < 10000; ++i) {
            const auto ra = a.send(0.0, 100);
            const auto rb = b.send(0.0, 100);
            QCOMPARE(ra.has_value(), rb.has_value()); // same seed, same fate
            lostA += ra.has_value() ? 0 : 1;
        }
        QVERIFY2(lostA > 2800 && lostA < 3200, qPrintable(QString::number(lostA)));
        QCOMPARE(a.messagesLost(), quint64(lostA));
        // Lost messages were transmitted: the link stayed busy for all 10,000.
        QVERIFY(qAbs(a.busyUntil() - 10000 * 100 * 8 / 1e9) < 1e-9);
    }

    void badSpecsRefused() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Link({0.001, 0.0, 0.0, true}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Link({-0.001, 1e9, 0.0, true}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Link({0.001, 1e9, 1.5, true}));
        Link link;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, link.setSpec({std::nan(""), 1e9, 0.0, true}));
        QCOMPARE(link.spec().latencySeconds, 0.001); // unchanged
    }
};

QTEST_APPLESS_MAIN(TestLink)
#include "tst_link.moc"
