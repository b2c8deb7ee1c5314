// Replay in the GUI (issue 5): a real recording of a simulated cluster is
// opened in the control plane; scrubbing to a time makes the routing table
// model show that time's versions, scrubbing back rebuilds the views from
// the start, and the record button writes a file the replay reads back;
// the routing table's highlight thresholds stay live in a replay.
#include "test_threads.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"
#include "core/session/record_codec.h"
#include "core/session/session_file.h"
#include "core/session/session_recorder.h"
#include "ui/charts/time_series_chart.h"
#include "ui/control_plane_window.h"
#include "ui/models/routing_table_model.h"
#include "ui/panels/control_panel.h"
#include "ui/panels/highlight_thresholds.h"
#include "ui/replay/replay_controller.h"
#include "ui/replay/replay_recording.h"
#include "ui/replay/timeline_bar.h"


#include <QAction>
#include <QLabel>
#include <QLocale>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStringListModel>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <memory>

using namespace synaptic;
using namespace synaptic::engine;

class TestReplay : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;
    ClusterConfig m_config;
    // The engine's own table after each event, as the test saw it.
    std::vector<std::pair<double, std::shared_ptr<const RoutingSnapshot>>> m_tables;
    std::vector<SimEvent> m_events;

    // Versions the routing table model shows, row by row.
    static std::vector<qulonglong> shownVersions(ui::ControlPlaneWindow &w, int column) {
        auto &model = w.routingTable();
        std::vector<qulonglong> out;
        for (int r = 0; r < model.rowCount(); ++r)
            out.push_back(model.data(model.index(r, column), ui::RoutingTableModel::SortRole).toULongLong());
        return out;
    }
    static std::vector<qulonglong> centerVersions(const RoutingSnapshot &s) {
        std::vector<qulonglong> out;
        for (const auto &row : s.rows)
            out.push_back(row->centerVersion);
        return out;
    }
    static std::vector<qulonglong> ownerVersions(const RoutingSnapshot &s) {
        std::vector<qulonglong> out;
        for (const auto &row : s.rows)
            out.push_back(*std::max_element(row->ownerVersion.begin(), row->ownerVersion.end()));
        return out;
    }
    // The table the engine had after the last event at or before t.
    std::shared_ptr<const RoutingSnapshot> tableAt(double t) const {
        std::shared_ptr<const RoutingSnapshot> out;
        for (const auto &[time, table] : m_tables)
            if (time <= t)
                out = table;
        return out;
    }

private Q_SLOTS:
    void initTestCase() {
        setTestThreads();
        m_config = loadClusterConfig(qEnvironmentVariable("SYNAPTIC_TEST_DATA").toStdString() + "/tiny_cluster.json");
        const SimData data = loadSimData(m_config, "cpu");
        m_path = m_dir.filePath("replay.synrec");
        session::RecorderOptions ro;
        ro.routingEverySeconds = 0; // a sample after every event: the test can name each time's table exactly
        ro.chunkRawBytes = 16384;
        ro.keyframeEverySeconds = 0.05;
        session::SessionRecorder recorder(m_path.toStdString(), "tst_replay", ro);
        SimOptions o;
        o.stepsPerEdge = 10;
        o.evalEverySamples = 32 * 6 * 2;
        o.finalFullEvaluation = false;
        SimCommand window;
        window.kind = SimCommand::Kind::SetAggregationWindow;
        window.at = 0.05;
        window.value = 2;
        o.commands = {window};
        Simulation *sim = nullptr;
        auto record = recorder.observer();
        o.observer = [&](const SimEvent &e) {
            record(e);
            m_events.push_back(e);
            m_tables.emplace_back(session::eventTime(e), sim->routing());
        };
        Simulation s(m_config, data.train, data.trainLabels, data.test, o);
        sim = &s;
        recorder.beginRun(m_config, o, &s);
        recorder.endRun(s.run());
        recorder.close();
        QVERIFY(recorder.stats().error.empty());
        QVERIFY(m_tables.size() > 50);
    }

    void scrubShowsThatTimesVersions() {
        ui::ReplayRecording rec = ui::loadRecording(m_path, 0);
        QVERIFY(rec.problems.empty());
        std::unique_ptr<ui::ControlPlaneWindow> w(ui::ControlPlaneWindow::replayWindow(std::move(rec)));
        auto *replay = w->replay();
        QVERIFY(replay);
        QVERIFY(!w->session().recordingStatus().active);
        const double end = replay->end();
        QVERIFY(end > 0.1);
        // Forward in three jumps, then back: each time the model shows the
        // versions the engine had then — and they do change over the run.
        std::vector<qulonglong> previous;
        int changed = 0;
        for (double f : {0.3, 0.6, 0.95, 0.4}) {
            const double t = end * f;
            replay->seek(t);
            QCOMPARE(replay->position(), t);
            const auto table = tableAt(t);
            QVERIFY(table);
            QCOMPARE(shownVersions(*w, ui::RoutingTableModel::CenterVersion), centerVersions(*table));
            const auto shown = shownVersions(*w, ui::RoutingTableModel::OwnerVersion);
            QCOMPARE(shown, ownerVersions(*table));
            changed += !previous.empty() && shown != previous;
            previous = shown;
        }
        QVERIFY2(changed >= 2, "versions moved between the scrubbed times");

        // Issue 18 §4: the engine's knobs are off in a replay, the highlight
        // thresholds are not, and they re-highlight the replayed table.
        {
            const QString organization = QCoreApplication::organizationName();
            QCoreApplication::setOrganizationName("SynapticReplayHighlightTest"); // the edit persists: not in ours
            auto &controls = w->controls();
            QVERIFY(!controls.windowBox()->isEnabled());
            QVERIFY(controls.highlights()->lagBox()->isEnabled());
            const auto &model = w->routingTable();
            int lagging = 0;
            for (int r = 0; r < model.rowCount(); ++r)
                lagging += model.index(r, ui::RoutingTableModel::VersionLag).data(ui::RoutingTableModel::SortRole)
                               .toULongLong() > 0;
            controls.highlights()->lagBox()->setValue(0);
            QCOMPARE(model.rowsPastLag(), lagging);
            controls.undoStack()->undo();
            QCOMPARE(model.lagThreshold(), ui::HighlightThresholds::kDefaultLag);
            QSettings().clear();
            QCoreApplication::setOrganizationName(organization);
        }
        // The event log holds the events up to the scrubbed time: the
        // command applied at 0.05 s is there after a seek past it, and gone
        // after a seek back before it.
        auto logText = [&] { return w->eventLog().stringList().join('\n'); };
        replay->seek(end);
        QVERIFY2(logText().contains("aggregation"), qPrintable(logText().left(400)));
        replay->seek(0.01);
        QVERIFY(!logText().contains("aggregation"));
        QCOMPARE(replay->eventsShown(), std::size_t(std::count_if(m_events.begin(), m_events.end(), [](auto &e) {
                     return session::eventTime(e) <= 0.01;
                 })));
    }

    void timelineSliderScrubsAndPlayReachesTheEnd() {
        std::unique_ptr<ui::ControlPlaneWindow> w(ui::ControlPlaneWindow::replayWindow(ui::loadRecording(m_path, 0)));
        auto *replay = w->replay();
        auto *bar = w->findChild<ui::TimelineBar *>();
        QVERIFY(bar);
        const int target = int(replay->end() * 1e3 * 0.5);
        bar->slider()->setValue(target);
        QCOMPARE(std::lround(replay->position() * 1e3), long(target));
        QCOMPARE(shownVersions(*w, ui::RoutingTableModel::CenterVersion), centerVersions(*tableAt(target / 1e3)));
        QSignalSpy stopped(replay, &ui::ReplayController::playingChanged);
        replay->setSpeed(20); // the whole run in a few ticks
        replay->play();
        QVERIFY(replay->isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(!replay->isPlaying(), 10000);
        QCOMPARE(replay->position(), replay->end());
        QCOMPARE(replay->eventsShown(), m_events.size());
        // Step from the start walks event instant by instant.
        replay->seek(replay->begin());
        const double before = replay->position();
        replay->step();
        QVERIFY(replay->position() > before || replay->eventsShown() > 0);
    }

    // Issue 18 §3: `synaptic-node sim` with its default evaluation cadence
    // (on the 6-edge test cluster, to stay quick) writes a recording
    // whose replay, scrubbed to its middle, charts several accuracy points
    // and says how many samples were trained by then.
    void headlessDefaultRecordingChartsItsMiddle() {
        const QString path = m_dir.filePath("headless.synrec");
        QProcess node;
        node.setProcessChannelMode(QProcess::MergedChannels);
        node.start(qEnvironmentVariable("SYNAPTIC_NODE"),
                   {"sim", "--config", qEnvironmentVariable("SYNAPTIC_TEST_DATA") + "/tiny_cluster.json", "--steps",
                    "40", "--threads", "2", "--record", path, "--quiet"});
        QVERIFY(node.waitForFinished(300000));
        QVERIFY2(node.exitCode() == 0, node.readAll().constData());
        std::unique_ptr<ui::ControlPlaneWindow> w(ui::ControlPlaneWindow::replayWindow(ui::loadRecording(path, 0)));
        auto *replay = w->replay();
        const double middle = (replay->begin() + replay->end()) / 2;
        replay->seek(middle);
        QVERIFY2(w->trainingChart().rawPointCount("acc global") >= 3,
                 qPrintable(QString::number(w->trainingChart().rawPointCount("acc global"))));
        // The samples trained by then: the latest global evaluation's count.
        session::SessionFile file(path.toStdString());
        std::uint64_t trained = 0, total = 0;
        for (const auto &e : file.readRun(0).events)
            if (const auto *m = std::get_if<MetricEvent>(&e); m && m->scope == "global") {
                total = std::max(total, m->samples);
                if (m->time <= middle)
                    trained = std::max(trained, m->samples);
            }
        QVERIFY(trained > total / 4 && trained < total);
        const QString label = w->progressLabel()->text();
        QVERIFY2(label.contains(QLocale().toString(quint64(trained)) + " samples"), qPrintable(label));
        // Scrubbed back to the start, the count starts again from nothing.
        replay->seek(replay->begin());
        QVERIFY2(w->progressLabel()->text().contains(" 0 samples"), qPrintable(w->progressLabel()->text()));
    }

    void damagedAndForeignFilesSayWhy() {
        const QString garbage = m_dir.filePath("garbage.synrec");
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a recording at all");
        f.close();
        QString error;
        try {
            ui::loadRecording(garbage, 0);
        } catch (const std::exception &e) {
            error = QString::fromUtf8(e.what());
        }
        QVERIFY2(error.contains("garbage.synrec") && error.contains("not a Synaptic recording"), qPrintable(error));
        // Cut the real recording in half: the replay opens what is whole.
        QFile whole(m_path);
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        const QString cut = m_dir.filePath("cut.synrec");
        QFile c(cut);
        QVERIFY(c.open(QIODevice::WriteOnly));
        c.write(bytes.left(bytes.size() / 2));
        c.close();
        std::unique_ptr<ui::ControlPlaneWindow> w(ui::ControlPlaneWindow::replayWindow(ui::loadRecording(cut, 0)));
        QVERIFY(!w->replay()->recording().problems.empty());
        QVERIFY(w->replay()->end() < session::eventTime(m_events.back()));
    }

    void recordButtonWritesAReplayableFile() {
        ui::ControlPlaneWindow w(m_config, "tiny");
        w.setBudget(4, 0);
        const QString path = m_dir.filePath("button/live.synrec"); // the folder does not exist yet
        QCOMPARE(w.startRecording(path), QString());
        QVERIFY(w.recordAction()->isChecked());
        QSignalSpy saved(&w.session(), &ui::ClusterSession::recordingStopped);
        w.start();
        QTRY_VERIFY_WITH_TIMEOUT(w.session().state() == ui::ClusterSession::State::Finished, 120000);
        QCOMPARE(saved.count(), 1); // the run's end closed the file
        QVERIFY(!w.recordAction()->isChecked());
        session::SessionFile file(path.toStdString());
        QVERIFY(file.indexed());
        QVERIFY(file.problems().empty());
        QCOMPARE(file.runs().size(), std::size_t(1));
        QVERIFY(file.runs()[0].end.has_value());
        QCOMPARE(file.runs()[0].start.begins_at(), 0.0);
        QVERIFY(file.runs()[0].events > 10);
        const auto data = file.readRun(0);
        QVERIFY(!data.routing.empty());
    }
};

QTEST_MAIN(TestReplay)
#include "tst_replay.moc"
