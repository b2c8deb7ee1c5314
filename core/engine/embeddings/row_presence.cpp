#include "row_presence.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace synaptic::engine {

RowPresence::RowPresence(int regions, std::vector<int> regionOfEdge, double trackFrom)
    : m_regions(regions), m_regionOfEdge(std::move(regionOfEdge)), m_trackFrom(trackFrom) {}

void RowPresence::ownMerge(int region, std::uint64_t seq, const std::vector<std::int64_t> &rows, double now) {
    for (auto r : rows) {
        if (std::size_t(r) >= m_touched.size())
            m_touched.resize(std::size_t(r) + 1, false);
        if (m_touched[std::size_t(r)])
            continue;
        m_touched[std::size_t(r)] = true;
        if (now < m_trackFrom)
            continue;
        Row row{now, region, seq, std::vector<std::uint64_t>(std::size_t(m_regions), 0),
                std::vector<bool>(m_regionOfEdge.size(), false)};
        row.regionAt.assign(std::size_t(m_regions), -1);
        row.presentAt.assign(m_regionOfEdge.size(), -1);
        m_rows.emplace(r, std::move(row));
    }
}

void RowPresence::ownerApplied(int region, const std::vector<std::int64_t> &rows,
                               const std::vector<std::uint64_t> &versions, const std::vector<std::uint64_t> &frontier,
                               double now) {
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto it = m_rows.find(rows[k]);
        if (it == m_rows.end())
            continue;
        Row &row = it->second;
        auto &v = row.versionInRegion[std::size_t(region)];
        if (v == 0 && frontier[std::size_t(row.origin)] >= row.seq) {
            v = versions[k];
            row.regionAt[std::size_t(region)] = now;
        }
    }
}

void RowPresence::edgeHolds(int edge, const std::vector<std::int64_t> &rows, const std::vector<std::uint64_t> &versions,
                            double now) {
    const int region = m_regionOfEdge[std::size_t(edge)];
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto it = m_rows.find(rows[k]);
        if (it == m_rows.end())
            continue;
        Row &row = it->second;
        const auto needed = row.versionInRegion[std::size_t(region)];
        if (needed == 0 || versions[k] < needed || row.present[std::size_t(edge)])
            continue;
        row.present[std::size_t(edge)] = true;
        row.presentAt[std::size_t(edge)] = now;
        if (++row.presentCount == int(row.present.size())) {
            row.doneAt = now;
            if (m_keepRecent)
                m_done.emplace_back(now, now - row.firstAt);
        }
    }
}

std::vector<double> RowPresence::recentTimes(double now, double window) {
    while (!m_done.empty() && m_done.front().first < now - window)
        m_done.pop_front();
    std::vector<double> times;
    times.reserve(m_done.size());
    for (const auto &d : m_done)
        times.push_back(d.second);
    return times;
}

double RowPresence::recentHeldShare(double now, double window) const {
    std::size_t rows = 0, present = 0;
    for (const auto &[r, row] : m_rows)
        if (row.firstAt >= now - window) {
            ++rows;
            present += std::size_t(row.presentCount);
        }
    return rows > 0 ? double(present) / (double(rows) * double(m_regionOfEdge.size()))
                    : std::numeric_limits<double>::quiet_NaN();
}

RowPresence::Summary RowPresence::summarize(double end, double cutoff, const std::vector<bool> &excluded) const {
    Summary s;
    std::vector<double> times;
    std::vector<double> without; // the same, over the edges not excluded
    s.meanByEdge.assign(m_regionOfEdge.size(), 0.0);
    for (const auto &[r, row] : m_rows) {
        if (row.firstAt > cutoff)
            continue;
        ++s.tracked;
        if (row.doneAt < 0)
            ++s.unresolved;
        // A row never at some edge counts until the end: a lower bound.
        times.push_back((row.doneAt < 0 ? end : row.doneAt) - row.firstAt);
        double last = 0;
        for (std::size_t e = 0; e < row.presentAt.size(); ++e) {
            const double t = (row.presentAt[e] < 0 ? end : row.presentAt[e]) - row.firstAt;
            s.meanByEdge[e] += t;
            if (e >= excluded.size() || !excluded[e])
                last = std::max(last, t);
        }
        without.push_back(last);
    }
    if (times.empty())
        return s;
    for (auto &m : s.meanByEdge)
        m /= double(s.tracked);
    auto quantile = [](std::vector<double> &v, double q) {
        std::sort(v.begin(), v.end());
        return v[std::min(v.size() - 1, std::size_t(std::ceil(q * double(v.size()))) - 1)];
    };
    s.p50 = quantile(times, 0.5);
    s.p99 = quantile(times, 0.99);
    s.max = times.back();
    s.p99Excluding = quantile(without, 0.99);
    return s;
}

} // namespace synaptic::engine
