#include "sim_event_samples.h"

#include <algorithm>
#include <cmath>

namespace synaptic::engine {

namespace {

// The joined interval of two intervals that end at `older` and `newer` time.
double joinedInterval(double newerTime, double olderTime, double olderInterval) {
    return std::max(0.0, newerTime - (olderTime - olderInterval));
}

// The larger of two percentiles, NaN (no request in the interval) losing.
double upperBound(double a, double b) {
    if (std::isnan(a))
        return b;
    if (std::isnan(b))
        return a;
    return std::max(a, b);
}

} // namespace

bool SimEventSamples::isSample(const SimEvent &event) {
    return std::holds_alternative<MetricEvent>(event) || std::holds_alternative<LinkBytesEvent>(event) ||
           std::holds_alternative<DriftEvent>(event) || std::holds_alternative<InferenceEvent>(event);
}

SimEventSamples::Key SimEventSamples::sampleKey(const SimEvent &event) {
    const int kind = int(event.index());
    if (const auto *m = std::get_if<MetricEvent>(&event))
        return {kind, m->scope, 0, 0};
    if (const auto *l = std::get_if<LinkBytesEvent>(&event))
        return {kind, {}, l->from, l->to};
    if (const auto *d = std::get_if<DriftEvent>(&event))
        return {kind, {}, d->shard, d->region};
    return {kind, {}, 0, 0}; // serving: one cluster-wide series
}

void SimEventSamples::absorb(SimEvent &newer, const SimEvent &older) {
    if (auto *l = std::get_if<LinkBytesEvent>(&newer)) {
        const auto &o = std::get<LinkBytesEvent>(older);
        l->bytes += o.bytes;
        l->interval = joinedInterval(l->time, o.time, o.interval);
    } else if (auto *s = std::get_if<InferenceEvent>(&newer)) {
        const auto &o = std::get<InferenceEvent>(older);
        s->interval = joinedInterval(s->time, o.time, o.interval);
        s->requests += o.requests;
        s->atEdge += o.atEdge;
        s->degraded += o.degraded;
        s->correctEdge += o.correctEdge;
        s->correctCenter += o.correctCenter;
        s->bytesToCenter += o.bytesToCenter;
        s->rawInputBytes += o.rawInputBytes;
        s->p50Ms = upperBound(s->p50Ms, o.p50Ms);
        s->p95Ms = upperBound(s->p95Ms, o.p95Ms);
        s->p99Ms = upperBound(s->p99Ms, o.p99Ms);
    } else if (auto *d = std::get_if<DriftEvent>(&newer)) {
        // The worst reading of the folded span: a drift spike a stalled
        // view would otherwise never see.
        const auto &o = std::get<DriftEvent>(older);
        d->versionLag = std::max(d->versionLag, o.versionLag);
        d->parameterDrift = std::max(d->parameterDrift, o.parameterDrift);
    }
    // A metric point: the newer one stands.
}

} // namespace synaptic::engine
