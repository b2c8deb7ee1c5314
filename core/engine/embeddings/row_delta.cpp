#include "row_delta.h"

#include "core/engine/sim/wire_size.h"

#include <ATen/ops/from_blob.h>
#include <torch/types.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace synaptic::engine {

namespace {
at::Tensor localIndexTensor(const std::vector<std::int64_t> &rows, std::int64_t offset, const at::Device &device) {
    std::vector<std::int64_t> local(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        local[i] = rows[i] - offset;
    return torch::from_blob(local.data(), {std::int64_t(local.size())}, torch::kInt64).clone().to(device);
}
} // namespace

std::uint64_t RowDelta::keyBytes() const {
    std::uint64_t bytes = 16; // a shard id and a row count ahead of the rows
    std::int64_t previous = 0;
    for (auto r : rows) {
        const std::int64_t gap = r - previous;
        bytes += varintBytes((std::uint64_t(gap) << 1) ^ std::uint64_t(gap >> 63)); // zigzag
        previous = r;
    }
    for (auto v : versions)
        bytes += varintBytes(v);
    return bytes;
}

std::uint64_t RowDelta::wireBytes() const {
    const std::uint64_t values4 = values.defined() ? 4 * std::uint64_t(values.numel()) : 0;
    return keyBytes() + values4;
}

std::string rowValuesCodecRefusal(const CodecSpec &spec) {
    if (spec.codec == Codec::TopK)
        return "top-k cannot carry embedding row values (a publish sends whole rows, not a delta): use fp32, fp16 "
               "or int8";
    if (spec.zstd)
        return "the zstd stage is not built for embedding row values (they are charged per value): use fp32, fp16 "
               "or int8";
    return "";
}

std::uint64_t codeRowValues(RowDelta &delta, const CodecSpec &spec) {
    if (const std::string why = rowValuesCodecRefusal(spec); !why.empty())
        throw std::invalid_argument("codecs.values: " + why);
    if (spec.codec == Codec::Fp32 || !delta.values.defined() || delta.values.numel() == 0)
        return delta.wireBytes();
    if (spec.codec == Codec::Fp16) {
        const auto half = delta.values.to(torch::kHalf);
        delta.values = half.to(torch::kFloat);
        return delta.keyBytes() + 2 * std::uint64_t(half.numel());
    }
    // int8 with one scale per row, not per 256 values: a chunk would span
    // several unrelated rows, and a new word's small row would share the
    // scale of a large one. Symmetric: the row's largest magnitude maps to 127.
    torch::NoGradGuard noGrad;
    const auto values = delta.values.reshape({delta.values.size(0), -1});
    const auto scales = std::get<0>(values.abs().max(1, /*keepdim=*/true)).div(127.0);
    const auto safe = torch::where(scales > 0, scales, torch::ones_like(scales));
    const auto q = values.div(safe).round().clamp(-127, 127).to(torch::kChar);
    delta.values = q.to(torch::kFloat).mul(safe).reshape(delta.values.sizes());
    return delta.keyBytes() + std::uint64_t(q.numel()) + 4 * std::uint64_t(scales.numel());
}

double bytesPerValue(const CodecSpec &spec, std::int64_t rowWidth) {
    switch (spec.codec) {
    case Codec::Fp16: return 2.0;
    case Codec::Int8: return 1.0 + 4.0 / double(std::max<std::int64_t>(1, rowWidth));
    default: return 4.0;
    }
}

VersionedRows::VersionedRows(std::int64_t begin, at::Tensor values)
    : m_begin(begin), m_values(std::move(values)), m_versions(std::size_t(m_values.size(0)), 0) {}

std::size_t VersionedRows::local(std::int64_t row) const {
    if (row < m_begin || row >= end())
        throw std::out_of_range("row " + std::to_string(row) + " is outside shard rows [" + std::to_string(m_begin) +
                                ", " + std::to_string(end()) + ")");
    return std::size_t(row - m_begin);
}

RowDelta VersionedRows::applyGradients(const std::vector<std::int64_t> &rows, const at::Tensor &grads, double lr,
                                       int shard) {
    torch::NoGradGuard noGrad;
    RowDelta change;
    change.shard = shard;
    change.rows = rows;
    for (auto r : rows)
        local(r); // every row is checked before any changes: no half-applied update
    change.values = grads * (-lr);
    const auto index = localIndexTensor(rows, m_begin, m_values.device());
    m_values.index_add_(0, index, change.values.to(m_values.device()));
    for (auto r : rows) {
        const auto i = local(r);
        change.versions.push_back(++m_versions[i]);
    }
    return change;
}

RowDelta VersionedRows::addChange(const RowDelta &change) {
    torch::NoGradGuard noGrad;
    RowDelta applied;
    applied.shard = change.shard;
    applied.rows = change.rows;
    applied.values = change.values;
    for (auto r : change.rows)
        local(r);
    m_values.index_add_(0, localIndexTensor(change.rows, m_begin, m_values.device()), change.values.to(m_values.device()));
    for (auto r : change.rows) {
        const auto i = local(r);
        applied.versions.push_back(++m_versions[i]);
    }
    return applied;
}

RowDelta VersionedRows::snapshot(const std::vector<std::int64_t> &rows, int shard) const {
    RowDelta out;
    out.shard = shard;
    out.rows = rows;
    for (auto r : rows)
        out.versions.push_back(m_versions[local(r)]);
    out.values = m_values.index_select(0, localIndexTensor(rows, m_begin, m_values.device())).clone();
    return out;
}

std::size_t VersionedRows::acceptValues(const RowDelta &published) {
    torch::NoGradGuard noGrad;
    std::vector<std::int64_t> take;      // positions in `published`
    std::vector<std::int64_t> takeLocal; // rows here
    for (std::size_t k = 0; k < published.rows.size(); ++k) {
        const auto i = local(published.rows[k]);
        if (published.versions[k] <= m_versions[i])
            continue; // never back; a repeat changes nothing
        m_versions[i] = published.versions[k];
        take.push_back(std::int64_t(k));
        takeLocal.push_back(std::int64_t(i));
    }
    if (take.empty())
        return 0;
    const auto device = m_values.device();
    const auto from = torch::from_blob(take.data(), {std::int64_t(take.size())}, torch::kInt64).clone();
    const auto to = torch::from_blob(takeLocal.data(), {std::int64_t(takeLocal.size())}, torch::kInt64).clone().to(device);
    m_values.index_copy_(0, to, published.values.index_select(0, from.to(published.values.device())).to(device));
    return take.size();
}

RowShardMap::RowShardMap(const ShardPlan &plan, const std::string &layer) {
    for (const auto &shard : plan.shards) {
        if (shard.layer != layer)
            continue;
        if (!m_ends.empty() && shard.rowBegin != m_ends.back())
            throw std::invalid_argument("shards of layer '" + layer + "' are not contiguous at row " +
                                        std::to_string(shard.rowBegin));
        m_ids.push_back(shard.id);
        m_begins.push_back(shard.rowBegin);
        m_ends.push_back(shard.rowEnd);
    }
    if (m_ids.empty())
        throw std::invalid_argument("the plan has no shard of layer '" + layer + "'");
}

int RowShardMap::shardOf(std::int64_t row) const {
    const auto it = std::upper_bound(m_begins.begin(), m_begins.end(), row);
    const auto i = std::size_t(it - m_begins.begin());
    if (i == 0 || row >= m_ends[i - 1])
        throw std::out_of_range("row " + std::to_string(row) + " is outside the table's " + std::to_string(rows()) +
                                " rows");
    return m_ids[i - 1];
}

std::vector<ShardRows> splitByShard(const at::Tensor &rows, const at::Tensor &grads, const RowShardMap &map) {
    std::vector<ShardRows> out;
    const auto cpuRows = rows.to(torch::kCPU).contiguous();
    const auto *r = cpuRows.data_ptr<std::int64_t>();
    const std::int64_t n = cpuRows.numel();
    std::int64_t from = 0;
    while (from < n) {
        const int shard = map.shardOf(r[from]);
        std::int64_t to = from;
        ShardRows part{shard, {}, {}};
        while (to < n && map.shardOf(r[to]) == shard)
            part.rows.push_back(r[to++]);
        part.grads = grads.narrow(0, from, to - from);
        out.push_back(std::move(part));
        from = to;
    }
    return out;
}

} // namespace synaptic::engine
