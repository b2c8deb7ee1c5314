#pragma once

#include "cluster_source.h"

#include "core/engine/sim/sim_event_samples.h"
#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/eval_cadence.h"
#include "core/engine/sim/sim_result.h"

#include <QElapsedTimer>
#include <QTimer>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

namespace synaptic::engine {
class Simulation;
struct SimOptions;
}
namespace synaptic::session {
class SessionRecorder;
}

namespace synaptic::ui {

// Runs one simulated cluster (engine::Simulation) on its own thread and
// hands its events to the GUI thread in batches: the engine pushes copies
// into a queue that never blocks it and never drops a state event (leases,
// routing, commands): when the GUI falls behind, only metric samples are
// coalesced, and the status bar says so (DESIGN.md §5); a 40 ms
// single-shot timer on the GUI thread drains it under one lock and emits one
// eventsBatch(), plus routingChanged() when the table's revision moved
// (DESIGN.md §4). Commands go the other way through Simulation::submit().
// The embedded ClusterSource. GUI thread only, except where noted.
class ClusterSession : public ClusterSource {
    Q_OBJECT
public:
    explicit ClusterSession(QObject *parent = nullptr);
    // sampleCapacity: metric samples that may wait before they are coalesced (tests make it small).
    ClusterSession(std::size_t sampleCapacity, QObject *parent);
    ~ClusterSession() override;

    // What start() runs. stepsPerEdge 0 with virtualSeconds 0 trains until stopped.
    void setConfig(const engine::ClusterConfig &config) { m_config = config; }
    const engine::ClusterConfig &config() const { return m_config; }
    void setBudget(std::uint64_t stepsPerEdge, double virtualSeconds);
    double budgetFraction(double virtualSeconds, quint64 samples) const override;
    void setEvalEverySamples(std::uint64_t samples) { m_evalEvery = samples; }

    // Recording (issue 5): the engine's events from now on go to `path` too,
    // written by the recorder's own thread, until stopRecording() or the end
    // of the run. Returns why not (empty on success).
    QString startRecording(const QString &path) override;
    void stopRecording() override;
    RecordingStatus recordingStatus() const override;

    static constexpr int kCoalesceMs = 40;
    static constexpr std::size_t kQueueCapacity = 200000;
    // The GUI evaluates by samples: at ~1,500 samples/s on a laptop CPU,
    // virtual-time intervals would leave the charts empty for minutes.
    static constexpr std::uint64_t kEvalEverySamples = engine::kDefaultEvalEverySamples;

public Q_SLOTS:
    void start() override;
    void pause() override;
    void resume() override;
    void singleStep() override;
    void setSpeed(double k) override; // virtual seconds per wall second; 0 = as fast as possible
    void stop() override;
    // Applied by the engine at its next step boundary; the outcome comes
    // back as a CommandEvent.
    void submit(const synaptic::engine::SimCommand &command) override;

private:
    void drain();
    void joinWorker();
    void reportCoalesced(); // status bar: how many samples were coalesced, when that grew
    void recordEvent(const engine::SimEvent &event); // engine thread
    void attachRecorder();                           // m_mutex and m_recMutex held, m_sim set

    engine::ClusterConfig m_config;
    std::uint64_t m_stepsPerEdge = 0;
    std::uint64_t m_evalEvery = kEvalEverySamples;
    double m_virtualSeconds = 0;
    engine::SimEventQueue m_queue;
    std::uint64_t m_coalescedShown = 0; // GUI thread: what the status bar last said
    QTimer m_drainTimer;
    std::thread m_worker;

    // Shared with the engine thread.
    std::mutex m_mutex;
    std::shared_ptr<engine::Simulation> m_sim; // guarded by m_mutex; null until loaded
    std::atomic<bool> m_stopRequested{false};
    std::atomic<bool> m_done{false};
    std::string m_error;                       // guarded by m_mutex
    std::string m_summary;                     // guarded by m_mutex
    std::vector<engine::SimCommand> m_early;   // guarded by m_mutex: submitted before the engine was up
    double m_speed = 0;                        // guarded by m_mutex
    bool m_paused = false;                     // guarded by m_mutex
    std::shared_ptr<engine::SimOptions> m_options; // guarded by m_mutex: what m_sim was built with

    // Recording. Lock order: m_mutex before m_recMutex.
    mutable std::mutex m_recMutex;
    std::shared_ptr<session::SessionRecorder> m_recorder; // guarded by m_recMutex
    bool m_recorderAttached = false;                      // guarded by m_recMutex: beginRun() done
    bool m_runEnded = false;                              // guarded by m_recMutex: endRun() done
    QString m_recordPath;
    QElapsedTimer m_recordClock;
};

} // namespace synaptic::ui
