// An edge behind a slow last mile trains ahead (knobs.train_ahead_windows):
// while its owners' answer to its last window is in flight it keeps
// training, and sends the windows it kept open as one when the answer
// comes. Waiting idle, it trains at its link's pace, not its compute's, and
// its region's last windows are its lone tail. Also here, on the same
// one-region cluster: what owners send an edge that trains ahead
// (knobs.values_on_contribution, across a shard move too), and an owner's
// merge missed while its edge's lease had lapsed.
#include "core/data/fashion_mnist.h"
#include "core/engine/audit/invariants.h"
#include "core/engine/codec/codec_spec.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/message.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/synapse/routing_table.h"
#include "core/engine/tensor_data.h"
#include "tiny_cluster_data.h"

#include <ATen/Parallel.h>

#include <QTest>

#include <algorithm>
#include <functional>
#include <map>

using namespace synaptic;
using namespace synaptic::engine;

// What happens to eu-2 while it keeps windows open (see the test).
enum class Fault { LeaseLapse, Kill, CenterFromOldState };

class TestTrainAhead : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    TensorSet m_test;
    ClusterConfig m_tiny; // tests/data/tiny_cluster.json
    static constexpr int kSteps = 40; // per edge

    // What eu-2 (edge 2) sent its owners: gradient messages, and how many
    // of its last ones (one per owner) carried no gradients.
    struct SlowEdgeSent {
        int messages = 0;
        int emptyLast = 0;
        int claimingMoreThanOneWindow = 0;
    };

    // eu only (the center answers at once); with `slowLastMile` eu-2 is
    // behind 50 ms and 20 Mb/s each way, so an answer to its window takes
    // several of its steps. The rest is optional:
    struct RunOptions {
        SlowEdgeSent *sent = nullptr;           // counts what eu-2 sent its owners
        std::vector<SimCommand> commands;       // the fault cases' commands
        NodeContext::Faults faults;             // for every node
        std::vector<AuditEvent> *audit = nullptr; // the run's audit history
        std::vector<LeaseEvent> *leases = nullptr;
        std::function<void(ClusterConfig &)> tweak; // edits the config
        std::function<void(const Message &)> tap;   // sees every message sent
        std::function<void(Simulation &)> prepare; // before the run: commands that need the routing table
    };
    // (No default argument: RunOptions' member initializers are not usable
    // until the class is complete.)
    StrategyResult run(bool slowLastMile, int trainAheadWindows) {
        return run(slowLastMile, trainAheadWindows, RunOptions{});
    }
    StrategyResult run(bool slowLastMile, int trainAheadWindows, const RunOptions &options) {
        ClusterConfig c = m_tiny;
        c.regions.pop_back();
        if (slowLastMile)
            c.regions[0].edges[2].lastMile = LastMile{0.050, 20e6, 0};
        c.knobs.trainAheadWindows = trainAheadWindows;
        if (options.tweak)
            options.tweak(c);
        SimOptions o;
        o.stepsPerEdge = kSteps;
        o.finalFullEvaluation = false;
        o.commands = options.commands;
        for (int node = 0; node <= 3; ++node)
            o.faults[node] = options.faults;
        if (options.audit || options.leases)
            o.observer = [audit = options.audit, leases = options.leases](const SimEvent &e) {
                if (const auto *a = std::get_if<AuditEvent>(&e); a && audit)
                    audit->push_back(*a);
                if (const auto *l = std::get_if<LeaseEvent>(&e); l && leases)
                    leases->push_back(*l);
            };
        if (options.sent || options.tap)
            o.messageTap = [sent = options.sent, tap = options.tap](const Message &m, std::uint64_t) {
                if (tap)
                    tap(m);
                if (!sent || m.kind != MessageKind::Gradients || m.origin != 2)
                    return;
                ++sent->messages;
                if (m.last && m.shards.empty())
                    ++sent->emptyLast;
                for (const auto &item : m.shards)
                    if (item.windows != 1)
                        ++sent->claimingMoreThanOneWindow;
            };
        Simulation sim(c, m_train, m_trainSet.labels, m_test, o);
        if (options.prepare)
            options.prepare(sim);
        return sim.run();
    }

private Q_SLOTS:
    void initTestCase() { loadTinyClusterData(m_trainSet, m_train, m_test, m_tiny, 20000, 200); }

    void aSlowLastMileNoLongerSetsItsEdgesPace() {
        // The pace of compute alone: every link fast.
        const StrategyResult fast = run(false, 8);
        const StrategyResult waiting = run(true, 0);
        SlowEdgeSent aheadSent;
        const StrategyResult ahead = run(true, 8, {.sent = &aheadSent});
        const auto describe = [](const char *name, const StrategyResult &r) {
            return QString("%1: %2 virtual s, %3 contributions sent, %4 applied, %5 rejected")
                .arg(name).arg(r.virtualSeconds).arg(r.contributionsSent).arg(r.contributionsApplied)
                .arg(r.contributionsRejected);
        };
        const QString all = describe("fast links", fast) + "; " + describe("waiting", waiting) + "; " +
                            describe("ahead", ahead);
        qInfo("%s", qPrintable(all));
        // The same budget every way: every edge trains all its steps.
        QVERIFY(fast.samples > 0);
        QCOMPARE(waiting.samples, fast.samples);
        QCOMPARE(ahead.samples, fast.samples);
        // Waiting idle, eu-2 trains at its link's pace: the run lasts more
        // than twice as long as compute alone would take.
        QVERIFY2(waiting.virtualSeconds > 2.0 * fast.virtualSeconds, qPrintable(all));
        // Training ahead it gets most of the way back to its compute's pace
        // (measured: 3.8x as long waiting, 1.4x ahead; what is left is its
        // downlink, which carries both fast owners' values after every
        // merge)...
        QVERIFY2(ahead.virtualSeconds < 1.75 * fast.virtualSeconds, qPrintable(all));
        QVERIFY2(ahead.virtualSeconds < 0.6 * waiting.virtualSeconds, qPrintable(all));
        // ...by sending several windows as one, not by queueing them on its
        // link: fewer contributions, every one applied, none refused as too
        // stale.
        QVERIFY2(ahead.contributionsSent < waiting.contributionsSent, qPrintable(all));
        QCOMPARE(ahead.contributionsRejected, std::uint64_t(0));
        QCOMPARE(ahead.contributionsApplied, ahead.contributionsSent);
        // What eu-2 kept open goes as one window, and with its budget used
        // as its last: no empty last window a round trip later.
        QVERIFY(aheadSent.messages > 0);
        QCOMPARE(aheadSent.claimingMoreThanOneWindow, 0);
        QCOMPARE(aheadSent.emptyLast, 0);
        // On fast links nothing waits long enough to train ahead: the run is
        // the one with the knob off.
        const StrategyResult fastOff = run(false, 0);
        QCOMPARE(fastOff.contributionsSent, fast.contributionsSent);
        QCOMPARE(fastOff.virtualSeconds, fast.virtualSeconds);
    }

    // knobs.values_on_contribution: owners send a merge's values only to
    // the edges it heard from, and a whole copy to one that missed merges
    // when it next contributes. eu-2 trains ahead behind its slow line and
    // contributes every few windows: it then gets far fewer values
    // messages, with no delta it cannot apply (no whole-values request),
    // under fp32 values and under fp16 value deltas alike. (On this tiny
    // cluster the run does not end sooner: 4.98 against 4.94 virtual s at
    // fp32, 4.93 against 5.03 at fp16.)
    void valuesOnContributionSpareTheSlowLine_data() {
        QTest::addColumn<QString>("values");
        QTest::newRow("fp32 values") << "fp32";
        QTest::newRow("fp16 value deltas") << "fp16";
    }
    void valuesOnContributionSpareTheSlowLine() {
        QFETCH(QString, values);
        struct Seen {
            int valuesToSlowEdge = 0;
            int deltasToSlowEdge = 0;
            int wholeToSlowEdge = 0;
            int askedForWhole = 0;
        };
        const auto runWith = [&](bool on, Seen &seen) {
            const auto tweak = [&](ClusterConfig &c) {
                c.knobs.valuesOnContribution = on;
                c.codecs.values = parseCodec(values.toStdString());
            };
            const auto tap = [&seen](const Message &m) {
                if (m.kind == MessageKind::Values && m.to == 3 && m.from != 3) { // eu-2 is node 3
                    ++seen.valuesToSlowEdge;
                    for (const auto &item : m.shards)
                        ++(item.delta ? seen.deltasToSlowEdge : seen.wholeToSlowEdge);
                }
                if (asksForWholeValues(m, 3))
                    ++seen.askedForWhole;
            };
            return run(true, 8, {.tweak = tweak, .tap = tap});
        };
        Seen off, on;
        const StrategyResult before = runWith(false, off);
        const StrategyResult after = runWith(true, on);
        const QString all = QString("off: %1 values messages to eu-2 (%2 delta items, %3 whole), %4 asks, %5 virtual s; "
                                    "on: %6 (%7, %8), %9 asks, %10 virtual s")
                                .arg(off.valuesToSlowEdge).arg(off.deltasToSlowEdge).arg(off.wholeToSlowEdge)
                                .arg(off.askedForWhole).arg(before.virtualSeconds)
                                .arg(on.valuesToSlowEdge).arg(on.deltasToSlowEdge).arg(on.wholeToSlowEdge)
                                .arg(on.askedForWhole).arg(after.virtualSeconds);
        qInfo("%s", qPrintable(all));
        QCOMPARE(after.samples, before.samples);
        QVERIFY2(on.valuesToSlowEdge > 0, qPrintable(all));
        // Measured: 40 against 90 (fp32) and 78 (fp16); the rest are
        // its own answers, one per window it sends.
        QVERIFY2(10 * on.valuesToSlowEdge < 6 * off.valuesToSlowEdge, qPrintable(all));
        // What it missed comes whole, so no delta fails to apply there.
        QCOMPARE(on.askedForWhole, 0);
        if (values == "fp16") // what it missed came as whole copies, not deltas
            QVERIFY2(on.wholeToSlowEdge > off.wholeToSlowEdge, qPrintable(all));
        // Every contribution still lands, none refused as too stale.
        QCOMPARE(after.contributionsApplied, after.contributionsSent);
        QCOMPARE(after.contributionsRejected, std::uint64_t(0));
    }

    // knobs.values_on_contribution across a shard move: the new owner does
    // not know which edges the old one left without a merge's values (an
    // edge it hears every window may have missed the old owner's last
    // merges), so its first values of the moved shard go to every region
    // edge whole (SynapticOwner::onHandoff), never as a delta an edge may
    // not be able to apply. eu-0's first shard moves to eu-1 at 1 s while
    // eu-2 trains ahead behind its slow line, under fp16 value deltas.
    void valuesOnContributionSurvivesAShardMove() {
        int moved = -1;
        std::map<int, bool> firstWasWhole; // node -> the new owner's first values of the moved shard
        int deltasAfter = 0; // later values of it to eu-0 or eu-2 sent as deltas: the delta path was live
        int askedForWhole = 0;
        const auto tweak = [](ClusterConfig &c) {
            c.knobs.valuesOnContribution = true;
            c.codecs.values = parseCodec("fp16");
        };
        const auto prepare = [&moved](Simulation &sim) {
            for (const auto &row : sim.routing()->rows)
                if (row->owner.at(0) == 0) {
                    moved = row->shard.id;
                    sim.submit(SimCommand{SimCommand::Kind::MoveShard, 1.0, moved, 0, 1});
                    return;
                }
        };
        const auto tap = [&](const Message &m) {
            if (m.kind == MessageKind::Values && m.from == 2) // from eu-1, the new owner
                for (const auto &item : m.shards) {
                    if (item.shard != moved)
                        continue;
                    if (!firstWasWhole.count(m.to))
                        firstWasWhole[m.to] = !item.delta;
                    else if (item.delta && (m.to == 1 || m.to == 3))
                        ++deltasAfter;
                }
            if (asksForWholeValues(m, 3))
                ++askedForWhole;
        };
        const StrategyResult r = run(true, 8, {.tweak = tweak, .tap = tap, .prepare = prepare});
        QString firsts;
        for (const auto &[node, whole] : firstWasWhole)
            firsts += QString(" node %1: %2;").arg(node).arg(whole ? "whole" : "delta");
        const QString all = QString("shard %1 moved; first values of it from eu-1:%2 %3 later deltas, %4 asks for whole "
                                    "values; %5 contributions sent, %6 applied, %7 rejected")
                                .arg(moved).arg(firsts).arg(deltasAfter).arg(askedForWhole).arg(r.contributionsSent)
                                .arg(r.contributionsApplied).arg(r.contributionsRejected);
        qInfo("%s", qPrintable(all));
        QVERIFY2(moved >= 0, "eu-0 owns no shard");
        QVERIFY2(r.stoppedEarly.empty(), r.stoppedEarly.c_str());
        // eu-0 (node 1) and eu-2 (node 3) each got the moved shard, whole first.
        QVERIFY2(firstWasWhole.count(1) && firstWasWhole.count(3), qPrintable(all));
        for (const auto &[node, whole] : firstWasWhole)
            QVERIFY2(whole, qPrintable(all));
        // The whole first copies were the handoff's doing, not value deltas
        // being off: after them the new owner sends deltas.
        QVERIFY2(deltasAfter > 0, qPrintable(all));
        QCOMPARE(askedForWhole, 0);
        QCOMPARE(r.contributionsApplied, r.contributionsSent);
        QCOMPARE(r.contributionsRejected, std::uint64_t(0));
    }

    // An owner whose merge deadline fell while its hosting edge's lease
    // had lapsed merged nothing, and when its region's other edges were
    // done nothing armed another deadline: the run stopped after 60 quiet
    // virtual seconds with gradients buffered (found under shared node
    // interfaces; BENCHMARKS, fourteenth pass). Here eu-0 trains its steps
    // first (eu-1 and eu-2 at a quarter of its speed), is then cut from the
    // center until after eu-1 and eu-2 have sent their last windows, which
    // reach eu-0's owners while its lease has lapsed. When the lease is
    // back the owners merge what they hold (SynapticOwner::onLeaseValid),
    // and the run ends as the one without the cut does.
    void aMergeMissedInALapseRunsWhenTheLeaseReturns() {
        std::vector<SimCommand> commands;
        for (int edge : {1, 2}) {
            SimCommand slow{SimCommand::Kind::SetStraggler, 0};
            slow.node = edge;
            slow.value = 0.25;
            commands.push_back(slow);
        }
        std::map<int, double> lastWindowAt; // edge -> when it sent its last window
        const auto lastWindows = [&lastWindowAt](const Message &m) {
            if (m.kind == MessageKind::Gradients && m.last)
                lastWindowAt[m.origin] = std::max(lastWindowAt[m.origin], m.writtenAt);
        };
        const StrategyResult calm = run(false, 8, {.commands = commands, .tap = lastWindows});
        QVERIFY2(calm.stoppedEarly.empty(), calm.stoppedEarly.c_str());
        const double eu0Done = lastWindowAt[0], othersDone = std::max(lastWindowAt[1], lastWindowAt[2]);
        QVERIFY2(eu0Done > 0 && othersDone > eu0Done + 3, "eu-0 did not finish well before eu-1 and eu-2");

        SimCommand cut{SimCommand::Kind::PartitionLink, eu0Done + 0.05};
        cut.node = 0;
        cut.nodeB = -1;
        SimCommand heal = cut;
        heal.kind = SimCommand::Kind::HealLink;
        heal.at = othersDone + 2.0;
        commands.push_back(cut);
        commands.push_back(heal);
        std::vector<LeaseEvent> leases;
        lastWindowAt.clear();
        const StrategyResult cutRun = run(false, 8, {.commands = commands, .leases = &leases, .tap = lastWindows});
        // When eu-0's lease lapsed in the cut, and when it was back.
        double eu0LapsedAt = -1, eu0BackAt = -1;
        for (const auto &l : leases) {
            if (l.edge != 0)
                continue;
            if (l.mode == "read_only" && l.time > cut.at && l.time < heal.at && eu0LapsedAt < 0)
                eu0LapsedAt = l.time;
            else if (l.mode != "read_only" && eu0LapsedAt > 0 && l.time > eu0LapsedAt && eu0BackAt < 0)
                eu0BackAt = l.time;
        }
        const QString all = QString("eu-0 done at %1 s, cut %2-%3 s, lease lapsed at %4 s, back at %11 s; eu-1 and eu-2 "
                                    "done at %5 and %6 s; %7 virtual s (%8 without the cut), %9 contributions sent, "
                                    "%10 applied")
                                .arg(eu0Done).arg(cut.at).arg(heal.at).arg(eu0LapsedAt).arg(lastWindowAt[1])
                                .arg(lastWindowAt[2]).arg(cutRun.virtualSeconds).arg(calm.virtualSeconds)
                                .arg(cutRun.contributionsSent).arg(cutRun.contributionsApplied).arg(eu0BackAt);
        qInfo("%s", qPrintable(all));
        // The case meant: the last windows went out after eu-0's lease
        // lapsed, and their merge deadline (a few ms after they arrive)
        // fell well before it was back.
        QVERIFY2(eu0LapsedAt > 0, qPrintable("eu-0 never went read-only during the cut; " + all));
        QVERIFY2(std::min(lastWindowAt[1], lastWindowAt[2]) > eu0LapsedAt, qPrintable(all));
        QVERIFY2(eu0BackAt > 0 && std::max(lastWindowAt[1], lastWindowAt[2]) + 0.5 < eu0BackAt, qPrintable(all));
        QVERIFY2(cutRun.stoppedEarly.empty(), cutRun.stoppedEarly.c_str());
        // What the owners held is merged, not dropped.
        QCOMPARE(cutRun.contributionsRejected, std::uint64_t(0));
        QCOMPARE(cutRun.contributionsApplied, cutRun.contributionsSent);
    }

    // What eu-2 kept open while training ahead was computed on values from
    // before a lease lapse or a kill: it is dropped, as a read-only edge's
    // cache is, and never sent under the next lease. The audit's
    // "trains_after_catch_up" (an edge with a new epoch sends only gradients
    // computed on versions at least its owners' at the grant) sees it when
    // the edge keeps them (Faults::breakDropKeptWindows). eu-2 is cut from
    // the center from 0.5 s to 2 s (its 1 s lease lapses; its region's
    // owners train on), or killed at 1 s and revived at 2.2 s (after its
    // lease ran out, so the grant is a new epoch; revived sooner, it would
    // be held to its owners' versions at the restart instead). A third row kills
    // the center at 0.8 s and revives it at 1.4 s from the state file
    // before its newest: it grants new epochs while eu-2's lease is still
    // valid, so eu-2 goes from training straight to catching up, never
    // read-only, and only that transition's drop guards the windows.

    void aLapseOrAKillDropsTheKeptOpenWindows_data() {
        QTest::addColumn<int>("fault");
        QTest::newRow("lease lapse") << int(Fault::LeaseLapse);
        QTest::newRow("kill") << int(Fault::Kill);
        QTest::newRow("new epoch, lease valid") << int(Fault::CenterFromOldState);
    }

    void aLapseOrAKillDropsTheKeptOpenWindows() {
        QFETCH(int, fault);
        std::vector<LeaseEvent> leases;
        const auto kept = audited(Fault(fault), {}, &leases);
        if (Fault(fault) == Fault::CenterFromOldState)
            QVERIFY(caughtUpStraightFromTraining(leases));
        QVERIFY2(kept.empty(), qPrintable(listed(kept)));

        NodeContext::Faults broken;
        broken.breakDropKeptWindows = true;
        const QString missed = eu2SentStale(audited(Fault(fault), broken), "kept windows");
        QVERIFY2(missed.isEmpty(), qPrintable(missed));
    }

    // Behind its slow last mile, eu-2 has several of its owners' answers
    // in flight when the restarted center's new epoch reaches it. Those
    // values were sent before the grant and may be older than the owners'
    // versions at it: only the answer to its catch-up request (which
    // echoes the request's stamp) lets it train. Broken
    // (Faults::breakCatchUpAnswer), the first values to arrive count, and
    // the audit's trains_after_catch_up names eu-2. (The same run with the
    // guard kept is the "new epoch, lease valid" row above.)
    void aCatchUpWaitsForTheAnswerNotValuesInFlight() {
        NodeContext::Faults broken;
        broken.breakCatchUpAnswer = true;
        const QString missed = eu2SentStale(audited(Fault::CenterFromOldState, broken), "values in flight taken");
        QVERIFY2(missed.isEmpty(), qPrintable(missed));
    }

private:
    static constexpr int kEu2 = 2; // edge index; node 3

    static std::vector<SimCommand> commandsFor(Fault fault) {
        switch (fault) {
        case Fault::Kill: {
            SimCommand down{SimCommand::Kind::KillNode, 1.0};
            down.node = kEu2;
            SimCommand up{SimCommand::Kind::ReviveNode, 2.2};
            up.node = kEu2;
            return {down, up};
        }
        case Fault::CenterFromOldState: {
            SimCommand down{SimCommand::Kind::KillNode, 0.8};
            down.node = -1;
            SimCommand up{SimCommand::Kind::ReviveNode, 1.4};
            up.node = -1;
            up.value = 1; // the state file before the newest
            return {down, up};
        }
        case Fault::LeaseLapse: break;
        }
        SimCommand cut{SimCommand::Kind::PartitionLink, 0.5};
        cut.node = kEu2;
        cut.nodeB = -1;
        SimCommand heal = cut;
        heal.kind = SimCommand::Kind::HealLink;
        heal.at = 2.0;
        return {cut, heal};
    }

    // eu-2 behind its slow last mile, training ahead (8 windows), through
    // `fault`: the audit's verdict on the run.
    std::vector<Violation> audited(Fault fault, const NodeContext::Faults &faults,
                                            std::vector<LeaseEvent> *leases = nullptr) {
        std::vector<AuditEvent> history;
        run(true, 8, {.commands = commandsFor(fault), .faults = faults, .audit = &history, .leases = leases});
        return checkInvariants(history);
    }

    // The center-restart row tests the training -> catching-up transition
    // only if eu-2 caught up under a new epoch without going read-only.
    static bool caughtUpStraightFromTraining(const std::vector<LeaseEvent> &leases) {
        bool readOnly = false, caughtUp = false;
        for (const auto &l : leases) {
            if (l.edge != kEu2)
                continue;
            readOnly = readOnly || l.mode == "read_only";
            caughtUp = caughtUp || (l.mode == "catching_up" && l.time > 1.4);
        }
        if (!caughtUp)
            qWarning("eu-2 was never granted a new epoch after the center's restart");
        if (readOnly)
            qWarning("eu-2 went read-only: its lease-lapse drop, not the catch-up one, was tested");
        return caughtUp && !readOnly;
    }

    // Empty when the audit's trains_after_catch_up names eu-2, and only
    // eu-2; otherwise what is wrong.
    static QString eu2SentStale(const std::vector<Violation> &caught, const char *what) {
        if (!caught.empty())
            qInfo("%s, guard broken: %zu violations, first: %s", what, caught.size(),
                  describeViolation(caught.front()).c_str());
        int stale = 0;
        for (const auto &v : caught) {
            if (v.invariant != "trains_after_catch_up")
                continue;
            if (v.node != kEu2 + 1)
                return QString("trains_after_catch_up named node %1, not eu-2 (node 3)").arg(v.node);
            ++stale;
        }
        return stale > 0 ? QString() : QString("%1: stale gradients went out under the next epoch unnoticed").arg(what);
    }

    // An edge's unstamped catch-up request: it asks for whole values after
    // a delta it could not apply (a lease catch-up's ask carries its stamp).
    static bool asksForWholeValues(const Message &m, int node) {
        return m.kind == MessageKind::CatchUpRequest && m.from == node && m.writtenAt == 0;
    }

    static QString listed(const std::vector<Violation> &violations) {
        QStringList lines;
        for (const auto &v : violations)
            lines << QString::fromStdString(describeViolation(v));
        return lines.join("\n");
    }
};

QTEST_GUILESS_MAIN(TestTrainAhead)
#include "tst_train_ahead.moc"
