// The planner's share bounds on the shard map (issue 14 item 4): which edges
// are outside them, and what a drop would do to them. Kept apart from the
// tree's bookkeeping in shard_map_model.cpp. GUI thread only.
#include "shard_map_model.h"

#include <QHash>

namespace synaptic::ui {

namespace {
constexpr double kSlack = 1e-12; // as the planner: a share exactly on the bound is inside
QString percent(double fraction) { return QString::number(fraction * 100, 'f', 1) + QStringLiteral(" %"); }
QString boundPercent(double fraction) { return QString::number(fraction * 100, 'g', 4) + QStringLiteral(" %"); }
} // namespace

ShardMapModel::OnBound ShardMapModel::onBoundFromName(const QString &name) {
    if (name == QLatin1String("refuse"))
        return OnBound::Refuse;
    if (name == QLatin1String("allow"))
        return OnBound::Allow;
    return OnBound::Confirm;
}

void ShardMapModel::setShareBounds(double minShare, double maxShare, OnBound onBound) {
    m_minShare = minShare;
    m_maxShare = maxShare;
    m_onBound = onBound;
    if (!m_edgeNames.isEmpty())
        Q_EMIT dataChanged(edgeIndex(0), edgeIndex(int(m_edgeNames.size()) - 1));
    Q_EMIT boundsChanged();
}

qlonglong ShardMapModel::owned(int edge) const {
    qlonglong total = 0;
    if (m_snapshot && edge >= 0 && edge < m_owned.size())
        for (int s : m_owned[edge])
            total += m_snapshot->rows[std::size_t(s)]->shard.parameters;
    return total;
}

double ShardMapModel::share(int edge) const {
    return m_totalParameters > 0 ? double(owned(edge)) / double(m_totalParameters) : 0.0;
}

bool ShardMapModel::outOfBounds(int edge) const {
    if (m_totalParameters <= 0)
        return false;
    const double s = share(edge);
    return s > m_maxShare + kSlack || s < m_minShare - kSlack;
}

QString ShardMapModel::boundsText() const {
    return QStringLiteral("%1–%2").arg(m_minShare * 100, 0, 'g', 4).arg(boundPercent(m_maxShare));
}

QStringList ShardMapModel::boundProblems() const {
    QStringList lines;
    for (int e = 0; e < m_edgeNames.size(); ++e) {
        if (!outOfBounds(e))
            continue;
        const double s = share(e);
        lines << (s > m_maxShare ? tr("%1 owns %2, over the %3 maximum").arg(m_edgeNames[e], percent(s),
                                                                              boundPercent(m_maxShare))
                                 : tr("%1 owns %2, under the %3 minimum").arg(m_edgeNames[e], percent(s),
                                                                               boundPercent(m_minShare)));
    }
    return lines;
}

QString ShardMapModel::boundBreach(const QList<Dragged> &dragged, int edge) const {
    if (m_totalParameters <= 0 || !m_snapshot)
        return {};
    auto ownerOf = [&](int shard, int region) {
        const auto flight = m_inFlight.constFind({shard, region});
        return flight != m_inFlight.cend() ? *flight : m_snapshot->rows[std::size_t(shard)]->owner[std::size_t(region)];
    };
    // Loads as they will be once the moves in flight land, then with this drop.
    QHash<int, qlonglong> load;
    auto loadOf = [&](int e) -> qlonglong & {
        auto it = load.find(e);
        if (it == load.end())
            it = load.insert(e, owned(e));
        return *it;
    };
    for (auto it = m_inFlight.cbegin(); it != m_inFlight.cend(); ++it) {
        const auto [shard, region] = it.key();
        const qlonglong p = m_snapshot->rows[std::size_t(shard)]->shard.parameters;
        loadOf(m_snapshot->rows[std::size_t(shard)]->owner[std::size_t(region)]) -= p;
        loadOf(it.value()) += p;
    }
    QList<int> sources;
    for (const auto &d : dragged) {
        const qlonglong p = m_snapshot->rows[std::size_t(d.shard)]->shard.parameters;
        const int from = ownerOf(d.shard, d.region);
        loadOf(from) -= p;
        loadOf(edge) += p;
        if (!sources.contains(from))
            sources << from;
    }
    auto shareOf = [&](int e) { return double(loadOf(e)) / double(m_totalParameters); };
    QStringList lines;
    if (shareOf(edge) > m_maxShare + kSlack)
        lines << tr("%1 would own %2, over the %3 maximum").arg(m_edgeNames[edge], percent(shareOf(edge)),
                                                                  boundPercent(m_maxShare));
    for (int from : sources)
        if (shareOf(from) < m_minShare - kSlack)
            lines << tr("%1 would own %2, under the %3 minimum").arg(m_edgeNames[from], percent(shareOf(from)),
                                                                       boundPercent(m_minShare));
    return lines.join(QStringLiteral("; "));
}

bool ShardMapModel::passesBounds(const QList<Dragged> &dragged, int edge) {
    if (m_onBound == OnBound::Allow)
        return true;
    const QString breach = boundBreach(dragged, edge);
    if (breach.isEmpty())
        return true;
    if (m_onBound == OnBound::Refuse) {
        Q_EMIT moveRefused(tr("%1 (the planner's bounds are %2; planner.on_bound is \"refuse\")")
                               .arg(breach, boundsText()));
        return false;
    }
    const QString question = tr("%1. The planner's bounds are %2. Move anyway?").arg(breach, boundsText());
    if (m_confirm && m_confirm(question))
        return true;
    Q_EMIT moveRefused(m_confirm ? tr("not confirmed: %1").arg(breach)
                                 : tr("%1, and nothing can confirm it").arg(breach));
    return false;
}

} // namespace synaptic::ui
