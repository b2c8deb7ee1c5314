#include "embedding_edge.h"

#include <ATen/ops/from_blob.h>
#include <torch/types.h>

namespace synaptic::engine {

EmbeddingEdge::EmbeddingEdge(const LangIdShape &shape, const RowShardMap &table, int classifierShard, int shardCount,
                             const at::Tensor &initialTable, const at::Tensor &initialClassifier)
    : m_table(table), m_classifierShard(classifierShard), m_model(shape, /*sparse=*/true) {
    torch::NoGradGuard noGrad;
    m_model->embedding->weight.copy_(initialTable);
    m_classifierRows = initialClassifier.clone();
    syncClassifier();
    m_views.resize(std::size_t(shardCount));
    const auto weights = m_model->embedding->weight.detach();
    for (std::size_t i = 0; i < m_table.shards().size(); ++i) {
        const auto begin = m_table.beginOf(i);
        m_views[std::size_t(m_table.shards()[i])] = std::make_unique<VersionedRows>(
            begin, weights.narrow(0, begin, m_table.endOf(i) - begin), /*holdsAll=*/false);
    }
    // The classifier is small and every batch touches all of it: held whole.
    m_views[std::size_t(classifierShard)] = std::make_unique<VersionedRows>(0, m_classifierRows, /*holdsAll=*/true);
    m_seen.resize(m_views.size());
}

void EmbeddingEdge::syncClassifier() {
    torch::NoGradGuard noGrad;
    const auto dim = m_model->classifier->weight.size(1);
    m_model->classifier->weight.copy_(m_classifierRows.narrow(1, 0, dim));
    m_model->classifier->bias.copy_(m_classifierRows.select(1, dim));
}

void EmbeddingEdge::addBatch(const at::Tensor &rows, const at::Tensor &rowGrads, const at::Tensor &classifierGrad) {
    const auto r = rows.contiguous();
    const auto *p = r.data_ptr<std::int64_t>();
    m_windowRows.insert(m_windowRows.end(), p, p + r.numel());
    m_windowGrads.push_back(rowGrads);
    // What its own data touches, an edge holds (the initial values every copy
    // starts from, then what the owner publishes).
    for (std::int64_t i = 0; i < r.numel(); ++i)
        m_views[std::size_t(m_table.shardOf(p[i]))]->markHeld(p[i]);
    const auto dim = m_model->classifier->weight.size(1);
    const auto g = classifierGrad.view({-1});
    const auto classes = m_classifierRows.size(0);
    const auto rowsForm = torch::cat({g.narrow(0, 0, classes * dim).view({classes, dim}),
                                      g.narrow(0, classes * dim, classes).view({classes, 1})},
                                     1);
    m_windowClassifier = m_windowClassifier.defined() ? m_windowClassifier + rowsForm : rowsForm;
    ++m_windowBatches;
}

std::vector<EmbeddingEdge::ShardWindow> EmbeddingEdge::takeWindow() {
    std::vector<ShardWindow> out;
    if (!m_windowRows.empty()) {
        torch::NoGradGuard noGrad;
        const auto n = std::int64_t(m_windowRows.size());
        auto index = torch::from_blob(m_windowRows.data(), {1, n}, torch::kInt64).clone();
        const auto grads = torch::cat(m_windowGrads);
        const auto weights = m_model->embedding->weight;
        // The window's mean gradient: a longer window is not a larger step.
        auto summed = torch::sparse_coo_tensor(index, grads / double(m_windowBatches),
                                               {weights.size(0), weights.size(1)})
                          .coalesce();
        for (auto &part : splitByShard(summed.indices().select(0, 0), summed.values(), m_table))
            out.push_back({part.shard, std::move(part.rows), part.grads});
    }
    if (m_windowClassifier.defined()) {
        std::vector<std::int64_t> all(std::size_t(m_windowClassifier.size(0)));
        for (std::size_t i = 0; i < all.size(); ++i)
            all[i] = std::int64_t(i);
        out.push_back({m_classifierShard, std::move(all), m_windowClassifier / double(m_windowBatches)});
    }
    m_windowRows.clear();
    m_windowGrads.clear();
    m_windowClassifier = at::Tensor();
    m_windowBatches = 0;
    return out;
}

std::size_t EmbeddingEdge::receivePublish(int shard, std::uint64_t from, std::uint64_t to, std::uint64_t latest,
                                          const RowDelta &values) {
    auto &seen = m_seen[std::size_t(shard)];
    seen.latest = std::max({seen.latest, latest, to});
    const std::size_t taken = m_views[std::size_t(shard)]->acceptValues(values);
    if (to > seen.contiguous) {
        auto &range = seen.ahead[std::max(from, seen.contiguous + 1)];
        range = std::max(range, to);
    }
    // Fold every range that now touches the contiguous prefix.
    while (!seen.ahead.empty() && seen.ahead.begin()->first <= seen.contiguous + 1) {
        seen.contiguous = std::max(seen.contiguous, seen.ahead.begin()->second);
        seen.ahead.erase(seen.ahead.begin());
    }
    if (shard == m_classifierShard && taken > 0)
        syncClassifier();
    return taken;
}

std::uint64_t EmbeddingEdge::newestSeen(int shard) const {
    const auto &seen = m_seen[std::size_t(shard)];
    std::uint64_t newest = std::max(seen.contiguous, seen.latest);
    for (const auto &[from, to] : seen.ahead)
        newest = std::max(newest, to);
    return newest;
}

std::uint64_t EmbeddingEdge::missed(int shard) const {
    const auto &seen = m_seen[std::size_t(shard)];
    // Count the numbers between the prefix and the newest not covered by a range.
    std::uint64_t covered = seen.contiguous;
    std::uint64_t missing = 0;
    for (const auto &[from, to] : seen.ahead) {
        if (from > covered + 1)
            missing += from - covered - 1;
        covered = std::max(covered, to);
    }
    return missing + (seen.latest > covered ? seen.latest - covered : 0);
}

double EmbeddingEdge::heldShare() const {
    std::size_t held = 0;
    std::size_t rows = 0;
    for (int id : m_table.shards()) {
        held += m_views[std::size_t(id)]->heldCount();
        rows += m_views[std::size_t(id)]->rowCount();
    }
    return rows > 0 ? double(held) / double(rows) : 0.0;
}

} // namespace synaptic::engine
