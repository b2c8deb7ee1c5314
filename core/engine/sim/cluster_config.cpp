#include "cluster_config.h"

#include "config_search.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace synaptic::engine {

using nlohmann::json;

int ClusterConfig::edgeCount() const {
    int n = 0;
    for (const auto &r : regions)
        n += int(r.edges.size());
    return n;
}

bool ClusterConfig::localUpdatesAt(int edge) const {
    if (knobs.localUpdates)
        return true;
    for (const auto &r : regions) {
        if (edge < int(r.edges.size()))
            return edge >= 0 && r.edges[std::size_t(edge)].localUpdates;
        edge -= int(r.edges.size());
    }
    return false;
}

namespace {

// Walks the JSON with the path of the current object, so every error can
// name its field exactly.
class Reader {
public:
    Reader(const json &obj, std::string path, std::set<std::string> known) : m_obj(obj), m_path(std::move(path)) {
        if (!obj.is_object())
            fail(m_path.empty() ? "(top level)" : m_path, "must be an object");
        for (auto it = obj.begin(); it != obj.end(); ++it)
            if (!known.count(it.key()))
                fail(field(it.key()), "unknown key");
    }

    [[noreturn]] static void fail(const std::string &where, const std::string &problem) {
        throw ConfigError(where, problem);
    }
    std::string field(const std::string &key) const { return m_path.empty() ? key : m_path + "." + key; }
    bool has(const char *key) const { return m_obj.contains(key); }
    const json &at(const char *key) const { return m_obj.at(key); }

    double number(const char *key, double fallback, double min, double max, bool minExclusive = false) const {
        if (!has(key))
            return fallback;
        const json &v = at(key);
        if (!v.is_number())
            fail(field(key), "must be a number, got " + v.dump());
        const double x = v.get<double>();
        if (!std::isfinite(x) || (minExclusive ? x <= min : x < min) || x > max) {
            std::ostringstream range;
            range << (minExclusive ? "must be > " : "must be >= ") << min << " and <= " << max << ", got " << v.dump();
            fail(field(key), range.str());
        }
        return x;
    }
    long long integer(const char *key, long long fallback, long long min, long long max) const {
        if (!has(key))
            return fallback;
        const json &v = at(key);
        if (!v.is_number_integer())
            fail(field(key), "must be an integer, got " + v.dump());
        const bool tooLarge = v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(max);
        if (tooLarge || v.get<long long>() < min || v.get<long long>() > max)
            fail(field(key), "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                                 v.dump());
        const long long x = v.get<long long>();
        return x;
    }
    bool flag(const char *key, bool fallback) const {
        if (!has(key))
            return fallback;
        const json &v = at(key);
        if (!v.is_boolean())
            fail(field(key), "must be true or false, got " + v.dump());
        return v.get<bool>();
    }
    std::string text(const char *key, const std::string &fallback, const std::vector<std::string> &allowed = {}) const {
        if (!has(key))
            return fallback;
        const json &v = at(key);
        if (!v.is_string())
            fail(field(key), "must be a string, got " + v.dump());
        const std::string s = v.get<std::string>();
        if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
            std::string list;
            for (const auto &a : allowed)
                list += (list.empty() ? "" : ", ") + a;
            fail(field(key), "must be one of " + list + ", got \"" + s + "\"");
        }
        return s;
    }

private:
    const json &m_obj;
    std::string m_path;
};

LinkSpec readLink(const json &obj, const std::string &path, LinkSpec spec, std::set<std::string> extra = {}) {
    extra.insert({"latency_ms", "bandwidth_mbps", "loss"});
    Reader r(obj, path, std::move(extra));
    spec.latencySeconds = r.number("latency_ms", spec.latencySeconds * 1e3, 0, 60'000) / 1e3;
    spec.bandwidthBitsPerSecond = r.number("bandwidth_mbps", spec.bandwidthBitsPerSecond / 1e6, 0, 1e7, true) * 1e6;
    spec.lossRate = r.number("loss", spec.lossRate, 0, 0.99);
    return spec;
}

LastMile readLastMile(const json &obj, const std::string &path) {
    Reader r(obj, path, {"latency_ms", "bandwidth_mbps", "loss"});
    LastMile m;
    m.latencySeconds = r.number("latency_ms", 0, 0, 60'000) / 1e3;
    m.bandwidthBitsPerSecond = r.has("bandwidth_mbps") ? r.number("bandwidth_mbps", 0, 0, 1e7, true) * 1e6 : 0;
    m.lossRate = r.number("loss", 0, 0, 0.99);
    return m;
}

// links.region_pairs and links.region_center name regions, so they are read
// once the regions are known. Fields a pair leaves out come from the class
// it overrides (inter_region, edge_center).
void readRegionLinks(const json &links, ClusterConfig &c) {
    auto regionIndex = [&](const std::string &name) {
        for (std::size_t i = 0; i < c.regions.size(); ++i)
            if (c.regions[i].name == name)
                return int(i);
        return -1;
    };
    auto regionName = [&](const Reader &r, const char *key, const std::string &path) {
        const std::string name = r.text(key, "");
        if (name.empty())
            Reader::fail(path + "." + key, "is required (a region name)");
        if (regionIndex(name) < 0)
            Reader::fail(path + "." + key, "unknown region \"" + name + "\"");
        return name;
    };
    auto list = [&](const char *key) -> const json * {
        if (!links.contains(key))
            return nullptr;
        if (!links.at(key).is_array())
            Reader::fail(std::string("links.") + key, "must be an array");
        return &links.at(key);
    };
    if (const json *pairs = list("region_pairs")) {
        std::set<std::pair<std::string, std::string>> seen;
        for (std::size_t i = 0; i < pairs->size(); ++i) {
            const std::string path = "links.region_pairs[" + std::to_string(i) + "]";
            const json &item = (*pairs)[i];
            Reader r(item, path, {"a", "b", "latency_ms", "bandwidth_mbps", "loss"});
            RegionPairLink pair{regionName(r, "a", path), regionName(r, "b", path), {}};
            if (pair.a == pair.b)
                Reader::fail(path + ".b", "must name another region than a (a region's own links are "
                                          "links.intra_region)");
            if (!seen.insert(std::minmax(pair.a, pair.b)).second)
                Reader::fail(path, pair.a + " <-> " + pair.b + " is given twice");
            pair.spec = readLink(item, path, c.interRegion, {"a", "b"});
            c.regionLinks.push_back(std::move(pair));
        }
    }
    if (const json *centers = list("region_center")) {
        std::set<std::string> seen;
        for (std::size_t i = 0; i < centers->size(); ++i) {
            const std::string path = "links.region_center[" + std::to_string(i) + "]";
            const json &item = (*centers)[i];
            Reader r(item, path, {"region", "latency_ms", "bandwidth_mbps", "loss"});
            RegionCenterLink link{regionName(r, "region", path), {}};
            if (!seen.insert(link.region).second)
                Reader::fail(path, link.region + " <-> center is given twice");
            link.spec = readLink(item, path, c.edgeCenter, {"region"});
            c.centerLinks.push_back(std::move(link));
        }
    }
}

} // namespace

ClusterConfig parseClusterConfig(const std::string &jsonText, const std::string &source) {
    json root;
    try {
        root = json::parse(jsonText);
    } catch (const json::exception &e) { // parse errors, and numbers too large for a double (1e999)
        throw ConfigError(source, std::string("not valid JSON (") + e.what() + ")");
    }
    ClusterConfig c;
    try {
        Reader top(root, "", {"seed", "task", "strategy", "knobs", "codecs", "serving", "model", "data", "evaluation", "center", "links", "planner", "regions"});
        c.seed = std::uint64_t(top.integer("seed", 1, 0, std::numeric_limits<long long>::max()));
        c.strategy = top.text("strategy", c.strategy, kStrategies);
        c.task = top.text("task", c.task, kTasks);
        if (top.has("knobs")) {
            Reader k(top.at("knobs"), "knobs",
                     {"aggregation_window_steps", "aggregation_window_ms", "center_sync_windows", "durable_every_merges", "wait_for_values", "train_ahead_windows", "values_on_contribution", "local_updates", "staleness_weighting", "hub_merges", "hub_pull_seconds", "hub_settle_seconds", "diloco_local_steps", "gossip_steps", "gossip_same_region", "outer_optimizer",
                      "outer_lr", "outer_momentum", "lease_seconds", "heartbeat_seconds", "confidence_threshold"});
            auto &n = c.knobs;
            n.aggregationWindowSteps = int(k.integer("aggregation_window_steps", n.aggregationWindowSteps, 1, 100000));
            n.aggregationWindowMs = k.number("aggregation_window_ms", n.aggregationWindowMs, 0, 3.6e6);
            n.centerSyncWindows = int(k.integer("center_sync_windows", n.centerSyncWindows, 1, 100000));
            n.durableEveryMerges = int(k.integer("durable_every_merges", n.durableEveryMerges, 1, 100000));
            n.dilocoLocalSteps = int(k.integer("diloco_local_steps", n.dilocoLocalSteps, 1, 100000));
            // At most 16: a kept-open window carries the oldest version its
            // steps used, and owners refuse gradients 16 versions behind.
            n.trainAheadWindows = int(k.integer("train_ahead_windows", n.trainAheadWindows, 0, 16));
            n.waitForValues = k.flag("wait_for_values", n.waitForValues);
            n.valuesOnContribution = k.flag("values_on_contribution", n.valuesOnContribution);
            n.localUpdates = k.flag("local_updates", n.localUpdates);
            n.stalenessWeighting = k.flag("staleness_weighting", n.stalenessWeighting);
            n.hubMerges = k.flag("hub_merges", n.hubMerges);
            n.hubPullSeconds = k.number("hub_pull_seconds", n.hubPullSeconds, 0, 3600, true);
            // Absent: one pull period, the settle time before the key existed.
            // At most 30 s: a simulated run stops after a minute without a
            // training step, and its last shards must settle before that.
            n.hubSettleSeconds = k.number("hub_settle_seconds", n.hubPullSeconds, 0, 30);
            n.gossipSteps = int(k.integer("gossip_steps", n.gossipSteps, 1, 100000));
            n.gossipSameRegion = k.number("gossip_same_region", n.gossipSameRegion, 0, 1);
            n.outerOptimizer = k.text("outer_optimizer", n.outerOptimizer, {"nesterov", "average"});
            n.outerLearningRate = k.number("outer_lr", n.outerLearningRate, 0, 10, true);
            n.outerMomentum = k.number("outer_momentum", n.outerMomentum, 0, 0.999);
            n.leaseSeconds = k.number("lease_seconds", n.leaseSeconds, 0, 86400, true);
            n.heartbeatSeconds = k.number("heartbeat_seconds", n.heartbeatSeconds, 0, 86400, true);
            n.confidenceThreshold = k.number("confidence_threshold", n.confidenceThreshold, 0, 1);
            if (n.heartbeatSeconds >= n.leaseSeconds)
                Reader::fail("knobs.heartbeat_seconds", "must be shorter than knobs.lease_seconds, or leases lapse "
                                                        "between heartbeats");
        }
        if (top.has("codecs")) {
            Reader r(top.at("codecs"), "codecs", {"gradients", "values", "center", "value_deltas"});
            auto codec = [&](const char *key, CodecSpec fallback) {
                if (!r.has(key))
                    return fallback;
                const std::string text = r.text(key, "");
                try {
                    return parseCodec(text);
                } catch (const std::invalid_argument &e) {
                    Reader::fail(r.field(key), e.what());
                }
            };
            c.codecs.gradients = codec("gradients", c.codecs.gradients);
            c.codecs.values = codec("values", c.codecs.values);
            c.codecs.center = codec("center", c.codecs.center);
            c.codecs.valueDeltas = r.flag("value_deltas", c.codecs.valueDeltas);
        }
        if (top.has("serving")) {
            Reader s(top.at("serving"), "serving",
                     {"request_rate", "confidence", "release_every_syncs", "timeout_ms", "edge_request_ms",
                      "center_request_ms", "center_full_request_ms", "probe_ms"});
            auto &v = c.serving;
            v.requestRate = s.number("request_rate", v.requestRate, 0, 1e6);
            if (v.requestRate > 0 && v.requestRate < 1e-3)
                Reader::fail("serving.request_rate", "must be 0 (no serving) or at least 0.001 per virtual second");
            v.confidence = s.text("confidence", v.confidence, {"max_softmax", "entropy"});
            v.releaseEverySyncs = int(s.integer("release_every_syncs", v.releaseEverySyncs, 1, 1000000));
            v.timeoutMs = s.number("timeout_ms", v.timeoutMs, 0, 3.6e6, true);
            v.edgeRequestMs = s.number("edge_request_ms", v.edgeRequestMs, 0, 60'000);
            v.centerRequestMs = s.number("center_request_ms", v.centerRequestMs, 0, 60'000);
            v.centerFullRequestMs = s.number("center_full_request_ms", v.centerFullRequestMs, 0, 60'000);
            v.probeMs = s.number("probe_ms", v.probeMs, 0, 3.6e6, true);
        }
        if (top.has("model")) {
            Reader m(top.at("model"), "model", {"batch", "lr", "lr_decay_from", "lr_final"});
            c.batchSize = int(m.integer("batch", c.batchSize, 1, 65536));
            c.learningRate = m.number("lr", c.learningRate, 0, 10, true);
            c.lrDecayFrom = m.number("lr_decay_from", c.lrDecayFrom, 0, 1);
            c.lrFinal = m.number("lr_final", c.lrFinal, 0, 1);
        }
        if (top.has("data")) {
            Reader d(top.at("data"), "data", {"dir", "partition", "dirichlet_alpha"});
            c.dataDir = d.text("dir", c.dataDir);
            c.partition = d.text("partition", c.partition, {"iid", "dirichlet"});
            c.dirichletAlpha = d.number("dirichlet_alpha", c.dirichletAlpha, 0, 1e6, true);
        }
        if (top.has("evaluation")) {
            Reader e(top.at("evaluation"), "evaluation", {"every_seconds", "test_subset"});
            c.evalEverySeconds = e.number("every_seconds", c.evalEverySeconds, 0, 1e9, true);
            c.evalTestSubset = std::size_t(e.integer("test_subset", (long long)c.evalTestSubset, 1, 10000));
        }
        if (top.has("center")) {
            Reader ce(top.at("center"), "center", {"gflops"});
            c.centerGflops = ce.number("gflops", c.centerGflops, 0, 1e9, true);
        }
        if (top.has("links")) {
            Reader l(top.at("links"), "links",
                     {"intra_region", "edge_center", "inter_region", "region_pairs", "region_center",
                      "node_interfaces"});
            if (l.has("intra_region")) c.intraRegion = readLink(l.at("intra_region"), "links.intra_region", c.intraRegion);
            if (l.has("edge_center")) c.edgeCenter = readLink(l.at("edge_center"), "links.edge_center", c.edgeCenter);
            if (l.has("inter_region")) c.interRegion = readLink(l.at("inter_region"), "links.inter_region", c.interRegion);
            if (l.has("node_interfaces")) {
                Reader n(l.at("node_interfaces"), "links.node_interfaces", {"edge_mbps", "center_mbps"});
                // Written, it means to model interfaces: an empty object
                // would silently keep per-pair lines.
                if (!n.has("edge_mbps") && !n.has("center_mbps"))
                    Reader::fail("links.node_interfaces", "give edge_mbps, center_mbps or both");
                c.edgeInterfaceBitsPerSecond = n.number("edge_mbps", 0, 0, 1e7, true) * 1e6;
                c.centerInterfaceBitsPerSecond = n.number("center_mbps", 0, 0, 1e7, true) * 1e6;
            }
        }
        if (top.has("planner")) {
            Reader p(top.at("planner"), "planner", {"min_share", "max_share", "on_bound"});
            auto &b = c.planner;
            b.minShare = p.number("min_share", b.minShare, 0, 1);
            b.maxShare = p.number("max_share", b.maxShare, 0, 1, true);
            b.onBound = p.text("on_bound", b.onBound, {"confirm", "refuse", "allow"});
            if (b.minShare >= b.maxShare)
                Reader::fail("planner.min_share", "must be below planner.max_share");
        }
        if (!top.has("regions") || !top.at("regions").is_array() || top.at("regions").empty())
            Reader::fail("regions", "must be a non-empty array of regions");
        std::set<std::string> names{"center"};
        const json &regions = top.at("regions");
        for (std::size_t i = 0; i < regions.size(); ++i) {
            const std::string path = "regions[" + std::to_string(i) + "]";
            Reader rr(regions[i], path, {"name", "edges"});
            RegionConfig region;
            region.name = rr.text("name", "");
            if (region.name.empty())
                Reader::fail(path + ".name", "is required");
            if (!names.insert(region.name).second)
                Reader::fail(path + ".name", "\"" + region.name + "\" is used twice (or is reserved)");
            if (!rr.has("edges") || !rr.at("edges").is_array() || rr.at("edges").empty())
                Reader::fail(path + ".edges", "must be a non-empty array of edges");
            const json &edges = rr.at("edges");
            for (std::size_t j = 0; j < edges.size(); ++j) {
                const std::string epath = path + ".edges[" + std::to_string(j) + "]";
                Reader er(edges[j], epath, {"name", "gflops", "last_mile", "local_updates"});
                EdgeConfig edge;
                edge.name = er.text("name", region.name + "-" + std::to_string(j));
                if (!names.insert(edge.name).second)
                    Reader::fail(epath + ".name", "\"" + edge.name + "\" is used twice (or is reserved)");
                edge.gflops = er.number("gflops", edge.gflops, 0, 1e9, true);
                if (er.has("last_mile"))
                    edge.lastMile = readLastMile(er.at("last_mile"), epath + ".last_mile");
                edge.localUpdates = er.flag("local_updates", edge.localUpdates);
                region.edges.push_back(edge);
            }
            c.regions.push_back(std::move(region));
        }
        if (top.has("links"))
            readRegionLinks(top.at("links"), c);
    } catch (const ConfigError &e) {
        throw ConfigError(source, e.what());
    }
    return c;
}

ClusterConfig loadClusterConfig(const std::string &given) {
    const std::string path = resolveConfigPath(given);
    std::ifstream in(path);
    if (!in)
        throw ConfigError(path, "cannot open config file");
    std::stringstream text;
    text << in.rdbuf();
    return parseClusterConfig(text.str(), path);
}

} // namespace synaptic::engine
