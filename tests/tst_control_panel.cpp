// Live controls: each edit is exactly one command with the right value;
// undo sends the old value back and redo the new one; the link editor and
// the fault buttons produce the commands their labels say; the highlight
// thresholds are view-only edits on the same undo stack, kept in settings.
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/knob_commands.h"
#include "ui/panels/codec_panel.h"
#include "ui/panels/control_panel.h"
#include "ui/panels/highlight_thresholds.h"

#include <QDoubleSpinBox>
#include <QComboBox>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

using namespace synaptic;
using namespace synaptic::ui;
using Kind = engine::SimCommand::Kind;
using engine::Codec;
using engine::ClusterConfig;
using engine::applyKnobCommand;
using engine::parseCodec;

Q_DECLARE_METATYPE(synaptic::engine::SimCommand)

class TestControlPanel : public QObject {
    Q_OBJECT
    engine::ClusterConfig m_config;
    QStringList m_nodes{"eu-0", "eu-1", "us-0", "us-1", "center"};

    static engine::SimCommand at(const QSignalSpy &spy, int i) { return spy[i][0].value<engine::SimCommand>(); }

private Q_SLOTS:
    void initTestCase() {
        qRegisterMetaType<engine::SimCommand>();
        m_config = engine::loadClusterConfig(qEnvironmentVariable("SYNAPTIC_RESOURCES").toStdString() +
                                             "/default_cluster.json");
    }

    void editsAreUndoableCommands() {
        ControlPanel panel(m_config, m_nodes);
        QSignalSpy spy(&panel, &ControlPanel::commandRequested);
        QCOMPARE(panel.windowBox()->value(), 1);
        panel.windowBox()->setValue(4);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(at(spy, 0).kind, Kind::SetAggregationWindow);
        QCOMPARE(at(spy, 0).value, 4.0);
        panel.leaseBox()->setValue(20);
        QCOMPARE(spy.count(), 2);
        QCOMPARE(at(spy, 1).kind, Kind::SetLeaseSeconds);
        QCOMPARE(at(spy, 1).value, 20.0);

        panel.undoStack()->undo(); // lease back to 10
        QCOMPARE(spy.count(), 3);
        QCOMPARE(at(spy, 2).kind, Kind::SetLeaseSeconds);
        QCOMPARE(at(spy, 2).value, 10.0);
        QCOMPARE(panel.leaseBox()->value(), 10.0);
        panel.undoStack()->undo(); // window back to 1
        QCOMPARE(at(spy, 3).kind, Kind::SetAggregationWindow);
        QCOMPARE(at(spy, 3).value, 1.0);
        QCOMPARE(panel.windowBox()->value(), 1);
        QCOMPARE(spy.count(), 4); // moving the box back sent nothing extra
        panel.undoStack()->redo();
        QCOMPARE(spy.count(), 5);
        QCOMPARE(at(spy, 4).value, 4.0);
        QCOMPARE(panel.windowBox()->value(), 4);

        panel.syncBox()->setValue(64);
        QCOMPARE(at(spy, 5).kind, Kind::SetCenterSync);
        QCOMPARE(at(spy, 5).value, 64.0);
        QVERIFY(!panel.undoStack()->canRedo()); // a new edit ends the redo chain
    }

    void confidenceEditTargetsTheChosenEdges() {
        ControlPanel panel(m_config, m_nodes);
        QSignalSpy spy(&panel, &ControlPanel::commandRequested);
        QCOMPARE(panel.confidenceBox()->value(), 0.85);
        panel.confidenceBox()->setValue(0.9);
        QCOMPARE(at(spy, 0).kind, Kind::SetConfidenceThreshold);
        QCOMPARE(at(spy, 0).value, 0.9);
        QCOMPARE(at(spy, 0).node, -1); // all edges
        panel.confidenceTarget()->setCurrentIndex(3); // third edge
        panel.confidenceBox()->setValue(0.6);
        QCOMPARE(at(spy, 1).node, 2);
        QCOMPARE(at(spy, 1).value, 0.6);
        panel.confidenceTarget()->setCurrentIndex(0);
        panel.undoStack()->undo(); // reverts the per-edge edit on that edge, not on all edges
        QCOMPARE(spy.count(), 3);
        QCOMPARE(at(spy, 2).node, 2);
        QCOMPARE(at(spy, 2).value, 0.9);
    }

    // Issue 18 §4: drift and version-lag highlight thresholds. Settings of
    // their own, emptied before and after, so no other case reads them.
    void highlightThresholdsAreUndoableAndPersist() {
        const QString organization = QCoreApplication::organizationName();
        QCoreApplication::setOrganizationName("SynapticHighlightTest");
        QSettings().clear();
        {
            ControlPanel panel(m_config, m_nodes);
            HighlightThresholds *h = panel.highlights();
            QCOMPARE(h->driftThreshold(), 0.5);
            QCOMPARE(h->lagThreshold(), 4);
            QSignalSpy drift(h, &HighlightThresholds::driftThresholdChanged);
            QSignalSpy lag(h, &HighlightThresholds::lagThresholdChanged);
            QSignalSpy commands(&panel, &ControlPanel::commandRequested);
            h->driftBox()->setValue(0.2);
            QCOMPARE(drift.count(), 1);
            QCOMPARE(drift[0][0].toDouble(), 0.2);
            QCOMPARE(QSettings().value(HighlightThresholds::kDriftKey).toDouble(), 0.2);
            h->lagBox()->setValue(10);
            QCOMPARE(lag.count(), 1);
            QCOMPARE(lag[0][0].toInt(), 10);
            QCOMPARE(panel.undoStack()->count(), 2);

            panel.undoStack()->undo();
            QCOMPARE(lag.count(), 2);
            QCOMPARE(lag[1][0].toInt(), 4);
            QCOMPARE(h->lagThreshold(), 4);
            QCOMPARE(QSettings().value(HighlightThresholds::kLagKey).toInt(), 4); // what undo restores persists
            panel.undoStack()->undo();
            QCOMPARE(drift.count(), 2);
            QCOMPARE(drift[1][0].toDouble(), 0.5);
            QCOMPARE(h->driftThreshold(), 0.5);
            panel.undoStack()->redo();
            QCOMPARE(drift.count(), 3);
            QCOMPARE(h->driftThreshold(), 0.2);
            QCOMPARE(lag.count(), 2); // moving the boxes sent nothing extra
            QCOMPARE(commands.count(), 0); // the view's business: nothing reaches the engine

            // Bad values cannot be entered: the boxes clamp them.
            h->driftBox()->setValue(-1);
            QCOMPARE(h->driftThreshold(), 0.0);
            h->lagBox()->setValue(-3);
            QCOMPARE(h->lagThreshold(), 0);
            h->lagBox()->setValue(7);

            // A replay turns off what reaches an engine, not the highlights.
            panel.setCommandsEnabled(false);
            QVERIFY(!panel.windowBox()->isEnabled());
            QVERIFY(!panel.confidenceBox()->isEnabled());
            QVERIFY(h->driftBox()->isEnabled() && h->lagBox()->isEnabled());
        }
        {
            // The next panel (window, start) opens with what the last one left.
            ControlPanel panel(m_config, m_nodes);
            QCOMPARE(panel.highlights()->driftThreshold(), 0.0);
            QCOMPARE(panel.highlights()->lagThreshold(), 7);
        }
        // A hand-edited settings file cannot put impossible values in the boxes.
        QSettings().setValue(HighlightThresholds::kDriftKey, "junk");
        QSettings().setValue(HighlightThresholds::kLagKey, -5);
        {
            ControlPanel panel(m_config, m_nodes);
            QCOMPARE(panel.highlights()->driftThreshold(), 0.5);
            QCOMPARE(panel.highlights()->lagThreshold(), 0);
        }
        QSettings().clear();
        QCoreApplication::setOrganizationName(organization);
    }

    void codecPanelSendsSetCodec() {
        ClusterConfig config = m_config;
        config.codecs.values = parseCodec("topk:0.2"); // not in the list: added
        CodecPanel panel(config.codecs);
        QSignalSpy spy(&panel, &CodecPanel::commandRequested);
        QCOMPARE(panel.classBox(0)->currentText(), QString("fp32"));
        QCOMPARE(panel.classBox(1)->currentText(), QString("topk:0.2"));
        Q_EMIT panel.classBox(2)->textActivated("int8");
        QCOMPARE(spy.count(), 1);
        QCOMPARE(at(spy, 0).kind, Kind::SetCodec);
        QCOMPARE(at(spy, 0).region, 2);
        QCOMPARE(at(spy, 0).shard, int(Codec::Int8));
        Q_EMIT panel.classBox(0)->textActivated("topk:0.01");
        QCOMPARE(at(spy, 1).region, 0);
        QCOMPARE(at(spy, 1).shard, int(Codec::TopK));
        QCOMPARE(at(spy, 1).value, 0.01);
        // What the panel sends is a command the engine takes.
        QCOMPARE(QString::fromStdString(applyKnobCommand(config, at(spy, 1))), QString());
        QCOMPARE(config.codecs.gradients.codec, Codec::TopK);
        // The zstd stage is offered and reaches the config with its codec.
        QVERIFY(panel.classBox(2)->findText("int8+zstd") >= 0);
        Q_EMIT panel.classBox(2)->textActivated("int8+zstd");
        QCOMPARE(QString::fromStdString(applyKnobCommand(config, at(spy, 2))), QString());
        QCOMPARE(config.codecs.center, parseCodec("int8+zstd"));
    }

    void linkEditorSendsSetLink() {
        ControlPanel panel(m_config, m_nodes);
        QSignalSpy spy(&panel, &ControlPanel::commandRequested);
        panel.setLinkEnds(1, 4);
        panel.setLinkValues(120, 20, 0.05);
        panel.applyLink();
        QCOMPARE(spy.count(), 1);
        const auto c = at(spy, 0);
        QCOMPARE(c.kind, Kind::SetLink);
        QCOMPARE(c.node, 1);
        QCOMPARE(c.nodeB, -1); // the center
        QCOMPARE(c.link.latencySeconds, 0.12);
        QCOMPARE(c.link.bandwidthBitsPerSecond, 20e6);
        QCOMPARE(c.link.lossRate, 0.05);
    }

    // Geography (issue 14): with the config's own nodes, choosing the ends
    // shows that link's values, and the region-pair switch sets every link
    // between two regions.
    void linkEditorShowsAndEditsGeography() {
        QStringList nodes;
        for (const auto &r : m_config.regions)
            for (const auto &e : r.edges)
                nodes << QString::fromStdString(e.name);
        nodes << "center";
        const int eu0 = 0, us0 = 8, ap0 = 16, ap7 = 23, center = 24;
        QCOMPARE(nodes[ap7], QString("ap-7"));
        ControlPanel panel(m_config, nodes);
        QSignalSpy spy(&panel, &ControlPanel::commandRequested);
        auto shows = [&](int a, int b, double ms, double mbps) {
            panel.setLinkEnds(a, b);
            return qAbs(panel.latencyMs() - ms) < 1e-9 && qAbs(panel.bandwidthMbps() - mbps) < 1e-9 &&
                   panel.linkSource() == "as configured";
        };
        QVERIFY(shows(eu0, ap0, 120, 100));
        QVERIFY(shows(eu0, us0, 40, 100));
        QVERIFY(shows(us0, ap0, 100, 100));
        QVERIFY(shows(ap7, center, 60, 20)); // ap-7's last mile on the center link
        QVERIFY(shows(ap0, ap7, 21, 20));
        QVERIFY(shows(eu0, 1, 1, 1000));
        QCOMPARE(spy.count(), 0); // showing is not editing

        // One link edited: the editor remembers what it set.
        panel.setLinkEnds(eu0, ap0);
        panel.setLinkValues(200, 50, 0);
        panel.applyLink();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(at(spy, 0).node, eu0);
        QCOMPARE(at(spy, 0).nodeB, ap0);
        panel.setLinkEnds(eu0, us0);
        panel.setLinkEnds(ap0, eu0);
        QCOMPARE(panel.latencyMs(), 200.0);
        QCOMPARE(panel.linkSource(), QString("as last set here"));

        // The whole eu <-> ap pair: 8 × 8 links, each once.
        spy.clear();
        panel.setWholeRegionPair(true);
        panel.setLinkEnds(eu0, ap0);
        panel.setLinkValues(150, 80, 0);
        panel.applyLink();
        QCOMPARE(spy.count(), 64);
        QSet<QPair<int, int>> pairs;
        for (int i = 0; i < spy.count(); ++i) {
            const auto c = at(spy, i);
            QCOMPARE(c.kind, Kind::SetLink);
            QVERIFY(c.node >= 0 && c.node < 8);
            QVERIFY(c.nodeB >= 16 && c.nodeB < 24);
            QCOMPARE(c.link.latencySeconds, 0.15);
            pairs.insert({c.node, c.nodeB});
        }
        QCOMPARE(pairs.size(), 64);
        // A region and the center: every edge of the region to the center.
        spy.clear();
        panel.setLinkEnds(us0, center);
        panel.applyLink();
        QCOMPARE(spy.count(), 8);
        QCOMPARE(at(spy, 0).nodeB, -1);
    }

    void faultButtonsSendTheirCommands_data() {
        QTest::addColumn<int>("kind");
        for (auto k : {Kind::KillNode, Kind::ReviveNode, Kind::PartitionLink, Kind::HealLink, Kind::PartitionRegion,
                       Kind::HealRegion})
            QTest::newRow(qPrintable(QString::fromStdString(engine::SimCommand{k}.describe()))) << int(k);
    }
    void faultButtonsSendTheirCommands() {
        QFETCH(int, kind);
        FaultPanel panel(m_nodes, {"eu", "us"});
        QSignalSpy spy(&panel, &FaultPanel::commandRequested);
        panel.select(2, 4, 1);
        panel.trigger(Kind(kind));
        QCOMPARE(spy.count(), 1);
        const auto c = at(spy, 0);
        QCOMPARE(int(c.kind), kind);
        QCOMPARE(c.node, 2);
        QCOMPARE(c.nodeB, -1);
        QCOMPARE(c.region, 1);
    }
};

QTEST_MAIN(TestControlPanel)
#include "tst_control_panel.moc"
