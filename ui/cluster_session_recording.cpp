// ClusterSession's record button (issue 5): the engine thread hands each
// event to a SessionRecorder, which only queues it; the recorder's own
// thread compresses and writes. Starting and stopping may happen at any
// point of a run, from the GUI thread.
#include "cluster_session.h"

#include "core/engine/sim/simulation.h"
#include "core/session/session_recorder.h"

#include <QDir>
#include <QFileInfo>

namespace synaptic::ui {

void ClusterSession::recordEvent(const engine::SimEvent &event) {
    std::lock_guard lock(m_recMutex);
    if (m_recorder && m_recorderAttached)
        m_recorder->record(event);
}

void ClusterSession::attachRecorder() {
    m_recorder->beginRun(m_config, *m_options, m_sim.get());
    m_recorderAttached = true;
}

QString ClusterSession::startRecording(const QString &path) {
    stopRecording();
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath()))
        return tr("%1: cannot create the folder").arg(info.absolutePath());
    std::shared_ptr<session::SessionRecorder> recorder;
    try {
        recorder = std::make_shared<session::SessionRecorder>(path.toStdString(), "synaptic");
    } catch (const std::exception &e) {
        return QString::fromStdString(e.what());
    }
    std::lock_guard lock(m_mutex);
    std::lock_guard rec(m_recMutex);
    m_recorder = std::move(recorder);
    m_recorderAttached = false;
    m_recordPath = path;
    m_recordClock.start();
    // A run in progress is joined now (the file then starts mid-run);
    // otherwise the engine thread attaches it when the run is built.
    if (m_sim && !m_runEnded)
        attachRecorder();
    return {};
}

void ClusterSession::stopRecording() {
    std::shared_ptr<engine::Simulation> sim;
    {
        std::lock_guard lock(m_mutex);
        sim = m_sim;
    }
    std::shared_ptr<session::SessionRecorder> recorder;
    {
        std::lock_guard rec(m_recMutex);
        recorder = std::move(m_recorder);
        m_recorder.reset();
        if (recorder && m_recorderAttached && !m_runEnded && sim) {
            engine::StrategyResult partial;
            partial.strategy = m_config.strategy;
            partial.virtualSeconds = sim->virtualNow();
            partial.samples = sim->samplesNow();
            partial.stoppedEarly = "the recording was stopped before the run ended";
            recorder->endRun(partial, false);
        }
        m_recorderAttached = false;
    }
    if (!recorder)
        return;
    recorder->close(); // joins the writer: the file is complete when this returns
    Q_EMIT recordingStopped(m_recordPath, recordingSummary(recorder->stats()));
}

ClusterSession::RecordingStatus ClusterSession::recordingStatus() const {
    std::lock_guard rec(m_recMutex);
    if (!m_recorder)
        return {};
    return activeRecordingStatus(m_recorder->stats(), m_recordPath, m_recordClock.elapsed() / 1e3);
}

} // namespace synaptic::ui
