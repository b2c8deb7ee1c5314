#include "hot_update_report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace synaptic::engine {

nlohmann::json hotUpdateJson(const HotUpdateResult &r) {
    nlohmann::json evals = nlohmann::json::array();
    for (const auto &p : r.evals)
        evals.push_back({{"t", p.time}, {"new_language", p.newLanguage}, {"overall", p.overall}});
    return {{"hot_updates", r.hotUpdates},
            {"regions", r.regions},
            {"edges", r.edges},
            {"window_s", r.windowSeconds},
            {"center_sync_period_s", r.centerSyncPeriod},
            {"rows_tracked", r.rowsTracked},
            {"rows_unresolved", r.rowsUnresolved},
            {"presence_p50_s", r.presenceP50},
            {"presence_p99_s", r.presenceP99},
            {"presence_max_s", r.presenceMax},
            {"presence_p99_s_without_slow_edges", r.presenceP99WithoutSlowEdges},
            {"slow_edges", r.slowEdges},
            {"presence_mean_s_by_edge", r.presenceMeanByEdge},
            {"bytes",
             {{"gradients", r.gradientBytes},
              {"publishes", r.publishBytes},
              {"owner_to_owner", r.ownerToOwnerBytes},
              {"center", r.centerBytes},
              {"catch_up", r.catchUpBytes},
              {"sparse_embedding", r.sparseEmbeddingBytes},
              {"whole_shard_embedding", r.wholeShardEmbeddingBytes}}},
            {"caught_up_after_s", r.caughtUpAfter},
            {"publishes_lost", r.publishesLost},
            {"publishes_split", r.publishesSplit},
            {"catch_ups", r.catchUps},
            {"steps_deferred", r.stepsDeferred},
            {"lag_violations", r.lagViolations},
            {"max_lag_seen", r.maxLagSeen},
            {"stale_rows_ignored", r.staleRowsIgnored},
            {"overlaps_dropped", r.overlapsDropped},
            {"held_share_mean", r.heldShareMean},
            {"held_share_min", r.heldShareMin},
            {"edge_table_bytes_mean", r.edgeTableBytesMean},
            {"edge_table_bytes_max", r.edgeTableBytesMax},
            {"dense_table_bytes", r.denseTableBytes},
            {"plan",
             {{"embedding_shards_per_region", r.shardsPerRegion},
              {"largest_shard_share", r.shardShare},
              {"edge_share_min", r.edgeShareMin},
              {"edge_share_max", r.edgeShareMax},
              {"problems", r.planProblems}}},
            {"steps", r.steps},
            {"samples", r.samples},
            {"virtual_s", r.virtualSeconds},
            {"stopped_early", r.stopped},
            {"values_codec", r.valuesCodec},
            {"lag_bound_changes", r.lagBoundChanges},
            {"wall_s", r.wallSeconds},
            {"evals", evals}};
}

std::string hotUpdateSummary(const std::string &name, const HotUpdateResult &r) {
    char buf[1024];
    std::string out = r.stopped ? "  " + name + ": stopped early, at " + std::to_string(r.virtualSeconds) + " s\n" : "";
    std::snprintf(buf, sizeof buf,
                  "  %-18s new rows at every edge: p50 %.3f s, p99 %.3f s, max %.3f s (%zu rows, %zu not everywhere "
                  "by the end); p99 without the %zu edge(s) behind a slow last mile %.3f s\n",
                  name.c_str(), r.presenceP50, r.presenceP99, r.presenceMax, r.rowsTracked, r.rowsUnresolved,
                  r.slowEdges.size(), r.presenceP99WithoutSlowEdges);
    out += buf;
    std::snprintf(buf, sizeof buf,
                  "  %-18s MB: gradients %.1f, publishes %.1f (row values %s), owner-to-owner %.1f, center %.1f, "
                  "catch-up %.2f; embedding messages %.1fx fewer bytes than whole shards\n",
                  "", r.gradientBytes / 1e6, r.publishBytes / 1e6, r.valuesCodec.c_str(), r.ownerToOwnerBytes / 1e6, r.centerBytes / 1e6,
                  r.catchUpBytes / 1e6,
                  r.sparseEmbeddingBytes > 0 ? double(r.wholeShardEmbeddingBytes) / double(r.sparseEmbeddingBytes) : 0.0);
    out += buf;
    const auto last = r.evals.empty() ? HotUpdateResult::EvalPoint{} : r.evals.back();
    std::string accuracy;
    for (std::size_t q = 0; q < last.newLanguage.size() && q < r.regions.size(); ++q) {
        std::snprintf(buf, sizeof buf, "%s%s %.3f/%.3f", q ? ", " : "", r.regions[q].c_str(), last.newLanguage[q],
                      last.overall[q]);
        accuracy += buf;
    }
    std::snprintf(buf, sizeof buf,
                  "  %-18s at the end, new language / all languages: %s; caught up after %.2f s\n"
                  "  %-18s lag guard: %llu publishes lost, %llu catch-ups, %llu steps deferred, max lag %llu, "
                  "%llu violations; edges hold %.1f %% of the table's rows in %.1f MB each (a dense copy: %.1f MB); "
                  "%llu steps, %.0f s wall\n",
                  "", accuracy.c_str(), r.caughtUpAfter, "", (unsigned long long)r.publishesLost,
                  (unsigned long long)r.catchUps, (unsigned long long)r.stepsDeferred,
                  (unsigned long long)r.maxLagSeen, (unsigned long long)r.lagViolations, 100.0 * r.heldShareMean,
                  r.edgeTableBytesMean / 1e6, r.denseTableBytes / 1e6, (unsigned long long)r.steps, r.wallSeconds);
    out += buf;
    return out;
}

double finalGapPoints(const HotUpdateResult &r, int originRegion) {
    if (r.evals.empty())
        return 100.0;
    const auto &last = r.evals.back();
    double gap = 0;
    for (std::size_t q = 0; q < last.newLanguage.size(); ++q)
        gap = std::max(gap, (last.newLanguage[std::size_t(originRegion)] - last.newLanguage[q]) * 100.0);
    return gap;
}

} // namespace synaptic::engine
