#include "embedding_owner.h"

#include <algorithm>

#include <ATen/ops/from_blob.h>
#include <torch/types.h>

namespace synaptic::engine {

EmbeddingOwner::EmbeddingOwner(int shard, int region, int regions, std::int64_t begin, at::Tensor values)
    : m_shard(shard), m_region(region), m_rows(begin, std::move(values)),
      m_frontier(std::size_t(regions), 0), m_changedAt(m_rows.rowCount(), 0) {}

void EmbeddingOwner::addGradients(const std::vector<std::int64_t> &rows, const at::Tensor &grads) {
    m_pendingRows.insert(m_pendingRows.end(), rows.begin(), rows.end());
    m_pendingGrads.push_back(grads);
}

void EmbeddingOwner::notePublished(const std::vector<std::int64_t> &rows) {
    ++m_publishSeq;
    for (auto r : rows)
        m_changedAt[std::size_t(r - m_rows.begin())] = m_publishSeq;
}

EmbeddingOwner::Prepared EmbeddingOwner::prepare(double lr, int contributors) {
    torch::NoGradGuard noGrad;
    // Sum the window's rows (a row several edges touched appears several times).
    auto index = torch::from_blob(m_pendingRows.data(), {1, std::int64_t(m_pendingRows.size())}, torch::kInt64).clone();
    auto grads = torch::cat(m_pendingGrads);
    auto summed = torch::sparse_coo_tensor(index, grads, {m_rows.end(), grads.size(1)}).coalesce();
    m_pendingRows.clear();
    m_pendingGrads.clear();
    const auto idx = summed.indices().select(0, 0).contiguous();
    Prepared p;
    p.change.shard = m_shard;
    p.change.rows.assign(idx.data_ptr<std::int64_t>(), idx.data_ptr<std::int64_t>() + idx.numel());
    p.change.versions.assign(p.change.rows.size(), 0);
    // Plain SGD on the region's mean gradient.
    p.change.values = summed.values() * (-lr / double(std::max(1, contributors)));
    p.seq = ++m_ownSeq;
    return p;
}

EmbeddingOwner::Merge EmbeddingOwner::applyOwn(const Prepared &prepared) {
    Merge m;
    m.change = m_rows.addChange(prepared.change);
    m.seq = prepared.seq;
    m_frontier[std::size_t(m_region)] = m.seq;
    m_unreported.emplace_back(m.seq, m.change);
    notePublished(m.change.rows);
    m.publish = m_rows.snapshot(m.change.rows, m_shard);
    m.publishSeq = m_publishSeq;
    return m;
}

EmbeddingOwner::Merge EmbeddingOwner::merge(double lr, int contributors) { return applyOwn(prepare(lr, contributors)); }

EmbeddingOwner::Applied EmbeddingOwner::applyForeign(int origin, std::uint64_t to, const RowDelta &change) {
    m_rows.addChange(change);
    m_frontier[std::size_t(origin)] = to;
    notePublished(change.rows);
    return {m_rows.snapshot(change.rows, m_shard), m_publishSeq};
}

std::vector<EmbeddingOwner::Applied> EmbeddingOwner::receiveChange(int origin, std::uint64_t from, std::uint64_t to,
                                                                   const RowDelta &change) {
    std::vector<Applied> out;
    auto &applied = m_frontier[std::size_t(origin)];
    if (origin == m_region || to <= applied)
        return out; // a duplicate: the hot path and the center both delivered it
    if (from <= applied) {
        ++m_overlapsDropped;
        return out;
    }
    if (from > applied + 1) {
        // The widest change starting here wins (a coalesced one covers more
        // than the center's single change with the same start).
        const auto it = m_waiting.find({origin, from});
        if (it == m_waiting.end() || it->second.to < to)
            m_waiting.insert_or_assign({origin, from}, Waiting{to, change});
        return out;
    }
    out.push_back(applyForeign(origin, to, change));
    for (;;) {
        // Whatever waits for this origin now at or below the frontier came twice
        // or overlaps; the one starting right after it applies.
        auto it = m_waiting.lower_bound({origin, 0});
        while (it != m_waiting.end() && it->first.first == origin && it->first.second <= applied) {
            if (it->second.to > applied)
                ++m_overlapsDropped;
            it = m_waiting.erase(it);
        }
        if (it == m_waiting.end() || it->first.first != origin || it->first.second != applied + 1)
            break;
        out.push_back(applyForeign(origin, it->second.to, it->second.change));
        m_waiting.erase(it);
    }
    return out;
}

void EmbeddingOwner::acknowledge(std::uint64_t seq) {
    m_unreported.erase(std::remove_if(m_unreported.begin(), m_unreported.end(),
                                      [seq](const auto &c) { return c.first <= seq; }),
                       m_unreported.end());
}

std::pair<RowDelta, std::uint64_t> EmbeddingOwner::catchUp(std::uint64_t since) const {
    std::vector<std::int64_t> rows;
    for (std::size_t i = 0; i < m_changedAt.size(); ++i)
        if (m_changedAt[i] > since)
            rows.push_back(m_rows.begin() + std::int64_t(i));
    return {m_rows.snapshot(rows, m_shard), m_publishSeq};
}

} // namespace synaptic::engine
