#pragma once

#include "core/engine/codec/codec_spec.h"
#include "core/engine/synapse/shard_planner.h"

#include <ATen/core/Tensor.h>

#include <string>

#include <cstdint>
#include <vector>

namespace synaptic::engine {

// What travels for an embedding shard (DESIGN.md §1, hot embedding update):
// only the rows a window touched, each with its row version. Owner to edge it
// carries the rows' new values (an edge that already holds a newer version
// ignores the row, so a late or repeated message never moves a row back);
// owner to owner it carries the change (added to the receiver's own copy, so
// regions' updates commute).
struct RowDelta {
    int shard = 0;
    std::vector<std::int64_t> rows;      // absolute table rows, ascending, unique
    std::vector<std::uint64_t> versions; // per row: the sender's version after the update
    at::Tensor values;                   // float [rows, dim]: new values, or the change

    std::size_t size() const { return rows.size(); }
    // Bytes on the wire with fp32 values: keyBytes() and 4 per value.
    std::uint64_t wireBytes() const;
    // Bytes of everything but the values: a 16-byte header (shard, row
    // count), the row indices as packed varints of the gap to the previous
    // row (zigzag, so any order is charged honestly) and the versions as
    // packed varints, as protobuf's packed repeated fields carry them. Rows
    // are ascending and close, so an index takes a byte or two, not eight.
    std::uint64_t keyBytes() const;
};

// Row values as one of issue 14's codecs puts them on the wire (owner ->
// edge publishes and catch-up answers): fp32 leaves them as they are; fp16
// and int8 replace `values` by what the receiver decodes, and the bytes are
// keyBytes() plus the coded values. int8 keeps one fp32 scale per row
// (issue 14's tensors use one per 256 values; here a chunk would span
// unrelated rows). Top-k and a zstd stage are refused (std::invalid_argument,
// rowValuesCodecRefusal): a publish
// carries whole row values, not a delta whose small elements may wait.
std::uint64_t codeRowValues(RowDelta &delta, const CodecSpec &spec);
// Why `spec` cannot carry row values ("" if it can): top-k would leave parts
// of rows behind, and a zstd stage is not built for them.
std::string rowValuesCodecRefusal(const CodecSpec &spec);
// Bytes per value of a `rowWidth`-wide row under `spec` (fp32 4, fp16 2,
// int8 1 plus its row's scale), for the whole-shard baseline to ship under
// the same codec as the messages it is compared with.
double bytesPerValue(const CodecSpec &spec, std::int64_t rowWidth);

// Rows [begin, end) of an embedding table, all of them, with a version per
// row: an owner's copy of its shard, an edge's classifier. (An edge's share
// of the table is HeldRows.) Versions only go up. One thread at a time.
class VersionedRows {
public:
    // `values` [end - begin, dim]: the storage (a view is kept, not copied).
    VersionedRows(std::int64_t begin, at::Tensor values);

    std::int64_t begin() const { return m_begin; }
    std::int64_t end() const { return m_begin + std::int64_t(m_versions.size()); }
    std::uint64_t version(std::int64_t row) const { return m_versions[std::size_t(row - m_begin)]; }
    std::size_t rowCount() const { return m_versions.size(); }
    const at::Tensor &values() const { return m_values; }

    // Owner: plain SGD on the summed gradient rows of a window (`rows`
    // absolute and unique, `grads` [k, dim]); every touched row's version goes
    // up by one. Returns the rows' change, stamped with the new versions.
    RowDelta applyGradients(const std::vector<std::int64_t> &rows, const at::Tensor &grads, double lr, int shard);
    // Owner: adds another region's change to the same rows; versions go up.
    // Returns the change as applied here, stamped with this copy's versions.
    RowDelta addChange(const RowDelta &change);
    // The current values of `rows` with their versions (what edges receive).
    RowDelta snapshot(const std::vector<std::int64_t> &rows, int shard) const;
    // Edge: takes every row of `published` newer than the one held; returns
    // how many were taken (older or equal ones are skipped).
    std::size_t acceptValues(const RowDelta &published);

private:
    std::size_t local(std::int64_t row) const;

    std::int64_t m_begin;
    at::Tensor m_values;
    std::vector<std::uint64_t> m_versions;
};

// Which shard of a plan holds each row of one table layer: the layer's
// shards are contiguous row ranges in row order (planShards splits that way).
class RowShardMap {
public:
    RowShardMap(const ShardPlan &plan, const std::string &layer);

    int shardOf(std::int64_t row) const;
    const std::vector<int> &shards() const { return m_ids; }
    // Rows [begin, end) of the i-th shard of the layer (shards()[i]).
    std::int64_t beginOf(std::size_t i) const { return m_begins[i]; }
    std::int64_t endOf(std::size_t i) const { return m_ends[i]; }
    std::int64_t rows() const { return m_ends.empty() ? 0 : m_ends.back(); }

private:
    std::vector<int> m_ids;
    std::vector<std::int64_t> m_begins;
    std::vector<std::int64_t> m_ends;
};

// Splits sorted unique absolute rows and their gradient rows by shard.
struct ShardRows {
    int shard;
    std::vector<std::int64_t> rows;
    at::Tensor grads;
};
std::vector<ShardRows> splitByShard(const at::Tensor &rows, const at::Tensor &grads, const RowShardMap &map);

} // namespace synaptic::engine
