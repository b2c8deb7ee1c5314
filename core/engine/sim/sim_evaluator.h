#pragma once

#include "sim_events.h"
#include "sim_result.h"

#include "core/engine/tensor_data.h"

#include <functional>
#include <memory>

namespace synaptic::engine {

class FlatModel;
class Strategy;
struct SimWorld;
struct TransportCounters;

// Measurement of a simulated run (not protocol: it costs no virtual time or
// bytes): evaluates the strategy's model on the test subset or the whole
// test set, adds curve points with the training loss and bytes so far, and
// emits MetricEvents for the cluster and each region. Engine thread only.
class SimEvaluator {
public:
    struct Setup {
        const SimWorld *world = nullptr;
        Strategy *strategy = nullptr;
        const TensorSet *test = nullptr;
        TensorSet testSubset;
        double targetAccuracy = 0.88;
        bool evaluateRegions = false;
        std::function<void(SimEvent)> emit;
    };

    explicit SimEvaluator(Setup setup);
    ~SimEvaluator();

    // `full`: the whole test set (the final figure); else a curve point.
    void evaluate(double now, bool full, const TransportCounters &bytes, StrategyResult &result);
    // The evaluation subset (the first config.evalTestSubset test images).
    const TensorSet &testSubset() const { return m_setup.testSubset; }

private:
    Setup m_setup;
    std::unique_ptr<FlatModel> m_scratch;
};

} // namespace synaptic::engine
