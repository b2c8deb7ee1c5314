#pragma once

#include "link.h"

#include "core/engine/codec/codec_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::engine {

// A live command to a running cluster (issue 3 §8, DESIGN.md §3). The
// simulator applies it at the next step boundary at or after `at` (virtual
// seconds; 0 = as soon as possible) and reports it as a CommandEvent, applied
// or refused with the reason. Node and region fields are indices: edges
// 0..E-1 in config order, regions 0..R-1; `nodeB` -1 means the center.
struct SimCommand {
    enum class Kind {
        MoveShard,            // shard, region, node = new owner (edge index)
        SetAggregationWindow, // value = steps
        SetAggregationWindowMs, // value = virtual milliseconds (0: back to steps)
        SetCenterSync,        // value = windows
        SetLeaseSeconds,      // value
        SetHeartbeatSeconds,  // value
        SetLink,              // node, nodeB (-1 = center), link
        KillNode,             // node (edge index), or -1 for the center
        ReviveNode,           // node; value 1 = from the state file before its newest (an old backup)
        PartitionLink,        // node, nodeB
        HealLink,             // node, nodeB
        PartitionRegion,      // region: every link out of the region goes down
        HealRegion,           // region
        SetConfidenceThreshold, // value in [0, 1]; node = edge for a per-edge override, -1 = every edge
        SetReleaseCadence,    // value = center syncs between edge-image releases (>= 1)
        SetCodec,             // region = traffic class (codecTrafficClasses), codec: setCodecCommand
        // Faults (issue 15 §2).
        PartitionOneWay,      // node -> nodeB goes down; nodeB -> node stays up (heal: HealLink)
        SetClockSkew,         // node (edge index): its lease timers run `value` seconds behind
        SetStraggler,         // node (edge index): computes at `value` x its speed (0 < value <= 1)
    };
    Kind kind = Kind::SetAggregationWindow;
    double at = 0;
    int shard = -1;
    int region = -1;
    int node = -1;
    int nodeB = -1;
    double value = 0;
    LinkSpec link;
    // > 0: apply at the engine's command boundary with this ordinal instead
    // of by `at` (a rerun of a recording replays live commands exactly where
    // they landed; CommandEvent::boundary says which one that was).
    std::uint64_t atBoundary = 0;

    std::string describe() const;
};

struct ClusterConfig;

// SetCodec's traffic classes, by index: "gradients", "values", "center".
inline constexpr const char *kCodecTrafficClasses[] = {"gradients", "values", "center"};

// SetCodec names its codec in `shard` (the Codec, plus kCodecZstdFlag for a
// zstd stage) and `value` (the top-k fraction): the command's fields, so a
// recording or a live command carries it without a field of its own.
inline constexpr int kCodecZstdFlag = 0x100;
SimCommand setCodecCommand(int trafficClass, const CodecSpec &spec);
// The codec a SetCodec command names, or why it names none ("" if it does).
std::string codecOfCommand(const SimCommand &c, CodecSpec &spec);

// Reads a JSON array of commands, e.g.
//   [{"at": 2.5, "command": "move_shard", "shard": 3, "region": "eu", "to": "eu-2"},
//    {"at": 3, "command": "set_aggregation_window", "ms": 50},
//    {"at": 4, "command": "partition_region", "region": "ap"},
//    {"at": 6, "command": "set_link", "from": "eu-0", "to": "center", "latency_ms": 80},
//    {"at": 7, "command": "set_confidence_threshold", "threshold": 0.9, "edge": "eu-1"}]
// Names are resolved against `config`; errors are ConfigErrors naming
// `source`, the element and the field.
std::vector<SimCommand> parseCommands(const std::string &jsonText, const std::string &source,
                                      const ClusterConfig &config);

} // namespace synaptic::engine
