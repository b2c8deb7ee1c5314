// The control-plane window offscreen on a real config: its panels show the
// config's edges and, once the engine runs, every shard, chart points and a
// live event log; a refused drop says why in the status bar; the layout can
// be reset.
#include "core/engine/sim/cluster_config.h"
#include "ui/charts/cluster_chart.h"
#include "ui/control_plane_window.h"
#include "ui/models/routing_table_model.h"
#include "ui/models/shard_map_model.h"
#include "ui/panels/control_panel.h"

#include <QApplication>
#include <QDockWidget>
#include <QMimeData>
#include <QSpinBox>
#include <QStatusBar>
#include <QStringListModel>
#include <QTemporaryDir>
#include <QTest>

using namespace synaptic;
using namespace synaptic::ui;

class TestControlPlaneWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void opensOnAConfigAndShowsNodesAndShards() {
        const auto config = engine::loadClusterConfig(qEnvironmentVariable("SYNAPTIC_TEST_DATA").toStdString() +
                                                      "/tiny_cluster.json");
        ControlPlaneWindow window(config, "tiny_cluster.json");
        window.setBudget(0, 0); // until stopped
        window.session().setEvalEverySamples(960); // 5 steps of this 6-edge cluster
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.windowTitle().contains("tiny_cluster.json"));
        QCOMPARE(window.shardMap().rowCount(), 6);
        QCOMPARE(window.shardMap().index(3, 0).data().toString().left(4), QString("us-0"));
        QCOMPARE(window.findChildren<QDockWidget *>().size(), 5);

        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.routingTable().rowCount() > 0, 30000);
        int shards = 0;
        for (int e = 0; e < 3; ++e)
            shards += window.shardMap().rowCount(window.shardMap().edgeIndex(e));
        QCOMPARE(shards, window.routingTable().rowCount()); // region eu owns every shard once
        // A threshold edit and a fault reach the engine and come back in the log and the map.
        window.controls().windowBox()->setValue(2);
        window.faults().select(0, 6, 1);
        window.faults().trigger(engine::SimCommand::Kind::PartitionRegion);
        QTRY_VERIFY_WITH_TIMEOUT(window.eventLog().stringList().join('\n').contains("applied: set_aggregation_window 2"),
                                 30000);
        QTRY_VERIFY_WITH_TIMEOUT(window.eventLog().stringList().join('\n').contains("applied: partition_region region 1"),
                                 30000);
        QTRY_COMPARE_WITH_TIMEOUT(window.shardMap().index(3, 0).data(ShardMapModel::EdgeModeRole).toString(),
                                  QString("read_only"), 60000);
        QCOMPARE(window.shardMap().index(0, 0).data(ShardMapModel::EdgeModeRole).toString(), QString("training"));

        QTRY_VERIFY_WITH_TIMEOUT(window.chart().pointCount("accuracy global") >= 2, 60000);
        QVERIFY(window.chart().seriesCount() >= 3);
        QTRY_VERIFY_WITH_TIMEOUT(window.eventLog().stringList().join('\n').contains("eu-0 is training"), 30000);

        // A drop onto an edge of the partitioned (read-only) region is refused in the status bar.
        const QModelIndex chip = window.shardMap().index(0, 0, window.shardMap().edgeIndex(0));
        std::unique_ptr<QMimeData> mime(window.shardMap().mimeData({chip}));
        QVERIFY(!window.shardMap().dropMimeData(mime.get(), Qt::MoveAction, -1, 0, window.shardMap().edgeIndex(4)));
        QVERIFY2(window.statusBar()->currentMessage().contains("us-1 is read_only"),
                 qPrintable(window.statusBar()->currentMessage()));

        auto *dock = window.findChildren<QDockWidget *>().first();
        dock->hide();
        window.resetLayout();
        QVERIFY(dock->isVisible());
        QVERIFY(!window.grab().isNull());
        window.session().stop();
        QTRY_VERIFY_WITH_TIMEOUT(window.session().state() == ClusterSession::State::Finished, 30000);
        window.close();
    }

    void layoutAboutAndShortcuts() {
        const auto config = engine::loadClusterConfig(qEnvironmentVariable("SYNAPTIC_TEST_DATA").toStdString() +
                                                      "/tiny_cluster.json");
        ControlPlaneWindow window(config, "tiny_cluster.json");
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTemporaryDir dir;
        auto *dock = window.findChildren<QDockWidget *>().first();
        QVERIFY(dock->isVisible());
        dock->hide();
        QCOMPARE(window.saveLayout(dir.filePath("hidden.layout")), QString());
        window.resetLayout();
        QVERIFY(dock->isVisible());
        QCOMPARE(window.loadLayout(dir.filePath("hidden.layout")), QString());
        QVERIFY(!dock->isVisible());
        QVERIFY(window.loadLayout(dir.filePath("missing.layout")).contains("cannot open"));
        QFile junk(dir.filePath("junk.layout"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not a layout");
        junk.close();
        QVERIFY(window.loadLayout(dir.filePath("junk.layout")).contains("not a Synaptic layout"));

        const QString about = window.aboutText();
        QVERIFY2(about.contains(QString("Qt ") + qVersion()) && about.contains("LibTorch 1.") && about.contains("gRPC 1."),
                 qPrintable(about));
        const QString keys = window.shortcutsText();
        QVERIFY2(keys.contains("Ctrl+Z") && keys.contains("Undo") && keys.contains("?") && keys.contains("Pause"),
                 qPrintable(keys));
        window.close();
    }
};

QTEST_MAIN(TestControlPlaneWindow)
#include "tst_control_plane_window.moc"
