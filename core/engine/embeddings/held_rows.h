#pragma once

#include "row_delta.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// The rows of an embedding table one edge holds (issue 16 §3): the ones its
// own data touched and the ones that arrived by hot update, each with its row
// version, and nothing else. Rows it never held are read from `base`, the
// checkpoint every edge started from (read-only and shared: on a host, the
// model file mapped once); reading one does not hold it. Held values live in
// a compact store that grows by doubling, so an edge holding a fifth of a
// 2^20-row table keeps about a fifth of its bytes, plus a 4-byte slot index
// per table row. Versions only go up. One thread at a time.
class HeldRows {
public:
    // `base` [rows, dim]: kept as a reference, never written.
    HeldRows(at::Tensor base, const RowShardMap &map);

    bool holds(std::int64_t row) const { return m_slot[index(row)] >= 0; }
    // 0 for a row not held (it has the checkpoint's value).
    std::uint64_t version(std::int64_t row) const;
    std::size_t heldCount() const { return m_used; }
    // Rows held of table shard `shard` (a plan shard id), and its rows.
    std::size_t heldCount(int shard) const { return m_heldPerShard.at(std::size_t(shard)); }
    std::int64_t rowCount(int shard) const { return m_rowsPerShard.at(std::size_t(shard)); }
    std::int64_t rowCount() const { return std::int64_t(m_slot.size()); }
    std::int64_t dim() const { return m_base.size(1); }

    // Values of `rows` (int64, any order), [rows, dim]: a held row's own
    // value, another's from the checkpoint. With `hold`, rows not held yet
    // are held first (the edge's data touched them: the checkpoint's value,
    // version 0, becomes its own copy).
    at::Tensor gather(const at::Tensor &rows, bool hold);
    // Takes every row of `published` newer than the one held, or not held
    // yet; returns how many were taken (older or equal ones are skipped; a
    // row listed twice counts once, at its newest version). A delta whose
    // rows, versions and values disagree in size is refused
    // (std::invalid_argument) before anything changes.
    std::size_t accept(const RowDelta &published);

    // Bytes this edge allocated for the table: the store's capacity, the
    // versions and the slot index (the checkpoint is not counted: shared).
    std::uint64_t bytes() const;
    // What a dense copy of the table would take (values only).
    std::uint64_t denseBytes() const { return std::uint64_t(rowCount()) * std::uint64_t(dim()) * 4; }

private:
    std::size_t index(std::int64_t row) const;
    // A slot for each row not held, values from the checkpoint; version 0.
    void hold(const std::vector<std::int64_t> &rows);
    void reserve(std::size_t rows);

    at::Tensor m_base;
    RowShardMap m_map; // a copy: small, and no reference to outlive
    std::vector<std::int32_t> m_slot;         // per table row, -1 when not held
    at::Tensor m_values;                      // [capacity, dim]; slots [0, m_used) in use
    std::vector<std::uint64_t> m_versions;    // per slot
    std::vector<std::size_t> m_heldPerShard;  // by plan shard id (0 for other layers' ids)
    std::vector<std::int64_t> m_rowsPerShard; // by plan shard id
    std::size_t m_used = 0;
};

} // namespace synaptic::engine
