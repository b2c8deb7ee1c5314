#pragma once

#include "cluster_config.h"
#include "replica.h"
#include "sim_events.h"

#include "core/data/partition.h"
#include "core/engine/synapse/layer_layout.h"
#include "core/engine/synapse/routing_table.h"
#include "core/engine/synapse/shard_planner.h"

#include <functional>
#include <memory>
#include <set>
#include <vector>

namespace synaptic::engine {

// Counts every merged window gradient from the moment an edge's cache hands
// it on to the moment an owner applies or rejects it, by contribution id, so
// tests and reports can prove nothing was lost or applied twice (issue 3 §8).
struct ContributionLedger {
    std::uint64_t sent = 0;
    std::uint64_t applied = 0;
    std::uint64_t rejected = 0;   // stale lease epoch
    std::uint64_t duplicates = 0; // an id applied a second time (must stay 0)
    std::uint64_t forwarded = 0;  // rerouted by a former owner after a move
    std::uint64_t appliedUnderExpiredLease = 0; // audit of the epoch gate (must stay 0)
    std::uint64_t sentWhileReadOnly = 0;        // audit of the edges' lease handling (must stay 0)
    std::uint64_t lostInCrash = 0;              // buffered at an owner that was killed
    std::vector<std::set<std::uint64_t>> appliedIds; // per shard

    void recordApplied(int shard, std::uint64_t id);
};

// What every node of one simulated cluster shares: the config (knobs are
// live-edited here by commands), the plan and routing table, the training
// data, and the hooks back to the driver. Read by nodes on the engine thread;
// nodes own everything else they know.
struct SimWorld {
    ClusterConfig config;
    std::string device = "cpu";
    std::vector<LayerLayout> layers;
    PlanTopology topology;
    ShardPlan plan;
    std::unique_ptr<RoutingTable> routing;
    const TensorSet *train = nullptr;
    data::Partition partition;           // per edge
    std::vector<int> regionOfEdge;       // edge index -> region
    std::vector<std::vector<int>> edgesOfRegion;
    at::Tensor initialValues;            // shard order; every strategy starts here
    at::Tensor initialBuffers;
    std::uint64_t stepsPerEdge = 0;      // 0 = until the virtual time budget ends
    double exitWeight = 0.3;
    double trainFlopsPerSample = 0;
    std::function<void(SimEvent)> emit;  // set by the driver
    std::uint64_t samplesTrained = 0;
    bool stepBoundary = false;           // an edge finished a step; the driver applies commands
    std::vector<bool> alive;             // per node, kept by the driver (kill / revive)
    ContributionLedger ledger;
    std::vector<double> confidenceOverride; // per edge; NaN = the global knob (live-edited by commands)

    int edgeCount() const { return int(regionOfEdge.size()); }
    int regionCount() const { return int(edgesOfRegion.size()); }
    static int nodeOfEdge(int edge) { return edge + 1; }
    static int edgeOfNode(int node) { return node - 1; }
    const std::string &edgeName(int edge) const;
    double edgeGflops(int edge) const;
    // Virtual seconds a node needs for `flops` (compute model: FLOPs / speed).
    double computeSeconds(int node, double flops) const;
    double trainStepSeconds(int edge) const;
    // The early-exit threshold an edge serves with: its override, else the knob.
    double confidenceThreshold(int edge) const;

    std::unique_ptr<FlatModel> newModel() const; // at the initial values
    std::unique_ptr<Replica> newReplica(int edge) const;
};

// How long one aggregation window lasts for an edge, by the live knobs.
double windowSeconds(const SimWorld &world, int edge);

// Builds the shared state for `config`: plan over the model's layers, data
// partition per edge (IID or Dirichlet by the config's seed), initial model.
std::unique_ptr<SimWorld> makeWorld(const ClusterConfig &config, const TensorSet &train,
                                    const std::vector<std::uint8_t> &trainLabels, const std::string &device);

} // namespace synaptic::engine
