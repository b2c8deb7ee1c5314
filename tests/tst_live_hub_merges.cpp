// Hub merges across real processes (issue 14, knobs.hub_merges): a center
// and 2 regions x 2 edges on 127.0.0.1, with TLS and a token. Each shard's
// regions merge at its hub, an edge: the other region's owner sends it its
// deltas edge to edge, the hub answers them, and the center pulls the hubs'
// copies (hub_pull / hub_copy on the wire) and checks each one. The peer
// guards let that traffic through and nothing else is refused; the hubs
// write their own state files; the center's model at the end, the hubs'
// copies, has trained. No process is left behind.
#include "support/live_cluster_fixture.h"

#include <QDir>
#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace synaptic;
using engine::ConsistencyEvent;
using test::LiveCluster;

class LiveHubMergesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!QStandardPaths::findExecutable("openssl").isEmpty(), "openssl makes the test certificates");
        QVERIFY2(QFileInfo::exists(qEnvironmentVariable("SYNAPTIC_NODE")), "SYNAPTIC_NODE names synaptic-node");
    }

    void aLiveClusterMergesAtItsHubs() {
        QFile in(QFINDTESTDATA("data/live_cluster.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject config = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject knobs = config["knobs"].toObject();
        knobs["hub_merges"] = true;
        config["knobs"] = knobs;
        QTemporaryDir dir;
        QFile out(dir.filePath("hub_cluster.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(config).toJson());
        out.close();
        QTemporaryDir stateDir;
        LiveCluster::Options o;
        o.config = out.fileName();
        o.steps = 150;
        o.edgeArgs = {"--state-dir", stateDir.path()};
        LiveCluster cluster(o);
        const QString error = cluster.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(cluster.waitForCenter(300000), 0);
        const auto report = cluster.report();
        QVERIFY2(report.value("finished").toBool(), qPrintable(cluster.centerLog().right(3000)));
        // The guards took the hubs' traffic: nothing refused anywhere.
        QCOMPARE(report.value("rejected_inputs").toInteger(), 0);
        // The center took the hubs' copies, each checked against its hub's checksum.
        std::uint64_t checked = 0, mismatches = 0;
        for (const auto &e : cluster.events())
            if (const auto *c = std::get_if<ConsistencyEvent>(&e)) {
                checked += c->checked;
                mismatches += c->mismatches;
            }
        QVERIFY2(checked > 0, "the center took no hub's copy");
        QCOMPARE(mismatches, std::uint64_t(0));
        // Every hub wrote its state beside its edge's (one per hub node).
        int hubFiles = 0;
        for (QDirIterator it(stateDir.path(), {"hub-state.bin"}, QDir::Files, QDirIterator::Subdirectories);
             it.hasNext(); it.next())
            ++hubFiles;
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
};

QTEST_GUILESS_MAIN(LiveHubMergesTest)
#include "tst_live_hub_merges.moc"
