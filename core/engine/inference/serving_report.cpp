#include "serving_report.h"

#include "core/engine/json_number.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace synaptic::engine {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
double ratio(std::uint64_t num, std::uint64_t den) { return den ? double(num) / double(den) : kNaN; }
} // namespace

double percentile(std::vector<double> values, double q) {
    if (values.empty())
        return kNaN;
    std::sort(values.begin(), values.end());
    const auto rank = std::size_t(std::ceil(q * double(values.size())));
    return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

ServingSummary summarize(const ServingOutcome &outcome, int edges) {
    ServingSummary s;
    s.atEdgePerEdge.assign(std::size_t(edges), 0);
    s.requestsPerEdge.assign(std::size_t(edges), 0);
    s.degradedPerEdge.assign(std::size_t(edges), 0);
    std::uint64_t correct = 0, correctEdge = 0, correctCenter = 0;
    std::vector<double> latencies;
    latencies.reserve(outcome.served.size());
    double sum = 0;
    for (const auto &r : outcome.served) {
        ++s.requests;
        ++s.requestsPerEdge[std::size_t(r.edge)];
        correct += r.correct;
        if (r.atEdge) {
            ++s.atEdge;
            ++s.atEdgePerEdge[std::size_t(r.edge)];
            correctEdge += r.correct;
        } else {
            ++s.atCenter;
            correctCenter += r.correct;
        }
        if (r.degraded) {
            ++s.degraded;
            ++s.degradedPerEdge[std::size_t(r.edge)];
        }
        latencies.push_back(r.latency * 1000.0);
        sum += r.latency * 1000.0;
    }
    s.edgeShare = ratio(s.atEdge, s.requests);
    s.accuracy = ratio(correct, s.requests);
    s.accuracyEdge = ratio(correctEdge, s.atEdge);
    s.accuracyCenter = ratio(correctCenter, s.atCenter);
    s.p50Ms = percentile(latencies, 0.50);
    s.p95Ms = percentile(latencies, 0.95);
    s.p99Ms = percentile(latencies, 0.99);
    s.maxMs = latencies.empty() ? kNaN : *std::max_element(latencies.begin(), latencies.end());
    s.meanMs = latencies.empty() ? kNaN : sum / double(latencies.size());
    s.bytesToCenter = outcome.bytesToCenter;
    s.bytesFromCenter = outcome.bytesFromCenter;
    s.rawInputBytes = outcome.rawInputBytes;
    s.lostMessages = outcome.lostMessages;
    s.probes = outcome.probes;
    return s;
}

std::vector<double> defaultSweepThresholds() {
    std::vector<double> t;
    for (int i = 0; i < 20; ++i)
        t.push_back(i * 0.05);
    t.insert(t.end(), {0.97, 0.99, 1.0});
    return t;
}

std::vector<SweepPoint> thresholdSweep(const SplitPredictions &a, std::int64_t begin, std::int64_t end,
                                       const std::vector<double> &thresholds) {
    begin = std::max<std::int64_t>(0, begin);
    end = std::min(end, a.size());
    std::vector<SweepPoint> out;
    for (double t : thresholds) {
        std::uint64_t n = 0, exits = 0, correct = 0, correctEdge = 0;
        for (std::int64_t i = begin; i < end; ++i) {
            const auto k = std::size_t(i);
            ++n;
            if (answersAtEdge(a.confidence[k], t)) {
                ++exits;
                const bool ok = a.exitClass[k] == a.label[k];
                correct += ok;
                correctEdge += ok;
            } else {
                correct += a.centerClass[k] == a.label[k];
            }
        }
        out.push_back({t, ratio(exits, n), ratio(correct, n), ratio(correctEdge, exits)});
    }
    return out;
}

nlohmann::json toJson(const ServingSummary &s) {
    return {{"requests", s.requests},
            {"answered_at_edge", s.atEdge},
            {"answered_at_center", s.atCenter},
            {"degraded", s.degraded},
            {"edge_share", finiteOrNull(s.edgeShare)},
            {"accuracy", finiteOrNull(s.accuracy)},
            {"accuracy_edge_answers", finiteOrNull(s.accuracyEdge)},
            {"accuracy_center_answers", finiteOrNull(s.accuracyCenter)},
            {"latency_ms", {{"p50", finiteOrNull(s.p50Ms)}, {"p95", finiteOrNull(s.p95Ms)}, {"p99", finiteOrNull(s.p99Ms)},
                            {"mean", finiteOrNull(s.meanMs)}, {"max", finiteOrNull(s.maxMs)}}},
            {"bytes_to_center", s.bytesToCenter},
            {"bytes_from_center", s.bytesFromCenter},
            {"raw_input_bytes", s.rawInputBytes},
            {"lost_messages", s.lostMessages},
            {"probes", s.probes},
            {"per_edge", {{"requests", s.requestsPerEdge}, {"answered_at_edge", s.atEdgePerEdge},
                          {"degraded", s.degradedPerEdge}}}};
}

nlohmann::json toJson(const std::vector<SweepPoint> &sweep) {
    auto arr = nlohmann::json::array();
    for (const auto &p : sweep)
        arr.push_back({{"threshold", p.threshold}, {"edge_share", finiteOrNull(p.edgeShare)},
                       {"accuracy", finiteOrNull(p.accuracy)}, {"accuracy_edge_answers", finiteOrNull(p.accuracyEdge)}});
    return arr;
}

} // namespace synaptic::engine
