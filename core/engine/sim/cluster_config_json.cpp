#include "cluster_config_json.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace synaptic::engine {

using nlohmann::json;

namespace {

// The file stores some values in friendlier units (ms, Mbit/s) and the
// parser divides; pick the unit value whose division gives back exactly the
// stored double (x * k / k is not always x).
// `back` is the parser's conversion.
template <typename Back>
double inUnits(double value, double shown, Back back) {
    for (int i = 0; i < 8 && back(shown) != value; ++i)
        shown = std::nextafter(shown, back(shown) < value ? INFINITY : -INFINITY);
    return shown;
}

json linkJson(const LinkSpec &l) {
    return {{"latency_ms", inUnits(l.latencySeconds, l.latencySeconds * 1e3, [](double ms) { return ms / 1e3; })},
            {"bandwidth_mbps", inUnits(l.bandwidthBitsPerSecond, l.bandwidthBitsPerSecond / 1e6,
                                       [](double mbps) { return mbps * 1e6; })},
            {"loss", l.lossRate}};
}

json lastMileJson(const LastMile &m) {
    json out = {{"latency_ms", inUnits(m.latencySeconds, m.latencySeconds * 1e3, [](double ms) { return ms / 1e3; })},
                {"loss", m.lossRate}};
    if (m.bandwidthBitsPerSecond > 0)
        out["bandwidth_mbps"] = inUnits(m.bandwidthBitsPerSecond, m.bandwidthBitsPerSecond / 1e6,
                                        [](double mbps) { return mbps * 1e6; });
    return out;
}

// The geography keys are written only when set, so a config without them
// writes exactly what it did before they existed (recordings compare it).
void addGeography(json &links, const ClusterConfig &c) {
    auto mbps = [](double bits) { return inUnits(bits, bits / 1e6, [](double m) { return m * 1e6; }); };
    if (c.edgeInterfaceBitsPerSecond > 0)
        links["node_interfaces"]["edge_mbps"] = mbps(c.edgeInterfaceBitsPerSecond);
    if (c.centerInterfaceBitsPerSecond > 0)
        links["node_interfaces"]["center_mbps"] = mbps(c.centerInterfaceBitsPerSecond);
    if (!c.regionLinks.empty()) {
        json pairs = json::array();
        for (const auto &p : c.regionLinks) {
            json item = linkJson(p.spec);
            item["a"] = p.a;
            item["b"] = p.b;
            pairs.push_back(item);
        }
        links["region_pairs"] = pairs;
    }
    if (!c.centerLinks.empty()) {
        json centers = json::array();
        for (const auto &l : c.centerLinks) {
            json item = linkJson(l.spec);
            item["region"] = l.region;
            centers.push_back(item);
        }
        links["region_center"] = centers;
    }
}

} // namespace

std::string clusterConfigToJson(const ClusterConfig &c) {
    const auto &k = c.knobs;
    json regions = json::array();
    for (const auto &r : c.regions) {
        json edges = json::array();
        for (const auto &e : r.edges) {
            json edge = {{"name", e.name}, {"gflops", e.gflops}};
            if (e.lastMile)
                edge["last_mile"] = lastMileJson(*e.lastMile);
            if (e.localUpdates)
                edge["local_updates"] = true;
            edges.push_back(edge);
        }
        regions.push_back({{"name", r.name}, {"edges", edges}});
    }
    json root = {
        {"seed", c.seed},
        {"strategy", c.strategy},
        {"knobs",
         {{"aggregation_window_steps", k.aggregationWindowSteps},
          {"aggregation_window_ms", k.aggregationWindowMs},
          {"center_sync_windows", k.centerSyncWindows},
          {"durable_every_merges", k.durableEveryMerges},
          {"wait_for_values", k.waitForValues},
          {"train_ahead_windows", k.trainAheadWindows},
          {"diloco_local_steps", k.dilocoLocalSteps},
          {"gossip_steps", k.gossipSteps},
          {"gossip_same_region", k.gossipSameRegion},
          {"outer_optimizer", k.outerOptimizer},
          {"outer_lr", k.outerLearningRate},
          {"outer_momentum", k.outerMomentum},
          {"lease_seconds", k.leaseSeconds},
          {"heartbeat_seconds", k.heartbeatSeconds},
          {"confidence_threshold", k.confidenceThreshold}}},
        {"serving",
         {{"request_rate", c.serving.requestRate},
          {"confidence", c.serving.confidence},
          {"release_every_syncs", c.serving.releaseEverySyncs},
          {"timeout_ms", c.serving.timeoutMs},
          {"edge_request_ms", c.serving.edgeRequestMs},
          {"center_request_ms", c.serving.centerRequestMs},
          {"center_full_request_ms", c.serving.centerFullRequestMs},
          {"probe_ms", c.serving.probeMs}}},
        {"model", {{"batch", c.batchSize}, {"lr", c.learningRate}}},
        {"data", {{"dir", c.dataDir}, {"partition", c.partition}, {"dirichlet_alpha", c.dirichletAlpha}}},
        {"evaluation", {{"every_seconds", c.evalEverySeconds}, {"test_subset", c.evalTestSubset}}},
        {"center", {{"gflops", c.centerGflops}}},
        {"links",
         {{"intra_region", linkJson(c.intraRegion)},
          {"edge_center", linkJson(c.edgeCenter)},
          {"inter_region", linkJson(c.interRegion)}}},
        {"codecs",
         {{"gradients", codecName(c.codecs.gradients)},
          {"values", codecName(c.codecs.values)},
          {"center", codecName(c.codecs.center)},
          {"value_deltas", c.codecs.valueDeltas}}},
        {"planner",
         {{"min_share", c.planner.minShare}, {"max_share", c.planner.maxShare}, {"on_bound", c.planner.onBound}}},
        {"regions", regions},
    };
    addGeography(root["links"], c);
    // Only a task other than the default is written: readers before the
    // "task" key refuse unknown keys, and every recording carries its config.
    if (c.task != "fashion-mnist")
        root["task"] = c.task;
    // The same for the learning-rate schedule's keys: each is written only
    // when below 1, its default (parsing bounds both to 0-1).
    if (c.lrDecayFrom < 1.0)
        root["model"]["lr_decay_from"] = c.lrDecayFrom;
    if (c.lrFinal < 1.0)
        root["model"]["lr_final"] = c.lrFinal;
    // Written only when on, as above (its default is off).
    if (c.knobs.valuesOnContribution)
        root["knobs"]["values_on_contribution"] = true;
    if (c.knobs.localUpdates)
        root["knobs"]["local_updates"] = true;
    if (c.knobs.stalenessWeighting)
        root["knobs"]["staleness_weighting"] = true;
    if (c.knobs.hubMerges) {
        root["knobs"]["hub_merges"] = true;
        root["knobs"]["hub_pull_seconds"] = c.knobs.hubPullSeconds;
        root["knobs"]["hub_settle_seconds"] = c.knobs.hubSettleSeconds;
    }
    return root.dump(2);
}

} // namespace synaptic::engine
