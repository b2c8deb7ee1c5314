#pragma once

#include "link.h"

#include "core/engine/codec/codec_spec.h"
#include "core/engine/config_error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace synaptic::engine {

// An edge's own access line (issue 14 "geography"), on top of whatever link
// class the edge uses: its latency adds, its bandwidth caps the link (the
// slower wins), its loss compounds. A slow last mile slows every link of
// that edge, to its region's edges as well as to the center.
struct LastMile {
    double latencySeconds = 0;
    double bandwidthBitsPerSecond = 0; // 0: no cap of its own
    double lossRate = 0;
};

struct EdgeConfig {
    std::string name;
    double gflops = 100;   // compute model: virtual seconds = FLOPs / (gflops * 1e9)
    std::optional<LastMile> lastMile;
    // This edge alone takes local updates (knobs.local_updates for one
    // edge): e.g. one behind a slow last mile, whose answers are in flight
    // for many steps. Its owners add its moves and step on the others'
    // gradients in the same merge.
    bool localUpdates = false;
};

// Link classes for named places (issue 14 "geography"), overriding the
// three global classes: the links between the edges of two regions, and
// the links between one region's edges and the center.
struct RegionPairLink {
    std::string a, b; // region names, a != b; the link is the same both ways
    LinkSpec spec;
};
struct RegionCenterLink {
    std::string region;
    LinkSpec spec;
};

struct RegionConfig {
    std::string name;
    std::vector<EdgeConfig> edges;
};

// Knobs of the strategies (DESIGN.md §1); the ones a strategy does not use
// are ignored by it. Some are live-editable (knob_commands.cpp);
// local_updates is not: it changes what a running cluster's messages mean.
struct StrategyKnobs {
    int aggregationWindowSteps = 1;   // synaptic: local steps merged before pushing to the owner
    double aggregationWindowMs = 0;   // synaptic: > 0: the window is this many virtual ms instead of a step count
    int centerSyncWindows = 32;       // synaptic: windows per region edge between center syncs (N x edges edge windows)
    // synaptic: an owner writes its durable state (issue 15 §1) after at
    // most this many version bumps of a shard, at every center sync and at
    // a handoff: a crash loses at most this many merges.
    int durableEveryMerges = 8;
    bool waitForValues = true;        // synaptic: an edge waits for its owners' new values after each window
    // synaptic: an edge whose owners answer slower than it trains a step (a
    // slow last mile) trains on while it waits, keeping up to this many
    // windows open and sending them as one with the answer; 0 waits idle.
    int trainAheadWindows = 0;
    // synaptic: an owner sends a merge's new values only to the edges whose
    // gradients that merge took, and a whole copy to an edge that missed
    // merges, when it next contributes. Off: every region edge still
    // training gets every merge's values, which queue up on a slow last
    // mile (an edge that trains ahead contributes every few windows).
    bool valuesOnContribution = false;
    // synaptic: each edge takes its own Adam steps on its replica (local
    // updates, as FedAvg and DiLoCo's inner steps) and sends its owners
    // what the replica moved over the window; an owner adds the mean of
    // its region's moves to the shard instead of stepping on the merged
    // gradients. A window of k steps then carries k steps of progress, so
    // longer windows cut bytes without cutting the steps a sample buys.
    bool localUpdates = false;
    // synaptic: staleness-aware merges (Zhang et al., "Staleness-aware
    // Async-SGD", IJCAI 2016): an owner weighs a window gradient whose
    // oldest step was computed k > 1 versions behind the shard by 1/k, in
    // the merge's mean and in its step's share of the rate. Local-update
    // moves are not weighed (summed as they arrive).
    bool stalenessWeighting = false;
    // synaptic: cross-region merges at the shards' hubs instead of the
    // center (the mission's "not to a central server"). Each shard's hub is
    // its planned owner in region (shard mod regions); the other regions'
    // owners send it their deltas, it merges them with the outer optimizer
    // and answers them as the center would, counting the regions the
    // center's pulls say it hears (leases) or whose deltas keep coming. The
    // center keeps leases and pulls each hub's merged copy every
    // hubPullSeconds (the model it serves and evaluates), checking each
    // copy against the hub's checksum. A hub writes its own durable state
    // (StatePart::Hub) at every merge. Live processes run it too (the peer
    // guards take hub traffic for the hubs' shards only).
    bool hubMerges = false;
    double hubPullSeconds = 0.5;
    // Under a lossy center codec the pulls carry coded deltas, within the
    // codec's error of the hub's copy; a shard that has gone this long
    // without a merge gets its exact copy instead, whole at fp32. Too short
    // and every quiet spell costs a whole copy (on the shipped config: the
    // lone merges of the last stragglers after training); the run's end
    // waits for it (the center serves the hubs' exact copies). One pull
    // period when the key is absent; at most 30 s (cluster_config.cpp).
    double hubSettleSeconds = 0.5;
    int dilocoLocalSteps = 32;        // diloco: local steps between outer steps
    int gossipSteps = 4;              // gossip: local steps between exchanges with a random neighbour
    double gossipSameRegion = 0.75;   // gossip: chance the neighbour is picked from the edge's own region
    std::string outerOptimizer = "average"; // "average" or "nesterov" (DiLoCo)
    double outerLearningRate = 0.7;
    double outerMomentum = 0.9;
    double leaseSeconds = 10;
    double heartbeatSeconds = 2;
    // Early exit (DESIGN.md §1): an edge answers a request itself when its exit
    // head's confidence is at least this; issue 6's serving path reads it.
    double confidenceThreshold = 0.85;
};

// Serving while the cluster trains (issue 6): requests per virtual second
// at each edge (0: no serving), how the edge scores its exit head, and how
// often the center ships a new edge image (every K center syncs).
// A request's compute at a node is a fixed cost plus FLOPs / speed (issue
// 14 §6). The fixed costs default to what bench/inference measured for one
// image (batch 1, one LibTorch thread, median of 300 forwards) on the
// machine the figures in docs/BENCHMARKS.md come from (2 cores of an AMD
// EPYC, Zen 5): at batch 1 this model's time is per-operator overhead, which
// FLOPs / speed alone leaves out. Center-only serving runs the whole model
// at the center, one call rather than the two halves, hence its own figure.
struct ServingKnobs {
    double requestRate = 0;
    std::string confidence = "max_softmax"; // or "entropy"
    int releaseEverySyncs = 8;
    double timeoutMs = 500;
    double edgeRequestMs = 0.13;       // the edge half: block1, exit head, squeeze (measured 0.133 ms)
    double centerRequestMs = 0.24;     // the center half on the features (measured 0.244 ms)
    double centerFullRequestMs = 0.39; // the whole model on a raw image (measured 0.385 ms)
    // An edge whose forward timed out treats the center as suspect and
    // sends a header-only probe this often until one is answered in time.
    double probeMs = 1000;
};

// Codecs per traffic class (issue 14), the same for every strategy so
// comparisons stay fair: `gradients` is what edges push (synaptic's window
// gradients, param_server's full gradients, ring chunks), `values` what
// comes back to edges (owner values, a center's model), `center` the
// cross-region channel (synaptic's owner<->center deltas, DiLoCo's local
// deltas and outer updates). Lossy codecs on gradients and center deltas
// carry error feedback; values go as deltas from the receiver's copy when
// `valueDeltas` (whole values otherwise).
struct CodecKnobs {
    CodecSpec gradients;
    CodecSpec values;
    CodecSpec center;
    bool valueDeltas = true;
};

// DESIGN.md §1: each edge owns 5–15 % of the parameters. The planner warns
// outside [minShare, maxShare]; a shard move that would push an edge out
// of it is confirmed by the user, refused, or allowed, as onBound says.
struct PlannerBounds {
    double minShare = 0.05;
    double maxShare = 0.15;
    std::string onBound = "confirm"; // "confirm", "refuse" or "allow"
};

struct ClusterConfig {
    std::uint64_t seed = 1;
    std::string strategy = "synaptic"; // one of kStrategies
    // What the cluster trains, one of kTasks (TaskRegistry names): the
    // strategies run "fashion-mnist"; "langid" runs the hot-update scenario.
    std::string task = "fashion-mnist";
    StrategyKnobs knobs;
    CodecKnobs codecs;
    ServingKnobs serving;
    int batchSize = 64;
    double learningRate = 3e-3;
    // The schedule over the step budget (lr_schedule.h): decay starts at
    // this fraction of the budget (1: never) and ends at lrFinal x the rate.
    double lrDecayFrom = 1.0;
    double lrFinal = 1.0;
    std::string dataDir;                 // empty: $SYNAPTIC_DATA_DIR or the Debian dataset
    std::string partition = "iid";       // "iid" or "dirichlet"
    double dirichletAlpha = 0.5;
    double evalEverySeconds = 10;        // virtual
    std::size_t evalTestSubset = 2000;
    double centerGflops = 1000;
    LinkSpec intraRegion{0.001, 1e9, 0.0, true};
    LinkSpec edgeCenter{0.040, 100e6, 0.0, true};
    LinkSpec interRegion{0.040, 100e6, 0.0, true};
    std::vector<RegionPairLink> regionLinks;   // over interRegion for those pairs
    std::vector<RegionCenterLink> centerLinks; // over edgeCenter for those regions
    // Each node's network interface (links.node_interfaces), shared by all
    // of that node's links in each direction: what an edge sends to seven
    // owners, or 24 edges send the center, queue on one line. 0: none, and
    // every pair of nodes has a line of its own (the model before; the
    // shipped default). An edge's last mile caps its interface.
    double edgeInterfaceBitsPerSecond = 0;
    double centerInterfaceBitsPerSecond = 0;
    PlannerBounds planner;
    std::vector<RegionConfig> regions;

    int edgeCount() const;
    // Whether edge `edge` (0-based over all regions' edges, in order) takes
    // local updates: knobs.local_updates for every edge, or its own key.
    bool localUpdatesAt(int edge) const;
};

inline const std::vector<std::string> kTasks{"fashion-mnist", "langid"};
inline const std::vector<std::string> kStrategies{"synaptic",    "param_server",   "allreduce", "diloco",
                                                  "hier_allreduce", "hier_diloco", "gossip"};

// Parses and validates a cluster config (JSON text). Unknown keys, wrong
// types, out-of-range values, duplicate names and empty regions are
// ConfigErrors naming `source` and the field, e.g.
// "default.json: regions[1].edges[0].gflops: must be > 0".
ClusterConfig parseClusterConfig(const std::string &jsonText, const std::string &source);
// `path` may be a bare name found by resolveConfigPath (config_search.h):
// "langid_cluster" reads /usr/share/synaptic/langid_cluster.json when the
// package is installed.
ClusterConfig loadClusterConfig(const std::string &path);

} // namespace synaptic::engine
