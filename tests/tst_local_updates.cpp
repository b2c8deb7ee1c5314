// knobs.local_updates, the edge's side (the owner's merge of moves:
// tst_merge_weighting): an edge takes its own Adam step after each
// training step and sends its owners the sum of its moves over the window
// (LocalUpdates keeps what it has not sent); values from an owner, whole or
// as a delta, give the replica the owner's copy plus the unsent moves, never
// the edge's sent moves twice. One edge may take them alone (its own
// local_updates key). On the real Fashion-MNIST data, the tiny
// cluster's eu region in a real simulation.
#include "core/data/fashion_mnist.h"
#include "core/engine/codec/codec_spec.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/message.h"
#include "core/engine/sim/replica.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/sim/strategies/local_updates.h"
#include "core/engine/sim/strategies/synaptic_edge.h"
#include "core/engine/tensor_data.h"
#include "long_test.h"
#include "tiny_cluster_data.h"

#include <ATen/ATen.h>

#include <QTest>

#include <functional>
#include <map>

using namespace synaptic;
using namespace synaptic::engine;

class TestLocalUpdates : public QObject {
    Q_OBJECT
    data::ImageSet m_trainSet;
    TensorSet m_train;
    TensorSet m_test;
    ClusterConfig m_tiny; // tests/data/tiny_cluster.json
    static constexpr int kSteps = 40; // per edge
    // replicasStayOnTheirOwnersValues: per values codec, how far replicas
    // end from their owners on gradients (the rows' baseline, run once).
    std::map<QString, double> m_gradientsOff;

    // eu alone, `kSteps` per edge; `tweak` edits the config.
    StrategyResult run(const std::function<void(ClusterConfig &)> &tweak, SimOptions o = {}) {
        ClusterConfig c = m_tiny;
        c.regions.pop_back();
        c.knobs.localUpdates = true;
        tweak(c);
        o.stepsPerEdge = kSteps;
        o.finalFullEvaluation = false;
        Simulation sim(c, m_train, m_trainSet.labels, m_test, o);
        return sim.run();
    }

    // eu-0's replica on the tiny cluster, and the world it was made in.
    struct EdgeReplica {
        std::unique_ptr<SimWorld> world;
        std::unique_ptr<Replica> replica;
    };
    EdgeReplica edgeReplica() {
        EdgeReplica e;
        e.world = makeWorld(m_tiny, m_train, m_trainSet.labels, "cpu");
        e.replica = e.world->context(SimWorld::nodeOfEdge(0)).newReplica();
        return e;
    }

private Q_SLOTS:
    void initTestCase() { loadTinyClusterData(m_trainSet, m_train, m_test, m_tiny, 20000, 200); }

    // The edge's side: one Adam step of its own moves the replica, the move
    // is returned and kept as unsent until its shard's window goes; shards
    // whose owner's values it lacks are not moved; owners' whole values
    // arrive with the unsent moves on top.
    void anEdgesOwnStepsAreKeptUntilSent() {
        EdgeReplica edge = edgeReplica();
        auto &replica = edge.replica;
        FlatModel &model = replica->model();
        QVERIFY(model.shardCount() >= 3);
        LocalUpdates local;
        const at::Tensor before = model.values();
        replica->trainStep();
        std::vector<bool> shardsToMove(std::size_t(model.shardCount()), true);
        shardsToMove[2] = false;
        const double lr = m_tiny.learningRate;
        const at::Tensor move = local.step(model, shardsToMove, lr);
        QVERIFY(at::allclose(model.values() - before, move, 0, 1e-7));
        auto slice = [&](const at::Tensor &t, int s) { return t.slice(0, model.shardOffset(s), model.shardOffset(s + 1)); };
        // Adam's first step moves each element by lr (where the gradient is not 0).
        const at::Tensor moved0 = slice(move, 0).abs();
        QVERIFY(moved0.max().item<double>() <= lr * 1.0001);
        QVERIFY(moved0.gt(0.99 * lr).sum().item<std::int64_t>() > moved0.numel() / 2);
        QCOMPARE(slice(move, 2).abs().max().item<double>(), 0.0); // not moved
        QVERIFY(at::equal(slice(model.values(), 2), slice(before, 2)));
        QVERIFY(at::equal(local.unsent(model, 0), slice(move, 0)));

        // A second step adds to what is unsent.
        replica->trainStep();
        const at::Tensor second = local.step(model, shardsToMove, lr);
        QVERIFY(at::allclose(local.unsent(model, 1), slice(move + second, 1), 0, 1e-7));
        // Shard 0's window goes: its moves are no longer unsent, shard 1's are.
        local.markSent(model, 0);
        QCOMPARE(local.unsent(model, 0).abs().max().item<double>(), 0.0);
        const at::Tensor owners = at::full({model.shardSize(1)}, 0.5f);
        QVERIFY(at::allclose(local.onWholeValues(model, 1, owners), owners + slice(move + second, 1), 0, 1e-7));
        const at::Tensor owners0 = at::full({model.shardSize(0)}, 0.5f);
        QVERIFY(at::equal(local.onWholeValues(model, 0, owners0), owners0));
        local.dropUnsent();
        QCOMPARE(local.unsent(model, 1).abs().max().item<double>(), 0.0);
    }

    // The delta path: the owner's copy the delta was taken on is the
    // replica less every move since the edge took it (sent ones included);
    // a lapse's dropped moves leave with the next values.
    void aValueDeltaLandsOnTheOwnersCopy() {
        EdgeReplica edge = edgeReplica();
        auto &replica = edge.replica;
        FlatModel &model = replica->model();
        LocalUpdates local;
        const std::vector<bool> all(std::size_t(model.shardCount()), true);
        const double lr = m_tiny.learningRate;
        const at::Tensor ownersCopy = model.shardValues(0); // what every owner starts from
        replica->trainStep();
        const at::Tensor sent = local.step(model, all, lr).slice(0, 0, model.shardSize(0)).clone();
        local.markSent(model, 0);
        replica->trainStep();
        const at::Tensor unsent = local.step(model, all, lr).slice(0, 0, model.shardSize(0)).clone();
        // The owner merged the sent move and others' (a third each): its
        // delta on the copy the edge holds.
        const at::Tensor delta = sent / 3 + 0.001;
        const at::Tensor expected = ownersCopy + delta + unsent;
        const at::Tensor got = local.onValueDelta(model, 0, delta);
        QVERIFY2(at::allclose(got, expected, 0, 1e-6),
                 qPrintable(QString::number((got - expected).abs().max().item<double>())));
        model.setShardValues(0, got);
        // The unsent move is dropped (a lease lapse): the next delta's
        // values no longer hold it.
        local.dropUnsent();
        const at::Tensor next = local.onValueDelta(model, 0, delta);
        QVERIFY(at::allclose(next, ownersCopy + 2 * delta, 0, 1e-6));
        model.setShardValues(0, next);
        // A restart forgets both sums: values arrive as they are.
        local.reset();
        QVERIFY(at::equal(local.onValueDelta(model, 0, delta), next + delta));
        QVERIFY(at::equal(local.onWholeValues(model, 0, ownersCopy), ownersCopy));
    }

    // A gradient that is not finite moves nothing and is handed back for
    // the cache to refuse, as it refuses one on gradients; the optimizer's
    // moments stay clean, so the next step moves again.
    void aNonFiniteGradientMovesNothing() {
        EdgeReplica edge = edgeReplica();
        auto &replica = edge.replica;
        FlatModel &model = replica->model();
        LocalUpdates local;
        const std::vector<bool> all(std::size_t(model.shardCount()), true);
        replica->trainStep();
        const auto w = model.module().parameters().front();
        w.mutable_grad().view(-1)[0] = std::numeric_limits<float>::quiet_NaN();
        const at::Tensor before = model.values();
        const at::Tensor pushes = local.step(model, all, m_tiny.learningRate);
        int badShards = 0;
        for (int s = 0; s < model.shardCount(); ++s) {
            const at::Tensor p = pushes.slice(0, model.shardOffset(s), model.shardOffset(s + 1));
            const at::Tensor v = (model.values() - before).slice(0, model.shardOffset(s), model.shardOffset(s + 1));
            if (!p.isfinite().all().item<bool>()) {
                ++badShards;
                QCOMPARE(v.abs().max().item<double>(), 0.0); // not moved
                QCOMPARE(local.unsent(model, s).abs().max().item<double>(), 0.0);
            } else {
                QVERIFY(at::allclose(v, p, 0, 1e-7)); // the rest moved as usual
            }
        }
        QCOMPARE(badShards, 1);
        QVERIFY(model.values().isfinite().all().item<bool>());
        replica->trainStep();
        const at::Tensor again = local.step(model, all, m_tiny.learningRate);
        QVERIFY(again.isfinite().all().item<bool>());
        QVERIFY(again.abs().max().item<double>() > 0);
    }

    // On fast links: edges send their replicas' moves,
    // not gradients. A one-step window's move is one Adam step (each
    // element moves by the rate, at the first), a two-step window's is the
    // sum of two (a mean would stay under the rate); two-step windows send
    // about half the messages of one-step ones, every contribution lands,
    // and the model learns as well as it does on gradients.
    void eachWindowSendsItsWholeMove() {
        SYNAPTIC_SKIP_UNDER_SANITIZERS(); // its runs' code runs sanitized in replicasStayOnTheirOwnersValues
        struct FirstMove {
            double maxAbs = -1;
            double meanAbs = -1;
            std::int64_t atRate = 0; // elements within 1 % of the rate
            std::int64_t elements = 0;
        };
        const double lr = m_tiny.learningRate;
        const auto runWith = [&](bool local, int windowSteps, FirstMove &first, int &messages) {
            const auto tweak = [=](ClusterConfig &c) {
                c.knobs.localUpdates = local;
                c.knobs.aggregationWindowSteps = windowSteps;
            };
            const auto tap = [&, lr](const Message &m) {
                if (m.kind != MessageKind::Gradients || m.shards.empty())
                    return;
                ++messages;
                if (m.origin != 0 || first.maxAbs >= 0) // eu-0's first message: one owner's shards of its first window
                    return;
                at::Tensor all = m.shards.front().data.abs();
                for (std::size_t i = 1; i < m.shards.size(); ++i)
                    all = at::cat({all, m.shards[i].data.abs()});
                first.maxAbs = all.max().item<double>();
                first.meanAbs = all.mean().item<double>();
                first.atRate = all.sub(lr).abs().lt(0.01 * lr).sum().item<std::int64_t>();
                first.elements = all.numel();
            };
            SimOptions o;
            o.messageTap = [&](const Message &m, std::uint64_t) { tap(m); };
            return run(tweak, o);
        };
        FirstMove gradFirst, oneFirst, twoFirst;
        int gradMessages = 0, oneMessages = 0, twoMessages = 0;
        const StrategyResult gradients = runWith(false, 1, gradFirst, gradMessages);
        const StrategyResult one = runWith(true, 1, oneFirst, oneMessages);
        const StrategyResult two = runWith(true, 2, twoFirst, twoMessages);
        const auto describe = [](const char *name, const StrategyResult &r, const FirstMove &f, int messages) {
            return QString("%1: accuracy %2, %3 gradient messages, %4/%5 applied, first move max %6 mean %7 (%8 of %9 at the rate)")
                .arg(name).arg(r.finalAccuracy).arg(messages).arg(r.contributionsApplied).arg(r.contributionsSent)
                .arg(f.maxAbs).arg(f.meanAbs).arg(f.atRate).arg(f.elements);
        };
        const QString all = describe("gradients", gradients, gradFirst, gradMessages) + "; " +
                            describe("local, 1 step", one, oneFirst, oneMessages) + "; " +
                            describe("local, 2 steps", two, twoFirst, twoMessages);
        qInfo("%s", qPrintable(all));
        QCOMPARE(one.samples, gradients.samples);
        QCOMPARE(two.samples, gradients.samples);
        // One Adam step from a fresh state: every element by at most the
        // rate, most by the rate itself. A gradient is not that.
        QVERIFY2(oneFirst.maxAbs <= 1.0001 * lr && 2 * oneFirst.atRate > oneFirst.elements, qPrintable(all));
        QVERIFY2(2 * gradFirst.atRate < gradFirst.elements, qPrintable(all));
        // Two steps summed: past the rate on average (Adam's second step
        // can pass the rate by a hair: measured max 2.0014 times it).
        QVERIFY2(twoFirst.meanAbs > 1.2 * lr && twoFirst.maxAbs <= 2.01 * lr, qPrintable(all));
        // What the knob is for: two-step windows, about half the messages
        // (as on gradients; the moves above are what keep their steps).
        QVERIFY2(10 * twoMessages < 6 * oneMessages, qPrintable(all));
        for (const StrategyResult *r : {&one, &two}) {
            QCOMPARE(r->contributionsApplied, r->contributionsSent);
            QCOMPARE(r->contributionsRejected, std::uint64_t(0));
            QVERIFY2(r->finalAccuracy > gradients.finalAccuracy - 0.05, qPrintable(all));
        }
    }

    // One edge's own local_updates key: that edge sends moves (its first
    // message one Adam step: most elements at the rate), the others
    // gradients, and the owners take both (every contribution applied).
    void onlyTheEdgeWithTheKeySendsMoves() {
        const double lr = m_tiny.learningRate;
        std::map<int, double> shareAtRate; // per edge: of its first message's elements, those within 1 % of the rate
        SimOptions o;
        o.messageTap = [&](const Message &m, std::uint64_t) {
            if (m.kind != MessageKind::Gradients || m.shards.empty() || shareAtRate.count(m.origin))
                return;
            std::int64_t atRate = 0, elements = 0;
            for (const auto &item : m.shards) {
                atRate += item.data.abs().sub(lr).abs().lt(0.01 * lr).sum().item<std::int64_t>();
                elements += item.data.numel();
            }
            shareAtRate[m.origin] = double(atRate) / double(elements);
        };
        const StrategyResult r = run(
            [](ClusterConfig &c) {
                c.knobs.localUpdates = false;
                c.regions[0].edges[1].localUpdates = true;
            },
            o);
        QString all = QString("%1 of %2 contributions applied; first message at the rate:")
                          .arg(r.contributionsApplied).arg(r.contributionsSent);
        for (const auto &[edge, share] : shareAtRate)
            all += QString(" eu-%1 %2").arg(edge).arg(share);
        qInfo("%s", qPrintable(all));
        QCOMPARE(int(shareAtRate.size()), 3);
        QVERIFY2(shareAtRate[1] > 0.5, qPrintable(all));
        QVERIFY2(shareAtRate[0] < 0.5 && shareAtRate[2] < 0.5, qPrintable(all));
        QCOMPARE(r.contributionsApplied, r.contributionsSent);
        QCOMPARE(r.contributionsRejected, std::uint64_t(0));
    }

    // An edge's replica stays as close to its owners' values under local
    // updates as on gradients: the moves it sent are in the owners' values
    // once, not once more on top. eu-2 is behind a slow last mile and
    // trains ahead (values arrive while it has moves not sent yet, and
    // shards wait for a slow owner). Edges that have finished take values
    // only at center syncs, so even on gradients a replica ends a few
    // merges behind its owners (measured: 0.0037 at most); with the sent
    // moves added again by fp16 value deltas it ended 0.076 off.
    void replicasStayOnTheirOwnersValues_data() {
        QTest::addColumn<QString>("values");
        QTest::addColumn<bool>("slowEdgeAlone"); // local updates for eu-2 alone (its own key), not every edge
        QTest::newRow("fp32 whole values") << "fp32" << false;
        QTest::newRow("fp16 value deltas") << "fp16" << false;
        QTest::newRow("the slow edge alone, fp16 value deltas") << "fp16" << true;
    }
    void replicasStayOnTheirOwnersValues() {
        QFETCH(QString, values);
        QFETCH(bool, slowEdgeAlone);
        // The largest difference between an edge's copy of a shard and its
        // owner's values at the run's end, over every edge and shard.
        const auto worstOff = [&](bool local, StrategyResult &r) {
            double worst = -1;
            SimOptions o;
            o.inspectNodes = [&](const std::vector<std::unique_ptr<SimNode>> &nodes) {
                std::vector<SynapticEdge *> edges;
                for (const auto &n : nodes)
                    if (auto *e = dynamic_cast<SynapticEdge *>(n.get()))
                        edges.push_back(e);
                for (auto *owner : edges)
                    for (int shard : owner->owner().ownedShards())
                        for (auto *edge : edges)
                            worst = std::max(worst, (edge->replica().model().shardValues(shard) -
                                                     owner->owner().values(shard)).abs().max().item<double>());
            };
            r = run(
                [&](ClusterConfig &c) {
                    c.regions[0].edges[2].lastMile = LastMile{0.050, 20e6, 0};
                    c.knobs.trainAheadWindows = 8;
                    c.codecs.values = parseCodec(values.toStdString());
                    c.knobs.localUpdates = local && !slowEdgeAlone;
                    c.regions[0].edges[2].localUpdates = local && slowEdgeAlone;
                },
                o);
            return worst;
        };
        StrategyResult onGradients, onMoves;
        if (!m_gradientsOff.count(values))
            m_gradientsOff[values] = worstOff(false, onGradients);
        const double gradientsOff = m_gradientsOff[values];
        const double movesOff = worstOff(true, onMoves);
        const QString all = QString("worst off on gradients %1, under local updates %2; %3 of %4 contributions applied")
                                .arg(gradientsOff).arg(movesOff).arg(onMoves.contributionsApplied)
                                .arg(onMoves.contributionsSent);
        qInfo("%s", qPrintable(all));
        QVERIFY2(gradientsOff > 0 && movesOff >= 0, qPrintable(all));
        QVERIFY2(movesOff < 2 * gradientsOff, qPrintable(all));
        QCOMPARE(onMoves.contributionsApplied, onMoves.contributionsSent);
    }
};

QTEST_GUILESS_MAIN(TestLocalUpdates)
#include "tst_local_updates.moc"
