#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace synaptic::engine {

// Pause, single step and speed of a run, shared between the engine thread
// and whoever drives it (GUI, tests). The engine calls waitTurn() before
// each event: it holds there while paused (until a single step is granted)
// and, at speed k > 0, until virtual time may advance to the next event at
// k x wall time. Everything else may be called from any thread.
class RunControl {
public:
    void requestStop();
    bool stopRequested() const { return m_stop.load(); }
    void pause();
    void resume();
    void step();          // let exactly one more training step finish, then hold
    void setSpeed(double k);
    bool isHeld() const;

    // Engine thread. Returns false when the run should stop; true when the
    // event at virtual time `next` may run now (`now` = the loop's clock).
    bool waitTurn(double now, double next);
    // Engine thread: a training step finished (a single step is used up).
    void stepTaken();

private:
    using Clock = std::chrono::steady_clock;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::atomic<bool> m_stop{false};
    bool m_paused = false;       // guarded by m_mutex
    bool m_held = false;         // guarded by m_mutex: the engine is waiting
    int m_stepsAllowed = 0;      // guarded by m_mutex: single steps granted while paused
    double m_speed = 0;          // guarded by m_mutex
    bool m_speedChanged = false; // guarded by m_mutex
    // Engine thread: virtual time runs at speed x wall time from this anchor.
    Clock::time_point m_paceStart = Clock::now();
    double m_paceVirtual = 0;
};

} // namespace synaptic::engine
