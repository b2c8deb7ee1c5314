#pragma once

#include "sim_command.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace synaptic::engine {

// Typed events of a simulation (DESIGN.md §3): plain values, copied to
// observers on other threads through a SimEventQueue. `scope` names what a
// metric is about: "global" (the strategy's reported model), "region:<name>",
// "edge:<name>".
struct MetricEvent {
    double time = 0;
    std::string scope;
    std::uint64_t samples = 0; // trained so far, whole cluster
    double loss = 0;           // mean training loss since the previous metric (NaN if unknown)
    double accuracy = 0;       // test accuracy (subset); NaN for a region not evaluated
    double exitAccuracy = 0;
};
struct RoutingEvent {
    double time = 0;
    int shard = 0;
    int region = 0;
    int owner = 0;             // edge index
    std::uint64_t revision = 0;
    std::string reason;        // "plan", "move"
};
struct LinkBytesEvent {
    double time = 0;           // end of the interval
    double interval = 0;
    int from = 0;              // node ids
    int to = 0;
    std::uint64_t bytes = 0;
};
struct DriftEvent {
    double time = 0;
    int shard = 0;
    int region = 0;
    std::uint64_t versionLag = 0;
    double parameterDrift = 0;
};
struct ConsistencyEvent {
    double time = 0;
    std::uint64_t round = 0;
    int checked = 0;            // shard x region copies compared
    int mismatches = 0;         // version or checksum differs from the global copy
    double maxDrift = 0;
};
struct LeaseEvent {
    double time = 0;
    int edge = 0;
    std::string mode;          // "read_only", "catching_up", "training", "down"
    std::uint64_t epoch = 0;
};
struct CommandEvent {
    double time = 0;
    std::string command;       // the command as text
    bool applied = false;
    std::string detail;        // why it was refused, or what it did
    SimCommand issued;         // the command itself, for views that show its effect (not part of the text)
    std::uint64_t boundary = 0; // ordinal of the command boundary that applied it (not part of the text)
};

// Serving while the cluster trains (issue 6): one per link-report interval,
// over the requests answered in it. Latency percentiles are NaN when none was.
struct InferenceEvent {
    double time = 0;                 // end of the interval
    double interval = 0;
    std::uint64_t requests = 0;
    std::uint64_t atEdge = 0;        // exit-head answers, degraded ones included
    std::uint64_t degraded = 0;      // the edge answered because the center could not
    std::uint64_t correctEdge = 0;
    std::uint64_t correctCenter = 0;
    double p50Ms = 0;
    double p95Ms = 0;
    double p99Ms = 0;
    std::uint64_t bytesToCenter = 0; // features forwarded in the interval, headers included
    std::uint64_t rawInputBytes = 0; // what sending these requests' raw images would have cost
};
// An edge image (the edge half of the model): released by the center
// (edge -1, with the threshold sweep on the validation images) or arrived
// at an edge, which serves that version from now on.
struct EdgeImageEvent {
    double time = 0;
    int edge = -1;
    std::uint64_t version = 0;
    std::uint64_t bytes = 0;                 // the image's size (shipped once per edge)
    std::vector<double> sweepThreshold;      // release only
    std::vector<double> sweepEdgeShare;
    std::vector<double> sweepAccuracy;
};

// Inputs a live node refused (issue 13 §8): malformed or hostile messages,
// stale data, floods. One per node and reason per report interval.
struct RejectedInputEvent {
    double time = 0;
    int node = 0;              // 0 = center, 1..E = edges
    std::string reason;
    std::string peer;          // who sent the last one refused for this reason
    std::uint64_t count = 0;
};

// The history the invariant checkers read (issue 15 §3,
// audit/invariants.h), recorded by the driver from what nodes send and
// report, never from the verdicts of the guards they audit. State, never
// coalesced: a checker needs every one. Nodes are ids (0 = center).
struct AuditEvent {
    enum class Kind {
        Grant,   // the center granted edge node `node` lease `epoch` until `expiresAt`
        Send,    // edge node `node` of `region` sent window gradient `ids[i]` for
                 // `shards[i]`, computed on its `versions[i]`, stamped with lease
                 // `epoch`/`expiresAt`
        Apply,   // owner node `node` applied `ids` to `shard`
        Lost,    // `ids` will never be applied to `shards[i]` (or, without
                 // shards, to `shard`); `reason` says why, `node` where
        Version, // node `node` holds `shard` at `version` from now on: as the owner
                 // in `region` (checksum of its values) or as the center (region
                 // -1); `cache`: edge `node` caches `shards[i]` at `versions[i]`
        Serve,   // edge node `node` so far: `requests` arrived, `answered`, `abandoned`
                 // (died with the edge), `pending` (being served now)
        Merge,   // the center merged `region`'s delta for `shard`: owner sequence
                 // `ids[0]`, based on global `version`, data `checksum`
        Restore, // node `node` restarted from durable state it wrote at `writtenAt`:
                 // what it did after that (merges, grants) died with its memory
                 // (an edge: what it cached died too; `writtenAt` is when the
                 // hub it hosts wrote the state it restored, 0 if it hosts none)
    };
    double time = 0;
    Kind kind = Kind::Grant;
    int node = 0;
    int shard = -1;
    int region = -1;
    std::uint64_t epoch = 0;
    double expiresAt = 0;
    std::uint64_t version = 0;
    std::uint64_t checksum = 0;
    bool cache = false;                 // Version: an edge's cached copy, not an owner's
    std::vector<std::uint64_t> ids;
    std::vector<int> shards;            // Send, Lost, cached Version
    std::vector<std::uint64_t> versions; // Send, cached Version
    std::string reason;                 // Lost
    std::uint64_t requests = 0;         // Serve
    std::uint64_t answered = 0;
    std::uint64_t abandoned = 0;
    std::uint64_t pending = 0;
    double writtenAt = 0;               // Restore
};
const char *auditKindName(AuditEvent::Kind kind);

using SimEvent = std::variant<MetricEvent, RoutingEvent, LinkBytesEvent, DriftEvent, ConsistencyEvent, LeaseEvent,
                              CommandEvent, InferenceEvent, EdgeImageEvent, RejectedInputEvent, AuditEvent>;

// One line of canonical text per event (doubles printed exactly), used for
// logs and for the event-stream hash that proves determinism.
std::string describeEvent(const SimEvent &event);

// FNV-1a over the canonical text of every event, in order.
class EventHash {
public:
    void add(const SimEvent &event);
    std::uint64_t value() const { return m_hash; }
    std::uint64_t count() const { return m_count; }

private:
    std::uint64_t m_hash = 1469598103934665603ull;
    std::uint64_t m_count = 0;
};

} // namespace synaptic::engine
