#pragma once

#include "core/engine/sim/sim_command.h"
#include "core/engine/sim/sim_events.h"
#include "core/engine/synapse/routing_table.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <memory>

Q_DECLARE_METATYPE(synaptic::engine::SimEvent)
Q_DECLARE_METATYPE(synaptic::engine::SimCommand)
Q_DECLARE_METATYPE(std::shared_ptr<const synaptic::engine::RoutingSnapshot>)

namespace synaptic::session {
struct RecorderStats;
}

namespace synaptic::ui {

// What feeds a control-plane window (DESIGN.md §5: the views never know
// whether an embedded engine, ClusterSession, or a remote cluster,
// RemoteClusterSession, is behind it). A source hands events to the GUI
// thread in batches (eventsBatch), the routing table when it changed
// (routingChanged), and takes commands (submit) whose outcome comes back as
// a CommandEvent. Everything here is called and emitted on the GUI thread;
// each implementation keeps its own worker threads behind it.
class ClusterSource : public QObject {
    Q_OBJECT
public:
    // Loading: data loading (embedded) or connecting (remote).
    enum class State { Idle, Loading, Running, Paused, Finished, Failed };
    Q_ENUM(State)

    struct RecordingStatus {
        bool active = false;
        QString path;
        double wallSeconds = 0;
        quint64 bytes = 0;
        quint64 events = 0;
        quint64 coalesced = 0; // metric samples folded into later ones (the disk fell behind)
        QString error;
    };

    explicit ClusterSource(QObject *parent = nullptr);
    ~ClusterSource() override;

    State state() const { return m_state; }
    // The latest routing table the GUI has seen (null before the first).
    std::shared_ptr<const engine::RoutingSnapshot> routing() const { return m_routing; }

    // Recording (issue 5): the source's events from now on go to `path` too,
    // until stopRecording() or the end of the run. Returns why not (empty on
    // success); recordingStopped() says when the file is complete.
    virtual QString startRecording(const QString &path) = 0;
    virtual void stopRecording() = 0;
    virtual RecordingStatus recordingStatus() const = 0;

    // Empty when pause, resume, single step and speed apply; otherwise why
    // they do not (a live cluster runs in real time), for the controls' tooltips.
    virtual QString pacingUnavailableReason() const { return {}; }
    // How the status bar names the clock progress() counts in ("virtual";
    // a live cluster's is real time on the center).
    virtual QString clockName() const;
    // The share of the run's budget done at this position, for the status
    // bar's progress bar; negative when the run has no known end (a run
    // until stopped, a live cluster, a replay).
    virtual double budgetFraction(double virtualSeconds, quint64 samples) const {
        Q_UNUSED(virtualSeconds) Q_UNUSED(samples)
        return -1;
    }
    // What start() and stop() do, in the operator's words, for their tooltips.
    virtual QString startToolTip() const;
    virtual QString stopToolTip() const;

public Q_SLOTS:
    virtual void start() = 0;
    virtual void pause() {}
    virtual void resume() {}
    virtual void singleStep() {}
    virtual void setSpeed(double k) { Q_UNUSED(k) } // virtual seconds per wall second; 0 = as fast as possible
    virtual void stop() = 0;
    virtual void submit(const synaptic::engine::SimCommand &command) = 0;

Q_SIGNALS:
    void stateChanged(synaptic::ui::ClusterSource::State state);
    void eventsBatch(const QVector<synaptic::engine::SimEvent> &events);
    void routingChanged(std::shared_ptr<const synaptic::engine::RoutingSnapshot> snapshot);
    // Once per drain while running: virtual (or cluster-clock) seconds and samples trained.
    void progress(double virtualSeconds, quint64 samples);
    void finished(const QString &summary);
    void failed(const QString &message);
    void recordingStopped(const QString &path, const QString &summary);
    // Something the operator should see in the status bar while it lasts (a
    // dropped connection being retried, metric samples coalesced); timeoutMs
    // 0 keeps it until the next message.
    void statusMessage(const QString &text, int timeoutMs);
    // What the views show belongs to another run (a remote center restarted):
    // empty them before the next batch.
    void viewsReset();

protected:
    void setState(State state);
    // Emits routingChanged() when `snapshot` is a newer table than the last one.
    void offerRouting(std::shared_ptr<const engine::RoutingSnapshot> snapshot);
    void forgetRouting() { m_routing.reset(); }
    // What recordingStopped() says about a finished file.
    static QString recordingSummary(const session::RecorderStats &stats);
    // What recordingStatus() says about a recording in progress.
    static RecordingStatus activeRecordingStatus(const session::RecorderStats &stats, const QString &path,
                                                 double wallSeconds);

private:
    State m_state = State::Idle;
    std::shared_ptr<const engine::RoutingSnapshot> m_routing;
};

} // namespace synaptic::ui
