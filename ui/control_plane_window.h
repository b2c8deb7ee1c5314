#pragma once

#include "cluster_session.h"

#include "core/engine/sim/cluster_config.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMainWindow>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <span>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QMessageBox;
class QToolBar;
class QLineEdit;
class QSortFilterProxyModel;
class QStringListModel;
class QTableView;
class QTreeView;
class QProgressBar;

namespace synaptic::ui {

class ChartFeeder;
class ChartPanel;
class ControlPanel;
class ReplayController;
struct ReplayRecording;
class FaultPanel;
class HotUpdateWindow;
class ServingPanel;
class RoutingTableModel;
class ShardMapModel;
class ShardMapPanel;
class TimeSeriesChart;
class TopologyView;
struct TopologySelection;

// The control plane (issue 4): a simulated cluster run live. The topology
// graph is the central view; the shard map (drag shards between edges of a
// region to move them), the routing table, the charts (training, drift and
// lag, bandwidth, inference), the live controls, the fault panel and the
// event log are dockable panels whose arrangement persists. Clicking a node
// in the topology filters the other views to it. Every view is fed through
// ingest(), from a ClusterSource (the embedded engine, ClusterSession, or a
// remote cluster, RemoteClusterSession) or a replayed recording. GUI thread
// only; engines and connections run on their sources' threads.
class ControlPlaneWindow : public QMainWindow {
    Q_OBJECT
public:
    // A window on an embedded engine running `config`.
    explicit ControlPlaneWindow(const engine::ClusterConfig &config, const QString &configName,
                                QWidget *parent = nullptr);
    // A window fed by `source` (it becomes the window's child), e.g. a remote
    // cluster whose config is `config`. Controls that do not apply to the
    // source (pause, speed on a live cluster) are disabled and say why.
    ControlPlaneWindow(const engine::ClusterConfig &config, const QString &configName, ClusterSource *source,
                       QWidget *parent = nullptr);
    ~ControlPlaneWindow() override;

    ClusterSource &session() { return *m_session; }
    // The embedded engine's session; null when another source feeds the window.
    ClusterSession *embeddedSession() { return m_embedded; }
    ShardMapModel &shardMap() { return *m_shardMap; }
    RoutingTableModel &routingTable() { return *m_routing; }
    QSortFilterProxyModel &routingProxy() { return *m_routingProxy; }
    QSortFilterProxyModel &eventLogProxy() { return *m_logProxy; }
    TimeSeriesChart &trainingChart() { return *m_trainingChart; }
    TimeSeriesChart &driftChart() { return *m_driftChart; }
    TimeSeriesChart &bandwidthChart() { return *m_bandwidthChart; }
    ChartPanel &inferencePanel() { return *m_inferencePanel; }
    TimeSeriesChart &inferenceChart() { return *m_inferenceChart; }
    ServingPanel &serving() { return *m_serving; }
    TopologyView &topology() { return *m_topology; }
    QStringListModel &eventLog() { return *m_log; }
    ControlPanel &controls() { return *m_controls; }
    FaultPanel &faults() { return *m_faults; }
    const engine::ClusterConfig &config() const { return m_config; }
    void setBudget(std::uint64_t stepsPerEdge, double virtualSeconds);

    // The planner's bounds (issue 14 item 4): the status bar's permanent
    // label says which edges own a share outside them (its tooltip lists
    // them). A drag that would break them under "on_bound": "confirm" asks
    // with a question box; `ask` runs it and returns the button pressed
    // (default: exec()), so tests answer without a modal loop.
    QLabel *plannerStatus() const { return m_plannerStatus; }
    // The run's position: strategy, virtual time, samples trained, accuracy.
    QLabel *progressLabel() const { return m_progress; }
    QProgressBar *runProgress() const { return m_runProgress; }
    using ConfirmDialogHook = std::function<int(QMessageBox &box)>;
    // Issue 18 §4: the status bar's permanent label counting the routing
    // table's rows past the drift and lag thresholds (Controls → Highlights).
    QLabel *highlightStatus() const { return m_highlightStatus; }
    void setConfirmDialogHook(ConfirmDialogHook ask) { m_askConfirm = std::move(ask); }

    // Restores a dock arrangement written by saveLayout(); returns why not
    // (empty on success). The file holds QMainWindow::saveState() bytes.
    QString loadLayout(const QString &path);
    QString saveLayout(const QString &path) const;
    QString aboutText() const;     // versions of Qt, LibTorch, gRPC and the build
    QString shortcutsText() const; // every action with a shortcut, one per line

    // Opens `path` as a cluster config in a new window (File → Open config):
    // a control plane, or the hot-update window when the config's task is
    // langid. Returns the new window, not started, or null with the reason
    // in `error`.
    static QMainWindow *openConfig(const QString &path, QString *error);
    // The hot-update window on `config`'s cluster and seed, its fortune
    // folder the config's data.dir when its task is langid (otherwise, and
    // when empty, Debian's), not started.
    static HotUpdateWindow *hotUpdateWindow(const engine::ClusterConfig &config);

    // Replay (issue 5). A window that replays a recording read by
    // loadRecording(); RecordingOpener reads one off the GUI thread and
    // makes its window. The window's views are the live ones; the run
    // controls and the panels that send commands are disabled.
    static ControlPlaneWindow *replayWindow(ReplayRecording recording);
    ReplayController *replay() const { return m_replay; }
    // Empties every view, as before the first event (a replay scrubbing back).
    void resetViews();
    void setReplayTime(double t);
    // What feed() applies events to. A replay seek puts the views back
    // without feeding every event since the start through all of them:
    // the charts from the chart events only, the other views from the
    // events whose effect lasts (ReplayController, ReplayIndex).
    enum class Feed { All, ViewsOnly, ChartsOnly };
    void feed(std::span<const engine::SimEvent> events, Feed what);
    // Each edge's lease state as a keyframe holds it, without log lines.
    void showLeases(const std::map<int, engine::LeaseEvent> &leases);
    // Whether ingest() writes a line to the event log for `event`; any thread.
    static bool logsEvent(const engine::SimEvent &event);
    static constexpr int kMaxLogLines = 5000; // the log keeps the latest

    // Recording (issue 5): the record button; a default file in the
    // recordings folder (QStandardPaths) when `path` is empty. Returns why
    // not (empty on success).
    QString startRecording(const QString &path = {});
    void stopRecording();
    static QString recordingsFolder();
    QAction *recordAction() const { return m_recordAction; }

public Q_SLOTS:
    void start();
    void resetLayout();
    // Help → Getting started: the five-step guide (GettingStartedDialog), not modal.
    void showGettingStarted();
    // At startup: the guide, if no guide was dismissed yet (a first run).
    void greetFirstRun();

    // One batch of engine events, in order, applied to every view; then the
    // charts redraw once. Live runs and replays both come through here.
    void ingest(const QVector<synaptic::engine::SimEvent> &batch);
    void ingestRouting(std::shared_ptr<const synaptic::engine::RoutingSnapshot> snapshot);
    // What clicking in the topology does: filters the other views to a node or region.
    void focusOn(const synaptic::ui::TopologySelection &selection);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    // Where File → Open config starts: the first config folder holding a config.
    static QString configFolder();
    void buildCharts();
    void buildDocks();
    void buildMenus();
    void buildFileMenu();
    void buildHelpAndViewMenus();
    void buildRecordControls(QToolBar *toolbar);
    void buildPlannerBounds();
    void updatePlannerStatus();
    void buildHighlights();
    void updateHighlightStatus();
    bool confirmMove(const QString &question);
    void updateRecordingStatus();
    void enterReplay(ReplayRecording recording);
    void applyToViews(const engine::SimEvent &event); // every view but the charts
    void applyCommandToTopology(const engine::CommandEvent &command);
    void applyLinkBytes(const engine::LinkBytesEvent &bytes);
    void updateNodeDetails();
    void onState(ClusterSource::State state);
    void connectSource();
    void applySourceLimits(); // disables the run controls the source cannot honour
    void updateProgress();
    void log(double time, const QString &text); // queued; flushLog() appends once per batch
    void flushLog();
    QString edgeName(int edge) const;
    QString commandText(const engine::CommandEvent &event) const;
    void setThemeEverywhere(bool dark);

    engine::ClusterConfig m_config;
    QString m_configName;
    QStringList m_edgeNames;
    QStringList m_regionNames;
    QVector<int> m_regionOfEdge;
    ClusterSource *m_session;
    ClusterSession *m_embedded; // m_session when it is the embedded engine, else null
    ShardMapModel *m_shardMap;
    RoutingTableModel *m_routing;
    QSortFilterProxyModel *m_routingProxy;
    QStringListModel *m_log;
    QSortFilterProxyModel *m_logProxy;
    TopologyView *m_topology;
    TimeSeriesChart *m_trainingChart = nullptr;
    TimeSeriesChart *m_driftChart = nullptr;
    TimeSeriesChart *m_bandwidthChart = nullptr;
    ChartPanel *m_inferencePanel = nullptr;
    TimeSeriesChart *m_inferenceChart = nullptr;
    ServingPanel *m_serving = nullptr;
    QList<ChartPanel *> m_chartPanels;
    std::unique_ptr<ChartFeeder> m_feeder;
    ShardMapPanel *m_shardPanel = nullptr;
    ControlPanel *m_controls = nullptr;
    FaultPanel *m_faults = nullptr;
    QTableView *m_routingView = nullptr;
    QLineEdit *m_routingFilter = nullptr;
    QLineEdit *m_logFilter = nullptr;
    QLabel *m_progress;
    QLabel *m_plannerStatus = nullptr;
    QLabel *m_highlightStatus = nullptr;
    ConfirmDialogHook m_askConfirm;
    QByteArray m_defaultState;
    QElapsedTimer m_wall;           // since start(): the charts' wall-time axis
    QProgressBar *m_runProgress;    // the share of the run's budget done, with an ETA (hidden without a budget)
    // Wall time spent Running (pauses and loading left out): the ETA's clock.
    qint64 m_runningMs = 0;
    QElapsedTimer m_runningSince;
    double m_virtualTime = 0;
    quint64 m_samples = 0;
    double m_globalAccuracy = 0;
    double m_linkInterval = -1;     // end time of the link-counter interval shown in the topology
    QHash<QPair<int, int>, double> m_linkRates; // directed (from, to) node ids → bytes/s in that interval
    QHash<int, QString> m_edgeModes;
    QStringList m_pendingLog;
    bool m_ownersChanged = false; // a routing event since the node tooltips were computed
    QTimer m_logTimer; // single shot: flushLog() after kLogFlushMs
    ReplayController *m_replay = nullptr;
    QAction *m_recordAction = nullptr;
    QLabel *m_recordStatus = nullptr;
    QTimer m_recordTimer; // refreshes m_recordStatus while recording
    QToolBar *m_runToolbar = nullptr;
    QMenu *m_runMenu = nullptr;
    QAction *m_startAction = nullptr;
    QAction *m_stopAction = nullptr;
    QList<QAction *> m_pacingActions; // pause, resume, single step
    QComboBox *m_speedBox = nullptr;
    static constexpr int kLogFlushMs = 200;
};

} // namespace synaptic::ui
