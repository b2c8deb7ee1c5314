#pragma once

#include "core/engine/train_config.h"
#include "metatypes.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace synaptic::engine {
class Trainer;
}

namespace synaptic::ui {

// Runs one engine Trainer on its own thread and hands its progress to the GUI
// thread in batches. The engine thread only appends copies to a bounded,
// mutex-guarded buffer; a 40 ms single-shot timer on the GUI thread swaps the
// buffer out under one lock and emits one progressBatch() per tick, so a fast
// engine never floods the event loop (DESIGN.md §4).
class TrainingSession : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Paused, Stopping, Finished, Failed };
    Q_ENUM(State)

    explicit TrainingSession(QObject *parent = nullptr);
    ~TrainingSession() override;

    State state() const { return m_state; }
    engine::TrainConfig config() const { return m_config; }
    void setConfig(const engine::TrainConfig &config) { m_config = config; }

    static constexpr int kCoalesceMs = 40;
    static constexpr std::size_t kMaxBuffered = 100000;

public Q_SLOTS:
    void start();
    void pause();
    void resume();
    void stop();
    // Stop without the final evaluation (closing the window).
    void abort();

public:
    // True once the engine thread is blocked by a pause (tests, status).
    bool isEngineHeld() const;

Q_SIGNALS:
    void stateChanged(synaptic::ui::TrainingSession::State state);
    void progressBatch(const QVector<synaptic::engine::TrainProgress> &batch);
    void finished(const synaptic::engine::TrainReport &report);
    void failed(const QString &message);

private:
    void setState(State state);
    void reportFailure(const QString &message); // engine thread
    void onEngineProgress(const engine::TrainProgress &progress); // engine thread
    void flush();                                                  // GUI thread
    void joinWorker();

    engine::TrainConfig m_config;
    State m_state = State::Idle;
    std::unique_ptr<engine::Trainer> m_trainer;
    std::thread m_worker;
    QTimer m_flushTimer;

    std::mutex m_bufferMutex;
    std::deque<engine::TrainProgress> m_buffer; // guarded by m_bufferMutex
    bool m_flushScheduled = false;              // guarded by m_bufferMutex
};

} // namespace synaptic::ui
