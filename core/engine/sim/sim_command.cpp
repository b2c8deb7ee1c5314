#include "sim_command.h"

#include "cluster_config.h"

#include "core/engine/codec/codec_spec.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <map>

namespace synaptic::engine {

using nlohmann::json;
using Kind = SimCommand::Kind;

namespace {

const std::map<std::string, Kind> kKinds{
    {"move_shard", Kind::MoveShard},           {"set_aggregation_window", Kind::SetAggregationWindow},
    {"set_center_sync", Kind::SetCenterSync},  {"set_lease_seconds", Kind::SetLeaseSeconds},
    {"set_heartbeat_seconds", Kind::SetHeartbeatSeconds}, {"set_link", Kind::SetLink},
    {"kill", Kind::KillNode},                  {"revive", Kind::ReviveNode},
    {"partition_link", Kind::PartitionLink},   {"heal_link", Kind::HealLink},
    {"partition_region", Kind::PartitionRegion}, {"heal_region", Kind::HealRegion},
    {"set_confidence_threshold", Kind::SetConfidenceThreshold},
    {"set_release_cadence", Kind::SetReleaseCadence},
    {"set_codec", Kind::SetCodec},
    {"partition_one_way", Kind::PartitionOneWay}, {"set_clock_skew", Kind::SetClockSkew},
    {"set_straggler", Kind::SetStraggler},
};

std::string kindName(Kind k) {
    if (k == Kind::SetAggregationWindowMs)
        return "set_aggregation_window_ms";
    for (const auto &[name, kind] : kKinds)
        if (kind == k)
            return name;
    return "?";
}

std::string nodeName(int n) { return n < 0 ? "center" : "edge " + std::to_string(n); }

} // namespace

std::string SimCommand::describe() const {
    std::string s = kindName(kind);
    switch (kind) {
    case Kind::MoveShard:
        return s + " shard " + std::to_string(shard) + " region " + std::to_string(region) + " to " + nodeName(this->node);
    case Kind::SetAggregationWindow:
    case Kind::SetAggregationWindowMs:
    case Kind::SetCenterSync:
    case Kind::SetLeaseSeconds:
    case Kind::SetReleaseCadence:
    case Kind::SetHeartbeatSeconds: {
        char buf[32];
        std::snprintf(buf, sizeof buf, " %g", value);
        return s + buf;
    }
    case Kind::SetLink: {
        char buf[160];
        std::snprintf(buf, sizeof buf, " latency %g ms, %g Mb/s, loss %g", link.latencySeconds * 1e3,
                      link.bandwidthBitsPerSecond / 1e6, link.lossRate);
        std::string faults;
        if (link.duplicateRate > 0 || link.jitterSeconds > 0) {
            char f[96];
            std::snprintf(f, sizeof f, ", duplicate %g, jitter %g ms", link.duplicateRate, link.jitterSeconds * 1e3);
            faults = f;
        }
        return s + " " + nodeName(this->node) + " <-> " + nodeName(nodeB) + buf + faults;
    }
    case Kind::PartitionOneWay:
        return s + " " + nodeName(this->node) + " -> " + nodeName(nodeB);
    case Kind::SetClockSkew:
    case Kind::SetStraggler: {
        char buf[32];
        std::snprintf(buf, sizeof buf, " %g", value);
        return s + " " + nodeName(this->node) + buf;
    }
    case Kind::KillNode: return s + " " + nodeName(this->node);
    case Kind::ReviveNode: return s + " " + nodeName(this->node) + (value > 0 ? " from its old state file" : "");
    case Kind::PartitionLink:
    case Kind::HealLink:
        return s + " " + nodeName(this->node) + " <-> " + nodeName(nodeB);
    case Kind::PartitionRegion:
    case Kind::HealRegion:
        return s + " region " + std::to_string(region);
    case Kind::SetCodec: {
        CodecSpec spec;
        if (region < 0 || region >= 3 || !codecOfCommand(*this, spec).empty())
            return s + " (invalid)";
        return s + " " + kCodecTrafficClasses[region] + " " + codecName(spec);
    }
    case Kind::SetConfidenceThreshold: {
        char buf[32];
        std::snprintf(buf, sizeof buf, " %g", value);
        return s + buf + (this->node < 0 ? std::string(" all edges") : " " + nodeName(this->node));
    }
    }
    return s;
}

SimCommand setCodecCommand(int trafficClass, const CodecSpec &spec) {
    SimCommand c;
    c.kind = SimCommand::Kind::SetCodec;
    c.region = trafficClass;
    c.shard = int(spec.codec) | (spec.zstd ? kCodecZstdFlag : 0);
    c.value = spec.topkFraction;
    return c;
}

std::string codecOfCommand(const SimCommand &c, CodecSpec &spec) {
    const int codec = c.shard & ~kCodecZstdFlag;
    if (c.shard < 0 || codec > int(Codec::TopK)) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "set_codec: unknown codec %#x (shard: a Codec, | %#x for zstd)", unsigned(c.shard),
                      unsigned(kCodecZstdFlag));
        return buf;
    }
    spec = CodecSpec{};
    spec.codec = Codec(codec);
    if (spec.codec == Codec::TopK) {
        if (!(c.value > 0 && c.value <= 1))
            return "set_codec: the top-k fraction must be in (0, 1]";
        spec.topkFraction = c.value;
    }
    if (c.shard & kCodecZstdFlag) {
        if (const std::string why = zstdRefusal(spec); !why.empty())
            return "set_codec: " + why;
        spec.zstd = true;
    }
    return "";
}

std::vector<SimCommand> parseCommands(const std::string &jsonText, const std::string &source,
                                      const ClusterConfig &config) {
    json root;
    try {
        root = json::parse(jsonText);
    } catch (const json::parse_error &e) {
        throw ConfigError(source, std::string("not valid JSON (") + e.what() + ")");
    }
    if (!root.is_array())
        throw ConfigError(source, "must be a JSON array of commands");
    std::map<std::string, int> edgeIndex{{"center", -1}};
    std::map<std::string, int> regionIndex;
    int e = 0;
    for (std::size_t r = 0; r < config.regions.size(); ++r) {
        regionIndex[config.regions[r].name] = int(r);
        for (const auto &edge : config.regions[r].edges)
            edgeIndex[edge.name] = e++;
    }

    std::vector<SimCommand> out;
    for (std::size_t i = 0; i < root.size(); ++i) {
        const std::string where = source + ": [" + std::to_string(i) + "]";
        const json &c = root[i];
        auto fail = [&](const std::string &field, const std::string &problem) -> void {
            throw ConfigError(where + (field.empty() ? "" : "." + field), problem);
        };
        if (!c.is_object())
            fail("", "must be an object");
        auto number = [&](const char *key, double min, double max) {
            if (!c.contains(key) || !c.at(key).is_number())
                fail(key, "must be a number");
            const double v = c.at(key).get<double>();
            if (!std::isfinite(v) || v < min || v > max)
                fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max));
            return v;
        };
        auto name = [&](const char *key, const std::map<std::string, int> &known, const char *noun) {
            if (!c.contains(key) || !c.at(key).is_string())
                fail(key, std::string("must be the name of the ") + noun);
            const auto it = known.find(c.at(key).get<std::string>());
            if (it == known.end())
                fail(key, std::string("no ") + noun + " named \"" + c.at(key).get<std::string>() + "\"");
            return it->second;
        };
        SimCommand cmd;
        if (!c.contains("command") || !c.at("command").is_string())
            fail("command", "must be a string");
        const auto kind = kKinds.find(c.at("command").get<std::string>());
        if (kind == kKinds.end())
            fail("command", "unknown command \"" + c.at("command").get<std::string>() + "\"");
        cmd.kind = kind->second;
        cmd.at = c.contains("at") ? number("at", 0, 1e9) : 0;
        switch (cmd.kind) {
        case Kind::MoveShard:
            cmd.shard = int(number("shard", 0, 1e6));
            cmd.region = name("region", regionIndex, "region");
            cmd.node = name("to", edgeIndex, "edge");
            break;
        case Kind::SetAggregationWindow:
            if (c.contains("ms")) {
                cmd.kind = Kind::SetAggregationWindowMs;
                cmd.value = number("ms", 0, 3.6e6);
            } else {
                cmd.value = std::round(number("steps", 1, 1e5));
            }
            break;
        case Kind::SetAggregationWindowMs: break; // spelled set_aggregation_window with "ms"
        case Kind::SetCenterSync: cmd.value = std::round(number("windows", 1, 1e5)); break;
        case Kind::SetLeaseSeconds: cmd.value = number("seconds", 1e-3, 86400); break;
        case Kind::SetHeartbeatSeconds: cmd.value = number("seconds", 1e-3, 86400); break;
        case Kind::SetLink:
            cmd.node = name("from", edgeIndex, "node");
            cmd.nodeB = name("to", edgeIndex, "node");
            cmd.link.latencySeconds = number("latency_ms", 0, 60000) / 1e3;
            cmd.link.bandwidthBitsPerSecond = number("bandwidth_mbps", 1e-3, 1e7) * 1e6;
            cmd.link.lossRate = c.contains("loss") ? number("loss", 0, 0.99) : 0;
            cmd.link.duplicateRate = c.contains("duplicate") ? number("duplicate", 0, 1) : 0;
            cmd.link.jitterSeconds = c.contains("jitter_ms") ? number("jitter_ms", 0, 60000) / 1e3 : 0;
            break;
        case Kind::PartitionOneWay:
            cmd.node = name("from", edgeIndex, "node");
            cmd.nodeB = name("to", edgeIndex, "node");
            break;
        case Kind::SetClockSkew:
            cmd.node = name("edge", edgeIndex, "edge");
            if (cmd.node < 0)
                fail("edge", "must name an edge");
            cmd.value = number("seconds", -86400, 86400);
            break;
        case Kind::SetStraggler:
            cmd.node = name("edge", edgeIndex, "edge");
            if (cmd.node < 0)
                fail("edge", "must name an edge");
            cmd.value = number("speed", 1e-3, 1);
            break;
        case Kind::KillNode: cmd.node = name("node", edgeIndex, "node"); break;
        case Kind::ReviveNode:
            cmd.node = name("node", edgeIndex, "node");
            if (c.contains("old_state")) {
                if (!c.at("old_state").is_boolean())
                    fail("old_state", "must be true or false");
                cmd.value = c.at("old_state").get<bool>() ? 1 : 0;
            }
            break;
        case Kind::PartitionLink:
        case Kind::HealLink:
            cmd.node = name("from", edgeIndex, "node");
            cmd.nodeB = name("to", edgeIndex, "node");
            break;
        case Kind::PartitionRegion:
        case Kind::HealRegion: cmd.region = name("region", regionIndex, "region"); break;
        case Kind::SetReleaseCadence: cmd.value = std::round(number("syncs", 1, 1e6)); break;
        case Kind::SetCodec: {
            if (!c.contains("class") || !c.at("class").is_string())
                fail("class", "must be gradients, values or center");
            const std::string cls = c.at("class").get<std::string>();
            cmd.region = -1;
            for (int k = 0; k < 3; ++k)
                if (cls == kCodecTrafficClasses[k])
                    cmd.region = k;
            if (cmd.region < 0)
                fail("class", "must be gradients, values or center, got \"" + cls + "\"");
            if (!c.contains("codec") || !c.at("codec").is_string())
                fail("codec", "must be a string such as \"int8\"");
            try {
                const SimCommand named = setCodecCommand(cmd.region, parseCodec(c.at("codec").get<std::string>()));
                cmd.shard = named.shard;
                cmd.value = named.value;
            } catch (const std::invalid_argument &e) {
                fail("codec", e.what());
            }
            break;
        }
        case Kind::SetConfidenceThreshold:
            cmd.value = number("threshold", 0, 1);
            if (c.contains("edge")) {
                cmd.node = name("edge", edgeIndex, "edge");
                if (cmd.node < 0)
                    fail("edge", "must name an edge; leave it out to set every edge");
            }
            break;
        }
        out.push_back(cmd);
    }
    return out;
}

} // namespace synaptic::engine
