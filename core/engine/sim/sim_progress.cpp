#include "sim_progress.h"

#include "simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace synaptic::engine {

SimProgress::SimProgress(ProgressMeter &meter, std::string what) : m_meter(meter), m_what(std::move(what)) {}

SimProgress::~SimProgress() { stop(); }

SimRunHooks SimProgress::wrap(SimRunHooks inner) {
    SimRunHooks out = inner;
    out.prepare = [this, prepare = inner.prepare](const ClusterConfig &c, SimOptions &o) {
        if (prepare)
            prepare(c, o);
        m_accuracy = -1;
        o.observer = [this, chained = std::move(o.observer)](const SimEvent &e) {
            if (const auto *m = std::get_if<MetricEvent>(&e); m && m->scope == "global" && std::isfinite(m->accuracy))
                m_accuracy = m->accuracy;
            if (chained)
                chained(e);
        };
    };
    out.started = [this, started = inner.started](const ClusterConfig &c, const SimOptions &o, Simulation &sim) {
        if (started)
            started(c, o, sim);
        start(c, o, sim);
    };
    out.finished = [this, finished = inner.finished](const StrategyResult &r) {
        stop();
        m_meter.finish(); // the caller prints the result its own way
        if (finished)
            finished(r);
    };
    out.leaving = [this, leaving = inner.leaving] {
        stop();
        if (leaving)
            leaving();
    };
    return out;
}

void SimProgress::start(const ClusterConfig &config, const SimOptions &options, Simulation &sim) {
    stop();
    ++m_strategyIndex;
    std::string label = m_what + " " + config.strategy;
    if (m_strategyCount > 1)
        label += " (" + std::to_string(m_strategyIndex) + "/" + std::to_string(m_strategyCount) + ")";
    m_meter.restart(label);
    std::lock_guard lock(m_mutex);
    m_sim = &sim;
    m_stopping = false;
    m_samplesPerStep = std::max(1.0, double(config.batchSize) * double(config.edgeCount()));
    m_stepsPerEdge = options.stepsPerEdge;
    m_totalSamples = double(options.stepsPerEdge) * m_samplesPerStep;
    m_virtualBudget = options.virtualSeconds;
    m_thread = std::thread([this] { watch(); });
}

void SimProgress::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_sim = nullptr;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void SimProgress::watch() {
    // The meter itself limits how often it draws; waking a few times a
    // second keeps the terminal bar smooth and costs nothing measurable.
    const auto period = std::chrono::milliseconds(m_meter.terminal() ? 100 : 500);
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        show();
        m_wake.wait_for(lock, period, [this] { return m_stopping; });
    }
}

void SimProgress::show() {
    // Called with m_mutex held: m_sim stays alive until stop() takes it.
    if (!m_sim)
        return;
    const double samples = double(m_sim->samplesNow());
    const double now = m_sim->virtualNow();
    double fraction = -1;
    if (m_totalSamples > 0)
        fraction = samples / m_totalSamples;
    if (m_virtualBudget > 0)
        fraction = std::max(fraction, now / m_virtualBudget);
    char text[200];
    int n = 0;
    if (m_stepsPerEdge > 0)
        n = std::snprintf(text, sizeof text, "step %.0f/%llu, ", std::floor(samples / m_samplesPerStep),
                          (unsigned long long)m_stepsPerEdge);
    n += std::snprintf(text + n, sizeof text - std::size_t(n), "%.0f samples, %.2f virtual s", samples, now);
    if (const double a = m_accuracy.load(); a >= 0)
        n += std::snprintf(text + n, sizeof text - std::size_t(n), ", accuracy %.4f", a);
    // The budget is spent: what remains is draining the last messages and
    // the final evaluation on the whole test set, which can take a while.
    if (fraction >= 1)
        std::snprintf(text + n, sizeof text - std::size_t(n), "; training done, final evaluation");
    m_meter.update(std::min(fraction, 1.0), text);
}

} // namespace synaptic::engine
