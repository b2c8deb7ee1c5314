#pragma once

#include "cluster_session.h"

#include "core/engine/sim/cluster_config.h"

#include <QMainWindow>

class QLabel;
class QSortFilterProxyModel;
class QStringListModel;
class QTableView;
class QTreeView;

namespace synaptic::ui {

class ClusterChart;
class ControlPanel;
class FaultPanel;
class RoutingTableModel;
class ShardMapModel;

// The control plane (issue 4, first slice): a simulated cluster run live
// with its accuracy/loss chart, the shard map (drag shards between edges of
// a region to move them), the routing table and an event log, as dockable
// panels whose arrangement persists. GUI thread only; the engine runs in
// ClusterSession's thread.
class ControlPlaneWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit ControlPlaneWindow(const engine::ClusterConfig &config, const QString &configName,
                                QWidget *parent = nullptr);
    ~ControlPlaneWindow() override;

    ClusterSession &session() { return *m_session; }
    ShardMapModel &shardMap() { return *m_shardMap; }
    RoutingTableModel &routingTable() { return *m_routing; }
    ClusterChart &chart() { return *m_chart; }
    QStringListModel &eventLog() { return *m_log; }
    ControlPanel &controls() { return *m_controls; }
    FaultPanel &faults() { return *m_faults; }
    void setBudget(std::uint64_t stepsPerEdge, double virtualSeconds);

    // Restores a dock arrangement written by saveLayout(); returns why not
    // (empty on success). The file holds QMainWindow::saveState() bytes.
    QString loadLayout(const QString &path);
    QString saveLayout(const QString &path) const;
    QString aboutText() const;     // versions of Qt, LibTorch, gRPC and the build
    QString shortcutsText() const; // every action with a shortcut, one per line

public Q_SLOTS:
    void start();
    void resetLayout();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildDocks();
    void buildMenus();
    void onEvents(const QVector<engine::SimEvent> &batch);
    void onState(ClusterSession::State state);
    void updateProgress();
    void log(double time, const QString &text);
    QString edgeName(int edge) const;

    engine::ClusterConfig m_config;
    QString m_configName;
    QStringList m_edgeNames;
    QStringList m_regionNames;
    ClusterSession *m_session;
    ClusterChart *m_chart;
    ShardMapModel *m_shardMap;
    RoutingTableModel *m_routing;
    QSortFilterProxyModel *m_routingProxy;
    QStringListModel *m_log;
    QSortFilterProxyModel *m_logProxy;
    QTreeView *m_shardView = nullptr;
    ControlPanel *m_controls = nullptr;
    FaultPanel *m_faults = nullptr;
    QTableView *m_routingView = nullptr;
    QLabel *m_progress;
    QByteArray m_defaultState;
    double m_virtualTime = 0;
    quint64 m_samples = 0;
    double m_globalAccuracy = 0;
};

} // namespace synaptic::ui
