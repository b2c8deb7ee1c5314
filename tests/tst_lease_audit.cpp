// The lease audit (issue 15 §3): checked over what the run recorded (the
// center's grants, each gradient as its edge sent it, each contribution as
// an owner applied it), never over the verdicts of the guards it watches.
// Real simulated runs on Fashion-MNIST: a region cut off from the center
// past its lease, fault-free, then with edge clocks that lag (harmless: an
// edge measures its lease on its own clock), then with that guard broken
// (the edges keep writing; the owners' epoch gate must stop it), then with
// the gate broken too: the audit must catch each break.
#include "tiny_cluster_data.h"
#include "core/data/fashion_mnist.h"
#include "core/engine/audit/invariants.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/cluster_config_json.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/tensor_data.h"

#include <ATen/Parallel.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace synaptic;
using namespace synaptic::engine;

namespace {

std::size_t countOf(const std::vector<Violation> &v, const std::string &invariant) {
    return std::size_t(std::count_if(v.begin(), v.end(), [&](const Violation &x) { return x.invariant == invariant; }));
}

QString listed(const std::vector<Violation> &v) {
    QStringList out;
    for (std::size_t i = 0; i < std::min<std::size_t>(v.size(), 3); ++i)
        out << QString::fromStdString(v[i].invariant + " node " + std::to_string(v[i].node) + " shard " +
                                      std::to_string(v[i].shard) + " at " + std::to_string(v[i].time) + ": " +
                                      v[i].detail);
    return out.join("\n");
}

Lease lease(std::uint64_t epoch, double expiresAt) { return Lease{epoch, expiresAt}; }

} // namespace

class TestLeaseAudit : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    TensorSet m_test;
    ClusterConfig m_tiny;

    struct Run {
        StrategyResult result;
        LeaseHistory history;
        std::vector<Violation> violations;
    };

    // eu (edges 0-2) cut off from the center at 0.5 s, healed at 2.5 s
    // (leases last 1 s past the last heartbeat through).
    Run partitionedRun(double euLeaseClockLag, bool breakGate, bool breakLeaseClock = false) {
        Run r;
        SimOptions o;
        o.virtualSeconds = 4.0;
        o.finalFullEvaluation = false;
        o.commands = {SimCommand{SimCommand::Kind::PartitionRegion, 0.5, -1, 0},
                      SimCommand{SimCommand::Kind::HealRegion, 2.5, -1, 0}};
        std::vector<AuditEvent> audit;
        o.observer = [&audit](const SimEvent &e) {
            if (const auto *a = std::get_if<AuditEvent>(&e))
                audit.push_back(*a);
        };
        for (int node = 1; node <= 6; ++node) {
            NodeContext::Faults f;
            f.leaseClockLagSeconds = node <= 3 ? euLeaseClockLag : 0;
            f.breakLeaseClock = breakLeaseClock;
            f.breakEpochGate = breakGate;
            o.faults[node] = f;
        }
        Simulation sim(m_tiny, m_train, m_trainSet.labels, m_test, o);
        r.result = sim.run();
        r.history = leaseHistoryOf(audit);
        r.violations = checkLeaseInvariants(r.history);
        qInfo("lag %g s, lease clock %s, gate %s: %zu grants, %zu sends, %zu applies; %zu sent and %zu applied under a "
              "lapsed lease; %llu rejected",
              euLeaseClockLag, breakLeaseClock ? "broken" : "kept", breakGate ? "broken" : "kept",
              r.history.grants.size(), r.history.sends.size(),
              r.history.applies.size(), countOf(r.violations, "sent_under_live_lease"),
              countOf(r.violations, "applied_under_live_lease"), (unsigned long long)r.result.contributionsRejected);
        return r;
    }

private Q_SLOTS:
    void initTestCase() { loadTinyClusterData(m_trainSet, m_train, m_test, m_tiny); }

    // The checker itself on a hand-made history: a renewal extends a lease,
    // a newer epoch supersedes an older one, an epoch never granted is not a
    // lease, and an applied contribution nobody sent is a violation.
    void checkerReadsGrantsRenewalsAndEpochs() {
        LeaseHistory h;
        h.grants = {{0.0, 0, lease(1, 1.0)}, {0.8, 0, lease(1, 1.8)}, {2.5, 0, lease(2, 3.5)}};
        h.sends = {{1.5, 0, lease(1, 1.8), {10}},  // live by the renewal
                   {2.0, 0, lease(1, 1.8), {11}},  // expired
                   {2.6, 0, lease(1, 1.8), {12}},  // expired and superseded
                   {2.7, 0, lease(2, 3.5), {13}},  // live
                   {0.5, 0, lease(7, 9.0), {14}}}; // never granted
        h.applies = {{1.6, 2, 3, {10}}, {2.1, 2, 3, {11}}, {2.8, 2, 4, {13, 99}}};
        const auto v = checkLeaseInvariants(h);
        QCOMPARE(countOf(v, "sent_under_live_lease"), std::size_t(3));
        QCOMPARE(countOf(v, "applied_under_live_lease"), std::size_t(2)); // 11 (expired) and 99 (never sent)
        bool superseded = false, neverGranted = false, neverSent = false, shardNamed = false;
        for (const auto &x : v) {
            superseded |= x.detail.find("superseded by epoch 2") != std::string::npos;
            neverGranted |= x.detail.find("epoch 7 was never granted") != std::string::npos ||
                            x.detail.find("epoch 7 was not granted") != std::string::npos;
            neverSent |= x.detail.find("contribution 99 was applied but never sent") != std::string::npos;
            shardNamed |= x.invariant == "applied_under_live_lease" && x.shard == 3 && x.node == 2 && x.time == 2.1;
        }
        QVERIFY(superseded);
        QVERIFY(neverGranted);
        QVERIFY(neverSent);
        QVERIFY(shardNamed);
    }

    void faultFreePartitionHoldsEveryLeaseInvariant() {
        const auto r = partitionedRun(0, false);
        QVERIFY(!r.history.grants.empty());
        QVERIFY(r.history.sends.size() > 20);
        QVERIFY(r.history.applies.size() > 20);
        QVERIFY2(r.violations.empty(), qPrintable(listed(r.violations)));
    }

    // Guard one: an edge measures its lease on its own clock from its
    // heartbeat's send time, so a clock that runs behind (here by 1000 s,
    // and by 0.5 s) does not stretch it: nothing is sent under a lapsed lease.
    void aLaggingClockDoesNotStretchTheLease() {
        for (double lag : {1000.0, 0.5}) {
            const auto r = partitionedRun(lag, false);
            QVERIFY(r.history.sends.size() > 20);
            QVERIFY2(r.violations.empty(), qPrintable(listed(r.violations)));
        }
    }

    // Guard one broken: the edge reads the center's expiry on its lagging
    // clock and writes on through the partition: the audit sees the sends;
    // the owners' gate (guard two) still rejects every one of them.
    void aLaggingLeaseClockIsCaughtAtTheSendAndStoppedByTheGate() {
        const auto r = partitionedRun(1000, false, true);
        QVERIFY2(countOf(r.violations, "sent_under_live_lease") > 0, "the lagging edges never wrote under a lapsed lease");
        QVERIFY2(countOf(r.violations, "applied_under_live_lease") == 0, qPrintable(listed(r.violations)));
        for (const auto &v : r.violations)
            QVERIFY(v.node >= 1 && v.node <= 3); // eu's edges only
        QVERIFY(r.result.contributionsRejected > 0);
        // The report says why and whose: the gate's verdicts on eu's edges.
        std::uint64_t byReason = 0, byEdge = 0;
        for (const auto &[reason, count] : r.result.contributionsRejectedByReason) {
            QVERIFY2(reason == "expired_lease" || reason == "stale_epoch", reason.c_str());
            byReason += count;
        }
        for (const auto &[edge, count] : r.result.contributionsRejectedByEdge) {
            QVERIFY2(edge.rfind("eu-", 0) == 0, edge.c_str());
            byEdge += count;
        }
        QCOMPARE(byReason, r.result.contributionsRejected);
        QCOMPARE(byEdge, r.result.contributionsRejected);
        // Beside each edge's refusals, what it sent: every edge sent, the
        // counts add up to the ledger's, and no edge had more refused.
        std::uint64_t sent = 0;
        for (const auto &[edge, count] : r.result.contributionsSentByEdge)
            sent += count;
        QCOMPARE(sent, r.result.contributionsSent);
        QCOMPARE(r.result.contributionsSentByEdge.size(), std::size_t(6));
        for (const auto &[edge, count] : r.result.contributionsRejectedByEdge)
            QVERIFY2(count <= r.result.contributionsSentByEdge.at(edge), edge.c_str());
        // So does the run's JSON entry, which also holds the config the run
        // started from: read back, it is that config.
        const auto entry = QJsonDocument::fromJson(QByteArray::fromStdString(strategyResultJson(r.result))).object();
        const auto reasons = entry["contributions"].toObject()["rejected_by_reason"].toObject();
        QCOMPARE(std::size_t(reasons.size()), r.result.contributionsRejectedByReason.size());
        for (const auto &[reason, count] : r.result.contributionsRejectedByReason)
            QCOMPARE(reasons[QString::fromStdString(reason)].toInteger(), qint64(count));
        const auto sentBy = entry["contributions"].toObject()["sent_by_edge"].toObject();
        for (const auto &[edge, count] : r.result.contributionsSentByEdge)
            QCOMPARE(sentBy[QString::fromStdString(edge)].toInteger(), qint64(count));
        const auto started = parseClusterConfig(QJsonDocument(entry["config"].toObject()).toJson().toStdString(),
                                                "the report's config");
        QCOMPARE(clusterConfigToJson(started), r.result.startConfigJson);
    }

    // Guard two broken as well: the owners apply what the lapsed edges
    // wrote, and the audit, reading the sends' own stamps against the
    // center's grants, names each applied contribution.
    void aBrokenEpochGateIsCaughtWhereTheUpdateIsApplied() {
        const auto r = partitionedRun(1000, true, true);
        QVERIFY2(countOf(r.violations, "applied_under_live_lease") > 0, "the broken gate went unnoticed");
        for (const auto &v : r.violations)
            if (v.invariant == "applied_under_live_lease") {
                QVERIFY(v.shard >= 0 && v.node >= 1 && v.node <= 3 && v.time > 0.5);
                // Traced to its send: a recorder that lost sends would show up here instead.
                QVERIFY2(v.detail.find("never sent") == std::string::npos, v.detail.c_str());
            }
    }

    // The gate broken alone lets nothing bad through when every edge keeps
    // to its lease: the audit reports a violation only when one happened.
    void aBrokenGateAloneWithWellBehavedEdgesIsNoViolation() {
        const auto r = partitionedRun(0, true);
        QVERIFY2(r.violations.empty(), qPrintable(listed(r.violations)));
    }
};

QTEST_APPLESS_MAIN(TestLeaseAudit)
#include "tst_lease_audit.moc"
