// Leases: renewal keeps the epoch, expiry grants a new one; an edge turns
// read-only the moment its lease lapses and catches up before training; an
// owner applies nothing written under an expired or superseded epoch.
#include "core/engine/synapse/lease.h"

#include <QTest>

using namespace synaptic::engine;
using Mode = EdgeLeaseState::Mode;
using Verdict = EpochGate::Verdict;

class TestLease : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void renewKeepsEpochExpiryGrantsNew() {
        LeaseRegistry center(2, 10.0);
        const Lease first = center.heartbeat(0, 0, 0.0);
        QCOMPARE(first.epoch, std::uint64_t(1));
        QCOMPARE(first.expiresAt, 10.0);
        const Lease renewed = center.heartbeat(0, first.epoch, 8.0);
        QCOMPARE(renewed.epoch, first.epoch);
        QCOMPARE(renewed.expiresAt, 18.0);
        // Edge 1 gets its own epoch.
        QCOMPARE(center.heartbeat(1, 0, 1.0).epoch, std::uint64_t(2));
        // Silent past expiry: the next heartbeat gets a new epoch.
        const Lease again = center.heartbeat(0, renewed.epoch, 18.0);
        QCOMPARE(again.epoch, std::uint64_t(3));
        // Presenting an old epoch while a newer one is valid renews nothing.
        const Lease told = center.heartbeat(0, renewed.epoch, 19.0);
        QCOMPARE(told.epoch, again.epoch);
        QCOMPARE(told.expiresAt, again.expiresAt);
    }

    void edgeModes() {
        EdgeLeaseState edge;
        QCOMPARE(edge.mode(), Mode::ReadOnly); // no lease yet
        QVERIFY(!edge.canTrain(0.0));
        edge.onLease({1, 10.0}, 0.0);
        QCOMPARE(edge.mode(), Mode::CatchingUp); // catch up before the first step
        QVERIFY(!edge.canTrain(1.0));
        edge.onCaughtUp(1.0);
        QVERIFY(edge.canTrain(1.0));
        edge.onLease({1, 18.0}, 8.0); // renewal: keeps training
        QCOMPARE(edge.mode(), Mode::Training);
        QCOMPARE(edge.tick(17.9), Mode::Training);
        QCOMPARE(edge.tick(18.0), Mode::ReadOnly); // lapses at once
        QVERIFY(!edge.canTrain(18.0));
        QVERIFY(edge.canServeInference());
        edge.onCaughtUp(19.0); // no lease: catching up alone changes nothing
        QCOMPARE(edge.mode(), Mode::ReadOnly);
        edge.onLease({3, 30.0}, 20.0); // back in contact: new epoch
        QCOMPARE(edge.mode(), Mode::CatchingUp);
        QVERIFY(!edge.canTrain(20.0));
        edge.onLease({1, 99.0}, 20.5); // a delayed answer about the old grant
        QCOMPARE(edge.lease().epoch, std::uint64_t(3));
        edge.onCaughtUp(21.0);
        QVERIFY(edge.canTrain(21.0));
    }

    void gateVerdicts_data() {
        QTest::addColumn<qulonglong>("latestKnown");
        QTest::addColumn<qulonglong>("stampedEpoch");
        QTest::addColumn<double>("stampedExpiry");
        QTest::addColumn<double>("sentAt");
        QTest::addColumn<int>("verdict");
        QTest::newRow("valid") << 2ull << 2ull << 10.0 << 5.0 << int(Verdict::Accepted);
        QTest::newRow("newer than known") << 2ull << 3ull << 10.0 << 5.0 << int(Verdict::Accepted);
        QTest::newRow("sent after expiry") << 2ull << 2ull << 10.0 << 10.0 << int(Verdict::ExpiredLease);
        QTest::newRow("superseded epoch") << 3ull << 2ull << 10.0 << 5.0 << int(Verdict::StaleEpoch);
        QTest::newRow("never leased") << 0ull << 0ull << 0.0 << 0.0 << int(Verdict::NoLease);
    }
    void gateVerdicts() {
        QFETCH(qulonglong, latestKnown);
        QFETCH(qulonglong, stampedEpoch);
        QFETCH(double, stampedExpiry);
        QFETCH(double, sentAt);
        QFETCH(int, verdict);
        EpochGate gate(1);
        gate.observe(0, {latestKnown, 100.0});
        QCOMPARE(int(gate.check(0, {stampedEpoch, stampedExpiry}, sentAt)), verdict);
    }

    void noUpdateAcceptedUnderExpiredLease() {
        // An edge heartbeats every 2 s with a 10 s lease; the center cannot
        // hear it between t=8 and t=25. A faulty edge keeps sending every
        // 0.25 s regardless, stamping whatever lease it last held; messages
        // arrive 3 s late. The owner must accept none sent under a lapsed
        // lease and none under a superseded epoch.
        LeaseRegistry center(1, 10.0);
        EpochGate owner(1);
        Lease held;
        int sentUnderExpired = 0, acceptedUnderExpired = 0, acceptedValid = 0;
        struct InFlight { double arrive; Lease stamped; double sentAt; };
        std::vector<InFlight> inFlight;
        for (int tick = 0; tick <= 160; ++tick) {
            const double now = tick * 0.25;
            if (tick % 8 == 0 && (now < 8.0 || now >= 25.0)) {
                held = center.heartbeat(0, held.epoch, now);
                owner.observe(0, center.lease(0));
            }
            inFlight.push_back({now + 3.0, held, now});
            if (!held.validAt(now))
                ++sentUnderExpired;
            for (auto it = inFlight.begin(); it != inFlight.end();) {
                if (it->arrive > now) { ++it; continue; }
                const bool expired = !it->stamped.validAt(it->sentAt);
                const bool superseded = it->stamped.epoch < center.lease(0).epoch;
                if (owner.check(0, it->stamped, it->sentAt) == Verdict::Accepted) {
                    if (expired || superseded)
                        ++acceptedUnderExpired;
                    else
                        ++acceptedValid;
                }
                it = inFlight.erase(it);
            }
        }
        QVERIFY(sentUnderExpired > 20); // the scenario really exercised expiry
        QCOMPARE(acceptedUnderExpired, 0);
        QVERIFY(acceptedValid > 40);
        QVERIFY(owner.rejected() >= std::uint64_t(sentUnderExpired));
    }

    // A shorter lease_seconds never takes back an expiry already granted:
    // the edge may act on it, and no new epoch may overlap it.
    void aShorterLeaseNeverShortensAGrantedOne() {
        LeaseRegistry center(1, 10.0);
        const Lease first = center.heartbeat(0, 0, 0.0); // until 10
        center.setLeaseSeconds(2.0);
        const Lease renewed = center.heartbeat(0, first.epoch, 5.0);
        QCOMPARE(renewed.epoch, first.epoch);
        QCOMPARE(renewed.expiresAt, 10.0); // not 7
        const Lease still = center.heartbeat(0, first.epoch, 9.0);
        QCOMPARE(still.expiresAt, 11.0); // now the shorter lease reaches past the old expiry
        const Lease fresh = center.heartbeat(0, first.epoch, 11.5);
        QVERIFY(fresh.epoch > first.epoch); // expired: a new epoch, only after the old one ended
    }

    // A center restarted from an older state file still has an edge's
    // earlier lease on record (stretched by the restart) while the edge
    // holds a newer epoch the lost file named: the edge gets a new epoch,
    // never the older one it would ignore (and stay read-only).
    void anEdgeHoldingAForgottenEpochGetsANewOne() {
        LeaseRegistry center(2, 10.0);
        const Lease first = center.heartbeat(0, 0, 0.0); // epoch 1, until 10
        const auto olderLeases = center.leases();
        const auto olderNext = center.nextEpoch();
        center.heartbeat(1, 0, 1.0);                       // epoch 2 to edge 1
        const Lease newer = center.heartbeat(0, first.epoch, 11.0); // lapsed: epoch 3
        QVERIFY(newer.epoch > first.epoch);
        center.restore(olderLeases, olderNext); // the file from before epochs 2 and 3
        center.resumeAfterRestart(5.0, 12.0, 2);
        const Lease answer = center.heartbeat(0, newer.epoch, 12.5);
        QVERIFY2(answer.epoch > newer.epoch, qPrintable(QString("edge 0 holds epoch %1, was told %2")
                                                            .arg(newer.epoch).arg(answer.epoch)));
        QVERIFY(answer.validAt(12.5));
        // An epoch no center granted (past the counter) changes nothing.
        const Lease bogus = center.heartbeat(1, 1000, 13.0);
        QVERIFY(bogus.epoch < 1000);
        QCOMPARE(center.heartbeat(1, 1000, 13.5).epoch, bogus.epoch);
    }

    void badArguments() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LeaseRegistry(2, 0.0));
        LeaseRegistry center(2, 5.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, center.heartbeat(2, 0, 0.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, center.setLeaseSeconds(-1.0));
        EpochGate gate(1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gate.check(-1, {1, 5.0}, 0.0));
    }
};

QTEST_APPLESS_MAIN(TestLease)
#include "tst_lease.moc"
