#pragma once

#include "core/engine/sim/sim_command.h"
#include "core/engine/sim/sim_events.h"

#include <QMap>
#include <QStringList>
#include <QWidget>

class QLabel;
class QSpinBox;

namespace synaptic::ui {

class SweepChart;

// Early-exit serving at a glance (issue 6 §3, §5): the latest edge image's
// threshold sweep with the operating point, which image version each edge
// serves, the bytes spent shipping images, and the release cadence (ship
// every K center syncs), which is live: changing it sends a command. Fed
// by the control plane's ingest, live or replayed. GUI thread only.
class ServingPanel : public QWidget {
    Q_OBJECT
public:
    ServingPanel(const QStringList &edgeNames, double threshold, int releaseEverySyncs, QWidget *parent = nullptr);

    void addImage(const engine::EdgeImageEvent &image);
    void addInference(const engine::InferenceEvent &interval);
    // The global threshold changed (an applied command): the marker moves.
    void setThreshold(double threshold);
    void setReleaseCadence(int syncs); // an applied command, without sending one back
    void setControlsEnabled(bool enabled);
    void clear();

    SweepChart *sweep() const { return m_sweep; }
    QString statusText() const;
    quint64 versionOf(int edge) const { return m_edgeVersion.value(edge, 0); }

Q_SIGNALS:
    void commandRequested(const engine::SimCommand &command);

private:
    void updateStatus();

    QStringList m_edgeNames;
    SweepChart *m_sweep;
    QLabel *m_status;
    QSpinBox *m_cadence;
    QMap<int, quint64> m_edgeVersion;
    quint64 m_released = 0;
    double m_releasedAt = 0;
    quint64 m_imageBytes = 0;
    quint64 m_arrivals = 0;           // edge-image deliveries so far
    quint64 m_requests = 0, m_degraded = 0, m_atEdge = 0;
    bool m_updatingCadence = false;
};

} // namespace synaptic::ui
