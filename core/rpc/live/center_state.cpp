#include "center_state.h"

#include <algorithm>

namespace synaptic::rpc {

namespace e = synaptic::engine;

CenterState::CenterState(const e::ClusterConfig &config, const e::ClusterShape &shape, const e::ModelSetup &model)
    : m_shape(shape), m_routing(model.plan, e::topologyOf(config)) {
    for (int i = 0; i < shape.edgeCount(); ++i) {
        EdgeEntry entry;
        entry.name = shape.edgeName(i);
        entry.node = e::ClusterShape::nodeOfEdge(i);
        m_edges.push_back(entry);
    }
    e::ReportFolder::Sinks sinks;
    sinks.routing = &m_routing;
    sinks.ledger = &m_ledger;
    sinks.emit = [this](e::SimEvent ev) { emitLocked(std::move(ev)); };
    sinks.stepDone = [this](std::uint64_t samples) { m_samples += samples; };
    sinks.strict = false; // reports from separate processes arrive in no global order
    m_folder = std::make_unique<e::ReportFolder>(std::move(sinks));
    if (config.strategy == "synaptic")
        for (const auto &shard : model.plan.shards)
            for (int r = 0; r < shape.regionCount(); ++r)
                m_history.push_back(e::RoutingEvent{0, shard.id, r, model.plan.owner[std::size_t(r)][std::size_t(shard.id)],
                                                    0, "plan"});
}

int CenterState::join(const std::string &name, const std::string &address, const std::string &incarnation,
                      double now, std::string &why) {
    std::lock_guard lock(m_mutex);
    for (auto &entry : m_edges) {
        if (entry.name != name)
            continue;
        // A newer process of the same edge replaces the old one (a restart
        // the center may not have noticed yet).
        entry.address = address;
        entry.incarnation = incarnation;
        entry.up = true;
        entry.finished = false;
        entry.lastBatch = 0;
        entry.joinedAt = now > 0 ? now : 1e-9; // 0 means "never joined"
        ++entry.joins;
        return entry.node;
    }
    why = "no edge named \"" + name + "\" in the center's config";
    return -1;
}

void CenterState::resumeAt(int node, std::uint64_t steps) {
    std::lock_guard lock(m_mutex);
    const int edge = e::ClusterShape::edgeOfNode(node);
    if (edge >= 0 && edge < int(m_edges.size()))
        m_edges[std::size_t(edge)].stepsDone = std::max(m_edges[std::size_t(edge)].stepsDone, steps);
}

void CenterState::markDown(int node, const std::string &incarnation, double now, bool left) {
    std::lock_guard lock(m_mutex);
    const int edge = e::ClusterShape::edgeOfNode(node);
    if (edge < 0 || edge >= int(m_edges.size()))
        return;
    auto &entry = m_edges[std::size_t(edge)];
    if (entry.incarnation != incarnation || !entry.up)
        return; // a newer process has joined since
    entry.up = false;
    // The process cannot say so itself: the center's driver reports it.
    emitLocked(e::LeaseEvent{now, edge, left ? "left" : "down", 0});
}

bool CenterState::foldBatch(int node, const std::string &incarnation, std::uint64_t sequence, double now,
                            const std::vector<std::pair<double, e::NodeReport>> &reports, bool finished,
                            std::uint64_t wireBytes, std::uint64_t rejected, std::size_t *outOfRange) {
    std::lock_guard lock(m_mutex);
    const int edge = e::ClusterShape::edgeOfNode(node);
    if (edge < 0 || edge >= int(m_edges.size()))
        return false;
    auto &entry = m_edges[std::size_t(edge)];
    if (entry.incarnation != incarnation || sequence <= entry.lastBatch)
        return false;
    entry.lastBatch = sequence;
    entry.finished = finished;
    entry.wireBytes = wireBytes;
    entry.rejected = rejected;
    (void)now;
    for (const auto &[time, report] : reports) {
        if (!inRange(report, edge)) {
            if (outOfRange)
                ++*outOfRange;
            continue;
        }
        if (std::holds_alternative<e::StepReport>(report))
            ++entry.stepsDone; // a restarted edge of its region resumes from the furthest
        m_folder->fold(time, report);
    }
    return true;
}

// A report edge `edge` sent must name shards, regions and edges that exist
// (the tables are sized by them), its own sends only, and stay within what
// one window can carry.
bool CenterState::inRange(const e::NodeReport &report, int edge) const {
    const int shards = int(m_routing.shardCount());
    if (const auto *l = std::get_if<e::LedgerReport>(&report)) {
        if (l->ids.size() > 65536 || (l->kind == e::LedgerReport::Kind::Applied && (l->shard < 0 || l->shard >= shards)))
            return false;
        // A window sends at most one item per shard.
        if (l->kind == e::LedgerReport::Kind::Sent && l->count > std::uint64_t(shards))
            return false;
        // The ledger counts by the edge a contribution id names
        // (sent_by_edge, rejected_by_edge): only edges that exist. A
        // send's id names the reporting edge itself: no edge may count
        // windows as another's.
        return std::all_of(l->ids.begin(), l->ids.end(), [&](std::uint64_t id) {
            const int named = e::contributionEdge(id);
            return l->kind == e::LedgerReport::Kind::Sent ? named == edge : named < m_shape.edgeCount();
        });
    }
    if (const auto *r = std::get_if<e::RouteReport>(&report))
        return r->shard >= 0 && r->shard < shards && r->region < m_shape.regionCount() && r->edge < m_shape.edgeCount();
    return true;
}

void CenterState::foldLocal(double now, const std::vector<e::NodeReport> &reports) {
    std::lock_guard lock(m_mutex);
    for (const auto &r : reports)
        m_folder->fold(now, r);
}

void CenterState::publish(e::SimEvent event) {
    std::lock_guard lock(m_mutex);
    emitLocked(std::move(event));
}

void CenterState::emitLocked(e::SimEvent event) {
    for (auto &[id, listener] : m_listeners)
        listener(event);
    m_history.push_back(std::move(event));
}

std::vector<EdgeEntry> CenterState::edges() const {
    std::lock_guard lock(m_mutex);
    return m_edges;
}

EdgeEntry CenterState::edge(int node) const {
    std::lock_guard lock(m_mutex);
    return m_edges.at(std::size_t(e::ClusterShape::edgeOfNode(node)));
}

std::shared_ptr<const e::RoutingSnapshot> CenterState::routing() const { return m_routing.snapshot(); }

std::uint64_t CenterState::samples() const {
    std::lock_guard lock(m_mutex);
    return m_samples;
}

e::ContributionLedger CenterState::ledger() const {
    std::lock_guard lock(m_mutex);
    return m_ledger;
}

bool CenterState::allEdgesFinished() const {
    std::lock_guard lock(m_mutex);
    // A down edge trains no more (as in the simulator); one that never
    // joined has not started yet.
    for (const auto &entry : m_edges)
        if (entry.joinedAt == 0 && !entry.up ? true : entry.up && !entry.finished)
            return false;
    return true;
}

int CenterState::subscribe(Listener listener) {
    std::lock_guard lock(m_mutex);
    for (const auto &ev : m_history)
        listener(ev);
    const int id = m_nextListener++;
    m_listeners.emplace(id, std::move(listener));
    return id;
}

void CenterState::unsubscribe(int id) {
    std::lock_guard lock(m_mutex);
    m_listeners.erase(id);
}

std::uint64_t CenterState::eventCount() const {
    std::lock_guard lock(m_mutex);
    return m_history.size();
}

} // namespace synaptic::rpc
