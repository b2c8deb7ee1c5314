#include "shard_map_model.h"

#include <QColor>
#include <QDataStream>
#include <QFont>
#include <QIODevice>
#include <QLocale>
#include <QMimeData>

#include <algorithm>

namespace synaptic::ui {

namespace {
// Internal ids: 0 for an edge item, edge + 1 for a shard item under it.
constexpr quintptr kEdgeItem = 0;
} // namespace

ShardMapModel::ShardMapModel(QObject *parent) : QAbstractItemModel(parent) {}

void ShardMapModel::setTopology(const QStringList &edgeNames, const QVector<int> &regionOfEdge,
                                const QStringList &regionNames) {
    beginResetModel();
    m_edgeNames = edgeNames;
    m_regionOfEdge = regionOfEdge;
    m_regionNames = regionNames;
    m_edgeMode = QVector<QString>(edgeNames.size(), QStringLiteral("starting"));
    m_owned = QVector<QVector<int>>(edgeNames.size());
    m_snapshot.reset();
    m_inFlight.clear();
    m_totalParameters = 0;
    endResetModel();
    Q_EMIT boundsChanged();
}

void ShardMapModel::setSnapshot(std::shared_ptr<const engine::RoutingSnapshot> snapshot) {
    if (!snapshot)
        return;
    const bool first = !m_snapshot || m_snapshot->rows.size() != snapshot->rows.size();
    if (first) {
        beginResetModel();
        m_snapshot = std::move(snapshot);
        m_owned = QVector<QVector<int>>(m_edgeNames.size());
        m_totalParameters = 0;
        for (std::size_t s = 0; s < m_snapshot->rows.size(); ++s) {
            m_totalParameters += m_snapshot->rows[s]->shard.parameters;
            for (int e : m_snapshot->rows[s]->owner)
                if (e >= 0 && e < m_owned.size())
                    m_owned[e].push_back(int(s));
        }
        endResetModel();
        Q_EMIT boundsChanged();
        return;
    }
    bool moved = false;
    const auto old = m_snapshot;
    m_snapshot = std::move(snapshot);
    for (std::size_t s = 0; s < m_snapshot->rows.size(); ++s) {
        if (m_snapshot->rows[s] == old->rows[s])
            continue;
        const auto &was = old->rows[s]->owner;
        const auto &now = m_snapshot->rows[s]->owner;
        for (std::size_t r = 0; r < now.size() && r < was.size(); ++r) {
            if (was[r] == now[r])
                continue;
            m_inFlight.remove({int(s), int(r)});
            moved = true;
            // Out of the old owner's list, into the new one's at its sorted place.
            auto &from = m_owned[was[r]];
            const int at = int(std::find(from.begin(), from.end(), int(s)) - from.begin());
            if (at < from.size()) {
                beginRemoveRows(edgeIndex(was[r]), at, at);
                from.remove(at);
                endRemoveRows();
                Q_EMIT dataChanged(edgeIndex(was[r]), edgeIndex(was[r]));
            }
            auto &to = m_owned[now[r]];
            const int pos = int(std::lower_bound(to.begin(), to.end(), int(s)) - to.begin());
            beginInsertRows(edgeIndex(now[r]), pos, pos);
            to.insert(pos, int(s));
            endInsertRows();
            Q_EMIT dataChanged(edgeIndex(now[r]), edgeIndex(now[r]));
        }
    }
    if (moved)
        Q_EMIT boundsChanged();
}

void ShardMapModel::setMoveInFlight(int shard, int region, int targetEdge, bool inFlight) {
    const QPair<int, int> key{shard, region};
    if (inFlight)
        m_inFlight.insert(key, targetEdge);
    else if (!m_inFlight.remove(key))
        return;
    if (!m_snapshot || shard < 0 || std::size_t(shard) >= m_snapshot->rows.size())
        return;
    const auto &owners = m_snapshot->rows[std::size_t(shard)]->owner;
    if (region < 0 || std::size_t(region) >= owners.size())
        return;
    const int from = owners[std::size_t(region)];
    const int row = from >= 0 && from < m_owned.size() ? int(m_owned[from].indexOf(shard)) : -1;
    if (row >= 0)
        Q_EMIT dataChanged(index(row, 0, edgeIndex(from)), index(row, 0, edgeIndex(from)));
}

void ShardMapModel::setEdgeMode(int edge, const QString &mode) {
    if (edge < 0 || edge >= m_edgeMode.size() || m_edgeMode[edge] == mode)
        return;
    m_edgeMode[edge] = mode;
    Q_EMIT dataChanged(edgeIndex(edge), edgeIndex(edge));
}

void ShardMapModel::setHeldShares(std::shared_ptr<const HeldShares> shares) {
    m_held = std::move(shares);
    if (m_edgeNames.isEmpty())
        return;
    Q_EMIT dataChanged(edgeIndex(0), edgeIndex(int(m_edgeNames.size()) - 1), {Qt::DisplayRole, HeldShareRole});
    // Shard items: only their tooltips read the held shares.
    for (int e = 0; e < m_owned.size(); ++e)
        if (!m_owned[e].isEmpty())
            Q_EMIT dataChanged(index(0, 0, edgeIndex(e)), index(int(m_owned[e].size()) - 1, 0, edgeIndex(e)),
                               {Qt::ToolTipRole});
}

QString ShardMapModel::heldTooltip(int shard, int region) const {
    if (!heldStats(m_held.get(), shard).partial)
        return {};
    const auto &perEdge = (*m_held)[std::size_t(shard)];
    QStringList lines{tr("rows of this shard held in %1:").arg(m_regionNames.value(region))};
    for (int e = 0; e < m_edgeNames.size() && std::size_t(e) < perEdge.size(); ++e)
        if (m_regionOfEdge.value(e) == region)
            lines << QStringLiteral("%1: %2 %").arg(m_edgeNames[e]).arg(double(perEdge[std::size_t(e)]) * 100, 0, 'f', 1);
    return lines.join(QLatin1Char('\n'));
}

QModelIndex ShardMapModel::index(int row, int column, const QModelIndex &parent) const {
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kEdgeItem);
    return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex ShardMapModel::parent(const QModelIndex &child) const {
    if (!child.isValid() || child.internalId() == kEdgeItem)
        return {};
    return createIndex(int(child.internalId() - 1), 0, kEdgeItem);
}

int ShardMapModel::rowCount(const QModelIndex &parent) const {
    if (!parent.isValid())
        return int(m_edgeNames.size());
    if (parent.internalId() != kEdgeItem || parent.column() != 0)
        return 0;
    return int(m_owned.value(parent.row()).size());
}

int ShardMapModel::columnCount(const QModelIndex &) const { return 1; }

QString ShardMapModel::shardLabel(int shard) const {
    const auto &spec = m_snapshot->rows[std::size_t(shard)]->shard;
    return tr("#%1 %2 rows %3–%4").arg(shard).arg(QString::fromStdString(spec.layer)).arg(spec.rowBegin)
        .arg(spec.rowEnd - 1);
}

QVariant ShardMapModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid())
        return {};
    if (index.internalId() == kEdgeItem) {
        const int e = index.row();
        const qlonglong total = owned(e);
        const bool wantsHeld = role == Qt::DisplayRole || role == HeldShareRole;
        const double held = wantsHeld && m_snapshot ? edgeHeldShare(m_held.get(), *m_snapshot, e) : -1;
        switch (role) {
        case Qt::DisplayRole:
            return tr("%1 (%2) — %3 shards, %4 parameters (%5 %), %6")
                .arg(m_edgeNames[e], m_regionNames.value(m_regionOfEdge.value(e)))
                .arg(m_owned[e].size())
                .arg(QLocale().toString(total))
                .arg(share(e) * 100, 0, 'f', 1)
                .arg(m_edgeMode[e]) +
                (held >= 0 ? tr(" — holds %1 % of the table").arg(held * 100, 0, 'f', 1) : QString()) +
                (outOfBounds(e) ? tr(" — outside %1").arg(boundsText()) : QString());
        case Qt::ForegroundRole: return outOfBounds(e) ? QVariant(QColor(0xd0, 0x30, 0x30)) : QVariant();
        case Qt::ToolTipRole:
            return outOfBounds(e) ? tr("%1 owns %2 % of the parameters; the planner's bounds are %3")
                                        .arg(m_edgeNames[e])
                                        .arg(share(e) * 100, 0, 'f', 1)
                                        .arg(boundsText())
                                  : QVariant();
        case ParametersRole: return total;
        case ShareRole: return share(e);
        case HeldShareRole: return held;
        case OutOfBoundsRole: return outOfBounds(e);
        case EdgeModeRole: return m_edgeMode[e];
        case EdgeNameRole: return m_edgeNames[e];
        default: return {};
        }
    }
    const int e = int(index.internalId() - 1);
    if (!m_snapshot || e >= m_owned.size() || index.row() >= m_owned[e].size())
        return {};
    const int shard = m_owned[e][index.row()];
    const auto flight = m_inFlight.constFind({shard, m_regionOfEdge.value(e)});
    const bool inFlight = flight != m_inFlight.cend();
    switch (role) {
    case Qt::DisplayRole:
        return shardLabel(shard) + (inFlight ? tr(" (moving to %1)").arg(m_edgeNames.value(*flight)) : QString());
    case Qt::FontRole: {
        if (!inFlight)
            return {};
        QFont f;
        f.setItalic(true);
        return f;
    }
    case Qt::ForegroundRole: return inFlight ? QVariant(QColor(0xf0, 0x9a, 0x30)) : QVariant();
    case Qt::ToolTipRole: {
        const auto tip = heldTooltip(shard, m_regionOfEdge.value(e));
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    case ShardIdRole: return shard;
    case ParametersRole: return qlonglong(m_snapshot->rows[std::size_t(shard)]->shard.parameters);
    case InFlightRole: return inFlight;
    case LayerRole: return QString::fromStdString(m_snapshot->rows[std::size_t(shard)]->shard.layer);
    case VersionRole: {
        const auto &versions = m_snapshot->rows[std::size_t(shard)]->ownerVersion;
        const int region = m_regionOfEdge.value(e);
        return region >= 0 && std::size_t(region) < versions.size() ? QVariant(quint64(versions[std::size_t(region)]))
                                                                    : QVariant();
    }
    default: return {};
    }
}

Qt::ItemFlags ShardMapModel::flags(const QModelIndex &index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    if (index.internalId() == kEdgeItem)
        return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDropEnabled;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled;
}

QStringList ShardMapModel::mimeTypes() const { return {kMimeType}; }

QMimeData *ShardMapModel::mimeData(const QModelIndexList &indexes) const {
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    QList<QPair<int, int>> seen;
    for (const auto &i : indexes) {
        if (!i.isValid() || i.internalId() == kEdgeItem)
            continue;
        const QPair<int, int> item{data(i, ShardIdRole).toInt(), m_regionOfEdge.value(int(i.internalId() - 1))};
        if (!seen.contains(item))
            seen << item;
    }
    if (seen.isEmpty())
        return nullptr;
    for (const auto &[shard, region] : seen)
        out << qint32(shard) << qint32(region);
    auto *mime = new QMimeData;
    mime->setData(kMimeType, bytes);
    return mime;
}

QList<ShardMapModel::Dragged> ShardMapModel::decode(const QMimeData *data) const {
    QList<Dragged> out;
    if (!data || !data->hasFormat(kMimeType))
        return out;
    QDataStream in(data->data(kMimeType));
    while (!in.atEnd()) {
        qint32 shard = -1, region = -1;
        in >> shard >> region;
        if (in.status() != QDataStream::Ok)
            return {};
        out.push_back({shard, region});
    }
    return out;
}

int ShardMapModel::targetEdge(const QModelIndex &parent) const {
    if (!parent.isValid())
        return -1;
    return parent.internalId() == kEdgeItem ? parent.row() : int(parent.internalId() - 1);
}

QString ShardMapModel::refusal(const QMimeData *data, const QModelIndex &parent) const {
    const auto dragged = decode(data);
    if (dragged.isEmpty())
        return tr("nothing to move");
    const int edge = targetEdge(parent);
    if (edge < 0 || edge >= m_edgeNames.size())
        return tr("drop shards onto an edge");
    if (!m_snapshot)
        return tr("the cluster is not running");
    const QString &mode = m_edgeMode[edge];
    if (mode != QLatin1String("training"))
        return tr("%1 is %2: only a training edge can take shards").arg(m_edgeNames[edge], mode);
    for (const auto &d : dragged) {
        if (d.shard < 0 || std::size_t(d.shard) >= m_snapshot->rows.size())
            return tr("no shard %1").arg(d.shard);
        if (d.region != m_regionOfEdge[edge])
            return tr("shard %1 belongs to region %2; %3 is in %4: shards move only within a region")
                .arg(d.shard)
                .arg(m_regionNames.value(d.region), m_edgeNames[edge], m_regionNames.value(m_regionOfEdge[edge]));
        if (m_snapshot->rows[std::size_t(d.shard)]->owner[std::size_t(d.region)] == edge)
            return tr("%1 already owns shard %2").arg(m_edgeNames[edge]).arg(d.shard);
        if (m_inFlight.contains({d.shard, d.region}))
            return tr("a move of shard %1 is already in flight").arg(d.shard);
    }
    return {};
}

bool ShardMapModel::canDropMimeData(const QMimeData *data, Qt::DropAction action, int, int,
                                    const QModelIndex &parent) const {
    return action == Qt::MoveAction && refusal(data, parent).isEmpty();
}

bool ShardMapModel::dropMimeData(const QMimeData *data, Qt::DropAction action, int, int,
                                 const QModelIndex &parent) {
    if (action != Qt::MoveAction)
        return false;
    const QString why = refusal(data, parent);
    if (!why.isEmpty()) {
        Q_EMIT moveRefused(why);
        return false;
    }
    const int edge = targetEdge(parent);
    if (!passesBounds(decode(data), edge))
        return false;
    for (const auto &d : decode(data)) {
        m_inFlight.insert({d.shard, d.region}, edge);
        engine::SimCommand c;
        c.kind = engine::SimCommand::Kind::MoveShard;
        c.shard = d.shard;
        c.region = d.region;
        c.node = edge;
        Q_EMIT moveRequested(c);
        const auto &owners = m_snapshot->rows[std::size_t(d.shard)]->owner;
        const int from = owners[std::size_t(d.region)];
        const int row = int(m_owned[from].indexOf(d.shard));
        if (row >= 0)
            Q_EMIT dataChanged(index(row, 0, edgeIndex(from)), index(row, 0, edgeIndex(from)));
    }
    return true;
}

} // namespace synaptic::ui
