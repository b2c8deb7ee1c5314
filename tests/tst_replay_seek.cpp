// Replay seeks use the recording's keyframes (issue 13 §5): a seek that
// starts from a keyframe leaves every view as a feed of the run from its
// start does, and feeds far fewer events; and a recording opens off the GUI
// thread, cancellably. Real recordings of a simulated cluster throughout.
#include "test_threads.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"
#include "core/session/record_codec.h"
#include "core/session/session_file.h"
#include "core/session/session_recorder.h"
#include "ui/charts/chart_panel.h"
#include "ui/charts/time_series_chart.h"
#include "ui/control_plane_window.h"
#include "ui/models/routing_table_model.h"
#include "ui/models/shard_map_model.h"
#include "ui/panels/serving_panel.h"
#include "ui/replay/recording_opener.h"
#include "ui/replay/replay_controller.h"
#include "ui/replay/replay_recording.h"
#include "ui/topology/topology_view.h"


#include <QApplication>
#include <QFile>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QStringListModel>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace synaptic;
using namespace synaptic::engine;

namespace {

// Writes `times` copies of run 0 of `from` one after the other into `to`: a
// long recording with a real run's mix of events, made in seconds.
void tileRecording(const std::string &from, const std::string &to, int times) {
    session::SessionFile in(from);
    const auto data = in.readRun(0);
    const ClusterConfig config = parseClusterConfig(in.runs()[0].start.config_json(), from);
    double span = 0;
    std::uint64_t samples = 0;
    for (const auto &e : data.events) {
        span = std::max(span, session::eventTime(e));
        if (const auto *m = std::get_if<MetricEvent>(&e))
            samples = std::max(samples, m->samples);
    }
    session::RecorderOptions ro;
    ro.queueCapacity = data.events.size() * std::size_t(times) + 16; // nothing coalesced
    ro.chunkRawBytes = 16384;
    ro.keyframeEverySeconds = 0.02;
    session::SessionRecorder recorder(to, "tst_replay_seek", ro);
    recorder.beginRun(config, SimOptions{}, nullptr);
    for (int k = 0; k < times; ++k)
        for (SimEvent e : data.events) {
            std::visit([&](auto &x) { x.time += k * span; }, e);
            if (auto *m = std::get_if<MetricEvent>(&e))
                m->samples += std::uint64_t(k) * samples;
            recorder.record(e);
        }
    recorder.close();
}

// Everything a view shows that a seek must get right, as text.
QStringList modelRows(const QAbstractItemModel &model, const QList<int> &roles, const QModelIndex &parent = {}) {
    QStringList out;
    for (int r = 0; r < model.rowCount(parent); ++r)
        for (int c = 0; c < model.columnCount(parent); ++c) {
            const QModelIndex i = model.index(r, c, parent);
            QStringList cell;
            for (int role : roles)
                cell << model.data(i, role).toString();
            out << cell.join('|');
            if (c == 0)
                out << modelRows(model, roles, i);
        }
    return out;
}

QStringList chartState(ui::TimeSeriesChart &chart) {
    QStringList out;
    auto names = chart.seriesNames();
    names.sort();
    for (const QString &name : names) {
        const auto smoothed = chart.smoothedValues(name);
        out << QStringLiteral("%1: %2 points, last %3")
                   .arg(name)
                   .arg(chart.rawPointCount(name))
                   .arg(smoothed.isEmpty() ? QString() : QString::number(smoothed.last(), 'g', 17));
    }
    return out;
}

struct ViewState {
    QStringList routing, shards, log, charts, topology;
    QString serving;
};

ViewState stateOf(ui::ControlPlaneWindow &w) {
    ViewState s;
    s.routing = modelRows(w.routingTable(), {Qt::DisplayRole});
    s.shards = modelRows(w.shardMap(), {Qt::DisplayRole, ui::ShardMapModel::EdgeModeRole,
                                        ui::ShardMapModel::InFlightRole});
    s.log = w.eventLog().stringList();
    for (auto *chart : {&w.trainingChart(), &w.driftChart(), &w.bandwidthChart(), &w.inferenceChart()})
        s.charts << chartState(*chart);
    for (int node = 0; node <= w.topology().edgeCount(); ++node)
        s.topology << w.topology().toolTipFor(node) + w.topology().nodeColor(node).name();
    s.serving = w.serving().statusText();
    return s;
}

} // namespace

class TestReplaySeek : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;  // a real run, with keyframes often
    QString m_tiled; // that run many times over: a longer file

    void compareStates(const ViewState &got, const ViewState &want) {
        QCOMPARE(got.routing, want.routing);
        QCOMPARE(got.shards, want.shards);
        QCOMPARE(got.log, want.log);
        QCOMPARE(got.charts, want.charts);
        QCOMPARE(got.topology, want.topology);
        QCOMPARE(got.serving, want.serving);
    }
    // The reference: the same recording without keyframes, so the controller feeds every event from the start.
    static ViewState fedFromStart(ui::ReplayRecording rec, double t) {
        rec.data.keyframes.clear();
        std::unique_ptr<ui::ControlPlaneWindow> w(ui::ControlPlaneWindow::replayWindow(std::move(rec)));
        w->replay()->seek(t);
        return stateOf(*w);
    }

private Q_SLOTS:
    void initTestCase() {
        setTestThreads();
        const ClusterConfig config =
            loadClusterConfig(qEnvironmentVariable("SYNAPTIC_TEST_DATA").toStdString() + "/tiny_cluster.json");
        const SimData data = loadSimData(config, "cpu");
        m_path = m_dir.filePath("seek.synrec");
        session::RecorderOptions ro;
        ro.routingEverySeconds = 0.01;
        ro.chunkRawBytes = 16384; // small chunks: a keyframe can start any of them
        ro.keyframeEverySeconds = 0.02;
        session::SessionRecorder recorder(m_path.toStdString(), "tst_replay_seek", ro);
        SimOptions o;
        o.stepsPerEdge = 16;
        o.evalEverySamples = 32 * 6 * 2;
        o.finalFullEvaluation = false;
        // Commands whose effect lasts past any keyframe: the topology and the log must show them after a seek.
        auto command = [](SimCommand::Kind kind, double at, int node = -1, double value = 0) {
            SimCommand c;
            c.kind = kind;
            c.at = at;
            c.node = node;
            c.value = value;
            return c;
        };
        o.commands = {command(SimCommand::Kind::SetAggregationWindow, 0.02, -1, 2),
                      command(SimCommand::Kind::KillNode, 0.04, 1),
                      command(SimCommand::Kind::ReviveNode, 0.08, 1)};
        o.observer = recorder.observer();
        Simulation s(config, data.train, data.trainLabels, data.test, o);
        recorder.beginRun(config, o, &s);
        recorder.endRun(s.run());
        recorder.close();
        QVERIFY(recorder.stats().error.empty());
        m_tiled = m_dir.filePath("tiled.synrec");
        tileRecording(m_path.toStdString(), m_tiled.toStdString(), 20);
    }

    void keyframeSeekShowsWhatAFeedFromTheStartShows() {
        ui::ReplayRecording rec = ui::loadRecording(m_path, 0);
        QVERIFY(rec.problems.empty());
        QVERIFY2(rec.data.keyframes.size() >= 4, qPrintable(QString::number(rec.data.keyframes.size())));
        std::unique_ptr<ui::ControlPlaneWindow> w(ui::ControlPlaneWindow::replayWindow(rec));
        auto *replay = w->replay();
        const double end = replay->end();
        replay->seek(end);
        // Backward, to times between keyframes, and forward again a long way.
        for (double f : {0.9, 0.35, 0.6, 0.1, 0.95}) {
            const double t = end * f;
            replay->seek(t);
            compareStates(stateOf(*w), fedFromStart(rec, t));
        }
        // A fresh window that jumps far ahead starts from a keyframe too.
        std::unique_ptr<ui::ControlPlaneWindow> fresh(ui::ControlPlaneWindow::replayWindow(rec));
        const std::size_t before = fresh->replay()->eventsFed();
        fresh->replay()->seek(end * 0.8);
        QVERIFY(fresh->replay()->eventsFed() - before < fresh->replay()->eventsShown());
        compareStates(stateOf(*fresh), fedFromStart(rec, end * 0.8));
    }

    void backwardSeekFeedsFarFewerEvents() {
        ui::ReplayRecording rec = ui::loadRecording(m_tiled, 0);
        QVERIFY(rec.data.keyframes.size() >= 20);
        std::unique_ptr<ui::ControlPlaneWindow> w(ui::ControlPlaneWindow::replayWindow(rec));
        auto *replay = w->replay();
        replay->seek(replay->end());
        const std::size_t before = replay->eventsFed();
        replay->seek(replay->end() * 0.9);
        const std::size_t fed = replay->eventsFed() - before;
        const std::size_t fromStart = replay->eventsShown(); // what a feed from the start would take
        qInfo("backward seek fed %zu events; a feed from the start: %zu", fed, fromStart);
        QVERIFY2(fed * 3 < fromStart, qPrintable(QStringLiteral("%1 of %2").arg(fed).arg(fromStart)));
        compareStates(stateOf(*w), fedFromStart(rec, replay->end() * 0.9));
    }

    void opensOffTheGuiThread() {
        ui::RecordingOpener opener(m_tiled, 0);
        QSignalSpy opened(&opener, &ui::RecordingOpener::opened);
        QSignalSpy failed(&opener, &ui::RecordingOpener::failed);
        // The GUI thread's event loop keeps turning while the file is read.
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&] { ++ticks; });
        timer.start(0);
        opener.start();
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() + failed.count() > 0, 120000);
        QCOMPARE(failed.count(), 0);
        QVERIFY(ticks > 0);
        std::unique_ptr<ui::ControlPlaneWindow> w(opened.at(0).at(0).value<ui::ControlPlaneWindow *>());
        QVERIFY(w && w->replay());
        QVERIFY(w->replay()->recording().data.events.size() > 1000);
    }

    void openFailsWithTheReason() {
        const QString garbage = m_dir.filePath("garbage.synrec");
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a recording at all");
        f.close();
        ui::RecordingOpener opener(garbage, 0);
        QSignalSpy failed(&opener, &ui::RecordingOpener::failed);
        opener.start();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        const QString error = failed.at(0).at(0).toString();
        QVERIFY2(error.contains("garbage.synrec") && error.contains("not a Synaptic recording"), qPrintable(error));
    }

    void cancelLeavesNoWindowAndNoError() {
        auto windows = [] {
            int n = 0;
            for (auto *top : QApplication::topLevelWidgets())
                n += qobject_cast<ui::ControlPlaneWindow *>(top) != nullptr;
            return n;
        };
        const int before = windows();
        bool done = false;
        ui::ControlPlaneWindow *got = nullptr;
        QString error = "not called";
        ui::RecordingOpener::openWithDialog(m_tiled, 0, nullptr, [&](ui::ControlPlaneWindow *w, const QString &why) {
            done = true;
            got = w;
            error = why;
        });
        // The user presses Cancel on the progress dialog.
        QProgressDialog *dialog = nullptr;
        for (auto *top : QApplication::topLevelWidgets())
            if (auto *d = qobject_cast<QProgressDialog *>(top))
                dialog = d;
        QVERIFY(dialog);
        auto *cancel = dialog->findChild<QPushButton *>();
        QVERIFY(cancel);
        cancel->click();
        QTRY_VERIFY_WITH_TIMEOUT(done, 60000);
        QCOMPARE(got, nullptr);
        QCOMPARE(error, QString());
        QCOMPARE(windows(), before);
    }
};

QTEST_MAIN(TestReplaySeek)
#include "tst_replay_seek.moc"
