#pragma once

#include "core/engine/sim/node_context.h"
#include "core/engine/sim/node_report.h"
#include "core/engine/sim/report_folder.h"
#include "core/engine/sim/sim_events.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/synapse/routing_table.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace synaptic::rpc {

// One edge as the center knows it.
struct EdgeEntry {
    std::string name;
    int node = 0;
    std::string address;         // where its Peer service listens
    std::string incarnation;     // of the process that joined last
    bool up = false;
    bool finished = false;       // its node reported no work left
    std::uint64_t lastBatch = 0; // sequence of the last report batch folded
    std::uint64_t wireBytes = 0; // its transport's count, from its reports
    std::uint64_t rejected = 0;  // inputs it refused
    double joinedAt = 0;
    std::uint32_t joins = 0;     // how many times it has joined
    std::uint64_t stepsDone = 0; // training steps its processes reported, over all of them
};

// The cluster as the center's driver sees it (the live counterpart of
// SimWorld's views): who has joined and where they listen, and what every
// node reported, folded into the routing table, the ledger, the samples
// trained and the run's event history. Observers (the control plane's
// watchers) get every event as it is folded. Any thread; one mutex.
class CenterState {
public:
    using Listener = std::function<void(const engine::SimEvent &)>;

    CenterState(const engine::ClusterConfig &config, const engine::ClusterShape &shape, const engine::ModelSetup &model);

    // An edge joins (or rejoins); returns its node id, or -1 with `why`.
    int join(const std::string &name, const std::string &address, const std::string &incarnation, double now,
             std::string &why);
    // The edge's process is gone (its watch stream ended) or left.
    void markDown(int node, const std::string &incarnation, double now, bool left);
    // A (re)joining edge starts at step `steps` of its region: its count
    // goes on from there.
    void resumeAt(int node, std::uint64_t steps);
    // A batch of reports from `node`; false if it is a resent batch or from
    // an old incarnation. Reports naming shards, regions or edges that do
    // not exist, or sends in another edge's name, are skipped and counted
    // in `outOfRange`.
    bool foldBatch(int node, const std::string &incarnation, std::uint64_t sequence, double now,
                   const std::vector<std::pair<double, engine::NodeReport>> &reports, bool finished,
                   std::uint64_t wireBytes, std::uint64_t rejected, std::size_t *outOfRange = nullptr);
    // The center node's own reports.
    void foldLocal(double now, const std::vector<engine::NodeReport> &reports);
    // An event the center's driver makes itself (command outcomes, metrics).
    void publish(engine::SimEvent event);

    std::vector<EdgeEntry> edges() const;
    EdgeEntry edge(int node) const;
    std::shared_ptr<const engine::RoutingSnapshot> routing() const;
    std::uint64_t samples() const;
    engine::ContributionLedger ledger() const;
    bool allEdgesFinished() const;

    // Every event so far, then each new one as it is published, to
    // `listener` (called with the mutex held: it must only copy and queue).
    // Returns an id for unsubscribe().
    int subscribe(Listener listener);
    void unsubscribe(int id);
    std::uint64_t eventCount() const;

private:
    void emitLocked(engine::SimEvent event); // m_mutex held
    bool inRange(const engine::NodeReport &report, int edge) const;

    const engine::ClusterShape &m_shape;
    mutable std::mutex m_mutex;
    std::vector<EdgeEntry> m_edges;              // by edge index
    engine::RoutingTable m_routing;
    engine::ContributionLedger m_ledger;
    std::uint64_t m_samples = 0;
    std::unique_ptr<engine::ReportFolder> m_folder;
    std::vector<engine::SimEvent> m_history;
    std::map<int, Listener> m_listeners;
    int m_nextListener = 1;
};

} // namespace synaptic::rpc
