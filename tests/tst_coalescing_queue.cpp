// The engine-to-observer queue (DESIGN.md §5, issue 15 §5): a stalled
// observer never costs a state event (lease, routing, command), in order;
// metric samples are folded into the newest of their series, so per-link
// byte totals and serving counts stay exact; the engine thread never waits
// on a consumer.
#include "core/engine/sim/sim_event_samples.h"

#include "events_of.h"

#include <QTest>

#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

using namespace synaptic::engine;

namespace {

LinkBytesEvent linkBytes(double time, int from, int to, std::uint64_t bytes) {
    LinkBytesEvent l;
    l.time = time;
    l.interval = 0.1;
    l.from = from;
    l.to = to;
    l.bytes = bytes;
    return l;
}

LeaseEvent lease(double time, int edge, const char *mode, std::uint64_t epoch) {
    LeaseEvent l;
    l.time = time;
    l.edge = edge;
    l.mode = mode;
    l.epoch = epoch;
    return l;
}



} // namespace

class TestCoalescingQueue : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void belowCapacityNothingIsTouched() {
        SimEventQueue q(8);
        q.push(linkBytes(0.1, 1, 2, 100));
        q.push(lease(0.15, 1, "read_only", 1));
        q.push(linkBytes(0.2, 1, 2, 50));
        QCOMPARE(q.size(), std::size_t(3));
        const auto out = q.drain();
        QCOMPARE(out.size(), std::size_t(3));
        QCOMPARE(std::get<LinkBytesEvent>(out[0]).bytes, std::uint64_t(100));
        QVERIFY(std::holds_alternative<LeaseEvent>(out[1]));
        QCOMPARE(q.coalesced(), std::uint64_t(0));
        QCOMPARE(q.pushed(), std::uint64_t(3));
        QVERIFY(q.drain().empty());
    }

    void fullQueueFoldsSamplesAndKeepsEveryStateEvent() {
        SimEventQueue q(4);
        std::vector<SimEvent> pushed;
        auto push = [&](SimEvent e) {
            pushed.push_back(e);
            q.push(std::move(e));
        };
        for (int i = 0; i < 40; ++i) {
            push(linkBytes(0.1 * (i + 1), 1, 2, 1000 + std::uint64_t(i)));
            push(linkBytes(0.1 * (i + 1), 2, 0, 7));
            if (i % 5 == 0)
                push(lease(0.1 * (i + 1), i % 3, i % 2 ? "training" : "read_only", std::uint64_t(i)));
        }
        RoutingEvent move;
        move.time = 4.05;
        move.shard = 3;
        move.owner = 2;
        move.reason = "move";
        push(move);
        const auto out = q.drain();
        QVERIFY(q.coalesced() > 0);
        QCOMPARE(out.size() + q.coalesced(), pushed.size());
        // Every state event, in order; byte totals per link exact.
        QCOMPARE(stateEventTexts(out), stateEventTexts(pushed));
        QCOMPARE(bytesPerLink(out), bytesPerLink(pushed));
        // The newest sample of each link survives, covering the folded ones' time.
        const LinkBytesEvent *last12 = nullptr;
        for (const auto &e : out)
            if (const auto *l = std::get_if<LinkBytesEvent>(&e); l && l->from == 1)
                last12 = l;
        QVERIFY(last12);
        QCOMPARE(last12->time, 4.0);
    }

    void foldingJoinsIntervalsAndBoundsPercentiles() {
        SimEvent newer = linkBytes(0.3, 1, 2, 10);
        SimEventSamples::absorb(newer, linkBytes(0.2, 1, 2, 5)); // covers 0.1 .. 0.3
        QCOMPARE(std::get<LinkBytesEvent>(newer).bytes, std::uint64_t(15));
        QVERIFY(std::abs(std::get<LinkBytesEvent>(newer).interval - 0.2) < 1e-12);

        InferenceEvent a, b;
        a.time = 1.0;
        a.interval = 0.5;
        a.requests = 10;
        a.atEdge = 6;
        a.correctEdge = 5;
        a.p99Ms = 40;
        a.p50Ms = std::numeric_limits<double>::quiet_NaN();
        b.time = 1.5;
        b.interval = 0.5;
        b.requests = 4;
        b.atEdge = 1;
        b.correctCenter = 3;
        b.p99Ms = 25;
        b.p50Ms = 9;
        SimEvent s = b;
        SimEventSamples::absorb(s, a);
        const auto &joined = std::get<InferenceEvent>(s);
        QCOMPARE(joined.requests, std::uint64_t(14));
        QCOMPARE(joined.atEdge, std::uint64_t(7));
        QCOMPARE(joined.correctEdge, std::uint64_t(5));
        QCOMPARE(joined.correctCenter, std::uint64_t(3));
        QCOMPARE(joined.p99Ms, 40.0); // an upper bound on the joined interval's p99
        QCOMPARE(joined.p50Ms, 9.0);  // no request measured on one side: the other's stands
        QCOMPARE(joined.interval, 1.0);

        MetricEvent m1, m2;
        m1.scope = m2.scope = "global";
        m1.accuracy = 0.5;
        m2.accuracy = 0.7;
        SimEvent m = m2;
        SimEventSamples::absorb(m, m1);
        QCOMPARE(std::get<MetricEvent>(m).accuracy, 0.7);
        // Series are told apart: another scope or another link is another key.
        MetricEvent region = m1;
        region.scope = "region:eu";
        QVERIFY(SimEventSamples::sampleKey(SimEvent(region)) != SimEventSamples::sampleKey(SimEvent(m1)));
        QVERIFY(SimEventSamples::sampleKey(SimEvent(linkBytes(0, 1, 2, 0))) !=
                SimEventSamples::sampleKey(SimEvent(linkBytes(0, 2, 1, 0))));
    }

    void stalledConsumerOnAnotherThreadLosesNoStateEvent() {
        SimEventQueue q(64);
        constexpr int kEvents = 200000;
        std::atomic<bool> done{false};
        std::vector<SimEvent> received;
        std::thread consumer([&] {
            while (!done || q.size() > 0) {
                auto batch = q.drain();
                received.insert(received.end(), batch.begin(), batch.end());
                std::this_thread::sleep_for(std::chrono::milliseconds(5)); // a slow GUI
            }
        });
        std::vector<SimEvent> pushed;
        pushed.reserve(kEvents);
        for (int i = 0; i < kEvents; ++i) {
            SimEvent e = i % 97 == 0 ? SimEvent(lease(i, i % 7, "training", std::uint64_t(i)))
                                     : SimEvent(linkBytes(i, i % 5, (i + 1) % 5, std::uint64_t(i % 13)));
            pushed.push_back(e);
            q.push(std::move(e));
        }
        done = true;
        consumer.join();
        QCOMPARE(q.pushed(), std::uint64_t(kEvents));
        QVERIFY(q.coalesced() > 0); // the consumer did fall behind
        QCOMPARE(received.size() + q.coalesced(), std::size_t(kEvents));
        QCOMPARE(stateEventTexts(received), stateEventTexts(pushed));
        QCOMPARE(bytesPerLink(received), bytesPerLink(pushed));
    }

    void zeroCapacityRefused() { QVERIFY_THROWS_EXCEPTION(std::invalid_argument, SimEventQueue(0)); }
};

QTEST_APPLESS_MAIN(TestCoalescingQueue)
#include "tst_coalescing_queue.moc"
