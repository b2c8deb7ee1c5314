#include "cluster_source.h"

#include "core/session/session_recorder.h"

namespace synaptic::ui {

ClusterSource::ClusterSource(QObject *parent) : QObject(parent) {
    // Queued connections and QSignalSpy copy these across threads and into QVariants.
    qRegisterMetaType<engine::SimEvent>();
    qRegisterMetaType<QVector<engine::SimEvent>>();
    qRegisterMetaType<engine::SimCommand>();
    qRegisterMetaType<std::shared_ptr<const engine::RoutingSnapshot>>();
}

ClusterSource::~ClusterSource() = default;

QString ClusterSource::clockName() const { return tr("virtual"); }

QString ClusterSource::startToolTip() const { return tr("Start the cluster"); }

QString ClusterSource::stopToolTip() const { return tr("Stop the cluster"); }

void ClusterSource::setState(State state) {
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void ClusterSource::offerRouting(std::shared_ptr<const engine::RoutingSnapshot> snapshot) {
    if (!snapshot || (m_routing && snapshot->revision == m_routing->revision))
        return;
    m_routing = std::move(snapshot);
    Q_EMIT routingChanged(m_routing);
}

QString ClusterSource::recordingSummary(const session::RecorderStats &s) {
    QString summary = tr("%1 events, %2 MB").arg(s.events).arg(double(s.bytes) / 1e6, 0, 'f', 2);
    if (s.coalesced)
        summary += tr(", %1 metric samples coalesced (the disk fell behind; no state event was lost)").arg(s.coalesced);
    if (!s.error.empty())
        summary += tr(", stopped by an error: %1").arg(QString::fromStdString(s.error));
    return summary;
}

ClusterSource::RecordingStatus ClusterSource::activeRecordingStatus(const session::RecorderStats &s,
                                                                   const QString &path, double wallSeconds) {
    RecordingStatus status;
    status.active = true;
    status.path = path;
    status.wallSeconds = wallSeconds;
    status.bytes = s.bytes;
    status.events = s.events;
    status.coalesced = s.coalesced;
    status.error = QString::fromStdString(s.error);
    return status;
}

} // namespace synaptic::ui
