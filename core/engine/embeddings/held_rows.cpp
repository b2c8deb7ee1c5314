#include "held_rows.h"

#include <ATen/ops/from_blob.h>
#include <torch/types.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace synaptic::engine {

namespace {
at::Tensor indexTensor(const std::vector<std::int64_t> &values, const at::Device &device) {
    return torch::from_blob(const_cast<std::int64_t *>(values.data()), {std::int64_t(values.size())}, torch::kInt64)
        .clone()
        .to(device);
}
} // namespace

HeldRows::HeldRows(at::Tensor base, const RowShardMap &map)
    : m_base(std::move(base)), m_map(map), m_slot(std::size_t(m_base.size(0)), -1) {
    if (m_map.rows() != m_base.size(0))
        throw std::invalid_argument("held rows: the checkpoint has " + std::to_string(m_base.size(0)) +
                                    " rows, the table's shards cover " + std::to_string(m_map.rows()));
    int largest = 0;
    for (int id : m_map.shards())
        largest = std::max(largest, id);
    m_heldPerShard.assign(std::size_t(largest) + 1, 0);
    m_rowsPerShard.assign(std::size_t(largest) + 1, 0);
    for (std::size_t i = 0; i < m_map.shards().size(); ++i)
        m_rowsPerShard[std::size_t(m_map.shards()[i])] = m_map.endOf(i) - m_map.beginOf(i);
    m_values = torch::empty({0, m_base.size(1)}, m_base.options());
}

std::size_t HeldRows::index(std::int64_t row) const {
    if (row < 0 || row >= std::int64_t(m_slot.size()))
        throw std::out_of_range("row " + std::to_string(row) + " is outside the table's " +
                                std::to_string(m_slot.size()) + " rows");
    return std::size_t(row);
}

std::uint64_t HeldRows::version(std::int64_t row) const {
    const auto slot = m_slot[index(row)];
    return slot < 0 ? 0 : m_versions[std::size_t(slot)];
}

void HeldRows::reserve(std::size_t rows) {
    const auto capacity = std::size_t(m_values.size(0));
    if (rows <= capacity)
        return;
    // Doubling keeps the copies amortised; the first block is small because a
    // probe edge may hold little.
    const auto grown = std::max<std::size_t>({rows, 2 * capacity, 1024});
    auto values = torch::empty({std::int64_t(grown), m_base.size(1)}, m_base.options());
    if (m_used > 0)
        values.narrow(0, 0, std::int64_t(m_used)).copy_(m_values.narrow(0, 0, std::int64_t(m_used)));
    m_values = values;
}

void HeldRows::hold(const std::vector<std::int64_t> &rows) {
    std::vector<std::int64_t> fresh;
    for (auto r : rows)
        if (m_slot[index(r)] < 0)
            fresh.push_back(r);
    if (fresh.empty())
        return;
    std::sort(fresh.begin(), fresh.end());
    fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
    reserve(m_used + fresh.size());
    torch::NoGradGuard noGrad;
    m_values.narrow(0, std::int64_t(m_used), std::int64_t(fresh.size()))
        .copy_(m_base.index_select(0, indexTensor(fresh, m_base.device())));
    for (auto r : fresh) {
        m_slot[std::size_t(r)] = std::int32_t(m_used++);
        m_versions.push_back(0);
        ++m_heldPerShard[std::size_t(m_map.shardOf(r))];
    }
}

at::Tensor HeldRows::gather(const at::Tensor &rows, bool hold) {
    torch::NoGradGuard noGrad;
    const auto cpu = rows.to(torch::kCPU).contiguous();
    const auto *p = cpu.data_ptr<std::int64_t>();
    const std::vector<std::int64_t> asked(p, p + cpu.numel());
    if (hold)
        this->hold(asked);
    // Held rows from the store, the rest from the checkpoint. A training
    // batch's rows were all just held: one gather from the store.
    std::vector<std::int64_t> at;   // positions in `asked` that are held
    std::vector<std::int64_t> from; // their slots
    for (std::size_t k = 0; k < asked.size(); ++k)
        if (const auto slot = m_slot[index(asked[k])]; slot >= 0) {
            at.push_back(std::int64_t(k));
            from.push_back(slot);
        }
    const auto device = m_base.device();
    if (at.size() == asked.size())
        return m_values.index_select(0, indexTensor(from, device));
    auto out = m_base.index_select(0, indexTensor(asked, device));
    if (!at.empty())
        out.index_copy_(0, indexTensor(at, device), m_values.index_select(0, indexTensor(from, device)));
    return out;
}

std::size_t HeldRows::accept(const RowDelta &published) {
    torch::NoGradGuard noGrad;
    const auto n = published.rows.size();
    const auto &v = published.values;
    if (published.versions.size() != n || !v.defined() || v.dim() != 2 || v.size(0) != std::int64_t(n) ||
        v.size(1) != dim() || v.scalar_type() != m_values.scalar_type())
        throw std::invalid_argument("held rows: a delta of " + std::to_string(n) + " rows carries " +
                                    std::to_string(published.versions.size()) + " versions and values " +
                                    (v.defined() ? v.toString() + " " + c10::str(v.sizes()) : std::string("none")) +
                                    " (expected " + std::to_string(n) + " versions and [" + std::to_string(n) +
                                    ", " + std::to_string(dim()) + "] values of the table's element type)");
    // Per row, the newest entry of the delta that is newer than what is held.
    std::map<std::int64_t, std::size_t> newest; // row -> position in `published`
    for (std::size_t k = 0; k < n; ++k) {
        const auto row = published.rows[k];
        const auto slot = m_slot[index(row)];
        if (slot >= 0 && published.versions[k] <= m_versions[std::size_t(slot)])
            continue; // never back; a repeat changes nothing
        auto [it, inserted] = newest.emplace(row, k);
        if (!inserted && published.versions[k] > published.versions[it->second])
            it->second = k;
    }
    if (newest.empty())
        return 0;
    std::vector<std::int64_t> fresh;
    std::vector<std::int64_t> take;
    for (const auto &[row, k] : newest) {
        if (m_slot[std::size_t(row)] < 0)
            fresh.push_back(row);
        take.push_back(std::int64_t(k));
    }
    hold(fresh); // held at the checkpoint's value and version 0 until just below
    std::vector<std::int64_t> to;
    for (const auto &[row, k] : newest)
        to.push_back(std::int64_t(m_slot[std::size_t(row)]));
    const auto device = m_values.device();
    // Values first, then versions: a failed copy leaves no row claiming a version it does not have.
    m_values.index_copy_(0, indexTensor(to, device),
                         published.values.index_select(0, indexTensor(take, published.values.device())).to(device));
    for (const auto &[row, k] : newest)
        m_versions[std::size_t(m_slot[std::size_t(row)])] = published.versions[k];
    return newest.size();
}

std::uint64_t HeldRows::bytes() const {
    return std::uint64_t(m_values.numel()) * std::uint64_t(m_values.element_size()) +
           std::uint64_t(m_versions.capacity()) * sizeof(std::uint64_t) +
           std::uint64_t(m_slot.size()) * sizeof(std::int32_t);
}

} // namespace synaptic::engine
