#pragma once

#include "hot_update_session.h"

#include <QMainWindow>

#include <functional>

class QCheckBox;
class QLabel;
class QSpinBox;
class QTableView;
class QTreeView;
class QAction;

namespace synaptic::ui {

class RoutingTableModel;
class ShardMapModel;
class TimeSeriesChart;

// The embedding hot-update scenario live (issue 16 §5): the routing table and
// shard map of the language-ID model's shards (embedding row ranges with the
// share of their rows each edge holds, then the classifier), a chart of how
// long new rows take to reach every edge (p50 / p99 of the rows that arrived
// in each frame), a chart of the share of edges holding the new rows and of
// the new language's accuracy per region, and the lag bound as a live
// control. Runs the cluster config it was opened with. GUI thread only.
class HotUpdateWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit HotUpdateWindow(const engine::ClusterConfig &config, QWidget *parent = nullptr);

    // The scenario's options for the next start (tests shrink it); the lag
    // bound box follows options.lagBound.
    void setOptions(const engine::HotUpdateOptions &options);
    const engine::HotUpdateOptions &options() const { return m_options; }
    void setFortuneDir(const QString &dir) { m_fortuneDir = dir; }
    // Asked when some languages' fortune files are missing (issue 17 §3):
    // gets the message naming them and their packages, returns whether to go
    // on with the installed ones. Default: a question box; tests answer it.
    void setMissingDataPrompt(std::function<bool(const QString &)> prompt) { m_askMissing = std::move(prompt); }
    const QString &fortuneDir() const { return m_fortuneDir; }

    HotUpdateSession &session() { return m_session; }
    RoutingTableModel *routingModel() const { return m_routing; }
    ShardMapModel *shardMap() const { return m_shardMap; }
    TimeSeriesChart *propagationChart() const { return m_propagation; }
    TimeSeriesChart *spreadChart() const { return m_spread; }
    QSpinBox *lagBoundBox() const { return m_lagBound; }
    QCheckBox *hotUpdatesBox() const { return m_hotUpdates; }
    QString statusText() const;

public Q_SLOTS:
    void start();
    void stop();

private:
    // Before a run: every language's fortune files there, or the user chose
    // to go on with the installed ones (m_options.languages narrowed).
    bool fortunesReady();
    void buildToolbar();
    QWidget *buildViews();
    void onFrames(const QVector<engine::HotUpdateFrame> &frames);
    void onFinished(const engine::HotUpdateResult &result);
    void onStateChanged(HotUpdateSession::State state);
    void showFrame(const engine::HotUpdateFrame &frame);

    engine::ClusterConfig m_config;
    engine::HotUpdateOptions m_options;
    QString m_fortuneDir;
    std::function<bool(const QString &)> m_askMissing;
    bool m_narrowed = false; // m_options.languages was narrowed by the missing-data prompt
    HotUpdateSession m_session;
    RoutingTableModel *m_routing = nullptr;
    ShardMapModel *m_shardMap = nullptr;
    TimeSeriesChart *m_propagation = nullptr;
    TimeSeriesChart *m_spread = nullptr;
    int m_secondsAxis = 0;
    int m_shareAxis = 0;
    QSpinBox *m_lagBound = nullptr;
    QCheckBox *m_hotUpdates = nullptr;
    QAction *m_startAction = nullptr;
    QAction *m_stopAction = nullptr;
    QLabel *m_status = nullptr;
    bool m_topologySet = false;
    double m_lastEvalPlotted = -1; // virtual s of the last evaluation on the chart
};

} // namespace synaptic::ui
