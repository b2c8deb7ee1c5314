#include "routing_table_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <algorithm>

namespace synaptic::ui {

RoutingTableModel::RoutingTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void RoutingTableModel::setNames(const QStringList &edgeNames, const QStringList &regionNames) {
    m_edgeNames = edgeNames;
    m_regionNames = regionNames;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, Owners), index(rowCount() - 1, Owners));
}

void RoutingTableModel::setSnapshot(std::shared_ptr<const engine::RoutingSnapshot> snapshot) {
    if (!snapshot)
        return;
    const auto old = m_snapshot;
    const int pastDrift = m_pastDrift, pastLag = m_pastLag;
    if (!old || old->rows.size() != snapshot->rows.size()) {
        beginResetModel();
        m_snapshot = std::move(snapshot);
        recountHighlights();
        endResetModel();
    } else {
        m_snapshot = std::move(snapshot);
        // One dataChanged per run of consecutive changed rows.
        const int n = int(m_snapshot->rows.size());
        for (int r = 0; r < n;) {
            if (m_snapshot->rows[std::size_t(r)] == old->rows[std::size_t(r)]) {
                ++r;
                continue;
            }
            int end = r;
            while (end + 1 < n && m_snapshot->rows[std::size_t(end + 1)] != old->rows[std::size_t(end + 1)])
                ++end;
            for (int c = r; c <= end; ++c)
                setFlags(c, highlightOf(*m_snapshot->rows[std::size_t(c)], m_snapshot->regionOfEdge));
            Q_EMIT dataChanged(index(r, 0), index(end, ColumnCount - 1));
            r = end + 1;
        }
    }
    if (m_pastDrift != pastDrift || m_pastLag != pastLag)
        Q_EMIT highlightsChanged();
}

void RoutingTableModel::setHeldShares(std::shared_ptr<const HeldShares> shares) {
    m_held = std::move(shares);
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, RowsHeld), index(rowCount() - 1, RowsHeld));
}

QString RoutingTableModel::heldTooltip(int shard) const {
    if (!heldStats(m_held.get(), shard).partial)
        return tr("every edge holds all of this shard's rows");
    const auto &perEdge = (*m_held)[std::size_t(shard)];
    QStringList lines{tr("share of the rows each edge holds:")};
    for (std::size_t e = 0; e < perEdge.size(); ++e)
        lines << QStringLiteral("%1: %2 %")
                     .arg(int(e) < m_edgeNames.size() ? m_edgeNames[int(e)] : QString::number(e))
                     .arg(double(perEdge[e]) * 100, 0, 'f', 1);
    return lines.join(QLatin1Char('\n'));
}

QString RoutingTableModel::lagTooltip(const engine::ShardRoute &row) const {
    const auto &regionOf = m_snapshot->regionOfEdge;
    int worst = -1;
    std::uint64_t lag = 0;
    for (std::size_t e = 0; e < row.cachedVersion.size() && e < regionOf.size(); ++e) {
        const auto owner = row.ownerVersion[std::size_t(regionOf[e])];
        if (owner > row.cachedVersion[e] && owner - row.cachedVersion[e] > lag) {
            lag = owner - row.cachedVersion[e];
            worst = int(e);
        }
    }
    if (worst < 0)
        return tr("every edge caches its owner's version");
    const int region = regionOf[std::size_t(worst)];
    const int owner = row.owner[std::size_t(region)];
    return tr("furthest behind: %1, %2 versions behind its owner %3 (versions on their way count)")
        .arg(worst < m_edgeNames.size() ? m_edgeNames[worst] : QString::number(worst))
        .arg(lag)
        .arg(owner >= 0 && owner < m_edgeNames.size() ? m_edgeNames[owner] : QString::number(owner));
}

QString RoutingTableModel::ownerVersionsTooltip(const engine::ShardRoute &row) const {
    // The cell shows the newest; each region's owner counts its own versions.
    QStringList lines{tr("version at each region's owner:")};
    for (std::size_t q = 0; q < row.ownerVersion.size(); ++q) {
        const int owner = q < row.owner.size() ? row.owner[q] : -1;
        lines << QStringLiteral("%1 (%2): %3")
                     .arg(owner >= 0 && owner < m_edgeNames.size() ? m_edgeNames[owner] : QString::number(owner),
                          int(q) < m_regionNames.size() ? m_regionNames[int(q)] : QString::number(q))
                     .arg(row.ownerVersion[q]);
    }
    return lines.join(QLatin1Char('\n'));
}

int RoutingTableModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() || !m_snapshot ? 0 : int(m_snapshot->rows.size());
}

int RoutingTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RoutingTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole)
        return thresholdHeaderTooltip(section);
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *names[] = {"shard", "layer", "rows", "parameters", "owner per region", "owner version",
                                  "center version", "min cached", "version lag", "drift", "last update (s)", "rows held"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant RoutingTableModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || !m_snapshot || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const engine::ShardRoute &row = *m_snapshot->rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole: return display(row, index.column());
    case SortRole: return sortKey(row, index.column());
    case Qt::TextAlignmentRole:
        return index.column() == Layer || index.column() == Owners ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case HighlightRole: return m_flags[std::size_t(index.row())];
    case Qt::BackgroundRole: {
        // Translucent: readable on dark and light themes. Drift is the worse news, so it wins.
        const int flags = m_flags[std::size_t(index.row())];
        if (flags & PastDrift)
            return QBrush(QColor(214, 96, 77, 90));
        if (flags & PastLag)
            return QBrush(QColor(230, 170, 50, 90));
        return {};
    }
    case Qt::ToolTipRole:
    {
        QStringList tips;
        if (const int flags = m_flags[std::size_t(index.row())])
            tips << thresholdTooltip(row, flags);
        if (index.column() == RowsHeld)
            tips << heldTooltip(row.shard.id);
        else if (index.column() == VersionLag)
            tips << lagTooltip(row);
        else if (index.column() == OwnerVersion)
            tips << ownerVersionsTooltip(row);
        return tips.isEmpty() ? QVariant() : QVariant(tips.join(QLatin1Char('\n')));
    }
    default: return {};
    }
}

QVariant RoutingTableModel::display(const engine::ShardRoute &row, int column) const {
    switch (column) {
    case Shard: return row.shard.id;
    case Layer: return QString::fromStdString(row.shard.layer);
    case Rows: return QStringLiteral("%1–%2").arg(row.shard.rowBegin).arg(row.shard.rowEnd - 1);
    case Parameters: return QLocale().toString(qlonglong(row.shard.parameters));
    case Owners: {
        QStringList owners;
        for (std::size_t r = 0; r < row.owner.size(); ++r) {
            const int e = row.owner[r];
            owners << (e >= 0 && e < m_edgeNames.size() ? m_edgeNames[e] : QString::number(e));
        }
        return owners.join(QStringLiteral(", "));
    }
    case OwnerVersion:
    case CenterVersion:
    case MinCached:
    case VersionLag: return sortKey(row, column);
    case Drift: return QString::number(row.parameterDrift, 'f', 4);
    case LastSync: {
        const double last = row.lastSync.empty() ? 0 : *std::max_element(row.lastSync.begin(), row.lastSync.end());
        return QString::number(last, 'f', 2);
    }
    case RowsHeld: {
        const auto held = heldStats(m_held.get(), row.shard.id);
        if (!held.partial)
            return tr("all");
        return tr("mean %1 %, min %2 %").arg(held.mean * 100, 0, 'f', 1).arg(held.min * 100, 0, 'f', 1);
    }
    default: return {};
    }
}

QVariant RoutingTableModel::sortKey(const engine::ShardRoute &row, int column) const {
    switch (column) {
    case Shard: return row.shard.id;
    case Layer: return QString::fromStdString(row.shard.layer);
    case Rows: return qlonglong(row.shard.rowBegin);
    case Parameters: return qlonglong(row.shard.parameters);
    case Owners: return display(row, column);
    case OwnerVersion:
        return qulonglong(row.ownerVersion.empty() ? 0 : *std::max_element(row.ownerVersion.begin(), row.ownerVersion.end()));
    case CenterVersion: return qulonglong(row.centerVersion);
    case MinCached: return qulonglong(row.minCachedVersion());
    case VersionLag: return qulonglong(row.versionLag(m_snapshot->regionOfEdge));
    case Drift: return row.parameterDrift;
    case LastSync: return row.lastSync.empty() ? 0.0 : *std::max_element(row.lastSync.begin(), row.lastSync.end());
    case RowsHeld: return heldStats(m_held.get(), row.shard.id).mean;
    default: return {};
    }
}

} // namespace synaptic::ui
