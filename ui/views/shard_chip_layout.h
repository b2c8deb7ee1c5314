#pragma once

#include <QtGlobal>

#include <vector>

namespace synaptic::ui {

// Where the shard map's chips go (issue 18 §2), apart from any painting so
// a test can check the geometry exactly. Each edge's chips form a ribbon:
// chip i of an edge starts at round(parameters before it × scale) pixels, so
// every chip is within a pixel of parameters × scale wide and the rounding
// never adds up along a row. The ribbon folds into lines() lines of
// laneWidth() pixels; the scale is one for all edges (widths compare across
// rows) and chosen so the edge owning the most parameters fills its lines.
//
// The minimum: lines are added (up to kMaxLines) until nine chips in ten are
// at least kMinChipPx wide. No chip is ever widened to a minimum, so a thin
// chip stays proportional; it is painted at least a pixel wide and can be
// picked from the table view. GUI thread only (plain data).
class ShardChipLayout {
public:
    static constexpr int kMinChipPx = 4;
    static constexpr int kMaxLines = 6;

    // parameters[edge][row]: parameter count of each chip, in the model's order.
    void setParameters(std::vector<std::vector<qint64>> parameters);
    // One edge's chips changed (a move); cheaper than setParameters.
    void setEdge(int edge, std::vector<qint64> parameters);
    void setLaneWidth(int pixels);

    int laneWidth() const { return m_lane; }
    int lines() const;
    double pixelsPerParameter() const;
    int edgeCount() const { return int(m_params.size()); }
    int chipCount(int edge) const;
    qint64 edgeParameters(int edge) const;
    qint64 parameters(int edge, int row) const;

    // Ribbon offsets in pixels: chip `row` of `edge` covers [begin, end).
    int chipBegin(int edge, int row) const;
    int chipEnd(int edge, int row) const;
    int chipWidth(int edge, int row) const { return chipEnd(edge, row) - chipBegin(edge, row); }
    // The chip covering ribbon offset `offset` of `edge`, or -1.
    int chipAt(int edge, int offset) const;
    // The first chip ending after `offset` (for painting a line from there).
    int firstChipFrom(int edge, int offset) const;

private:
    void ensure() const;

    std::vector<std::vector<qint64>> m_params;
    std::vector<std::vector<qint64>> m_prefix; // per edge: parameters before each chip, then the total
    int m_lane = 100;
    // Derived; recomputed lazily after a change.
    mutable bool m_dirty = true;
    mutable int m_lines = 1;
    mutable double m_scale = 0;
    mutable std::vector<std::vector<int>> m_begin; // per edge: chip starts in pixels, then the end
};

} // namespace synaptic::ui
