#pragma once

#include "remote_target.h"

#include "ui/cluster_source.h"

#include "core/engine/sim/cluster_config.h"

#include <QElapsedTimer>
#include <QTimer>

#include <memory>
#include <mutex>

namespace synaptic::session {
class SessionRecorder;
}

namespace synaptic::ui {

class CommandSender;
class ControlStream;
class RemoteInbox;
struct ClusterStatus;

// A live cluster of separate processes seen through its center's Control
// service (issue 13 §5): the ClusterSource a control-plane window gets
// instead of an embedded engine. A reader thread (ControlStream) watches
// the center and fills a RemoteInbox; a 40 ms timer on the GUI thread
// drains it exactly as ClusterSession drains its engine's queue. Commands
// go out on CommandSender's worker thread, never from the GUI thread. The
// cluster runs in real time, so pause, resume, single step and speed do
// not apply. start() connects; stop() disconnects (the cluster keeps
// running). GUI thread only, except where noted.
class RemoteClusterSession : public ClusterSource {
    Q_OBJECT
public:
    // `config` is the cluster's, from the center's description (the window
    // is built from it before the session connects).
    RemoteClusterSession(RemoteTarget target, engine::ClusterConfig config, QObject *parent = nullptr);
    ~RemoteClusterSession() override;

    const RemoteTarget &target() const { return m_target; }
    QString address() const { return QString::fromStdString(m_target.address); }
    // Metric samples coalesced because the GUI fell behind, since start().
    quint64 coalescedSamples() const { return m_coalesced; }

    QString startRecording(const QString &path) override;
    void stopRecording() override;
    RecordingStatus recordingStatus() const override;

    QString pacingUnavailableReason() const override;
    QString clockName() const override;
    QString startToolTip() const override;
    QString stopToolTip() const override;

    static constexpr int kCoalesceMs = 40;
    static constexpr std::size_t kMaxEventsPerDrain = 20000; // the rest waits a tick: the GUI stays responsive

public Q_SLOTS:
    void start() override;
    void stop() override;
    // Queued for the worker thread; the outcome comes back as a CommandEvent.
    void submit(const synaptic::engine::SimCommand &command) override;

private:
    void drain();
    void applyStatus(const ClusterStatus &status);
    void end(State state, const QString &message);
    void shutDown(); // stops the threads; GUI thread
    void recordEvent(const engine::SimEvent &event); // reader thread
    void endRecordedRun(const QString &why);         // m_recMutex held

    const RemoteTarget m_target;
    const engine::ClusterConfig m_config;
    QTimer m_drainTimer;
    std::unique_ptr<RemoteInbox> m_inbox;
    std::unique_ptr<ControlStream> m_stream;
    std::unique_ptr<CommandSender> m_sender;
    quint64 m_coalesced = 0;
    double m_clusterTime = 0;
    quint64 m_samples = 0;
    bool m_finishedSeen = false;

    // Recording: the reader thread records every event (before any
    // coalescing); start and stop come from the GUI thread.
    mutable std::mutex m_recMutex;
    std::shared_ptr<session::SessionRecorder> m_recorder; // guarded by m_recMutex
    double m_recordedTime = 0;                            // guarded by m_recMutex: latest event recorded
    QString m_recordPath;
    QElapsedTimer m_recordClock;
};

} // namespace synaptic::ui
