#include "replay_controller.h"

#include "ui/control_plane_window.h"
#include "core/session/record_codec.h"

#include <algorithm>

namespace synaptic::ui {

ReplayController::ReplayController(ReplayRecording recording, ControlPlaneWindow *window)
    : QObject(window), m_rec(std::move(recording)), m_window(window) {
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &ReplayController::tick);
}

void ReplayController::seek(double t) {
    t = std::clamp(t, m_rec.begin, m_rec.end);
    const auto &events = m_rec.data.events;
    if (t < m_time) { // backward: rebuild from the start
        m_window->resetViews();
        m_next = 0;
        m_routingShown = -1;
    }
    std::size_t last = m_next;
    while (last < events.size() && session::eventTime(events[last]) <= t)
        ++last;
    m_window->setReplayTime(t);
    if (last > m_next) {
        // In slices, so a long jump does not build one enormous batch.
        constexpr std::size_t kSlice = 20000;
        for (std::size_t from = m_next; from < last; from += kSlice) {
            const std::size_t to = std::min(last, from + kSlice);
            m_window->ingest(QVector<engine::SimEvent>(events.begin() + std::ptrdiff_t(from),
                                                       events.begin() + std::ptrdiff_t(to)));
        }
        m_next = last;
    }
    const auto &samples = m_rec.data.routing;
    const auto it = std::upper_bound(samples.begin(), samples.end(), t,
                                     [](double x, const session::TimedRouting &r) { return x < r.time; });
    const std::ptrdiff_t shown = std::ptrdiff_t(it - samples.begin()) - 1;
    if (shown >= 0 && shown != m_routingShown)
        m_window->ingestRouting(samples[std::size_t(shown)].snapshot);
    m_routingShown = shown;
    m_time = t;
    Q_EMIT positionChanged(t);
}

void ReplayController::play() {
    if (m_time >= m_rec.end)
        seek(m_rec.begin);
    if (!m_timer.isActive()) {
        m_timer.start();
        Q_EMIT playingChanged(true);
    }
}

void ReplayController::pause() {
    if (m_timer.isActive()) {
        m_timer.stop();
        Q_EMIT playingChanged(false);
    }
}

void ReplayController::setSpeed(double k) { m_speed = k > 0 ? k : 1.0; }

void ReplayController::step() {
    pause();
    const auto &events = m_rec.data.events;
    if (m_next < events.size())
        seek(session::eventTime(events[m_next]));
}

void ReplayController::tick() {
    seek(std::max(m_time, m_rec.begin) + m_speed * kTickMs / 1e3);
    if (m_time >= m_rec.end)
        pause();
}

} // namespace synaptic::ui
