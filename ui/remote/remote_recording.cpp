// RemoteClusterSession's record button: the reader thread hands each event
// to a SessionRecorder (which only queues it; its own thread writes), so a
// recording holds every event the center sent, even samples the GUI had to
// coalesce (unless the disk falls behind: then the recorder folds samples
// too, counted in the run's end record; state events are always written). A live run has no rerun plan: RunStart carries the cluster's
// config but no step budget or seed schedule a simulator could replay, and
// the recorder's tool field says it was a live cluster.
#include "remote_cluster_session.h"

#include "core/engine/sim/simulation.h"
#include "core/session/record_codec.h"
#include "core/session/session_recorder.h"

#include <QDir>
#include <QFileInfo>

namespace synaptic::ui {

void RemoteClusterSession::recordEvent(const engine::SimEvent &event) {
    std::lock_guard lock(m_recMutex);
    if (!m_recorder)
        return;
    m_recorder->record(event);
    m_recordedTime = session::eventTime(event);
}

QString RemoteClusterSession::startRecording(const QString &path) {
    stopRecording();
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath()))
        return tr("%1: cannot create the folder").arg(info.absolutePath());
    std::shared_ptr<session::SessionRecorder> recorder;
    try {
        recorder = std::make_shared<session::SessionRecorder>(
            path.toStdString(), "synaptic --connect " + m_target.address + " (live cluster, no rerun plan)");
    } catch (const std::exception &e) {
        return QString::fromStdString(e.what());
    }
    // No Simulation to sample routing tables from and no budget to rerun:
    // the options are the defaults, the events are the record.
    recorder->beginRun(m_config, engine::SimOptions{}, nullptr);
    std::lock_guard lock(m_recMutex);
    m_recorder = std::move(recorder);
    m_recordedTime = m_clusterTime;
    m_recordPath = path;
    m_recordClock.start();
    return {};
}

void RemoteClusterSession::endRecordedRun(const QString &why) {
    engine::StrategyResult partial;
    partial.strategy = m_config.strategy;
    partial.virtualSeconds = m_recordedTime;
    partial.samples = m_samples;
    partial.stoppedEarly = why.toStdString();
    m_recorder->endRun(partial, false);
}

void RemoteClusterSession::stopRecording() {
    std::shared_ptr<session::SessionRecorder> recorder;
    {
        std::lock_guard lock(m_recMutex);
        if (!m_recorder)
            return;
        endRecordedRun(m_finishedSeen ? tr("a live cluster's run, recorded until it finished")
                                      : tr("a live cluster's run, recorded until the recording was stopped"));
        recorder = std::move(m_recorder);
        m_recorder.reset();
    }
    recorder->close(); // joins the writer: the file is complete when this returns
    Q_EMIT recordingStopped(m_recordPath, recordingSummary(recorder->stats()));
}

ClusterSource::RecordingStatus RemoteClusterSession::recordingStatus() const {
    std::lock_guard lock(m_recMutex);
    if (!m_recorder)
        return {};
    return activeRecordingStatus(m_recorder->stats(), m_recordPath, m_recordClock.elapsed() / 1e3);
}

} // namespace synaptic::ui
