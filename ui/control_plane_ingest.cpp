// How engine events reach the control plane's views: one batch at a time,
// live or replayed, each view updated once per batch (DESIGN.md §6).
#include "control_plane_window.h"

#include "core/engine/progress_meter.h"

#include "charts/time_series_chart.h"
#include "models/routing_table_model.h"
#include "models/shard_map_model.h"
#include "panels/serving_panel.h"
#include "telemetry/chart_feeder.h"
#include "topology/topology_view.h"
#include "views/shard_map_panel.h"

#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QStatusBar>
#include <QStringListModel>
#include <QTableView>
#include <QProgressBar>
#include <QTreeView>

#include <algorithm>
#include <cmath>

namespace synaptic::ui {

namespace {
constexpr int kCenterNode = 0; // engine node ids: 0 = center, edge e = e + 1
} // namespace

void ControlPlaneWindow::ingest(const QVector<engine::SimEvent> &batch) {
    feed(std::span<const engine::SimEvent>(batch.constData(), std::size_t(batch.size())), Feed::All);
}

void ControlPlaneWindow::feed(std::span<const engine::SimEvent> events, Feed what) {
    const double wall = m_wall.isValid() ? m_wall.elapsed() / 1e3 : 0;
    const double completeBefore = m_virtualTime; // read before this batch's events: see ChartFeeder::flush
    for (const auto &e : events) {
        // The figures of the status bar go with the charts: a metric's only other use.
        if (const auto *m = std::get_if<engine::MetricEvent>(&e)) {
            if (m->scope == "global")
                m_globalAccuracy = m->accuracy;
            m_samples = std::max<quint64>(m_samples, m->samples);
        } else if (what != Feed::ChartsOnly) {
            applyToViews(e);
        }
        if (what != Feed::ViewsOnly)
            m_feeder->add(e, m_samples, wall);
    }
    if (what != Feed::ViewsOnly)
        m_feeder->flush(completeBefore);
    // The log view re-lays out on every insertion (about 2 ms with thousands
    // of lines): append at most every kLogFlushMs, not with every batch.
    if (!m_pendingLog.isEmpty() && !m_logTimer.isActive())
        m_logTimer.start();
    updateProgress();
}

void ControlPlaneWindow::showLeases(const std::map<int, engine::LeaseEvent> &leases) {
    for (const auto &[edge, lease] : leases) {
        const QString mode = QString::fromStdString(lease.mode);
        m_shardMap->setEdgeMode(edge, mode);
        m_topology->setEdgeMode(edge, mode);
        m_edgeModes.insert(edge, mode);
    }
}

// Keep in step with applyToViews(): a replay seek rebuilds the log from the events this names.
bool ControlPlaneWindow::logsEvent(const engine::SimEvent &e) {
    if (const auto *r = std::get_if<engine::RoutingEvent>(&e))
        return r->reason == "move";
    if (const auto *k = std::get_if<engine::ConsistencyEvent>(&e))
        return k->mismatches > 0;
    if (const auto *im = std::get_if<engine::EdgeImageEvent>(&e))
        return im->edge < 0 && im->version > 0;
    return std::holds_alternative<engine::LeaseEvent>(e) || std::holds_alternative<engine::CommandEvent>(e) ||
           std::holds_alternative<engine::RejectedInputEvent>(e);
}

void ControlPlaneWindow::applyToViews(const engine::SimEvent &e) {
    if (const auto *l = std::get_if<engine::LeaseEvent>(&e)) {
        const QString mode = QString::fromStdString(l->mode);
        m_shardMap->setEdgeMode(l->edge, mode);
        m_topology->setEdgeMode(l->edge, mode);
        m_edgeModes.insert(l->edge, mode);
        log(l->time, tr("%1 is %2 (lease epoch %3)").arg(edgeName(l->edge), mode).arg(l->epoch));
    } else if (const auto *c = std::get_if<engine::CommandEvent>(&e)) {
        if (c->applied) {
            applyCommandToTopology(*c);
            // Values from a recording may be hostile: only plausible ones reach the widgets.
            const double v = c->issued.value;
            if (c->issued.kind == engine::SimCommand::Kind::SetConfidenceThreshold && c->issued.node < 0 &&
                v >= 0 && v <= 1)
                m_serving->setThreshold(v);
            if (c->issued.kind == engine::SimCommand::Kind::SetReleaseCadence && v >= 1 && v <= 1e6)
                m_serving->setReleaseCadence(int(v));
        }
        if (c->issued.kind == engine::SimCommand::Kind::MoveShard)
            m_shardMap->setMoveInFlight(c->issued.shard, c->issued.region, c->issued.node, c->applied);
        const QString detail = c->detail.empty() ? QString() : QStringLiteral(" — ") + QString::fromStdString(c->detail);
        log(c->time, (c->applied ? tr("applied: %1") : tr("refused: %1")).arg(commandText(*c) + detail));
    } else if (const auto *r = std::get_if<engine::RoutingEvent>(&e)) {
        m_ownersChanged = true;
        if (r->reason == "move")
            log(r->time, tr("shard %1 now owned by %2 in %3").arg(r->shard).arg(edgeName(r->owner),
                                                                                 m_regionNames.value(r->region)));
    } else if (const auto *k = std::get_if<engine::ConsistencyEvent>(&e)) {
        if (k->mismatches > 0)
            log(k->time, tr("consistency: %1 of %2 copies differ from the global one").arg(k->mismatches)
                             .arg(k->checked));
    } else if (const auto *b = std::get_if<engine::LinkBytesEvent>(&e)) {
        applyLinkBytes(*b);
    } else if (const auto *i = std::get_if<engine::InferenceEvent>(&e)) {
        m_serving->addInference(*i);
    } else if (const auto *rj = std::get_if<engine::RejectedInputEvent>(&e)) {
        log(rj->time, tr("%1 refused %2 input(s) from %3: %4")
                          .arg(rj->node == 0 ? tr("center") : edgeName(rj->node - 1))
                          .arg(rj->count)
                          .arg(QString::fromStdString(rj->peer), QString::fromStdString(rj->reason)));
    } else if (const auto *im = std::get_if<engine::EdgeImageEvent>(&e)) {
        m_serving->addImage(*im);
        if (im->edge < 0 && im->version > 0)
            log(im->time, tr("edge image v%1 released (%2 KB per edge)").arg(im->version).arg(double(im->bytes) / 1e3, 0, 'f', 1));
    }
}

void ControlPlaneWindow::ingestRouting(std::shared_ptr<const engine::RoutingSnapshot> snapshot) {
    const bool first = !m_routing->snapshot();
    m_routing->setSnapshot(snapshot);
    if (first) // size the columns once, on the first table; per update it would cost more than the refresh budget
        m_routingView->resizeColumnsToContents();
    m_shardMap->setSnapshot(snapshot);
    // Who owns what changes only with a plan or a move (a RoutingEvent), not
    // with the version bumps that bring a new snapshot every refresh.
    if (first || m_ownersChanged) {
        updateNodeDetails();
        m_ownersChanged = false;
    }
}

// The topology shows what a fault did: partitioned links dashed, a dead center grey.
void ControlPlaneWindow::applyCommandToTopology(const engine::CommandEvent &event) {
    using K = engine::SimCommand::Kind;
    const auto &c = event.issued;
    auto node = [](int edgeOrCenter) { return edgeOrCenter < 0 ? kCenterNode : edgeOrCenter + 1; };
    switch (c.kind) {
    case K::PartitionLink:
    case K::HealLink: m_topology->setLinkDown(node(c.node), node(c.nodeB), c.kind == K::PartitionLink); break;
    case K::PartitionRegion:
    case K::HealRegion: m_topology->setRegionPartitioned(c.region, c.kind == K::PartitionRegion); break;
    case K::SetLink: // the link's tooltip shows what it runs at now, not only the config
        if (std::isfinite(c.link.latencySeconds) && c.link.latencySeconds >= 0 &&
            std::isfinite(c.link.bandwidthBitsPerSecond) && c.link.bandwidthBitsPerSecond > 0)
            m_topology->setLinkSpec(node(c.node), node(c.nodeB), c.link.latencySeconds,
                                    c.link.bandwidthBitsPerSecond);
        break;
    case K::KillNode:
    case K::ReviveNode:
        if (c.node < 0)
            m_topology->setCenterUp(c.kind == K::ReviveNode);
        break; // an edge's state arrives as a lease event
    default: break;
    }
}

// Link counters arrive per interval; a link missing from a newer interval
// carried nothing in it, so its drawn rate drops to zero.
void ControlPlaneWindow::applyLinkBytes(const engine::LinkBytesEvent &b) {
    if (b.time != m_linkInterval) {
        for (auto it = m_linkRates.begin(); it != m_linkRates.end(); ++it)
            if (it.value() > 0) {
                it.value() = 0;
                m_topology->setLinkRate(it.key().first, it.key().second, 0);
            }
        m_linkInterval = b.time;
    }
    const double rate = b.interval > 0 ? double(b.bytes) / b.interval : 0;
    m_linkRates[{b.from, b.to}] = rate;
    m_topology->setLinkRate(b.from, b.to, rate);
}

void ControlPlaneWindow::updateNodeDetails() {
    const auto snapshot = m_routing->snapshot();
    if (!snapshot)
        return;
    QVector<int> shards(m_edgeNames.size(), 0);
    QVector<double> params(m_edgeNames.size(), 0);
    double total = 0;
    for (const auto &row : snapshot->rows) {
        total += double(row->shard.parameters);
        for (int owner : row->owner)
            if (owner >= 0 && owner < shards.size()) {
                ++shards[owner];
                params[owner] += double(row->shard.parameters);
            }
    }
    for (int e = 0; e < m_edgeNames.size(); ++e)
        m_topology->setNodeDetails(e + 1, tr("owns %1 shards, %2 % of the parameters")
                                              .arg(shards[e])
                                              .arg(total > 0 ? 100.0 * params[e] / total : 0, 0, 'f', 1));
    m_topology->setNodeDetails(kCenterNode, tr("global copy of %1 shards").arg(snapshot->rows.size()));
}

void ControlPlaneWindow::focusOn(const TopologySelection &selection) {
    QString filter;
    int edge = -1;
    switch (selection.kind) {
    case TopologySelection::Edge:
        edge = selection.index;
        filter = m_edgeNames.value(edge);
        break;
    case TopologySelection::Region: filter = m_regionNames.value(selection.index); break;
    case TopologySelection::Center: filter = tr("center"); break;
    case TopologySelection::None: break;
    }
    if (!(m_topology->selection() == selection))
        m_topology->select(selection);
    // Filters go through the visible filter boxes, so the operator sees and can clear them.
    m_routingFilter->setText(selection.kind == TopologySelection::Center ? QString() : filter);
    m_logFilter->setText(filter);
    m_feeder->setFocusEdge(edge);
    const QString region = edge >= 0 ? m_regionNames.value(m_regionOfEdge.value(edge))
                           : selection.kind == TopologySelection::Region ? filter
                                                                         : QString();
    for (auto *chart : {m_trainingChart, m_driftChart})
        chart->setHighlighted(region);
    m_bandwidthChart->setHighlighted(edge >= 0 ? filter : region);
    if (edge >= 0) {
        m_shardPanel->showEdge(edge);
    }
    statusBar()->showMessage(filter.isEmpty() ? tr("showing every node") : tr("showing %1").arg(filter), 4000);
}

// The engine's text names nodes by index ("kill edge 7"); operators read names.
QString ControlPlaneWindow::commandText(const engine::CommandEvent &event) const {
    using K = engine::SimCommand::Kind;
    const auto &c = event.issued;
    const QString region = m_regionNames.value(c.region, QString::number(c.region));
    switch (c.kind) {
    case K::MoveShard: return tr("move shard %1 of %2 to %3").arg(c.shard).arg(region, edgeName(c.node));
    case K::KillNode: return tr("kill %1").arg(edgeName(c.node));
    case K::ReviveNode: return tr("revive %1").arg(edgeName(c.node));
    case K::PartitionLink: return tr("partition_link %1 ↔ %2").arg(edgeName(c.node), edgeName(c.nodeB));
    case K::HealLink: return tr("heal_link %1 ↔ %2").arg(edgeName(c.node), edgeName(c.nodeB));
    case K::PartitionRegion: return tr("partition_region %1").arg(region);
    case K::HealRegion: return tr("heal_region %1").arg(region);
    case K::SetLink:
        return tr("set_link %1 ↔ %2: %3 ms, %4 Mb/s, loss %5")
            .arg(edgeName(c.node), edgeName(c.nodeB))
            .arg(c.link.latencySeconds * 1e3)
            .arg(c.link.bandwidthBitsPerSecond / 1e6)
            .arg(c.link.lossRate);
    case K::SetConfidenceThreshold:
        return c.node < 0 ? tr("set_confidence_threshold %1 on every edge").arg(c.value)
                          : tr("set_confidence_threshold %1 on %2").arg(c.value).arg(edgeName(c.node));
    default: return QString::fromStdString(event.command); // knobs: the engine's text is already clear
    }
}

QString ControlPlaneWindow::edgeName(int edge) const {
    return edge < 0 ? tr("center") : m_edgeNames.value(edge, QString::number(edge));
}

void ControlPlaneWindow::log(double time, const QString &text) {
    m_pendingLog << QStringLiteral("%1 s  %2").arg(time, 8, 'f', 3).arg(text);
}

// One insertion per batch: the filter proxy and the view re-sort once, not per line.
void ControlPlaneWindow::flushLog() {
    if (m_pendingLog.isEmpty())
        return;
    if (m_pendingLog.size() > kMaxLogLines)
        m_pendingLog = m_pendingLog.mid(m_pendingLog.size() - kMaxLogLines);
    const int overflow = m_log->rowCount() + int(m_pendingLog.size()) - kMaxLogLines;
    if (overflow > 0)
        m_log->removeRows(0, std::min(m_log->rowCount(), overflow + kMaxLogLines / 10));
    const int first = m_log->rowCount();
    m_log->insertRows(first, int(m_pendingLog.size()));
    for (int i = 0; i < m_pendingLog.size(); ++i)
        m_log->setData(m_log->index(first + i), m_pendingLog[i]);
    m_pendingLog.clear();
}

void ControlPlaneWindow::updateProgress() {
    m_progress->setText(tr("%1 · %2 %3 s · %4 samples · global accuracy %5")
                            .arg(QString::fromStdString(m_config.strategy), m_session->clockName())
                            .arg(m_virtualTime, 0, 'f', 2)
                            .arg(QLocale().toString(m_samples))
                            .arg(m_globalAccuracy, 0, 'f', 4));
    // Issue 18 §1: the share of the budget done and an ETA, as the CLI
    // shows them; only for a run with a known end that is under way.
    const double fraction = m_replay ? -1 : m_session->budgetFraction(m_virtualTime, m_samples);
    const bool show = fraction >= 0 && m_wall.isValid();
    m_runProgress->setVisible(show);
    if (!show)
        return;
    const double done = std::clamp(fraction, 0.0, 1.0);
    m_runProgress->setValue(int(done * 1000));
    const double elapsed = double(m_runningMs + (m_runningSince.isValid() ? m_runningSince.elapsed() : 0)) / 1e3;
    const QString eta = done >= 0.02 && done < 1
                            ? tr(" · ETA %1").arg(QString::fromStdString(engine::formatDuration(elapsed * (1 - done) / done)))
                            : QString();
    m_runProgress->setFormat(tr("%p%") + eta);
}

void ControlPlaneWindow::onState(ClusterSource::State state) {
    static const char *names[] = {"idle", "loading data", "running", "paused", "finished", "failed"};
    // The ETA's clock runs only while the cluster does.
    if (state == ClusterSource::State::Running) {
        if (!m_runningSince.isValid())
            m_runningSince.start();
    } else if (m_runningSince.isValid()) {
        m_runningMs += m_runningSince.elapsed();
        m_runningSince.invalidate();
    }
    // A remote source's Loading is its connection being made; its own
    // statusMessage() says to where.
    if (!m_embedded && state == ClusterSource::State::Loading)
        return;
    statusBar()->showMessage(tr("cluster %1").arg(tr(names[int(state)])), 4000);
}

} // namespace synaptic::ui
