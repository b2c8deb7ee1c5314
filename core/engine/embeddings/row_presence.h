#pragma once

#include <cstdint>
#include <unordered_map>
#include <deque>
#include <utility>
#include <vector>

namespace synaptic::engine {

// Issue 16 §4's measure: for every embedding row first updated after the new
// language arrived, the virtual time from that first update (at its origin
// owner) to the moment every edge of every region holds a value that includes
// it. Fed by the driver; knows nothing of links. Engine thread.
class RowPresence {
public:
    RowPresence(int regions, std::vector<int> regionOfEdge, double trackFrom);

    // An owner of `region` merged its region's gradients into `rows` at `now`
    // as its change number `seq`. Rows never updated before start tracking
    // when now >= trackFrom.
    void ownMerge(int region, std::uint64_t seq, const std::vector<std::int64_t> &rows, double now);
    // An owner of `region` now has these rows at these versions after applying
    // a change; `frontier` is what it has applied from each origin.
    void ownerApplied(int region, const std::vector<std::int64_t> &rows, const std::vector<std::uint64_t> &versions,
                      const std::vector<std::uint64_t> &frontier, double now);
    // Edge `edge` now holds `rows` at `versions`.
    void edgeHolds(int edge, const std::vector<std::int64_t> &rows, const std::vector<std::uint64_t> &versions,
                   double now);

    // What the app's live charts plot at `now`, over the last `window`
    // seconds: the propagation times of the rows that reached every edge in
    // that time (a rolling window, so a quantile rests on more than the few
    // rows of one frame), and of the rows first updated in it, the share of
    // (row, edge) pairs where the edge already holds the row's first change
    // (NaN when no row was first updated then). Rows still missing somewhere
    // are not among the times: the summary counts them.
    std::vector<double> recentTimes(double now, double window);
    // Off (the default), recentTimes() has nothing: a run without a live
    // view keeps no window.
    void keepRecent(bool keep) { m_keepRecent = keep; }
    double recentHeldShare(double now, double window) const;

    struct Summary {
        std::size_t tracked = 0;    // rows first updated in [trackFrom, cutoff]
        std::size_t unresolved = 0; // of those, not at every edge by the end (counted at end - first)
        double p50 = 0, p99 = 0, max = 0;
        double p99Excluding = 0;        // p99 over the edges not excluded
        std::vector<double> meanByEdge; // mean s to each edge
    };
    // Rows first updated after `cutoff` are left out (too late to spread).
    // `excluded` (per edge, may be empty) names edges left out of p99Excluding.
    Summary summarize(double end, double cutoff, const std::vector<bool> &excluded = {}) const;

private:
    struct Row {
        double firstAt;
        int origin;
        std::uint64_t seq;
        std::vector<std::uint64_t> versionInRegion; // 0: the first change has not reached that region's owner
        std::vector<bool> present;
        int presentCount = 0;
        double doneAt = -1;
        std::vector<double> regionAt;   // when the first change reached each region's owner
        std::vector<double> presentAt;  // per edge
    };
    int m_regions;
    std::vector<int> m_regionOfEdge;
    double m_trackFrom;
    std::vector<bool> m_touched; // grown on demand: rows any owner merged
    std::unordered_map<std::int64_t, Row> m_rows;
    bool m_keepRecent = false;
    std::deque<std::pair<double, double>> m_done; // (when a row reached every edge, its time), in order
};

} // namespace synaptic::engine
