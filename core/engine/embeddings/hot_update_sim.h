#pragma once

#include "hot_update_options.h"

#include "core/data/fortune_corpus.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/synapse/routing_table.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace synaptic::engine {

// What one run of the hot-update scenario measured.
struct HotUpdateResult {
    bool hotUpdates = true;
    std::vector<std::string> regions;
    int edges = 0;
    int shardsPerRegion = 0;     // embedding shards (the classifier is one more)
    double shardShare = 0;       // of all parameters, the largest shard
    double edgeShareMin = 0, edgeShareMax = 0; // of all parameters, owned per edge
    std::vector<std::string> planProblems;     // the planner's bound warnings
    double windowSeconds = 0;    // an aggregation window (owners merge once per window)
    double centerSyncPeriod = 0; // s between owners' reports to the center

    // Row presence (s of virtual time from a new row's first update to every edge holding it).
    std::size_t rowsTracked = 0;
    std::size_t rowsUnresolved = 0;
    double presenceP50 = 0, presenceP99 = 0, presenceMax = 0;
    // The same p99 over every edge but those behind a configured last mile
    // (listed in slowEdges), and the mean time to each edge.
    double presenceP99WithoutSlowEdges = 0;
    std::vector<int> slowEdges;
    std::vector<double> presenceMeanByEdge;

    // Bytes on the wire, by traffic class.
    std::uint64_t gradientBytes = 0;      // edge -> owner, sparse rows
    std::uint64_t publishBytes = 0;       // owner -> region's edges, sparse rows
    std::uint64_t ownerToOwnerBytes = 0;  // owner -> other regions' owners (hot updates)
    std::uint64_t centerBytes = 0;        // owners <-> center
    std::uint64_t catchUpBytes = 0;       // edges asking, owners answering
    // Embedding-shard messages (gradients, publishes, owner to owner) as sent,
    // and what the same messages cost shipping the whole shard each time.
    std::uint64_t sparseEmbeddingBytes = 0;
    std::uint64_t wholeShardEmbeddingBytes = 0;

    // Accuracy over time at one probe edge per region.
    struct EvalPoint {
        double time = 0;
        std::vector<double> newLanguage; // per region
        std::vector<double> overall;     // per region, on a fixed test subset of every language
    };
    std::vector<EvalPoint> evals;
    // Seconds after the new language arrived until its accuracy at every other
    // region's probe was within 2 pp of the origin region's, with the origin at
    // >= 50 %; negative: never in the run.
    double caughtUpAfter = -1;

    // The lag guard: publishes lost on the way, catch-ups asked, steps an edge
    // put off until caught up, and the audit's count of rows used lagging more
    // than the bound behind the newest publish the edge had seen (must be 0).
    std::uint64_t publishesLost = 0;
    std::uint64_t catchUps = 0;
    std::uint64_t stepsDeferred = 0;
    std::uint64_t lagViolations = 0;
    std::uint64_t maxLagSeen = 0;
    std::uint64_t staleRowsIgnored = 0;   // published rows an edge already held newer (version kept)
    std::uint64_t overlapsDropped = 0;    // coalesced changes overlapping what the center filled
    std::uint64_t publishesSplit = 0;     // publishes cut to a slow link's budget, new rows first

    double heldShareMean = 0, heldShareMin = 0; // of the table's rows, per edge, at the end
    // What an edge allocated for the table at the end (HeldRows::bytes),
    // against a dense copy of it: the memory side of holding a subset.
    std::uint64_t edgeTableBytesMean = 0, edgeTableBytesMax = 0, denseTableBytes = 0;
    std::uint64_t steps = 0;
    std::uint64_t samples = 0;
    double virtualSeconds = 0;
    double wallSeconds = 0;
    bool stopped = false; // ended early by HotUpdateControls::stop
    std::string valuesCodec; // how owner -> edge row values travelled
    // Operator changes of the lag bound: (virtual s, new bound), in order.
    std::vector<std::pair<double, int>> lagBoundChanges;
};

struct HotUpdateProgress {
    double virtualTime;
    double duration;
    std::uint64_t steps;
};

// What the app's embedding view draws while the scenario runs (issue 16 §5),
// handed out every HotUpdateHooks::frameEvery virtual seconds.
struct HotUpdateFrame {
    double virtualTime = 0;
    double duration = 0;
    std::uint64_t steps = 0;
    // The synapse routing table of the scenario's shards (the embedding
    // table's row ranges, then the classifier). Versions are publish numbers:
    // an owner's newest, what each edge applied without a gap, and the
    // changes the center has logged. Rows unchanged since the previous frame
    // are the same pointers.
    std::shared_ptr<const RoutingSnapshot> routing;
    // [shard][edge]: the share of an embedding shard's rows the edge holds
    // (its data touched them or a publish brought them); empty for the
    // classifier, which every edge holds whole.
    std::shared_ptr<const std::vector<std::vector<float>>> heldShare;
    // Over the last `recentWindow` virtual seconds: the new rows (first
    // updated after the new language arrived) that reached every edge, and
    // the p50 / p99 of their time from first update to the last edge (0
    // when none did); and of the new rows first updated in that time, the
    // share of (row, edge) pairs where the edge holds the row's first change
    // (NaN when there were none).
    double recentWindow = 1.0;
    std::size_t rowsDone = 0;
    double presenceP50 = 0, presenceP99 = 0;
    double recentRowsHeldShare = 0;
    int lagBound = 0; // the bound in force at the frame's time
    std::uint64_t catchUps = 0, stepsDeferred = 0, lagViolations = 0; // so far
    // The latest evaluation: when, and per region the new language's
    // accuracy at its probe edge (evalTime < 0, empty: none yet).
    double evalTime = -1;
    std::vector<double> newLanguageAccuracy;
};

// Knobs an operator turns while the scenario runs: the driver reads them
// between events, any thread may write them.
struct HotUpdateControls {
    // Publishes of a shard an edge may miss before it asks for a catch-up;
    // < 0: the options' bound. Taken at the next event and logged with its
    // virtual time (HotUpdateResult::lagBoundChanges).
    std::atomic<int> lagBound{-1};
    // Ends the run at the next event (or the next warm-up batch) with what
    // was measured so far.
    std::atomic<bool> stop{false};
};

struct HotUpdateHooks {
    std::function<void(const HotUpdateProgress &)> progress; // every 0.25 virtual s
    std::function<void(const HotUpdateFrame &)> frame;       // every frameEvery virtual s
    double frameEvery = 0.1;
    HotUpdateControls *controls = nullptr;
};

// Runs the scenario on `config`'s regions, edges and links with `corpus`
// (which must hold options.newLanguage). Deterministic for options.seed as
// long as no control changes mid-run.
HotUpdateResult runHotUpdateScenario(const ClusterConfig &config, const data::TextCorpus &corpus,
                                     const HotUpdateOptions &options, const HotUpdateHooks &hooks);
HotUpdateResult runHotUpdateScenario(const ClusterConfig &config, const data::TextCorpus &corpus,
                                     const HotUpdateOptions &options,
                                     const std::function<void(const HotUpdateProgress &)> &progress = {});

} // namespace synaptic::engine
