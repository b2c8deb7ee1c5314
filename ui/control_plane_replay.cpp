// The control plane as a replay of a recording (issue 5): the same window,
// views and ingest path as a live run, fed by a ReplayController.
#include "control_plane_window.h"

#include "models/routing_table_model.h"
#include "models/shard_map_model.h"
#include "panels/control_panel.h"
#include "panels/serving_panel.h"
#include "replay/replay_controller.h"
#include "replay/timeline_bar.h"
#include "telemetry/chart_feeder.h"
#include "topology/topology_geography.h"
#include "topology/topology_view.h"
#include "views/shard_map_panel.h"

#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>
#include <QStringListModel>
#include <QToolBar>
#include <QTreeView>

namespace synaptic::ui {

ControlPlaneWindow *ControlPlaneWindow::replayWindow(ReplayRecording recording) {
    const QString name = tr("replay of %1").arg(QFileInfo(recording.path).fileName());
    auto *w = new ControlPlaneWindow(recording.config, name);
    w->enterReplay(std::move(recording));
    return w;
}

void ControlPlaneWindow::enterReplay(ReplayRecording recording) {
    // Nothing here may reach an engine: there is none.
    m_runToolbar->setEnabled(false);
    for (auto *a : m_runMenu->actions())
        a->setEnabled(false);
    m_controls->setCommandsEnabled(false); // the highlight thresholds stay: they change only the view
    m_faults->setEnabled(false);
    m_serving->setControlsEnabled(false);
    m_shardPanel->setMovesEnabled(false);

    QString problems;
    for (const auto &p : recording.problems)
        problems += tr("\nbyte %1: %2").arg(p.offset).arg(QString::fromStdString(p.what));
    // DESIGN.md §5: the UI says when samples were coalesced, replays included.
    QString thinned;
    if (const auto &end = recording.info.end; end && end->coalesced() > 0)
        thinned = tr("the recorder fell behind: %1 metric samples were coalesced (charts are coarser there; "
                     "every state change is shown)")
                      .arg(end->coalesced());
    else if (end && end->dropped() > 0)
        thinned = tr("%1 events were dropped while this file was recorded (an older recorder): the views may "
                     "miss some changes")
                      .arg(end->dropped());
    const QString run = recording.runCount > 1 ? tr(" run %1 of %2").arg(recording.run).arg(recording.runCount)
                                               : QString();
    setWindowTitle(tr("Synaptic — replay of %1%2 (%3)")
                       .arg(QFileInfo(recording.path).fileName(), run,
                            QString::fromStdString(recording.info.start.strategy())));
    m_replay = new ReplayController(std::move(recording), this);
    auto *timeline = new TimelineBar(m_replay, this);
    addToolBarBreak();
    addToolBar(Qt::BottomToolBarArea, timeline);
    connect(m_replay, &ReplayController::positionChanged, this, [this](double) { flushLog(); });
    m_replay->seek(m_replay->begin());
    if (!problems.isEmpty())
        statusBar()->showMessage(tr("the recording is damaged; read what could be read:%1").arg(problems));
    else if (!thinned.isEmpty())
        statusBar()->showMessage(thinned);
}

void ControlPlaneWindow::resetViews() {
    m_feeder->clear();
    m_serving->clear();
    m_log->setStringList({});
    m_pendingLog.clear();
    m_linkInterval = -1;
    m_linkRates.clear();
    m_edgeModes.clear();
    m_topology->setTopology(m_regionNames, m_edgeNames, m_regionOfEdge);
    showGeography(*m_topology, m_config);
    m_shardMap->setTopology(m_edgeNames, m_regionOfEdge, m_regionNames);
    m_virtualTime = 0;
    m_samples = 0;
    m_globalAccuracy = 0;
    m_ownersChanged = true;
}

void ControlPlaneWindow::setReplayTime(double t) {
    m_virtualTime = t;
    updateProgress();
}

} // namespace synaptic::ui
