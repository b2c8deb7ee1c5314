#pragma once

#include "replay_recording.h"

#include <QObject>
#include <QTimer>

namespace synaptic::ui {

class ControlPlaneWindow;

// Plays a recorded run into a ControlPlaneWindow through the same ingest()
// and ingestRouting() a live run uses, so every view shows the state at the
// current replay time (DESIGN.md §5: models never know which feeds them).
// Forward in time it feeds only the events in between. Backward, and
// forward past a keyframe when that is cheaper, it starts from the last
// keyframe before the new time (DESIGN.md §5): the views are reset, given
// the keyframe's state and what the recording's index says they show of the
// time before it, then fed the events from the keyframe on. They end up as a
// feed of every event from the start would leave them.
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
    // Events handed to the window so far, whatever views they went to: what
    // a seek costs, for tests and benchmarks.
    std::size_t eventsFed() const { return m_fed; }

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
    // The last keyframe whose state is at or before t (the run's start if none).
    const session::RunKeyframe &keyframeFor(double t) const;
    // About how many events startFrom(k) feeds before the keyframe's own.
    std::size_t startCost(const session::RunKeyframe &k) const;
    void startFrom(const session::RunKeyframe &k);

    ReplayRecording m_rec;
    ControlPlaneWindow *m_window;
    QTimer m_timer;
    double m_time = -1;      // nothing shown yet
    std::size_t m_next = 0;  // first event not yet fed
    std::ptrdiff_t m_routingShown = -1;
    double m_speed = 1.0;
    std::size_t m_fed = 0;
    session::RunKeyframe m_runStart; // a keyframe of nothing, at event 0
};

} // namespace synaptic::ui
