#pragma once

#include <QVector>

namespace synaptic::ui {

// Pure helpers behind TimeSeriesChart; no widgets, so they are cheap to test.

// One step of TensorBoard's debiased EMA, kept as state so a live chart can
// smooth each new point in O(1) instead of re-smoothing the whole series.
class EmaState {
public:
    explicit EmaState(double weight = 0);
    // Returns the smoothed value for v; non-finite v gives NaN and leaves the state alone.
    double next(double v);
    double weight() const { return m_weight; }

private:
    double m_weight;
    double m_last = 0;
    double m_weightPower = 1; // w^n, n = finite values seen
};

// TensorBoard's smoothing: last = last*w + (1-w)*v; debiased by 1 - w^n (n = finite values seen);
// non-finite values are passed through as NaN and do not advance the average. w in [0, 1).
QVector<double> emaSmooth(const QVector<double> &values, double weight);

// Indices of the points to draw so that about `buckets` columns remain: split [xMin, xMax] into
// `buckets` equal columns; keep, per column, the first, min-y, max-y and last point (in x order,
// no duplicates). Points outside [xMin, xMax] are dropped except the nearest one on each side (so
// the line reaches the plot edge). Input x ascending. If the input has <= 4*buckets points in
// range, keep all.
QVector<int> thinIndices(const QVector<double> &x, const QVector<double> &y, double xMin,
                         double xMax, int buckets);

// An axis range rounded outwards to ticks of 1, 2, 2.5 or 5 x 10^k, about `ticks` of them;
// a flat or empty range (hi <= lo) is widened first so it still shows a band.
struct NiceRange {
    double lo, hi, step;
};
NiceRange niceRange(double lo, double hi, int ticks = 5);

} // namespace synaptic::ui
