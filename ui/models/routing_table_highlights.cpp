// The routing table's highlights (issue 18 §4): which rows are past the
// operator's drift and version-lag thresholds, and how many. Flags are kept
// per row so painting, tooltips and the status bar's count never recompute
// a row's lag (a loop over every edge); setSnapshot() refreshes only the
// rows that changed. GUI thread only.
#include "routing_table_model.h"

#include <algorithm>

namespace synaptic::ui {

namespace {
// Short and exact: 0.5, 0.05, 0.125.
QString number(double v) { return QString::number(v, 'g', 4); }
} // namespace

int RoutingTableModel::highlightOf(const engine::ShardRoute &row, const std::vector<int> &regionOfEdge) const {
    int flags = 0;
    if (row.parameterDrift > m_driftThreshold)
        flags |= PastDrift;
    if (m_lagThreshold >= 0 && row.versionLag(regionOfEdge) > std::uint64_t(m_lagThreshold))
        flags |= PastLag;
    return flags;
}

void RoutingTableModel::setFlags(int row, int flags) {
    int &old = m_flags[std::size_t(row)];
    m_pastDrift += bool(flags & PastDrift) - bool(old & PastDrift);
    m_pastLag += bool(flags & PastLag) - bool(old & PastLag);
    old = flags;
}

void RoutingTableModel::recountHighlights() {
    m_flags.assign(std::size_t(rowCount()), 0);
    m_pastDrift = m_pastLag = 0;
    for (int r = 0; r < rowCount(); ++r)
        setFlags(r, highlightOf(*m_snapshot->rows[std::size_t(r)], m_snapshot->regionOfEdge));
}

void RoutingTableModel::setDriftThreshold(double threshold) {
    if (threshold == m_driftThreshold)
        return;
    m_driftThreshold = threshold;
    emitThresholdChange(Drift);
}

void RoutingTableModel::setLagThreshold(int versions) {
    versions = std::max(versions, -1);
    if (versions == m_lagThreshold)
        return;
    m_lagThreshold = versions;
    emitThresholdChange(VersionLag);
}

void RoutingTableModel::emitThresholdChange(int column) {
    recountHighlights();
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                           {Qt::BackgroundRole, Qt::ToolTipRole, HighlightRole});
    Q_EMIT headerDataChanged(Qt::Horizontal, column, column);
    // Always: the status bar names the threshold even when the count stays.
    Q_EMIT highlightsChanged();
}

QString RoutingTableModel::thresholdTooltip(const engine::ShardRoute &row, int flags) const {
    QStringList tips;
    if (flags & PastDrift)
        tips << tr("drift %1 is above the drift threshold %2 (Controls → Highlights)")
                    .arg(row.parameterDrift, 0, 'f', 3)
                    .arg(number(m_driftThreshold));
    if (flags & PastLag)
        tips << tr("version lag %1 is above the lag threshold %2 (Controls → Highlights)")
                    .arg(row.versionLag(m_snapshot->regionOfEdge))
                    .arg(m_lagThreshold);
    return tips.join(QLatin1Char('\n'));
}

QVariant RoutingTableModel::thresholdHeaderTooltip(int column) const {
    if (column == Drift)
        return tr("rows with drift above %1 are highlighted red (Controls → Highlights)").arg(number(m_driftThreshold));
    if (column == VersionLag)
        return m_lagThreshold < 0
                   ? QVariant()
                   : QVariant(tr("rows where an edge lags its owner by more than %1 are highlighted amber "
                                 "(Controls → Highlights)")
                                  .arg(m_lagThreshold == 1 ? tr("1 version") : tr("%1 versions").arg(m_lagThreshold)));
    return {};
}

} // namespace synaptic::ui
