#include "sim_evaluator.h"

#include "sim_transport.h"
#include "sim_world.h"
#include "strategy.h"

#include "core/engine/synapse/flat_model.h"

#include <chrono>
#include <cmath>
#include <limits>

namespace synaptic::engine {

SimEvaluator::SimEvaluator(Setup setup) : m_setup(std::move(setup)), m_scratch(m_setup.world->newModel()) {}

SimEvaluator::~SimEvaluator() = default;

void SimEvaluator::evaluate(double now, bool full, const TransportCounters &bytes, StrategyResult &result) {
    const auto t0 = std::chrono::steady_clock::now();
    const SimWorld &world = *m_setup.world;
    const TensorSet &set = full ? *m_setup.test : m_setup.testSubset;
    m_setup.strategy->globalModel(*m_scratch);
    const Accuracy acc = m_scratch->task().evaluate(set);
    CurvePoint p;
    p.virtualSeconds = now;
    p.samples = world.samplesTrained;
    p.accuracy = acc.main;
    p.exitAccuracy = acc.exit;
    // Training loss since the last point: per region, and over all edges.
    const auto regions = std::size_t(world.regionCount());
    std::vector<double> regionLoss(regions, 0);
    std::vector<int> regionLossCount(regions, 0);
    double lossSum = 0;
    int lossCount = 0;
    const auto replicas = m_setup.strategy->replicas();
    for (std::size_t e = 0; e < replicas.size(); ++e) {
        const double l = replicas[e]->takeMeanLoss();
        if (std::isnan(l))
            continue;
        lossSum += l;
        ++lossCount;
        regionLoss[std::size_t(world.regionOfEdge(int(e)))] += l;
        ++regionLossCount[std::size_t(world.regionOfEdge(int(e)))];
    }
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    p.loss = lossCount ? lossSum / lossCount : kNaN;
    p.bytesToCenter = bytes.bytesToCenter;
    p.wanBytes = bytes.wanBytes;
    p.totalBytes = bytes.totalBytes;
    if (!full) {
        result.curve.push_back(p);
        if (!result.timeToTargetSeconds && acc.main >= m_setup.targetAccuracy)
            result.timeToTargetSeconds = now;
    } else {
        result.finalAccuracy = acc.main;
        result.finalExitAccuracy = acc.exit;
    }
    m_setup.emit(MetricEvent{now, full ? "global:full" : "global", p.samples, p.loss, acc.main, acc.exit});
    if (!full) {
        for (std::size_t r = 0; r < regions; ++r) {
            const double loss = regionLossCount[r] ? regionLoss[r] / regionLossCount[r] : kNaN;
            Accuracy ra{kNaN, kNaN};
            if (m_setup.evaluateRegions && int(r) < m_setup.strategy->regionModels()) {
                m_setup.strategy->regionModel(int(r), *m_scratch);
                ra = m_scratch->task().evaluate(set);
            }
            m_setup.emit(MetricEvent{now, "region:" + world.config.regions[r].name, p.samples, loss, ra.main, ra.exit});
        }
    }
    result.evalWallSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace synaptic::engine
