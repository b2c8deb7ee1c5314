#pragma once

#include "cluster_config.h"
#include "replica.h"

#include "core/engine/synapse/layer_layout.h"
#include "core/engine/synapse/shard_planner.h"
#include "core/engine/tasks/task_registry.h"
#include "core/engine/tensor_data.h"

#include <ATen/core/Tensor.h>

#include <memory>
#include <string>
#include <vector>

namespace synaptic::engine {

class StateStore;

// The cluster's shape as the config states it: which edges exist, their
// names and regions. Every node may know it (it is config, not node state).
struct ClusterShape {
    std::vector<int> regionOfEdge;              // edge index -> region
    std::vector<std::vector<int>> edgesOfRegion;
    std::vector<std::string> edgeNames;
    std::vector<double> edgeGflops;
    double centerGflops = 1000;

    explicit ClusterShape(const ClusterConfig &config);
    ClusterShape() = default;
    int edgeCount() const { return int(regionOfEdge.size()); }
    int regionCount() const { return int(edgesOfRegion.size()); }
    static int nodeOfEdge(int edge) { return edge + 1; }
    static int edgeOfNode(int node) { return node - 1; }
    const std::string &edgeName(int edge) const;
};

// The model every node starts from: the task that makes it, layers, shard
// plan, initial values and batch-norm statistics (shard order), and the
// compute model's cost of a training sample. Immutable once built; shared by
// the nodes of a process.
struct ModelSetup {
    std::string task = kDefaultTask; // a TaskRegistry name
    std::vector<LayerLayout> layers;
    ShardPlan plan;
    at::Tensor initialValues;
    at::Tensor initialBuffers;
    double trainFlopsPerSample = 0;
    double exitWeight = 0.3;
    std::string device = "cpu";

    std::unique_ptr<FlatModel> newModel() const; // at the initial values
    std::int64_t shardOffset(int shard) const;   // in shard order
};

// A live edge that (re)joins a region which has done `done` of a budget of
// `total` steps per edge: it trains what is left, at least one step (0
// would mean no budget at all), and its schedule starts at `done`. With no
// budget (0) there is nothing to resume.
struct ResumedBudget {
    std::uint64_t stepsPerEdge = 0;
    std::uint64_t stepsDoneBefore = 0;
};
ResumedBudget resumeBudget(std::uint64_t total, std::uint64_t done);

// Everything a node may read (DESIGN.md §3): who it is, the cluster's shape
// and live knobs from the config, the model it starts from, the owners it
// starts with, and its own training data. Nothing here is another node's
// state: what a node learns later arrives in messages. Built by the driver
// (the simulator builds one per node; a live process builds its own from
// what the center sent when it joined).
struct NodeContext {
    int node = 0;                                   // 0 = center, 1..E = edges
    // Knobs are edited live by commands between two inputs (simulator: the
    // driver; live: a command from the center). Never null.
    const ClusterConfig *config = nullptr;
    std::shared_ptr<const ClusterShape> shape;
    std::shared_ptr<const ModelSetup> model;
    // Edges: the owner (edge index) of every shard in the edge's region as
    // the node starts; later moves arrive as OwnerAnnounce messages.
    std::vector<int> owners;
    // Per shard, where an owner resumes when it starts (empty: 0): its
    // region version (a restarted live edge resumes past the last version
    // its region saw) and the center version its starting values are.
    std::vector<std::uint64_t> ownerVersions;
    std::vector<std::uint64_t> centerVersions;
    // Edges: the training set and this edge's indices into it.
    const TensorSet *train = nullptr;
    std::vector<std::size_t> partition;
    // Steps this node trains (0 = no step budget); for a restarted live
    // edge, what its budget has left (resumeBudget).
    std::uint64_t stepsPerEdge = 0;
    // Steps of the budget used before this start, so that the learning-rate
    // schedule goes on from where the region is, not from the start.
    std::uint64_t stepsDoneBefore = 0;
    // How many times this node has (re)joined before (live: from the
    // center); keeps its contribution ids unique across restarts.
    std::uint32_t incarnation = 0;
    // Where this node's durable state lives (issue 15 §1), to read back on
    // a restart; null: none (a kill then keeps the node's memory). Nodes
    // write through Outbox::persist, the driver into this store. Outlives
    // the node.
    const StateStore *stateStore = nullptr;
    // Live processes do real work in real time: the compute model adds no
    // virtual time on top of it.
    bool realTime = false;
    // Faults and guard breaks that tests and the fault matrix set (issue
    // 15); never read from a config file.
    struct Faults {
        // Edges: the edge's wall clock runs this far behind the cluster's
        // (clock skew; set mid-run it is a step). Harmless while the edge
        // measures its lease as a duration on its monotonic clock (see
        // breakLeaseClock).
        double leaseClockLagSeconds = 0;
        // A straggler: every stretch of compute takes 1 / this longer.
        double computeSpeed = 1;
        // Test-only guard breaks: each lets through what one guard stops,
        // so a test can show the matching invariant checker
        // (audit/invariants.h) catches it.
        // Owners: the epoch gate accepts every update.
        bool breakEpochGate = false;
        // Owners: a contribution that arrives twice is merged twice.
        bool breakDuplicateGuard = false;
        // Edges: values older than the cached copy are applied anyway.
        bool breakVersionGuard = false;
        // Edges: a new lease goes straight to training, no catch-up.
        bool breakCatchUp = false;
        // Owners: a moved shard is not fenced; the old owner keeps merging it.
        bool breakMoveFence = false;
        // Edges: a read-only edge drops the requests it should answer.
        bool breakReadOnlyServing = false;
        // Owners: a restart from the state file resumes at once at the
        // written versions: no jump past what the lost memory issued, no
        // recovery until the region's gradients say how far it got.
        bool breakRestoreVersionJump = false;
        // Edges: the lease is read as the center's expiry timestamp on the
        // edge's (skewed) wall clock, not measured as a duration on its
        // monotonic clock from the heartbeat's send time: a lagging edge
        // trusts a lapsed lease.
        bool breakLeaseClock = false;
        // Center: a copy of a region delta it merged already is merged
        // again (resent after a lost answer, or duplicated on the link).
        bool breakMergeOnce = false;
        // Center: a restart does not take back the epoch counter, so
        // epochs granted before the crash are granted again.
        bool breakEpochCounter = false;
        // Edges: windows kept open while training ahead (train_ahead_windows)
        // survive a lease lapse, a new epoch and a kill, and go out under the
        // next lease, computed on values from before it.
        bool breakDropKeptWindows = false;
        // Edges: while catching up, any values from an owner count as its
        // answer, even values it sent before the new epoch that were still
        // in flight when the edge asked.
        bool breakCatchUpAnswer = false;
        // Edges: a restarted edge's catch-up ends once every owner answered
        // or after 1 s, like any other, though its replica holds no
        // owner's values of some shards (it trains on them as they are).
        bool breakCatchUpWaitsForLostShards = false;
        // Edges: a restarted edge that gave up waiting for an owner pushes
        // gradients of that owner's shards too, computed on whatever its
        // replica holds of them (starting values, the center's copy).
        bool breakPushesOnlyHeldShards = false;

        bool breaksAGuard() const {
            return breakEpochGate || breakDuplicateGuard || breakVersionGuard || breakCatchUp || breakMoveFence ||
                   breakReadOnlyServing || breakRestoreVersionJump || breakLeaseClock || breakMergeOnce ||
                   breakEpochCounter || breakDropKeptWindows || breakCatchUpAnswer ||
                   breakCatchUpWaitsForLostShards || breakPushesOnlyHeldShards;
        }
    } faults;

    int edge() const { return ClusterShape::edgeOfNode(node); }
    int region() const;                             // -1 for the center
    // The learning rate of an update that applies this node's first
    // `stepsDone` steps since it started (lr_schedule.h), on the whole
    // budget's schedule: every strategy's optimizer takes it.
    double learningRate(std::uint64_t stepsDone) const;
    // Seconds this node's compute model charges for `flops` (0 in real time).
    double computeSeconds(double flops) const;
    double trainStepSeconds() const;
    // How long one aggregation window lasts by the live knobs, for an edge
    // whose training step takes `stepSeconds`.
    double windowSeconds(double stepSeconds) const;
    std::unique_ptr<Replica> newReplica() const;
};

} // namespace synaptic::engine
