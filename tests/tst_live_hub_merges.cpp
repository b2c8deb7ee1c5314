// Hub merges across real processes (issue 14, knobs.hub_merges): a center
// and 2 regions x 2 edges on 127.0.0.1, with TLS and a token. Each shard's
// regions merge at its hub, an edge: the other region's owner sends it its
// deltas edge to edge, the hub answers them, and the center pulls the hubs'
// copies (hub_pull / hub_copy on the wire) and checks each one. The peer
// guards let that traffic through and nothing else is refused; the hubs
// write their own state files; the center's model at the end, the hubs'
// copies, has trained. A hub's edge killed -9 and started again over its
// state directory reloads its hub, and the run still ends with every
// pulled copy checked. No process is left behind.
#include "support/live_cluster_fixture.h"

#include <QDir>
#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

using namespace synaptic;
using engine::ConsistencyEvent;
using test::LiveCluster;

namespace {

// live_cluster.json with knobs.hub_merges on, written into `dir`.
QString hubConfig(const QTemporaryDir &dir) {
    QFile in(QFINDTESTDATA("data/live_cluster.json"));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QJsonObject config = QJsonDocument::fromJson(in.readAll()).object();
    QJsonObject knobs = config["knobs"].toObject();
    knobs["hub_merges"] = true;
    config["knobs"] = knobs;
    QFile out(dir.filePath("hub_cluster.json"));
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(QJsonDocument(config).toJson());
    return out.fileName();
}

// The center's checks of the copies it pulled: (checked, mismatches).
std::pair<std::uint64_t, std::uint64_t> pullChecks(const std::vector<engine::SimEvent> &events) {
    std::uint64_t checked = 0, mismatches = 0;
    for (const auto &e : events)
        if (const auto *c = std::get_if<ConsistencyEvent>(&e)) {
            checked += c->checked;
            mismatches += c->mismatches;
        }
    return {checked, mismatches};
}

// A cluster of that config, `steps` per edge, its edges keeping their
// state in `stateDir`.
LiveCluster::Options hubOptions(const QString &config, const QTemporaryDir &stateDir, int steps) {
    LiveCluster::Options o;
    o.config = config;
    o.steps = steps;
    o.edgeArgs = {"--state-dir", stateDir.path()};
    return o;
}

// The hub state files under a state directory.
int hubStateFiles(const QString &stateDir) {
    int files = 0;
    for (QDirIterator it(stateDir, {"hub-state.bin"}, QDir::Files, QDirIterator::Subdirectories); it.hasNext();
         it.next())
        ++files;
    return files;
}

std::uint64_t samplesSoFar(const std::vector<engine::SimEvent> &events) {
    std::uint64_t samples = 0;
    for (const auto &ev : events)
        if (const auto *m = std::get_if<engine::MetricEvent>(&ev))
            samples = std::max(samples, m->samples);
    return samples;
}

} // namespace

class LiveHubMergesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!QStandardPaths::findExecutable("openssl").isEmpty(), "openssl makes the test certificates");
        QVERIFY2(QFileInfo::exists(qEnvironmentVariable("SYNAPTIC_NODE")), "SYNAPTIC_NODE names synaptic-node");
    }

    void aLiveClusterMergesAtItsHubs() {
        QTemporaryDir dir;
        QTemporaryDir stateDir;
        const QString config = hubConfig(dir);
        QVERIFY(!config.isEmpty());
        LiveCluster cluster(hubOptions(config, stateDir, 150));
        const QString error = cluster.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(cluster.waitForCenter(300000), 0);
        const auto report = cluster.report();
        QVERIFY2(report.value("finished").toBool(), qPrintable(cluster.centerLog().right(3000)));
        // The guards took the hubs' traffic: nothing refused anywhere.
        QCOMPARE(report.value("rejected_inputs").toInteger(), 0);
        // The center took the hubs' copies, each checked against its hub's checksum.
        const auto [checked, mismatches] = pullChecks(cluster.events());
        QVERIFY2(checked > 0, "the center took no hub's copy");
        QCOMPARE(mismatches, std::uint64_t(0));
        // Every hub wrote its state beside its edge's (one per hub node).
        const int hubFiles = hubStateFiles(stateDir.path());
        QVERIFY2(hubFiles >= 2, qPrintable(QString::number(hubFiles))); // the plan spreads hubs over both regions
        // The model the center serves at the end is the hubs' merged copies:
        // it has trained (the starting model is at chance, 0.10).
        const double accuracy = report.value("final_accuracy").toDouble();
        qInfo("hub-merged final accuracy %.4f after 150 steps, %llu copies checked", accuracy,
              (unsigned long long)checked);
        QVERIFY2(accuracy > 0.70, qPrintable(QString::number(accuracy)));
        cluster.stop();
        QVERIFY2(cluster.leftovers().isEmpty(), qPrintable(cluster.leftovers().join('\n')));
    }

    // A hub's edge killed -9 mid-run and started again over its state
    // directory reloads its hub (and its owner) from the files, and the
    // run ends with every pulled copy checked: its hub did not start over.
    void aKilledHubRestartsOverItsStateDir() {
        QTemporaryDir dir;
        QTemporaryDir stateDir;
        const QString config = hubConfig(dir);
        QVERIFY(!config.isEmpty());
        auto o = hubOptions(config, stateDir, 200);
        o.evalEverySamples = 1000;
        LiveCluster cluster(o);
        const QString error = cluster.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const std::uint64_t budget = 200 * 4 * 32;
        QVERIFY(cluster.waitFor([&](const auto &ev) { return samplesSoFar(ev) >= budget / 2; }, 180000));
        QVERIFY(QFileInfo::exists(stateDir.filePath("node-2/hub-state.bin"))); // eu-1 hosts a hub
        cluster.killEdge("eu-1");
        QVERIFY2(cluster.waitFor([](const auto &ev) { return LiveCluster::leaseIndex(ev, 1, "down") >= 0; }, 30000),
                 "the center did not notice eu-1's death");
        const auto atDeath = samplesSoFar(cluster.events());
        QVERIFY(cluster.waitFor([&](const auto &ev) { return samplesSoFar(ev) >= atDeath + 1000; }, 120000));
        const QString restart = cluster.startEdge("eu-1");
        QVERIFY2(restart.isEmpty(), qPrintable(restart));
        QTRY_VERIFY2_WITH_TIMEOUT(cluster.edgeLog("eu-1").contains("found: reloading it"),
                                  qPrintable(cluster.edgeLog("eu-1")), 60000);
        QCOMPARE(cluster.waitForCenter(300000), 0);
        const auto report = cluster.report();
        QVERIFY2(report.value("finished").toBool(), qPrintable(cluster.centerLog().right(3000)));
        QCOMPARE(report.value("rejected_inputs").toInteger(), 0);
        // Its restart record names when the state its hub reloaded was
        // written: before the kill (a hub that reloaded nothing would name
        // the restart itself, having forgotten no merge).
        std::optional<engine::AuditEvent> restored;
        for (const auto &e : cluster.events())
            if (const auto *a = std::get_if<engine::AuditEvent>(&e); a && a->kind == engine::AuditEvent::Kind::Restore &&
                                                                       a->node == 2)
                restored = *a;
        QVERIFY2(restored, "eu-1's restart record never reached the center");
        qInfo("eu-1 restarted at %.2f s; its hub reloaded the state written at %.2f s", restored->time,
              restored->writtenAt);
        QVERIFY2(restored->writtenAt > 0 && restored->writtenAt < restored->time - 1.0,
                 qPrintable(QString("restarted at %1 s over a hub state of %2 s").arg(restored->time).arg(restored->writtenAt)));
        const auto [checked, mismatches] = pullChecks(cluster.events());
        QVERIFY(checked > 0);
        QCOMPARE(mismatches, std::uint64_t(0));
        const double accuracy = report.value("final_accuracy").toDouble();
        qInfo("with eu-1 (a hub) killed and restarted: final accuracy %.4f after 200 steps", accuracy);
        QVERIFY2(accuracy > 0.70, qPrintable(QString::number(accuracy)));
        cluster.stop();
        QVERIFY2(cluster.leftovers().isEmpty(), qPrintable(cluster.leftovers().join('\n')));
    }

    // `synaptic-node cluster --state-dir DIR` hands the directory to its
    // edges only (a live center keeps no state file and refuses the flag),
    // so a hub-merging cluster runs from the one command too.
    void theClusterCommandGivesItsEdgesTheStateDir() {
        QTemporaryDir dir;
        const QString config = hubConfig(dir);
        QVERIFY(!config.isEmpty());
        QFile token(dir.filePath("token"));
        QVERIFY(token.open(QIODevice::WriteOnly));
        token.write("tst-live-hub-merges\n");
        token.close();
        const QString state = dir.filePath("state"), report = dir.filePath("report.json");
        QProcess cluster;
        cluster.setProcessChannelMode(QProcess::MergedChannels);
        cluster.start(qEnvironmentVariable("SYNAPTIC_NODE"),
                      {"cluster", "--config", config, "--steps", "20", "--exit-when-done", "--report", report,
                       "--insecure", "--token-file", token.fileName(), "--state-dir", state, "--quiet"});
        QVERIFY(cluster.waitForFinished(180000));
        const QString log = QString::fromUtf8(cluster.readAll());
        QCOMPARE(cluster.exitCode(), 0);
        QFile r(report);
        QVERIFY2(r.open(QIODevice::ReadOnly), qPrintable(log.right(3000)));
        QVERIFY(QJsonDocument::fromJson(r.readAll()).object().value("finished").toBool());
        QVERIFY2(hubStateFiles(state) >= 2, qPrintable(log.right(3000)));
    }
};

QTEST_GUILESS_MAIN(LiveHubMergesTest)
#include "tst_live_hub_merges.moc"
