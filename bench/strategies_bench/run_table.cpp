#include "run_table.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace synaptic::bench {

std::vector<CellStats> summarize(const std::vector<BenchRun> &runs) {
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, std::vector<const BenchRun *>> cells;
    for (const auto &r : runs) {
        const auto key = std::pair{r.strategy, r.codec};
        if (!cells.count(key))
            order.push_back(key);
        cells[key].push_back(&r);
    }
    std::vector<CellStats> out;
    for (const auto &key : order) {
        const auto &rs = cells[key];
        CellStats c;
        c.strategy = key.first;
        c.codec = key.second;
        c.runs = int(rs.size());
        const double n = double(rs.size());
        c.accuracyMin = 1, c.accuracyMax = 0;
        double tt = 0, wt = 0;
        bool allReached = true;
        for (const auto *r : rs) {
            c.accuracyMean += r->finalAccuracy / n;
            c.accuracyMin = std::min(c.accuracyMin, r->finalAccuracy);
            c.accuracyMax = std::max(c.accuracyMax, r->finalAccuracy);
            c.centerMean += double(r->bytesToCenter) / n;
            c.wanMean += double(r->wanBytes) / n;
            c.totalMean += double(r->totalBytes) / n;
            allReached = allReached && r->timeToTarget && r->wanToTarget;
            if (r->timeToTarget)
                tt += *r->timeToTarget / n;
            if (r->wanToTarget)
                wt += double(*r->wanToTarget) / n;
        }
        for (const auto *r : rs)
            c.accuracyStd += (r->finalAccuracy - c.accuracyMean) * (r->finalAccuracy - c.accuracyMean);
        c.accuracyStd = rs.size() > 1 ? std::sqrt(c.accuracyStd / (n - 1)) : 0;
        if (allReached) {
            c.timeToTargetMean = tt;
            c.wanToTargetMean = wt;
        }
        out.push_back(c);
    }
    return out;
}

const CellStats *findCell(const std::vector<CellStats> &cells, const std::string &strategy, const std::string &codec) {
    for (const auto &c : cells)
        if (c.strategy == strategy && c.codec == codec)
            return &c;
    return nullptr;
}

} // namespace synaptic::bench
