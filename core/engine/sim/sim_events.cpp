#include "sim_events.h"

#include <cstdio>

namespace synaptic::engine {

namespace {
std::string exactText(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
std::string exactText(std::uint64_t v) { return std::to_string(v); }
std::string exactText(int v) { return std::to_string(v); }

struct Describe {
    std::string operator()(const MetricEvent &e) const {
        return "t=" + exactText(e.time) + " metric " + e.scope + " samples=" + exactText(e.samples) + " loss=" + exactText(e.loss) +
               " acc=" + exactText(e.accuracy) + " exit_acc=" + exactText(e.exitAccuracy);
    }
    std::string operator()(const RoutingEvent &e) const {
        return "t=" + exactText(e.time) + " route shard=" + exactText(e.shard) + " region=" + exactText(e.region) +
               " owner=" + exactText(e.owner) + " rev=" + exactText(e.revision) + " " + e.reason;
    }
    std::string operator()(const LinkBytesEvent &e) const {
        return "t=" + exactText(e.time) + " link " + exactText(e.from) + "->" + exactText(e.to) + " bytes=" + exactText(e.bytes) +
               " over=" + exactText(e.interval);
    }
    std::string operator()(const DriftEvent &e) const {
        return "t=" + exactText(e.time) + " drift shard=" + exactText(e.shard) + " region=" + exactText(e.region) +
               " lag=" + exactText(e.versionLag) + " drift=" + exactText(e.parameterDrift);
    }
    std::string operator()(const ConsistencyEvent &e) const {
        return "t=" + exactText(e.time) + " consistency round=" + exactText(e.round) + " checked=" + exactText(e.checked) +
               " mismatches=" + exactText(e.mismatches) + " max_drift=" + exactText(e.maxDrift);
    }
    std::string operator()(const LeaseEvent &e) const {
        return "t=" + exactText(e.time) + " lease edge=" + exactText(e.edge) + " " + e.mode + " epoch=" + exactText(e.epoch);
    }
    std::string operator()(const InferenceEvent &e) const {
        return "t=" + exactText(e.time) + " inference over=" + exactText(e.interval) + " requests=" + exactText(e.requests) +
               " at_edge=" + exactText(e.atEdge) + " degraded=" + exactText(e.degraded) + " correct_edge=" + exactText(e.correctEdge) +
               " correct_center=" + exactText(e.correctCenter) + " p50=" + exactText(e.p50Ms) + " p95=" + exactText(e.p95Ms) +
               " p99=" + exactText(e.p99Ms) + " bytes=" + exactText(e.bytesToCenter) + " raw=" + exactText(e.rawInputBytes);
    }
    std::string operator()(const EdgeImageEvent &e) const {
        std::string s = "t=" + exactText(e.time) + " edge_image edge=" + exactText(e.edge) + " version=" + exactText(e.version) +
                        " bytes=" + exactText(e.bytes);
        for (std::size_t i = 0; i < e.sweepThreshold.size(); ++i)
            s += " " + exactText(e.sweepThreshold[i]) + ":" + exactText(e.sweepEdgeShare[i]) + "/" + exactText(e.sweepAccuracy[i]);
        return s;
    }
    std::string operator()(const RejectedInputEvent &e) const {
        return "t=" + exactText(e.time) + " rejected node=" + exactText(e.node) + " count=" + exactText(e.count) + " " + e.reason +
               " from " + e.peer;
    }
    std::string operator()(const AuditEvent &e) const {
        std::string s = "t=" + exactText(e.time) + " audit " + auditKindName(e.kind) + " node=" + exactText(e.node);
        if (e.shard >= 0)
            s += " shard=" + exactText(e.shard);
        if (e.region >= 0)
            s += " region=" + exactText(e.region);
        if (e.epoch)
            s += " epoch=" + exactText(e.epoch) + " expires=" + exactText(e.expiresAt);
        if ((e.kind == AuditEvent::Kind::Version && !e.cache) || e.kind == AuditEvent::Kind::Merge)
            s += " version=" + exactText(e.version) + " checksum=" + exactText(e.checksum);
        if (e.kind == AuditEvent::Kind::Restore)
            s += " written_at=" + exactText(e.writtenAt);
        if (e.cache)
            s += " cached";
        for (std::size_t i = 0; i < e.shards.size(); ++i)
            s += " " + exactText(e.shards[i]) + (i < e.versions.size() ? "@" + exactText(e.versions[i]) : "");
        if (!e.ids.empty()) {
            s += " ids=";
            for (std::size_t i = 0; i < e.ids.size(); ++i)
                s += (i ? "," : "") + exactText(e.ids[i]);
        }
        if (!e.reason.empty())
            s += " " + e.reason;
        if (e.kind == AuditEvent::Kind::Serve)
            s += " requests=" + exactText(e.requests) + " answered=" + exactText(e.answered) + " abandoned=" +
                 exactText(e.abandoned) + " pending=" + exactText(e.pending);
        return s;
    }
    std::string operator()(const CommandEvent &e) const {
        return "t=" + exactText(e.time) + " command " + e.command + (e.applied ? " applied" : " refused") +
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
