// The reports a live edge sends its center (rpc/wire/report_codec): every
// kind the engine makes crosses the wire field for field, and what a build
// does not know, or a hostile edge makes up, is refused. A bound on the
// last ledger kind once dropped five kinds (crash roll-backs, lost merges,
// state writes, center resends) at the center without a word.

#include "core/engine/sim/cluster_config.h"
#include "core/engine/synapse/lease.h"
#include "core/rpc/live/center_state.h"
#include "core/rpc/wire/report_codec.h"

#include <QtTest>

#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace e = synaptic::engine;
namespace rpc = synaptic::rpc;

namespace {

using LedgerKind = e::LedgerReport::Kind;
using RouteKind = e::RouteReport::Kind;

// Through protobuf's bytes, as the center receives it.
std::optional<e::NodeReport> overTheWire(const e::NodeReport &report, double time = 1.5) {
    std::string bytes;
    if (!rpc::toProto(report, time).SerializeToString(&bytes))
        return std::nullopt;
    synaptic::v1::NodeReport parsed;
    if (!parsed.ParseFromString(bytes))
        return std::nullopt;
    if (parsed.time() != time)
        return std::nullopt;
    return rpc::fromProto(parsed);
}

synaptic::v1::NodeReport ledgerProto(int kind, int shard, const std::string &reason) {
    synaptic::v1::NodeReport p;
    auto *l = p.mutable_ledger();
    l->set_kind(kind);
    l->set_shard(shard);
    l->set_count(1);
    l->set_reason(reason);
    return p;
}

} // namespace

class ReportCodecTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyLedgerKindRoundTrips_data() {
        QTest::addColumn<int>("kind");
        // Every kind of node_report.h. A kind added there and not in
        // report_codec.cpp's switch fails the build (-Werror=switch); one
        // not added here fails the static_assert below (kinds are dense).
        static constexpr std::pair<const char *, LedgerKind> kinds[] = {
            {"Sent", LedgerKind::Sent},
            {"Applied", LedgerKind::Applied},
            {"Rejected", LedgerKind::Rejected},
            {"Forwarded", LedgerKind::Forwarded},
            {"LostInCrash", LedgerKind::LostInCrash},
            {"AppliedUnderExpiredLease", LedgerKind::AppliedUnderExpiredLease},
            {"SentWhileReadOnly", LedgerKind::SentWhileReadOnly},
            {"RolledBack", LedgerKind::RolledBack},
            {"MergesLost", LedgerKind::MergesLost},
            {"StateWritten", LedgerKind::StateWritten},
            {"CenterResent", LedgerKind::CenterResent},
            {"CenterResentMerged", LedgerKind::CenterResentMerged},
        };
        static_assert(std::size(kinds) == std::size_t(LedgerKind::CenterResentMerged) + 1,
                      "a ledger kind is missing from this table");
        for (const auto &[name, kind] : kinds)
            QTest::newRow(name) << int(kind);
    }

    void everyLedgerKindRoundTrips() {
        QFETCH(int, kind);
        // The reason an owner gives on this kind (synaptic_owner.cpp), if any.
        const std::map<LedgerKind, std::string> reasons{{LedgerKind::Rejected, "too_stale"},
                                                        {LedgerKind::LostInCrash, "owner_crashed"},
                                                        {LedgerKind::RolledBack, "merge_not_persisted"}};
        const auto reason = reasons.find(LedgerKind(kind));
        e::LedgerReport sent{LedgerKind(kind), 3, 7,
                             {e::contributionId(2, 1, 5), e::contributionId(17, 255, 0xFFFFFFFFull)},
                             reason == reasons.end() ? "" : reason->second};
        const auto got = overTheWire(sent);
        QVERIFY2(got, "the center refused a kind the engine makes");
        const auto *l = std::get_if<e::LedgerReport>(&*got);
        QVERIFY(l);
        QCOMPARE(int(l->kind), kind);
        QCOMPARE(l->shard, sent.shard);
        QCOMPARE(l->count, sent.count);
        QCOMPARE(l->ids, sent.ids);
        QCOMPARE(l->reason, sent.reason);
        QCOMPARE(e::contributionEdge(l->ids.back()), 17);
    }

    void everyRouteKindRoundTripsWithItsChecksum() {
        for (const auto kind : {RouteKind::OwnerVersion, RouteKind::CachedVersion, RouteKind::Owner,
                                RouteKind::CenterVersion, RouteKind::ParameterDrift}) {
            const e::RouteReport sent{kind, 4, 2, 9, 123456789012ull, 0.25, 0xDEADBEEFCAFEF00Dull};
            const auto got = overTheWire(sent);
            QVERIFY2(got, qPrintable(QString("route kind %1 refused").arg(int(kind))));
            const auto *r = std::get_if<e::RouteReport>(&*got);
            QVERIFY(r);
            QCOMPARE(int(r->kind), int(kind));
            QCOMPARE(r->shard, 4);
            QCOMPARE(r->region, 2);
            QCOMPARE(r->edge, 9);
            QCOMPARE(r->version, sent.version);
            QCOMPARE(r->value, 0.25);
            // The split-brain audit compares owners' checksums of one version.
            QCOMPARE(r->checksum, sent.checksum);
        }
    }

    void stepsRoundTrip() {
        const auto got = overTheWire(e::StepReport{96});
        QVERIFY(got);
        QCOMPARE(std::get<e::StepReport>(*got).samples, std::uint64_t(96));
    }

    void whatTheBuildDoesNotKnowIsRefused_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("shard");
        QTest::addColumn<QString>("reason");
        const int afterLast = int(LedgerKind::CenterResentMerged) + 1;
        QTest::newRow("kind after the last") << afterLast << 0 << "";
        QTest::newRow("negative kind") << -1 << 0 << "";
        QTest::newRow("huge kind") << (1 << 30) << 0 << "";
        QTest::newRow("applied to no shard") << int(LedgerKind::Applied) << -1 << "";
        // Each reason becomes a key of the center's ledger: made-up ones
        // would grow it at a hostile edge's will.
        QTest::newRow("made-up reason") << int(LedgerKind::Rejected) << 0 << "reason_0001";
        QTest::newRow("reason too long") << int(LedgerKind::Rejected) << 0 << QString(4096, 'a');
        QTest::newRow("reason in capitals") << int(LedgerKind::Rejected) << 0 << "TOO_STALE";
        QTest::newRow("reason not ascii") << int(LedgerKind::Rejected) << 0 << QString::fromUtf8("tr\u00e8s_vieux");
        QTest::newRow("reason on a send") << int(LedgerKind::Sent) << 0 << "too_stale";
        QTest::newRow("refusal's reason on a crash") << int(LedgerKind::LostInCrash) << 0 << "too_stale";
    }

    void whatTheBuildDoesNotKnowIsRefused() {
        QFETCH(int, kind);
        QFETCH(int, shard);
        QFETCH(QString, reason);
        std::string why;
        QVERIFY(!rpc::fromProto(ledgerProto(kind, shard, reason.toStdString()), &why));
        QVERIFY2(!why.empty() && why.size() < 64, why.c_str()); // a fixed phrase, counted by the center
    }

    // Every reason an owner gives crosses on its kind: a refusal's (the
    // epoch gate's verdicts and "too_stale"), a crash's and a rollback's.
    void everyReasonAnOwnerGivesIsKept() {
        std::vector<std::pair<LedgerKind, std::string>> reasons{{LedgerKind::Rejected, "too_stale"},
                                                                {LedgerKind::LostInCrash, "owner_crashed"},
                                                                {LedgerKind::RolledBack, "merge_not_persisted"},
                                                                {LedgerKind::RolledBack, "restored_old_state"}};
        for (const auto v : {e::EpochGate::Verdict::StaleEpoch, e::EpochGate::Verdict::ExpiredLease,
                             e::EpochGate::Verdict::NoLease})
            reasons.emplace_back(LedgerKind::Rejected, e::verdictName(v));
        for (const auto &[kind, reason] : reasons) {
            const auto got = rpc::fromProto(ledgerProto(int(kind), 0, reason));
            QVERIFY2(got, reason.c_str());
            QCOMPARE(std::get<e::LedgerReport>(*got).reason, reason);
        }
    }

    // The center counts each edge's sends by the id the report carries
    // (sent_by_edge, the denominator of rejected_by_edge): an edge's sends
    // count for it; one in another edge's name, naming an edge that does
    // not exist, or of more items than there are shards is skipped and
    // counted as out of range; a refusal an owner reports may name any
    // edge of the cluster, but not one that does not exist.
    void aCenterCountsSendsOnlyInTheSendersName() {
        const auto config = e::loadClusterConfig(QFINDTESTDATA("data/tiny_cluster.json").toStdString());
        const e::ClusterShape shape(config);
        const auto model = e::makeModelSetup(config, e::topologyOf(config), "cpu");
        rpc::CenterState center(config, shape, *model);
        std::string why;
        const int node = center.join("us-1", "127.0.0.1:1", "inc-1", 0.0, why);
        QVERIFY2(node >= 0, why.c_str());
        const int edge = e::ClusterShape::edgeOfNode(node);
        const auto sent = [](int named, std::uint64_t count) {
            return std::pair{1.0, e::NodeReport{e::LedgerReport{LedgerKind::Sent, -1, count,
                                                                {e::contributionId(named, 1, 9)}}}};
        };
        const auto refusal = [](int named) {
            return std::pair{1.0, e::NodeReport{e::LedgerReport{LedgerKind::Rejected, 0, 1,
                                                                {e::contributionId(named, 1, 3)}, "too_stale"}}};
        };
        const auto shards = std::uint64_t(model->plan.shards.size());
        std::size_t outOfRange = 0;
        QVERIFY(center.foldBatch(node, "inc-1", 1, 1.0,
                                 {sent(edge, 7), sent(edge == 0 ? 1 : 0, 5), sent(shape.edgeCount(), 3),
                                  sent(1 << 23, 2), sent(edge, shards + 1), refusal(0), refusal(shape.edgeCount())},
                                 false, 0, 0, &outOfRange));
        QCOMPARE(outOfRange, std::size_t(5));
        const auto ledger = center.ledger();
        QCOMPARE(ledger.sent, std::uint64_t(7));
        QCOMPARE(ledger.sentByEdge, (std::map<int, std::uint64_t>{{edge, 7}}));
        QCOMPARE(ledger.rejectedByEdge, (std::map<int, std::uint64_t>{{0, 1}}));
    }

    void unknownRouteKindsAndEmptyReportsAreRefused() {
        synaptic::v1::NodeReport p;
        QVERIFY(!rpc::fromProto(p)); // no report set
        p.mutable_route()->set_kind(int(RouteKind::ParameterDrift) + 1);
        QVERIFY(!rpc::fromProto(p));
        p.mutable_route()->set_kind(-3);
        QVERIFY(!rpc::fromProto(p));
    }
};

QTEST_GUILESS_MAIN(ReportCodecTest)
#include "tst_report_codec.moc"
