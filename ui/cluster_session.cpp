#include "cluster_session.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/allocator.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/simulation.h"
#include "core/engine/tensor_data.h"
#include "core/session/session_recorder.h"

#include <cstdio>
#include <optional>

namespace synaptic::ui {

ClusterSession::ClusterSession(QObject *parent) : ClusterSession(kQueueCapacity, parent) {}

ClusterSession::ClusterSession(std::size_t sampleCapacity, QObject *parent)
    : ClusterSource(parent), m_queue(sampleCapacity) {
    m_drainTimer.setInterval(kCoalesceMs);
    connect(&m_drainTimer, &QTimer::timeout, this, &ClusterSession::drain);
}

ClusterSession::~ClusterSession() {
    m_stopRequested = true;
    {
        std::lock_guard lock(m_mutex);
        if (m_sim)
            m_sim->requestStop();
    }
    joinWorker();
    stopRecording(); // finishes the file: end record, index, trailer
}

void ClusterSession::setBudget(std::uint64_t stepsPerEdge, double virtualSeconds) {
    m_stepsPerEdge = stepsPerEdge;
    m_virtualSeconds = virtualSeconds;
}

double ClusterSession::budgetFraction(double virtualSeconds, quint64 samples) const {
    // A step budget ends when every edge trained that many batches: one
    // cluster step is every edge's batch (as synaptic-node sim counts it).
    if (m_stepsPerEdge > 0)
        return double(samples) / (double(m_stepsPerEdge) * double(m_config.batchSize) * m_config.edgeCount());
    if (m_virtualSeconds > 0)
        return virtualSeconds / m_virtualSeconds;
    return -1;
}

namespace {
// A run's data and the simulation that reads it, freed together.
struct LoadedRun {
    explicit LoadedRun(engine::SimData d) : data(std::move(d)) {}
    engine::SimData data;
    std::optional<engine::Simulation> sim; // declared after `data`: destroyed first
};
} // namespace

void ClusterSession::start() {
    if (state() == State::Loading || state() == State::Running || state() == State::Paused)
        return;
    joinWorker();
    m_stopRequested = false;
    m_done = false;
    forgetRouting();
    setState(State::Loading);
    m_drainTimer.start();
    const engine::ClusterConfig config = m_config;
    const std::uint64_t steps = m_stepsPerEdge;
    const double seconds = m_virtualSeconds;
    const std::uint64_t evalEvery = m_evalEvery;
    m_worker = std::thread([this, config, steps, seconds, evalEvery] {
        // Engine thread: load data, build the cluster, run. Nothing here
        // touches QObjects; the GUI learns everything through the queue.
        try {
            // The config's task's own loader (Fashion-MNIST's IDX files, or
            // the fortune files for a langid run opened from a recording).
            auto run = std::make_shared<LoadedRun>(engine::loadSimData(config, "cpu"));
            const engine::SimData &data = run->data;
            engine::SimOptions o;
            o.stepsPerEdge = steps;
            o.virtualSeconds = seconds > 0 ? seconds : (steps == 0 ? 1e12 : 0);
            o.evaluateRegions = true;
            o.evalEverySamples = evalEvery;
            o.queue = &m_queue;
            o.observer = [this](const engine::SimEvent &e) { recordEvent(e); };
            run->sim.emplace(config, data.train, data.trainLabels, data.test, o);
            // Shares ownership of the whole run: the data dies after the
            // simulation that reads it, whichever thread lets go last.
            const std::shared_ptr<engine::Simulation> sim(run, &*run->sim);
            {
                std::lock_guard lock(m_mutex);
                m_sim = sim;
                m_options = std::make_shared<engine::SimOptions>(o);
                {
                    std::lock_guard rec(m_recMutex);
                    m_runEnded = false;
                    if (m_recorder)
                        attachRecorder();
                }
                for (const auto &c : m_early)
                    sim->submit(c);
                m_early.clear();
                sim->setSpeed(m_speed);
                if (m_paused)
                    sim->pause();
            }
            if (!m_stopRequested) {
                const auto r = sim->run();
                {
                    std::lock_guard rec(m_recMutex);
                    if (m_recorder && m_recorderAttached)
                        m_recorder->endRun(r);
                    m_runEnded = true;
                }
                char line[256];
                std::snprintf(line, sizeof line, "%s: accuracy %.4f after %llu samples, %.2f virtual s",
                              r.strategy.c_str(), r.finalAccuracy, (unsigned long long)r.samples, r.virtualSeconds);
                std::lock_guard lock(m_mutex);
                m_summary = line;
            }
        } catch (const std::exception &e) {
            std::lock_guard lock(m_mutex);
            m_error = e.what();
        }
        m_done = true;
    });
}

void ClusterSession::pause() {
    std::lock_guard lock(m_mutex);
    m_paused = true;
    if (m_sim)
        m_sim->pause();
    if (state() == State::Running)
        QMetaObject::invokeMethod(this, [this] { setState(State::Paused); }, Qt::QueuedConnection);
}

void ClusterSession::resume() {
    std::lock_guard lock(m_mutex);
    m_paused = false;
    if (m_sim)
        m_sim->resume();
    if (state() == State::Paused)
        QMetaObject::invokeMethod(this, [this] { setState(State::Running); }, Qt::QueuedConnection);
}

void ClusterSession::singleStep() {
    std::lock_guard lock(m_mutex);
    m_paused = true;
    if (m_sim)
        m_sim->step();
}

void ClusterSession::setSpeed(double k) {
    std::lock_guard lock(m_mutex);
    m_speed = k;
    if (m_sim)
        m_sim->setSpeed(k);
}

void ClusterSession::stop() {
    m_stopRequested = true;
    std::lock_guard lock(m_mutex);
    if (m_sim)
        m_sim->requestStop();
}

void ClusterSession::submit(const engine::SimCommand &command) {
    std::lock_guard lock(m_mutex);
    if (m_sim)
        m_sim->submit(command);
    else
        m_early.push_back(command);
}

void ClusterSession::drain() {
    std::shared_ptr<engine::Simulation> sim;
    {
        std::lock_guard lock(m_mutex);
        sim = m_sim;
    }
    if (sim && state() == State::Loading)
        setState(m_paused ? State::Paused : State::Running);
    const auto items = m_queue.drain();
    if (!items.empty())
        Q_EMIT eventsBatch(QVector<engine::SimEvent>(items.begin(), items.end()));
    reportCoalesced();
    if (sim) {
        Q_EMIT progress(sim->virtualNow(), sim->samplesNow());
        offerRouting(sim->routing());
    }
    if (m_done) {
        m_drainTimer.stop();
        joinWorker();
        const auto rest = m_queue.drain();
        if (!rest.empty())
            Q_EMIT eventsBatch(QVector<engine::SimEvent>(rest.begin(), rest.end()));
        reportCoalesced();
        std::string error, summary;
        {
            std::lock_guard lock(m_mutex);
            error = m_error;
            summary = m_summary;
            m_sim.reset();
        }
        stopRecording(); // the run is over: the recording ends with it
        // The last reference: the run's data, models and step buffers go,
        // and their pages go back while the window sits idle
        // (core/engine/allocator.h).
        sim.reset();
        engine::releaseFreedTensorMemory();
        if (!error.empty()) {
            setState(State::Failed);
            Q_EMIT failed(QString::fromStdString(error));
        } else {
            setState(State::Finished);
            Q_EMIT finished(QString::fromStdString(summary));
        }
    }
}

void ClusterSession::reportCoalesced() {
    const std::uint64_t total = m_queue.coalesced();
    if (total == m_coalescedShown)
        return;
    m_coalescedShown = total;
    Q_EMIT statusMessage(tr("%1 metric samples coalesced so far: the window fell behind the engine "
                            "(leases, routing and commands are all shown; byte totals are exact)")
                             .arg(total),
                         8000);
}

void ClusterSession::joinWorker() {
    if (m_worker.joinable())
        m_worker.join();
}

} // namespace synaptic::ui
