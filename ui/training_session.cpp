#include "training_session.h"

#include "core/engine/allocator.h"
#include "core/engine/trainer.h"

#include <QLoggingCategory>

#include <algorithm>
#include <optional>

Q_LOGGING_CATEGORY(lcTraining, "synaptic.ui.training")

namespace synaptic::ui {

TrainingSession::TrainingSession(QObject *parent) : QObject(parent) {
    qRegisterMetaType<engine::TrainProgress>();
    qRegisterMetaType<engine::TrainReport>();
    qRegisterMetaType<QVector<engine::TrainProgress>>();
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(kCoalesceMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &TrainingSession::flush);
}

TrainingSession::~TrainingSession() {
    // Abort, not stop: a closing window must not wait for a final evaluation.
    if (m_trainer)
        m_trainer->requestAbort();
    joinWorker();
}

void TrainingSession::setState(State state) {
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void TrainingSession::joinWorker() {
    if (m_worker.joinable())
        m_worker.join();
}

void TrainingSession::start() {
    if (m_state == State::Running || m_state == State::Paused || m_state == State::Stopping)
        return;
    joinWorker();
    {
        std::lock_guard lock(m_bufferMutex);
        m_buffer.clear();
    }
    m_trainer = std::make_unique<engine::Trainer>(m_config);
    setState(State::Running);
    engine::Trainer *trainer = m_trainer.get();
    m_worker = std::thread([this, trainer] {
        std::optional<engine::TrainReport> report;
        QString failure;
        try {
            report = trainer->run([this](const engine::TrainProgress &p) { onEngineProgress(p); });
        } catch (const std::exception &e) {
            failure = QString::fromStdString(e.what());
        } catch (...) {
            // Nothing may escape a std::thread: it would call std::terminate.
            failure = QStringLiteral("unknown error in the training engine");
        }
        // The step buffers' pages go back before the GUI learns the run
        // ended (a new start() joins this thread; core/engine/allocator.h).
        engine::releaseFreedTensorMemory();
        if (!report) {
            reportFailure(failure);
            return;
        }
        QMetaObject::invokeMethod(this, [this, report = *report] {
            flush();
            setState(State::Finished);
            Q_EMIT finished(report);
        }, Qt::QueuedConnection);
    });
}

void TrainingSession::reportFailure(const QString &message) {
    QMetaObject::invokeMethod(this, [this, message] {
        flush();
        qCWarning(lcTraining) << "training failed:" << message;
        setState(State::Failed);
        Q_EMIT failed(message);
    }, Qt::QueuedConnection);
}

void TrainingSession::pause() {
    if (m_state != State::Running)
        return;
    m_trainer->pause();
    setState(State::Paused);
}

void TrainingSession::resume() {
    if (m_state != State::Paused)
        return;
    m_trainer->resume();
    setState(State::Running);
}

void TrainingSession::stop() {
    if (m_state != State::Running && m_state != State::Paused)
        return;
    m_trainer->requestStop();
    setState(State::Stopping);
}

void TrainingSession::abort() {
    if (m_state != State::Running && m_state != State::Paused)
        return;
    m_trainer->requestAbort();
    setState(State::Stopping);
}

bool TrainingSession::isEngineHeld() const { return m_trainer && m_trainer->isHeld(); }

void TrainingSession::onEngineProgress(const engine::TrainProgress &progress) {
    bool schedule = false;
    {
        std::lock_guard lock(m_bufferMutex);
        // Bounded: if the GUI falls far behind, drop the oldest step point
        // rather than grow without limit; evaluations are few and kept.
        if (m_buffer.size() >= kMaxBuffered) {
            auto oldestStep = std::find_if(m_buffer.begin(), m_buffer.end(), [](const engine::TrainProgress &p) {
                return p.kind == engine::TrainProgress::Kind::Step;
            });
            if (oldestStep != m_buffer.end())
                m_buffer.erase(oldestStep);
        }
        m_buffer.push_back(progress);
        if (!m_flushScheduled) {
            m_flushScheduled = true;
            schedule = true;
        }
    }
    if (schedule)
        QMetaObject::invokeMethod(&m_flushTimer, qOverload<>(&QTimer::start), Qt::QueuedConnection);
}

void TrainingSession::flush() {
    std::deque<engine::TrainProgress> taken;
    {
        std::lock_guard lock(m_bufferMutex);
        taken.swap(m_buffer);
        m_flushScheduled = false;
    }
    if (taken.empty())
        return;
    Q_EMIT progressBatch(QVector<engine::TrainProgress>(taken.begin(), taken.end()));
}

} // namespace synaptic::ui
