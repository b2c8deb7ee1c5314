#include "hot_update_session.h"

#include "core/data/fortune_corpus.h"
#include "core/engine/allocator.h"

#include <exception>

namespace synaptic::ui {

HotUpdateSession::HotUpdateSession(QObject *parent) : QObject(parent) {
    m_drainTimer.setSingleShot(true);
    m_drainTimer.setInterval(kCoalesceMs);
    connect(&m_drainTimer, &QTimer::timeout, this, &HotUpdateSession::drain);
}

HotUpdateSession::~HotUpdateSession() {
    stop();
    join();
}

void HotUpdateSession::join() {
    if (m_thread.joinable())
        m_thread.join();
}

void HotUpdateSession::setState(State state) {
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void HotUpdateSession::start(const engine::ClusterConfig &config, const engine::HotUpdateOptions &options,
                             const QString &fortuneDir) {
    if (m_state == State::Running)
        return;
    join();
    m_controls.stop = false;
    {
        std::lock_guard lock(m_mutex);
        m_buffer.clear();
        m_result.reset();
        m_error.reset();
        m_droppedPending = 0;
    }
    m_dropped = 0;
    setState(State::Running);
    m_thread = std::thread([this, config, options, dir = fortuneDir.toStdString()] {
        auto push = [this](const engine::HotUpdateFrame &f) {
            std::lock_guard lock(m_mutex);
            if (m_buffer.size() >= kMaxBuffered) {
                m_buffer.pop_front();
                ++m_droppedPending;
            }
            m_buffer.push_back(f);
        };
        std::optional<engine::HotUpdateResult> result;
        QString error;
        try {
            data::FortuneOptions corpusOptions;
            corpusOptions.maxPerLanguage = options.maxPerLanguage;
            corpusOptions.languages = options.languages;
            const auto corpus = data::loadFortuneCorpus(data::resolveFortuneDir(dir), corpusOptions);
            engine::HotUpdateHooks hooks;
            hooks.frame = push;
            hooks.controls = &m_controls;
            result = engine::runHotUpdateScenario(config, corpus, options, hooks);
        } catch (const std::exception &e) {
            error = QString::fromUtf8(e.what());
        } catch (...) { // nothing may reach std::terminate on the engine thread
            error = QStringLiteral("the scenario failed with an unknown error");
        }
        // The corpus and the step buffers are freed; their pages go back
        // before the GUI, which joins this thread once it sees the outcome,
        // learns of it (core/engine/allocator.h).
        engine::releaseFreedTensorMemory();
        std::lock_guard lock(m_mutex);
        if (result)
            m_result = std::move(result);
        else
            m_error = error;
    });
    m_drainTimer.start();
}

void HotUpdateSession::setLagBound(int bound) { m_controls.lagBound = bound; }

int HotUpdateSession::lagBound() const { return m_controls.lagBound; }

void HotUpdateSession::stop() { m_controls.stop = true; }

void HotUpdateSession::drain() {
    QVector<engine::HotUpdateFrame> frames;
    std::optional<engine::HotUpdateResult> result;
    std::optional<QString> error;
    {
        std::lock_guard lock(m_mutex);
        frames.reserve(qsizetype(m_buffer.size()));
        for (auto &f : m_buffer)
            frames.push_back(std::move(f));
        m_buffer.clear();
        m_dropped += std::exchange(m_droppedPending, 0);
        result = std::exchange(m_result, std::nullopt);
        error = std::exchange(m_error, std::nullopt);
    }
    if (!frames.isEmpty())
        Q_EMIT framesReady(frames);
    if (result || error) {
        join();
        if (error) {
            setState(State::Failed);
            Q_EMIT failed(*error);
        } else {
            setState(State::Finished);
            Q_EMIT finished(*result);
        }
        return;
    }
    m_drainTimer.start();
}

} // namespace synaptic::ui
