#include "knob_commands.h"

namespace synaptic::engine {

bool isKnobCommand(const SimCommand &c) {
    using K = SimCommand::Kind;
    switch (c.kind) {
    case K::SetAggregationWindow:
    case K::SetAggregationWindowMs:
    case K::SetCenterSync:
    case K::SetLeaseSeconds:
    case K::SetHeartbeatSeconds:
    case K::SetReleaseCadence:
    case K::SetConfidenceThreshold:
    case K::SetCodec:
        return true;
    default:
        return false;
    }
}

std::string applyKnobCommand(ClusterConfig &config, const SimCommand &c) {
    using K = SimCommand::Kind;
    auto &k = config.knobs;
    switch (c.kind) {
    case K::SetAggregationWindow:
        k.aggregationWindowSteps = int(c.value);
        k.aggregationWindowMs = 0;
        return "";
    case K::SetAggregationWindowMs: k.aggregationWindowMs = c.value; return "";
    case K::SetCenterSync: k.centerSyncWindows = int(c.value); return "";
    case K::SetLeaseSeconds:
        if (c.value <= k.heartbeatSeconds)
            return "lease must be longer than the heartbeat interval";
        k.leaseSeconds = c.value;
        return "";
    case K::SetHeartbeatSeconds:
        if (c.value >= k.leaseSeconds)
            return "heartbeat interval must be shorter than the lease";
        k.heartbeatSeconds = c.value;
        return "";
    case K::SetReleaseCadence:
        if (!(c.value >= 1 && c.value <= 1e6))
            return "the cadence must be 1 to 1,000,000 center syncs";
        config.serving.releaseEverySyncs = int(c.value);
        return "";
    case K::SetConfidenceThreshold:
        if (c.node >= config.edgeCount())
            return "no such edge";
        if (!(c.value >= 0 && c.value <= 1))
            return "the threshold must be between 0 and 1";
        if (c.node < 0)
            k.confidenceThreshold = c.value;
        return "";
    case K::SetCodec: {
        if (c.region < 0 || c.region > 2)
            return "the traffic class must be gradients, values or center";
        CodecSpec spec;
        if (const std::string why = codecOfCommand(c, spec); !why.empty())
            return why;
        CodecSpec &target = c.region == 0 ? config.codecs.gradients : c.region == 1 ? config.codecs.values
                                                                                    : config.codecs.center;
        target = spec;
        return "";
    }
    default:
        return "not a knob command";
    }
}

} // namespace synaptic::engine
