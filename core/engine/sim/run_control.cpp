#include "run_control.h"

namespace synaptic::engine {

void RunControl::requestStop() {
    m_stop = true;
    std::lock_guard lock(m_mutex);
    m_wake.notify_all();
}

void RunControl::pause() {
    std::lock_guard lock(m_mutex);
    m_paused = true;
}

void RunControl::resume() {
    std::lock_guard lock(m_mutex);
    m_paused = false;
    m_wake.notify_all();
}

void RunControl::step() {
    std::lock_guard lock(m_mutex);
    m_paused = true;
    ++m_stepsAllowed;
    m_wake.notify_all();
}

void RunControl::setSpeed(double k) {
    std::lock_guard lock(m_mutex);
    m_speed = k > 0 ? k : 0;
    m_speedChanged = true;
    m_wake.notify_all();
}

bool RunControl::isHeld() const {
    std::lock_guard lock(m_mutex);
    return m_held;
}

void RunControl::stepTaken() {
    std::lock_guard lock(m_mutex);
    if (m_paused && m_stepsAllowed > 0)
        --m_stepsAllowed; // a single step has been taken
}

bool RunControl::waitTurn(double now, double next) {
    for (;;) {
        double speed = 0;
        {
            std::unique_lock lock(m_mutex);
            m_held = m_paused && m_stepsAllowed == 0;
            m_wake.wait(lock, [&] { return m_stop || !m_paused || m_stepsAllowed > 0; });
            m_held = false;
            if (m_speedChanged || m_paused) {
                m_speedChanged = false;
                m_paceStart = Clock::now(); // re-anchor: time spent paused is not made up for
                m_paceVirtual = now;
            }
            speed = m_speed;
        }
        if (m_stop)
            return false;
        if (!(speed > 0))
            return true;
        const auto due = m_paceStart + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>((next - m_paceVirtual) / speed));
        std::unique_lock lock(m_mutex);
        m_wake.wait_until(lock, due, [&] { return m_stop.load() || m_speedChanged; });
        if (m_stop)
            return false;
        if (!m_speedChanged)
            return true;
        // The speed changed while waiting: re-anchor and wait again.
    }
}

} // namespace synaptic::engine
