#pragma once

#include "core/engine/embeddings/hot_update_options.h"
#include "core/engine/embeddings/hot_update_sim.h"
#include "core/engine/sim/cluster_config.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QVector>

#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace synaptic::ui {

// Runs the embedding hot-update scenario (issue 16) on its own thread and
// hands its frames to the GUI thread in batches: the engine thread appends
// copies to a bounded, mutex-guarded buffer, and a 40 ms single-shot timer on
// the GUI thread swaps it out under one lock (DESIGN.md §4). The corpus is
// read on the engine thread too: the GUI thread never does file or LibTorch
// work. The lag bound and stop are live controls the driver reads between
// events.
class HotUpdateSession : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Finished, Failed };
    Q_ENUM(State)
    static constexpr int kCoalesceMs = 40;
    static constexpr std::size_t kMaxBuffered = 10000; // frames; a run makes ~one per 0.1 virtual s

    explicit HotUpdateSession(QObject *parent = nullptr);
    ~HotUpdateSession() override; // stops the run and waits for its thread

    State state() const { return m_state; }
    // Starts a run (ignored while one runs). `fortuneDir` empty: the
    // installed fortune files ($SYNAPTIC_FORTUNE_DIR overrides).
    void start(const engine::ClusterConfig &config, const engine::HotUpdateOptions &options,
               const QString &fortuneDir = {});
    // Publishes an edge may miss before it asks for a catch-up; takes effect
    // at the driver's next event.
    void setLagBound(int bound);
    int lagBound() const;
    void stop();
    // Frames dropped because the GUI fell kMaxBuffered behind (said in the status bar).
    std::uint64_t framesDropped() const { return m_dropped; }

Q_SIGNALS:
    void stateChanged(synaptic::ui::HotUpdateSession::State state);
    void framesReady(const QVector<synaptic::engine::HotUpdateFrame> &frames);
    void finished(const synaptic::engine::HotUpdateResult &result);
    void failed(const QString &message);

private:
    void drain(); // GUI thread
    void setState(State state);
    void join();

    engine::HotUpdateControls m_controls;
    std::thread m_thread;
    QTimer m_drainTimer;
    State m_state = State::Idle;
    std::uint64_t m_dropped = 0; // GUI thread

    std::mutex m_mutex; // guards what follows
    std::deque<engine::HotUpdateFrame> m_buffer;
    std::uint64_t m_droppedPending = 0;
    std::optional<engine::HotUpdateResult> m_result;
    std::optional<QString> m_error;
};

} // namespace synaptic::ui

// Cross from the engine thread as copies (DESIGN.md §4).
Q_DECLARE_METATYPE(synaptic::engine::HotUpdateFrame)
Q_DECLARE_METATYPE(synaptic::engine::HotUpdateResult)
