#include "shard_chip_layout.h"

#include <algorithm>
#include <cmath>

namespace synaptic::ui {

namespace {
std::vector<qint64> prefixOf(const std::vector<qint64> &parameters) {
    std::vector<qint64> prefix(parameters.size() + 1, 0);
    for (std::size_t i = 0; i < parameters.size(); ++i)
        prefix[i + 1] = prefix[i] + std::max<qint64>(0, parameters[i]);
    return prefix;
}
} // namespace

void ShardChipLayout::setParameters(std::vector<std::vector<qint64>> parameters) {
    m_params = std::move(parameters);
    m_prefix.clear();
    for (const auto &p : m_params)
        m_prefix.push_back(prefixOf(p));
    m_dirty = true;
}

void ShardChipLayout::setEdge(int edge, std::vector<qint64> parameters) {
    if (edge < 0 || edge >= edgeCount())
        return;
    m_prefix[std::size_t(edge)] = prefixOf(parameters);
    m_params[std::size_t(edge)] = std::move(parameters);
    m_dirty = true;
}

void ShardChipLayout::setLaneWidth(int pixels) {
    pixels = std::max(1, pixels);
    if (pixels == m_lane)
        return;
    m_lane = pixels;
    m_dirty = true;
}

void ShardChipLayout::ensure() const {
    if (!m_dirty)
        return;
    m_dirty = false;
    qint64 widest = 0;
    std::vector<qint64> all;
    for (std::size_t e = 0; e < m_params.size(); ++e) {
        widest = std::max(widest, m_prefix[e].back());
        for (qint64 p : m_params[e])
            if (p > 0)
                all.push_back(p);
    }
    m_lines = 1;
    if (widest > 0 && !all.empty()) {
        // The chip one in ten is smaller than: more lines until it is kMinChipPx wide.
        auto tenth = all.begin() + std::ptrdiff_t(all.size() / 10);
        std::nth_element(all.begin(), tenth, all.end());
        const double needed = double(kMinChipPx) * double(widest) / (double(*tenth) * double(m_lane));
        m_lines = std::clamp(int(std::ceil(needed - 1e-9)), 1, kMaxLines);
    }
    m_scale = widest > 0 ? double(m_lines) * double(m_lane) / double(widest) : 0.0;
    m_begin.assign(m_prefix.size(), {});
    for (std::size_t e = 0; e < m_prefix.size(); ++e) {
        auto &b = m_begin[e];
        b.resize(m_prefix[e].size());
        for (std::size_t i = 0; i < b.size(); ++i)
            b[i] = int(std::llround(double(m_prefix[e][i]) * m_scale));
    }
}

int ShardChipLayout::lines() const {
    ensure();
    return m_lines;
}

double ShardChipLayout::pixelsPerParameter() const {
    ensure();
    return m_scale;
}

int ShardChipLayout::chipCount(int edge) const {
    return edge >= 0 && edge < edgeCount() ? int(m_params[std::size_t(edge)].size()) : 0;
}

qint64 ShardChipLayout::edgeParameters(int edge) const {
    return edge >= 0 && edge < edgeCount() ? m_prefix[std::size_t(edge)].back() : 0;
}

qint64 ShardChipLayout::parameters(int edge, int row) const {
    return row >= 0 && row < chipCount(edge) ? m_params[std::size_t(edge)][std::size_t(row)] : 0;
}

int ShardChipLayout::chipBegin(int edge, int row) const {
    ensure();
    return row >= 0 && row < chipCount(edge) ? m_begin[std::size_t(edge)][std::size_t(row)] : 0;
}

int ShardChipLayout::chipEnd(int edge, int row) const {
    ensure();
    return row >= 0 && row < chipCount(edge) ? m_begin[std::size_t(edge)][std::size_t(row) + 1] : 0;
}

int ShardChipLayout::firstChipFrom(int edge, int offset) const {
    ensure();
    if (edge < 0 || edge >= edgeCount())
        return 0;
    const auto &b = m_begin[std::size_t(edge)];
    // Chip i ends at b[i + 1]: the first end past `offset`.
    const auto it = std::upper_bound(b.begin() + 1, b.end(), offset);
    return int(it - b.begin()) - 1;
}

int ShardChipLayout::chipAt(int edge, int offset) const {
    const int row = firstChipFrom(edge, offset);
    if (row < 0 || row >= chipCount(edge) || offset < chipBegin(edge, row))
        return -1;
    return row;
}

} // namespace synaptic::ui
