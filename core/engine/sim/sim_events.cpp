#include "sim_events.h"

#include <cstdio>

namespace synaptic::engine {

namespace {
std::string num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
std::string num(std::uint64_t v) { return std::to_string(v); }
std::string num(int v) { return std::to_string(v); }

struct Describe {
    std::string operator()(const MetricEvent &e) const {
        return "t=" + num(e.time) + " metric " + e.scope + " samples=" + num(e.samples) + " loss=" + num(e.loss) +
               " acc=" + num(e.accuracy) + " exit_acc=" + num(e.exitAccuracy);
    }
    std::string operator()(const RoutingEvent &e) const {
        return "t=" + num(e.time) + " route shard=" + num(e.shard) + " region=" + num(e.region) +
               " owner=" + num(e.owner) + " rev=" + num(e.revision) + " " + e.reason;
    }
    std::string operator()(const LinkBytesEvent &e) const {
        return "t=" + num(e.time) + " link " + num(e.from) + "->" + num(e.to) + " bytes=" + num(e.bytes) +
               " over=" + num(e.interval);
    }
    std::string operator()(const DriftEvent &e) const {
        return "t=" + num(e.time) + " drift shard=" + num(e.shard) + " region=" + num(e.region) +
               " lag=" + num(e.versionLag) + " drift=" + num(e.parameterDrift);
    }
    std::string operator()(const ConsistencyEvent &e) const {
        return "t=" + num(e.time) + " consistency round=" + num(e.round) + " checked=" + num(e.checked) +
               " mismatches=" + num(e.mismatches) + " max_drift=" + num(e.maxDrift);
    }
    std::string operator()(const LeaseEvent &e) const {
        return "t=" + num(e.time) + " lease edge=" + num(e.edge) + " " + e.mode + " epoch=" + num(e.epoch);
    }
    std::string operator()(const InferenceEvent &e) const {
        return "t=" + num(e.time) + " inference over=" + num(e.interval) + " requests=" + num(e.requests) +
               " at_edge=" + num(e.atEdge) + " degraded=" + num(e.degraded) + " correct_edge=" + num(e.correctEdge) +
               " correct_center=" + num(e.correctCenter) + " p50=" + num(e.p50Ms) + " p95=" + num(e.p95Ms) +
               " p99=" + num(e.p99Ms) + " bytes=" + num(e.bytesToCenter) + " raw=" + num(e.rawInputBytes);
    }
    std::string operator()(const EdgeImageEvent &e) const {
        std::string s = "t=" + num(e.time) + " edge_image edge=" + num(e.edge) + " version=" + num(e.version) +
                        " bytes=" + num(e.bytes);
        for (std::size_t i = 0; i < e.sweepThreshold.size(); ++i)
            s += " " + num(e.sweepThreshold[i]) + ":" + num(e.sweepEdgeShare[i]) + "/" + num(e.sweepAccuracy[i]);
        return s;
    }
    std::string operator()(const RejectedInputEvent &e) const {
        return "t=" + num(e.time) + " rejected node=" + num(e.node) + " count=" + num(e.count) + " " + e.reason +
               " from " + e.peer;
    }
    std::string operator()(const AuditEvent &e) const {
        std::string s = "t=" + num(e.time) + " audit " + auditKindName(e.kind) + " node=" + num(e.node);
        if (e.shard >= 0)
            s += " shard=" + num(e.shard);
        if (e.region >= 0)
            s += " region=" + num(e.region);
        if (e.epoch)
            s += " epoch=" + num(e.epoch) + " expires=" + num(e.expiresAt);
        if ((e.kind == AuditEvent::Kind::Version && !e.cache) || e.kind == AuditEvent::Kind::Merge)
            s += " version=" + num(e.version) + " checksum=" + num(e.checksum);
        if (e.kind == AuditEvent::Kind::Restore)
            s += " written_at=" + num(e.writtenAt);
        if (e.cache)
            s += " cached";
        for (std::size_t i = 0; i < e.shards.size(); ++i)
            s += " " + num(e.shards[i]) + (i < e.versions.size() ? "@" + num(e.versions[i]) : "");
        if (!e.ids.empty()) {
            s += " ids=";
            for (std::size_t i = 0; i < e.ids.size(); ++i)
                s += (i ? "," : "") + num(e.ids[i]);
        }
        if (!e.reason.empty())
            s += " " + e.reason;
        if (e.kind == AuditEvent::Kind::Serve)
            s += " requests=" + num(e.requests) + " answered=" + num(e.answered) + " abandoned=" +
                 num(e.abandoned) + " pending=" + num(e.pending);
        return s;
    }
    std::string operator()(const CommandEvent &e) const {
        return "t=" + num(e.time) + " command " + e.command + (e.applied ? " applied" : " refused") +
               (e.detail.empty() ? "" : ": " + e.detail);
    }
};
} // namespace

const char *auditKindName(AuditEvent::Kind kind) {
    switch (kind) {
    case AuditEvent::Kind::Grant: return "grant";
    case AuditEvent::Kind::Send: return "send";
    case AuditEvent::Kind::Apply: return "apply";
    case AuditEvent::Kind::Lost: return "lost";
    case AuditEvent::Kind::Version: return "version";
    case AuditEvent::Kind::Serve: return "serve";
    case AuditEvent::Kind::Merge: return "merge";
    case AuditEvent::Kind::Restore: return "restore";
    }
    return "?";
}

std::string describeEvent(const SimEvent &event) { return std::visit(Describe{}, event); }

void EventHash::add(const SimEvent &event) {
    for (unsigned char c : describeEvent(event)) {
        m_hash ^= c;
        m_hash *= 1099511628211ull;
    }
    m_hash ^= '\n';
    m_hash *= 1099511628211ull;
    ++m_count;
}

} // namespace synaptic::engine
