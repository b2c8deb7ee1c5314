#include "replay_controller.h"

#include "ui/control_plane_window.h"
#include "core/session/record_codec.h"

#include <algorithm>

namespace synaptic::ui {

using Feed = ControlPlaneWindow::Feed;

ReplayController::ReplayController(ReplayRecording recording, ControlPlaneWindow *window)
    : QObject(window), m_rec(std::move(recording)), m_window(window) {
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &ReplayController::tick);
    m_runStart.state.time = m_rec.begin;
}

const session::RunKeyframe &ReplayController::keyframeFor(double t) const {
    // A keyframe's time is the latest of the events before it: each of them is at or before t.
    const auto &k = m_rec.data.keyframes;
    const auto it = std::upper_bound(k.begin(), k.end(), t,
                                     [](double x, const session::RunKeyframe &f) { return x < f.state.time; });
    return it == k.begin() ? m_runStart : *(it - 1);
}

namespace {
// How many of the ascending positions `at` are before `end`.
std::size_t countBefore(const std::vector<std::size_t> &at, std::size_t end) {
    return std::size_t(std::lower_bound(at.begin(), at.end(), end) - at.begin());
}
} // namespace

std::size_t ReplayController::startCost(const session::RunKeyframe &k) const {
    const auto &ix = m_rec.index;
    return countBefore(ix.chartEventAt, k.event) + countBefore(ix.lasting, k.event) +
           std::min<std::size_t>(countBefore(ix.logged, k.event), ControlPlaneWindow::kMaxLogLines);
}

void ReplayController::startFrom(const session::RunKeyframe &k) {
    const auto &events = m_rec.data.events;
    const auto &ix = m_rec.index;
    m_window->resetViews();
    m_routingShown = -1;
    // The charts show the run from its start. The views' time is still 0
    // (resetViews), so this feed closes no instant early: one that goes on
    // after the keyframe gets its later rows as in a feed from the start.
    const std::size_t charts = countBefore(ix.chartEventAt, k.event);
    m_window->feed(std::span(ix.chartEvents.data(), charts), Feed::ChartsOnly);
    m_fed += charts;

    // The other views, from the events before the keyframe that they still
    // show: those whose effect lasts, those of the log's latest lines, and
    // the topology's latest interval of link counters. In stream order.
    std::vector<std::size_t> at(ix.lasting.begin(), ix.lasting.begin() + std::ptrdiff_t(countBefore(ix.lasting, k.event)));
    const std::size_t logged = countBefore(ix.logged, k.event);
    const std::size_t firstLogged = logged - std::min<std::size_t>(logged, ControlPlaneWindow::kMaxLogLines);
    at.insert(at.end(), ix.logged.begin() + std::ptrdiff_t(firstLogged), ix.logged.begin() + std::ptrdiff_t(logged));
    double interval = -1;
    for (std::size_t i = k.event; i-- > 0;) {
        if (const auto *b = std::get_if<engine::LinkBytesEvent>(&events[i])) {
            if (interval >= 0 && b->time != interval)
                break;
            interval = b->time;
            at.push_back(i);
        }
    }
    std::sort(at.begin(), at.end());
    at.erase(std::unique(at.begin(), at.end()), at.end());
    std::vector<engine::SimEvent> picked;
    picked.reserve(at.size());
    for (const std::size_t i : at)
        picked.push_back(events[i]);
    m_window->feed(picked, Feed::ViewsOnly);
    m_fed += picked.size();
    // Leases last too; the keyframe holds each edge's latest.
    m_window->showLeases(k.state.leases);
    m_next = k.event;
}

void ReplayController::seek(double t) {
    t = std::clamp(t, m_rec.begin, m_rec.end);
    const auto &events = m_rec.data.events;
    const session::RunKeyframe &k = keyframeFor(t);
    const bool back = t < m_time;
    std::size_t last = back ? k.event : std::max(m_next, k.event);
    while (last < events.size() && session::eventTime(events[last]) <= t)
        ++last;
    // Forward, the keyframe pays when skipping to it costs less than feeding the gap.
    if (back || (k.event > m_next && startCost(k) + (last - k.event) < last - m_next))
        startFrom(k);
    m_window->setReplayTime(t);
    if (last > m_next) {
        m_window->feed(std::span(events.data() + m_next, last - m_next), Feed::All);
        m_fed += last - m_next;
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
