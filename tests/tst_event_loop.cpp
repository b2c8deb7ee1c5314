// The virtual clock: time order, FIFO among equal times, events scheduled by
// events, runUntil boundaries, and refusal to schedule in the past.
#include "core/engine/sim/event_loop.h"

#include <QTest>

using namespace synaptic::engine;

class TestEventLoop : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void timeOrderAndTies() {
        EventLoop loop;
        std::vector<int> order;
        loop.at(2.0, [&] { order.push_back(3); });
        loop.at(1.0, [&] { order.push_back(1); });
        loop.at(1.0, [&] { order.push_back(2); }); // same time: after the first scheduled
        loop.at(5.0, [&] { order.push_back(4); });
        QCOMPARE(loop.runUntil(3.0), std::size_t(3));
        QCOMPARE(order, (std::vector<int>{1, 2, 3}));
        QCOMPARE(loop.now(), 3.0);
        QCOMPARE(loop.pending(), std::size_t(1));
        QVERIFY(loop.step());
        QCOMPARE(loop.now(), 5.0);
        QVERIFY(!loop.step());
    }

    void eventsScheduleEvents() {
        EventLoop loop;
        std::vector<double> times;
        std::function<void()> tick = [&] {
            times.push_back(loop.now());
            if (times.size() < 5)
                loop.after(0.25, tick);
        };
        loop.at(0.0, tick);
        loop.runUntil(100.0);
        QCOMPARE(times, (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
        QCOMPARE(loop.now(), 100.0);
    }

    void inclusiveBoundary() {
        EventLoop loop;
        bool ran = false;
        loop.at(1.0, [&] { ran = true; });
        loop.runUntil(1.0);
        QVERIFY(ran);
    }

    void noSchedulingInThePast() {
        EventLoop loop;
        loop.runUntil(10.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loop.at(9.0, [] {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loop.at(std::nan(""), [] {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loop.after(-1.0, [] {}));
        QVERIFY(loop.empty());
    }
};

QTEST_APPLESS_MAIN(TestEventLoop)
#include "tst_event_loop.moc"
