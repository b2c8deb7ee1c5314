#include "series_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace synaptic::ui {

EmaState::EmaState(double weight)
    // w = 1 would freeze the average at its first value and divide by zero in the debias.
    : m_weight(std::clamp(std::isfinite(weight) ? weight : 0.0, 0.0, 0.999999)) {}

double EmaState::next(double v) {
    if (!std::isfinite(v))
        return std::numeric_limits<double>::quiet_NaN();
    m_last = m_last * m_weight + (1 - m_weight) * v;
    // Without the debias the curve starts near 0 (the EMA's initial value) and
    // climbs slowly; dividing by 1 - w^n makes a constant series stay constant.
    m_weightPower *= m_weight; // w^n by running product: no pow() per point
    return m_last / (1 - m_weightPower);
}

QVector<double> emaSmooth(const QVector<double> &values, double weight) {
    EmaState ema(weight);
    QVector<double> out;
    out.reserve(values.size());
    for (double v : values)
        out.append(ema.next(v));
    return out;
}

namespace {

// The four representatives of one column, as indices into the input; -1 = none yet.
struct Column {
    int first = -1, last = -1, minY = -1, maxY = -1;

    void add(int i, double y, const QVector<double> &ys) {
        if (first < 0)
            first = i;
        last = i;
        // NaN compares false both ways, so it never becomes a min or max.
        if (std::isfinite(y)) {
            if (minY < 0 || y < ys[minY])
                minY = i;
            if (maxY < 0 || y > ys[maxY])
                maxY = i;
        }
    }

    void appendTo(QVector<int> &out) const {
        if (first < 0)
            return;
        int picks[4] = {first, minY, maxY, last};
        std::sort(std::begin(picks), std::end(picks));
        for (int p : picks)
            if (p >= 0 && (out.isEmpty() || out.last() != p))
                out.append(p);
    }
};

} // namespace

QVector<int> thinIndices(const QVector<double> &x, const QVector<double> &y, double xMin,
                         double xMax, int buckets) {
    const int n = int(std::min(x.size(), y.size()));
    const auto begin = x.constBegin();
    const int lo = int(std::lower_bound(begin, begin + n, xMin) - begin);
    const int hi = int(std::upper_bound(begin, begin + n, xMax) - begin); // one past the last in range
    buckets = std::max(buckets, 1);

    QVector<int> out;
    if (lo > 0)
        out.append(lo - 1);
    if (hi - lo <= 4 * buckets) {
        for (int i = lo; i < hi; ++i)
            out.append(i);
    } else {
        out.reserve(4 * buckets + 2);
        const double width = xMax - xMin;
        const double scale = width > 0 ? buckets / width : 0;
        Column column;
        int current = -1;
        for (int i = lo; i < hi; ++i) {
            const int b = std::min(int((x[i] - xMin) * scale), buckets - 1);
            if (b != current) {
                column.appendTo(out);
                column = Column();
                current = b;
            }
            column.add(i, y[i], y);
        }
        column.appendTo(out);
    }
    if (hi < n)
        out.append(hi);
    return out;
}

NiceRange niceRange(double lo, double hi, int ticks) {
    if (!(hi > lo)) {
        const double pad = std::abs(lo) > 0 ? std::abs(lo) * 0.1 : 1;
        lo -= pad;
        hi += pad;
    }
    const double raw = (hi - lo) / std::max(ticks, 1);
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    const double f = raw / mag;
    const double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
    // The epsilon keeps a bound that is already on a tick from moving out by a whole step.
    return {std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step, step};
}

} // namespace synaptic::ui
