// The routing table's highlight thresholds in the control plane (issue 18
// §4): Controls → Highlights sets them on the routing table model, and the
// status bar's permanent label counts the rows past them, updated whenever
// the table or a threshold changes (live runs and replays alike: both feed
// the same model). GUI thread only.
#include "control_plane_window.h"

#include "models/routing_table_model.h"
#include "panels/control_panel.h"
#include "panels/highlight_thresholds.h"

#include <QLabel>
#include <QStatusBar>

namespace synaptic::ui {

void ControlPlaneWindow::buildHighlights() {
    m_highlightStatus = new QLabel;
    m_highlightStatus->setObjectName("highlightStatus");
    m_highlightStatus->setToolTip(tr("Rows of the routing table highlighted: drift above the drift threshold (red), "
                                     "an edge more versions behind its owner than the lag threshold (amber); "
                                     "set both in Controls → Highlights"));
    statusBar()->addPermanentWidget(m_highlightStatus);
    HighlightThresholds *thresholds = m_controls->highlights();
    m_routing->setDriftThreshold(thresholds->driftThreshold());
    m_routing->setLagThreshold(thresholds->lagThreshold());
    connect(thresholds, &HighlightThresholds::driftThresholdChanged, m_routing, &RoutingTableModel::setDriftThreshold);
    connect(thresholds, &HighlightThresholds::lagThresholdChanged, m_routing, &RoutingTableModel::setLagThreshold);
    connect(m_routing, &RoutingTableModel::highlightsChanged, this, &ControlPlaneWindow::updateHighlightStatus);
    updateHighlightStatus();
}

void ControlPlaneWindow::updateHighlightStatus() {
    const int drift = m_routing->rowsPastDrift();
    m_highlightStatus->setText(tr("%1 past drift %2, %3 past lag %4")
                                   .arg(drift == 1 ? tr("1 row") : tr("%1 rows").arg(drift))
                                   .arg(QString::number(m_routing->driftThreshold(), 'g', 4))
                                   .arg(m_routing->rowsPastLag())
                                   .arg(m_routing->lagThreshold()));
}

} // namespace synaptic::ui
