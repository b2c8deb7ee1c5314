#pragma once

#include "sim_runner.h"

#include "core/engine/progress_meter.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace synaptic::engine {

// Shows `synaptic-node sim` (and every tool that runs strategies through
// runStrategies) making progress, per strategy: steps, samples, virtual
// time, accuracy so far and an ETA (issue 18 §1). The engine thread is busy
// inside Simulation::run(), so a watcher thread reads the run's position
// (its atomics) a few times a second and feeds a ProgressMeter; the global
// accuracy comes from the event observer, on the engine thread.
class SimProgress {
public:
    // `what` starts each strategy's label: "sim synaptic (1/4)".
    explicit SimProgress(ProgressMeter &meter, std::string what = "sim");
    ~SimProgress();
    SimProgress(const SimProgress &) = delete;
    SimProgress &operator=(const SimProgress &) = delete;

    // `inner` with this watcher's hooks added around its own; `inner`'s
    // observer (a recorder's) still sees every event.
    SimRunHooks wrap(SimRunHooks inner);
    // How many strategies the run has, for the "(2/4)" in the label.
    void setStrategyCount(std::size_t count) { m_strategyCount = count; }

private:
    void start(const ClusterConfig &config, const SimOptions &options, Simulation &sim);
    void stop();
    void watch();
    void show();

    ProgressMeter &m_meter;
    std::string m_what;
    std::size_t m_strategyCount = 0;
    std::size_t m_strategyIndex = 0;
    std::atomic<double> m_accuracy{-1};
    std::mutex m_mutex; // guards m_sim and m_stopping, and the fields below
    std::condition_variable m_wake;
    Simulation *m_sim = nullptr;
    bool m_stopping = false;
    double m_totalSamples = 0;   // 0: unknown (a virtual-time budget)
    double m_virtualBudget = 0;  // 0: none
    double m_samplesPerStep = 1; // a cluster step: every edge's batch
    std::uint64_t m_stepsPerEdge = 0;
    std::thread m_thread;
};

} // namespace synaptic::engine
