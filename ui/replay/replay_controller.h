#pragma once

#include "replay_recording.h"

#include <QObject>
#include <QTimer>

namespace synaptic::ui {

class ControlPlaneWindow;

// Plays a recorded run into a ControlPlaneWindow through the same ingest()
// and ingestRouting() a live run uses, so every view shows the state at the
// current replay time (DESIGN.md §5: models never know which feeds them).
// Forward in time it feeds only the events in between; backward it resets
// the views and feeds the run again from its start up to the new time.
class ReplayController : public QObject {
    Q_OBJECT
public:
    ReplayController(ReplayRecording recording, ControlPlaneWindow *window);

    const ReplayRecording &recording() const { return m_rec; }
    double position() const { return m_time; }
    double begin() const { return m_rec.begin; }
    double end() const { return m_rec.end; }
    double speed() const { return m_speed; }
    bool isPlaying() const { return m_timer.isActive(); }
    std::size_t eventsShown() const { return m_next; }

    static constexpr int kTickMs = 40;

public Q_SLOTS:
    // Shows the state at virtual time t (clamped to the run): every event at
    // or before t, and the latest routing sample at or before t.
    void seek(double t);
    void play();
    void pause();
    void setSpeed(double virtualSecondsPerSecond);
    // To the next instant that has events.
    void step();

Q_SIGNALS:
    void positionChanged(double t);
    void playingChanged(bool playing);

private:
    void tick();

    ReplayRecording m_rec;
    ControlPlaneWindow *m_window;
    QTimer m_timer;
    double m_time = -1;      // nothing shown yet
    std::size_t m_next = 0;  // first event not yet fed
    std::ptrdiff_t m_routingShown = -1;
    double m_speed = 1.0;
};

} // namespace synaptic::ui
