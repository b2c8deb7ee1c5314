#include "embedding_edge.h"

#include <ATen/ops/_unique.h>
#include <ATen/ops/embedding_bag.h>
#include <ATen/ops/from_blob.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/functional/loss.h>
#include <torch/types.h>

namespace synaptic::engine {

EmbeddingEdge::EmbeddingEdge(const LangIdShape &shape, const RowShardMap &table, int classifierShard, int shardCount,
                             const at::Tensor &checkpoint, const at::Tensor &initialClassifier)
    : m_shape(shape), m_table(table), m_classifierShard(classifierShard), m_rows(checkpoint, m_table),
      m_classifierRows(initialClassifier.clone()),
      // The classifier is small and every batch touches all of it: held whole.
      m_classifier(0, m_classifierRows), m_seen(std::size_t(shardCount)) {}

EmbeddingEdge::Compact EmbeddingEdge::compact(const TextBatch &batch, bool hold) {
    Compact c;
    auto [rows, inverse] = at::_unique(batch.indices, /*sorted=*/true, /*return_inverse=*/true);
    c.rows = rows;
    c.indices = inverse;
    c.values = m_rows.gather(rows, hold);
    return c;
}

at::Tensor EmbeddingEdge::forward(const Compact &c, const TextBatch &batch, const at::Tensor &weight,
                                  const at::Tensor &bias) {
    // LangIdNet's forward on the compact table: an EmbeddingBag mean, then the linear layer.
    const auto bags = std::get<0>(at::embedding_bag(c.values, c.indices, batch.offsets, /*scale_grad_by_freq=*/false,
                                                    /*mode (mean)=*/1));
    return torch::nn::functional::linear(bags, weight, bias);
}

LangIdGradients EmbeddingEdge::gradients(const TextBatch &batch) {
    auto c = compact(batch, /*hold=*/true);
    const auto dim = m_shape.dim;
    auto table = c.values.requires_grad_(true);
    auto weight = m_classifierRows.narrow(1, 0, dim).clone().requires_grad_(true);
    auto bias = m_classifierRows.select(1, dim).clone().requires_grad_(true);
    const auto loss = torch::nn::functional::cross_entropy(forward(c, batch, weight, bias), batch.labels);
    loss.backward();
    LangIdGradients g;
    g.loss = loss.item<double>();
    g.rows = c.rows;
    g.rowGrads = table.grad();
    g.classifierGrad = torch::cat({weight.grad().flatten(), bias.grad().flatten()});
    return g;
}

at::Tensor EmbeddingEdge::logits(const TextBatch &batch) {
    torch::NoGradGuard noGrad;
    const auto c = compact(batch, /*hold=*/false);
    const auto dim = m_shape.dim;
    return forward(c, batch, m_classifierRows.narrow(1, 0, dim), m_classifierRows.select(1, dim));
}

void EmbeddingEdge::addBatch(const at::Tensor &rows, const at::Tensor &rowGrads, const at::Tensor &classifierGrad) {
    const auto r = rows.contiguous();
    const auto *p = r.data_ptr<std::int64_t>();
    m_windowRows.insert(m_windowRows.end(), p, p + r.numel());
    m_windowGrads.push_back(rowGrads);
    const auto dim = m_shape.dim;
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
        // The window's mean gradient: a longer window is not a larger step.
        auto summed = torch::sparse_coo_tensor(index, grads / double(m_windowBatches), {m_table.rows(), m_shape.dim})
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
    const std::size_t taken =
        shard == m_classifierShard ? m_classifier.acceptValues(values) : m_rows.accept(values);
    if (to > seen.contiguous) {
        auto &range = seen.ahead[std::max(from, seen.contiguous + 1)];
        range = std::max(range, to);
    }
    // Fold every range that now touches the contiguous prefix.
    while (!seen.ahead.empty() && seen.ahead.begin()->first <= seen.contiguous + 1) {
        seen.contiguous = std::max(seen.contiguous, seen.ahead.begin()->second);
        seen.ahead.erase(seen.ahead.begin());
    }
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
    return m_rows.rowCount() > 0 ? double(m_rows.heldCount()) / double(m_rows.rowCount()) : 0.0;
}

double EmbeddingEdge::heldShare(int shard) const {
    if (shard == m_classifierShard)
        return 0.0;
    const auto rows = m_rows.rowCount(shard);
    return rows > 0 ? double(m_rows.heldCount(shard)) / double(rows) : 0.0;
}

} // namespace synaptic::engine
