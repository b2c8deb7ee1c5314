#include "load_scan.h"

#include <stdexcept>

namespace synaptic::engine {

LoadPoint serveAtRate(const LoadScan &scan, double rate, ServingMode mode) {
    if (!scan.answers)
        throw std::invalid_argument("load scan: no answers");
    ServingSetup setup = scan.setup;
    setup.mode = mode;
    const auto requests = poissonRequests(scan.edges, rate, scan.seconds, scan.firstImage, scan.endImage, scan.seed);
    return {rate, mode, summarize(simulateServing(*scan.answers, requests, setup), scan.edges)};
}

Capacity findCapacity(const LoadScan &scan, ServingMode mode, double p99LimitMs, double firstRate, double maxRate,
                      double tolerance) {
    if (!(firstRate > 0) || !(maxRate >= firstRate) || !(tolerance > 0))
        throw std::invalid_argument("load scan: needs 0 < firstRate <= maxRate and tolerance > 0");
    Capacity c;
    auto over = [&](double rate) {
        c.points.push_back(serveAtRate(scan, rate, mode));
        // NaN (no request at all) counts as under: nothing waited.
        return c.points.back().summary.p99Ms > p99LimitMs;
    };
    double under = 0, above = 0;
    for (double rate = firstRate; rate <= maxRate; rate *= 2) {
        if (over(rate)) {
            above = rate;
            break;
        }
        under = rate;
    }
    if (above == 0) {
        c.rate = under; // never passed the limit up to maxRate
        return c;
    }
    if (under == 0)
        return c; // already over at the first rate
    while ((above - under) / under > tolerance) {
        const double mid = 0.5 * (under + above);
        (over(mid) ? above : under) = mid;
    }
    c.rate = under;
    c.found = true;
    return c;
}

} // namespace synaptic::engine
