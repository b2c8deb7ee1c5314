#pragma once

#include "cluster_config.h"
#include "node_context.h"
#include "node_report.h"
#include "replica.h"
#include "sim_events.h"

#include "core/data/partition.h"
#include "core/engine/synapse/routing_table.h"
#include "core/engine/synapse/shard_planner.h"

#include <map>
#include <memory>
#include <set>
#include <vector>

namespace synaptic::engine {

// Counts every merged window gradient from the moment an edge's cache hands
// it on to the moment an owner applies or rejects it, by contribution id, so
// tests and reports can prove nothing was lost or applied twice (issue 3 §8).
// Folded by the driver from the nodes' LedgerReports.
class StateStore;

struct ContributionLedger {
    std::uint64_t sent = 0;
    std::uint64_t applied = 0;
    std::uint64_t rejected = 0;   // refused by the owner: stale epoch, expired lease, too stale
    std::map<std::string, std::uint64_t> rejectedByReason; // LedgerReport::reason
    std::map<int, std::uint64_t> rejectedByEdge;           // the sender, from the contribution ids
    std::map<int, std::uint64_t> sentByEdge;               // the same, of every item sent
    std::uint64_t duplicates = 0; // an id applied a second time (must stay 0)
    std::uint64_t forwarded = 0;  // rerouted by a former owner after a move
    std::uint64_t appliedUnderExpiredLease = 0; // audit of the epoch gate (must stay 0)
    std::uint64_t sentWhileReadOnly = 0;        // audit of the edges' lease handling (must stay 0)
    std::uint64_t lostInCrash = 0;              // buffered at an owner that was killed
    std::uint64_t rolledBack = 0;   // applied in merges a crash undid (not yet durable): lost
    std::uint64_t mergesLost = 0;   // those merges
    std::uint64_t stateWrites = 0;  // owners' and the center's durable state writes
    std::uint64_t centerResent = 0;       // center deltas sent again after no answer
    std::uint64_t centerResentMerged = 0; // copies of merged deltas (answered again only)
    std::vector<std::set<std::uint64_t>> appliedIds; // per shard

    void recordApplied(int shard, std::uint64_t id);
    void fold(const LedgerReport &report);
};

// A ledger's per-edge counts (sentByEdge, rejectedByEdge) keyed by the
// edges' names, as reports show them.
std::map<std::string, std::uint64_t> byEdgeName(const std::map<int, std::uint64_t> &counts, const ClusterShape &shape);

// The simulation driver's view of one cluster: the config (knobs are
// live-edited here by commands), the cluster's shape and model, the routing
// table, ledger and counters folded from the nodes' reports, and one
// NodeContext per node. Nodes never see this: each gets only its context
// (DESIGN.md §3). Engine thread, except the routing table's snapshots.
struct SimWorld {
    ClusterConfig config;
    std::string device = "cpu";
    std::shared_ptr<const ClusterShape> shape;
    std::shared_ptr<const ModelSetup> model;
    PlanTopology topology;
    std::unique_ptr<RoutingTable> routing;
    const TensorSet *train = nullptr;
    data::Partition partition;           // per edge
    std::uint64_t stepsPerEdge = 0;      // 0 = until the virtual time budget ends
    std::uint64_t samplesTrained = 0;
    bool stepBoundary = false;           // an edge finished a step; the driver applies commands
    std::vector<bool> alive;             // per node, kept by the driver (kill / revive)
    ContributionLedger ledger;
    std::vector<double> confidenceOverride; // per edge; NaN = the global knob (live-edited by commands)
    std::map<int, NodeContext::Faults> faults; // per node, set before the nodes are built (tests, fault matrix)
    std::shared_ptr<StateStore> stateStore;    // owners' durable state; outlives the nodes

    const ShardPlan &plan() const { return model->plan; }
    int edgeCount() const { return shape->edgeCount(); }
    int regionCount() const { return shape->regionCount(); }
    int regionOfEdge(int edge) const { return shape->regionOfEdge[std::size_t(edge)]; }
    static int nodeOfEdge(int edge) { return edge + 1; }
    static int edgeOfNode(int node) { return node - 1; }
    const std::string &edgeName(int edge) const { return shape->edgeName(edge); }
    // Virtual seconds a node needs for `flops` (compute model: FLOPs / speed).
    double computeSeconds(int node, double flops) const;
    // The early-exit threshold an edge serves with: its override, else the knob.
    double confidenceThreshold(int edge) const;
    std::unique_ptr<FlatModel> newModel() const { return model->newModel(); }

    // What node `node` may read (built on first use; stable address).
    NodeContext &context(int node);

private:
    std::vector<std::unique_ptr<NodeContext>> m_contexts;
};

// Builds the shared state for `config`: plan over the model's layers, data
// partition per edge (IID or Dirichlet by the config's seed), initial model.
std::unique_ptr<SimWorld> makeWorld(const ClusterConfig &config, const TensorSet &train,
                                    const std::vector<std::uint8_t> &trainLabels, const std::string &device);

// The model every node of `config` starts from (seeded by the config), on
// `device`: what makeWorld uses, and what a live center builds.
std::shared_ptr<const ModelSetup> makeModelSetup(const ClusterConfig &config, const PlanTopology &topology,
                                                 const std::string &device);
PlanTopology topologyOf(const ClusterConfig &config);
// Every edge's training indices (IID or Dirichlet by the config's seed).
data::Partition partitionFor(const ClusterConfig &config, const std::vector<std::uint8_t> &trainLabels);

} // namespace synaptic::engine
