// A live cluster of real processes on 127.0.0.1 (issue 13, Done when): a
// center and 2 regions x 2 edges with TLS and a token train Fashion-MNIST
// past 0.80; a kill -9'd edge is noticed, the others go on, and restarted
// it catches up before it trains; a region cut off turns read-only and
// keeps serving, and recovers when healed; both end within 1 pp of the
// fault-free run. No process is left behind.
#include "support/live_cluster_fixture.h"

#include "core/data/fashion_mnist.h"

#include "events.pb.h"

#include <QtTest>
#include <QTemporaryDir>
#include <QJsonObject>
#include <QJsonDocument>

#include <cmath>

using namespace synaptic;
using engine::LeaseEvent;
using engine::MetricEvent;
using engine::SimCommand;
using engine::SimEvent;
using test::LiveCluster;

namespace {

// 400 steps per edge (51,200 samples): at 200 the final accuracy still
// swings by 1-2 pp from one run to the next (the simulator's seeds 3 and 4
// end at 0.829 and 0.847), which a 1 pp comparison cannot tell from a
// fault; at 400 they end at 0.872 and 0.873.
constexpr int kSteps = 400;
constexpr std::uint64_t kBudgetSamples = std::uint64_t(kSteps) * 4 * 32;
constexpr int kRunMs = 300000;

LiveCluster::Options options() {
    LiveCluster::Options o;
    o.config = QFINDTESTDATA("data/live_cluster.json");
    o.steps = kSteps;
    return o;
}

bool allTraining(const std::vector<SimEvent> &events, int edges) {
    for (int e = 0; e < edges; ++e)
        if (LiveCluster::leaseIndex(events, e, "training") < 0)
            return false;
    return true;
}

std::uint64_t samplesSoFar(const std::vector<SimEvent> &events) {
    std::uint64_t samples = 0;
    for (const auto &ev : events)
        if (const auto *m = std::get_if<MetricEvent>(&ev))
            samples = std::max(samples, m->samples);
    return samples;
}

// A test image as the dataset files hold it.
std::string testImage(int index) {
    static const auto set = data::loadFashionMnist(data::resolveDataDir(""), data::Split::Test, 100);
    return std::string(reinterpret_cast<const char *>(set.pixels.data()) + index * data::kImagePixels,
                       data::kImagePixels);
}

} // namespace

class LiveClusterTest : public QObject {
    Q_OBJECT

    double m_faultFree = std::nan("");

    void finish(LiveCluster &cluster, double *accuracy) {
        QCOMPARE(cluster.waitForCenter(kRunMs), 0);
        const auto report = cluster.report();
        QVERIFY2(report.value("finished").toBool(), qPrintable(cluster.centerLog().right(3000)));
        *accuracy = report.value("final_accuracy").toDouble();
        QCOMPARE(report.value("contributions_duplicated").toInt(), 0);
        // Refusals arrive with the owner's reason over the wire (none unnamed).
        qint64 byReason = 0;
        const auto reasons = report.value("contributions_rejected_by_reason").toObject();
        for (auto it = reasons.begin(); it != reasons.end(); ++it) {
            QVERIFY2(it.key() != "unnamed", "a refusal crossed the wire without its reason");
            byReason += it.value().toInteger();
        }
        QCOMPARE(byReason, report.value("contributions_rejected").toInteger());
        // Each edge's sends, counted by the center in the sender's name
        // only: every edge of the config, adding up to the whole.
        qint64 sent = 0;
        const auto byEdge = report.value("contributions_sent_by_edge").toObject();
        for (auto it = byEdge.begin(); it != byEdge.end(); ++it)
            sent += it.value().toInteger();
        QCOMPARE(byEdge.size(), qsizetype(4)); // live_cluster.json's edges
        QCOMPARE(sent, report.value("contributions_sent").toInteger());
        cluster.stop();
        QVERIFY2(cluster.leftovers().isEmpty(), qPrintable(cluster.leftovers().join('\n')));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!QStandardPaths::findExecutable("openssl").isEmpty(), "openssl makes the test certificates");
        QVERIFY2(QFileInfo::exists(qEnvironmentVariable("SYNAPTIC_NODE")), "SYNAPTIC_NODE names synaptic-node");
    }

    void faultFreeRunTrainsPastTheTarget() {
        LiveCluster cluster(options());
        const QString error = cluster.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(cluster.waitFor([](const auto &ev) { return allTraining(ev, 4); }, 60000));
        double accuracy = 0;
        finish(cluster, &accuracy);
        if (QTest::currentTestFailed())
            return;
        qInfo("fault-free final accuracy %.4f", accuracy);
        QVERIFY2(accuracy > 0.80, qPrintable(QString::number(accuracy)));
        m_faultFree = accuracy;
    }

    void killedEdgeIsNoticedAndCatchesUpBeforeItTrains() {
        // Killed mid-run (half the sample budget). Until it is back, the
        // shards it owns stand still in its region (no other edge takes
        // ownership over), so what the kill costs grows with how long the
        // edge is down and how steep the curve still is. It is restarted
        // once the others trained 1,000 samples without it (the center
        // evaluates every 1,000 samples so the test sees that soon), over
        // its durable state (--state-dir, issue 15): it reloads its shards.
        auto o = options();
        o.evalEverySamples = 1000;
        QTemporaryDir stateDir;
        o.edgeArgs = {"--state-dir", stateDir.path()};
        LiveCluster cluster(o);
        const QString error = cluster.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(cluster.waitFor([](const auto &ev) { return allTraining(ev, 4); }, 60000));
        QVERIFY(cluster.waitFor([](const auto &ev) { return samplesSoFar(ev) >= kBudgetSamples / 2; }, 180000));

        cluster.killEdge("eu-1"); // kill -9: no leave, no flush
        QVERIFY2(cluster.waitFor([](const auto &ev) { return LiveCluster::leaseIndex(ev, 1, "down") >= 0; }, 30000),
                 "the center did not notice eu-1's death");
        const auto atDeath = samplesSoFar(cluster.events());
        // The others go on without it.
        QVERIFY(cluster.waitFor([&](const auto &ev) { return samplesSoFar(ev) >= atDeath + 1000; }, 120000));
        const int trainingBefore = int(cluster.events().size());
        QVERIFY(LiveCluster::leaseIndex(cluster.events(), 1, "training", trainingBefore) < 0);

        const QString restart = cluster.startEdge("eu-1");
        QVERIFY2(restart.isEmpty(), qPrintable(restart));
        // The log is appended to across restarts: wait for the new process's line.
        QTRY_VERIFY2_WITH_TIMEOUT(cluster.edgeLog("eu-1").contains("found: reloading it"),
                                  qPrintable(cluster.edgeLog("eu-1")), 60000);
        QVERIFY(cluster.waitFor(
            [&](const auto &ev) { return LiveCluster::leaseIndex(ev, 1, "training", trainingBefore) >= 0; }, 60000));
        const auto events = cluster.events();
        const int catching = LiveCluster::leaseIndex(events, 1, "catching_up", trainingBefore);
        const int training = LiveCluster::leaseIndex(events, 1, "training", trainingBefore);
        QVERIFY2(catching >= 0 && catching < training, "the restarted edge trained before it caught up");
        const auto leaseTime = [&](int i) { return std::get<LeaseEvent>(events[std::size_t(i)]).time; };
        qInfo("eu-1 caught up in %.3f s (its own owner answers once it recovered: up to 2 s)", leaseTime(training) - leaseTime(catching));

        double accuracy = 0;
        finish(cluster, &accuracy);
        if (QTest::currentTestFailed())
            return;
        // The restarted edge rejoined at its region's step (as a worker of an
        // elastic job does) and finished with the others: the steps it was
        // down are missing from the budget, nothing was trained twice.
        const auto samples = cluster.report().value("samples").toInteger();
        qInfo("samples trained: %lld of a fault-free run's %llu", samples, (unsigned long long)kBudgetSamples);
        QVERIFY2(samples < qint64(kBudgetSamples) && samples > qint64(kBudgetSamples) * 9 / 10,
                 qPrintable(QString::number(samples)));
        qInfo("with a killed edge: final accuracy %.4f (fault-free %.4f)", accuracy, m_faultFree);
        QVERIFY2(!std::isnan(m_faultFree), "no fault-free run of the same config to compare with (it failed, or was not run)");
        QVERIFY2(std::abs(accuracy - m_faultFree) <= 0.01,
                 qPrintable(QString("%1 vs %2").arg(accuracy).arg(m_faultFree)));
    }

    void sigtermLeavesCleanly() {
        // SIGTERM: the edge hands every shard it owns to the edge that stays
        // in its region, gives its lease back and leaves; the rest train on.
        LiveCluster cluster(options());
        const QString error = cluster.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(cluster.waitFor([](const auto &ev) { return allTraining(ev, 4); }, 60000));
        v1::ClusterDescription before;
        QVERIFY(cluster.describe(before));
        cluster.terminateEdge("eu-0");
        QVERIFY2(cluster.waitFor([](const auto &ev) { return LiveCluster::leaseIndex(ev, 0, "left") >= 0; }, 30000),
                 qPrintable(cluster.edgeLog("eu-0").right(2000)));
        const auto events = cluster.events();
        QVERIFY(LiveCluster::leaseIndex(events, 0, "leaving") >= 0);
        QVERIFY2(LiveCluster::leaseIndex(events, 0, "released") >= 0, "the center did not release eu-0's lease");
        // Every shard of region eu is now owned by eu-1 (edge 1).
        auto stub = v1::Control::NewStub(cluster.channelTo(cluster.centerAddress()));
        QVERIFY(cluster.waitFor(
            [&](const auto &) {
                grpc::ClientContext ctx;
                ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
                session::pb::RoutingState routing;
                if (!stub->Routing(&ctx, v1::DescribeRequest{}, &routing).ok())
                    return false;
                for (const auto &row : routing.rows())
                    if (row.owner(0) != 1)
                        return false;
                return true;
            },
            30000));
        const auto atLeave = samplesSoFar(cluster.events());
        QVERIFY(cluster.waitFor([&](const auto &ev) { return samplesSoFar(ev) >= atLeave + 4000; }, 120000));
        cluster.stop();
        QVERIFY2(cluster.leftovers().isEmpty(), qPrintable(cluster.leftovers().join('\n')));
    }

    void cutRegionTurnsReadOnlyKeepsServingAndRecovers() {
        LiveCluster cluster(options());
        const QString error = cluster.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(cluster.waitFor([](const auto &ev) { return allTraining(ev, 4); }, 60000));
        QVERIFY(cluster.waitFor([](const auto &ev) { return samplesSoFar(ev) >= 4000; }, 120000));

        SimCommand cut;
        cut.kind = SimCommand::Kind::PartitionRegion;
        cut.region = 1; // us: edges 2 and 3
        QVERIFY(cluster.submit(cut));
        const int cutAt = int(cluster.events().size());
        QVERIFY2(cluster.waitFor(
                     [&](const auto &ev) {
                         return LiveCluster::leaseIndex(ev, 2, "read_only", cutAt) >= 0 &&
                                LiveCluster::leaseIndex(ev, 3, "read_only", cutAt) >= 0;
                     },
                     30000),
                 "us's edges did not turn read-only");

        // Read-only, they keep serving: every request gets an answer, from the edge.
        auto stub = v1::Inference::NewStub(cluster.channelTo(cluster.edgeAddress("us-0")));
        for (int i = 0; i < 20; ++i) {
            grpc::ClientContext ctx;
            ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
            v1::ClassifyRequest request;
            request.set_image(testImage(i));
            v1::ClassifyReply reply;
            const auto status = stub->Classify(&ctx, request, &reply);
            QVERIFY2(status.ok(), status.error_message().c_str());
            QVERIFY(reply.at_edge());
            QVERIFY(reply.label() >= 0 && reply.label() < 10);
            QVERIFY2(reply.degraded() || reply.confidence() >= 0.85f, "a read-only edge forwarded a request");
        }

        SimCommand heal = cut;
        heal.kind = SimCommand::Kind::HealRegion;
        QVERIFY(cluster.submit(heal));
        const int healedAt = int(cluster.events().size());
        QVERIFY2(cluster.waitFor(
                     [&](const auto &ev) {
                         for (int e : {2, 3}) {
                             const int c = LiveCluster::leaseIndex(ev, e, "catching_up", healedAt);
                             const int t = LiveCluster::leaseIndex(ev, e, "training", healedAt);
                             if (c < 0 || t < c)
                                 return false;
                         }
                         return true;
                     },
                     60000),
                 "us's edges did not catch up and train again after the heal");

        double accuracy = 0;
        finish(cluster, &accuracy);
        if (QTest::currentTestFailed())
            return;
        qInfo("with a region cut off: final accuracy %.4f (fault-free %.4f)", accuracy, m_faultFree);
        QVERIFY2(!std::isnan(m_faultFree), "no fault-free run of the same config to compare with (it failed, or was not run)");
        QVERIFY2(std::abs(accuracy - m_faultFree) <= 0.01,
                 qPrintable(QString("%1 vs %2").arg(accuracy).arg(m_faultFree)));
    }

    // The codecs over real sockets, the zstd stage included (issue 14):
    // fp16 frames inside regions, int8 frames to and from the center. Every
    // frame a node sent was read back by its peer (no input refused), and
    // the run learns.
    void zstdCodedRunTrains() {
        QFile in(QFINDTESTDATA("data/live_cluster.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject config = QJsonDocument::fromJson(in.readAll()).object();
        config["codecs"] = QJsonObject{{"gradients", "fp16+zstd"}, {"values", "fp16+zstd"}, {"center", "int8+zstd"}};
        QTemporaryDir dir;
        QFile out(dir.filePath("zstd_cluster.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(config).toJson());
        out.close();
        LiveCluster::Options o = options();
        o.config = out.fileName();
        o.steps = 150;
        LiveCluster cluster(o);
        const QString error = cluster.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(cluster.waitForCenter(kRunMs), 0);
        const auto summary = cluster.report();
        QVERIFY2(summary.value("finished").toBool(), qPrintable(cluster.centerLog().right(3000)));
        QCOMPARE(summary.value("rejected_inputs").toInteger(), 0);
        QVERIFY(summary.value("wire_bytes").toInteger() > 0);
        const double accuracy = summary.value("final_accuracy").toDouble();
        qInfo("zstd-coded final accuracy %.4f after 150 steps", accuracy);
        QVERIFY2(accuracy > 0.70, qPrintable(QString::number(accuracy)));
        cluster.stop();
        QVERIFY2(cluster.leftovers().isEmpty(), qPrintable(cluster.leftovers().join('\n')));
    }
};

QTEST_GUILESS_MAIN(LiveClusterTest)
#include "tst_live_cluster.moc"
