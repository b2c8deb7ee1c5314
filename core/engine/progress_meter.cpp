#include "progress_meter.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace synaptic::engine {

namespace {
constexpr int kBarWidth = 24;
// Below this share done an ETA is mostly noise (loading, warm-up).
constexpr double kEtaFromFraction = 0.02;
} // namespace

std::string formatDuration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return "?";
    const long s = std::lround(seconds);
    char buf[32];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
    else if (s >= 60)
        std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lds", s);
    return buf;
}

ProgressMeter::ProgressMeter(std::FILE *stream, std::string label, ProgressStyle style)
    : m_stream(stream), m_label(std::move(label)), m_style(style),
      m_terminal(style.terminal.value_or(isatty(fileno(stream)) == 1)), m_start(Clock::now()) {}

ProgressMeter::~ProgressMeter() {
    std::lock_guard lock(m_mutex);
    clearBarLocked();
}

double ProgressMeter::elapsedSeconds() const {
    std::lock_guard lock(m_mutex);
    return std::chrono::duration<double>(Clock::now() - m_start).count();
}

std::string ProgressMeter::render(double fraction, const std::string &detail) const {
    std::string out = m_label;
    const bool known = fraction >= 0;
    const double f = std::clamp(fraction, 0.0, 1.0);
    if (known && m_terminal) {
        const int filled = static_cast<int>(f * kBarWidth);
        out += " [" + std::string(std::size_t(filled), '#') + std::string(std::size_t(kBarWidth - filled), '.') + "]";
    }
    char pct[16];
    if (known) {
        std::snprintf(pct, sizeof pct, " %3.0f%%", f * 100.0);
        out += pct;
    }
    if (!detail.empty())
        out += "  " + detail;
    const double elapsed = std::chrono::duration<double>(Clock::now() - m_start).count();
    if (known && f >= kEtaFromFraction && f < 1)
        out += "  ETA " + formatDuration(elapsed * (1 - f) / f);
    else if (elapsed >= 1)
        out += "  " + formatDuration(elapsed) + " so far"; // still alive, with nothing to extrapolate
    return out;
}

void ProgressMeter::update(double fraction, const std::string &detail) {
    if (m_style.quiet)
        return;
    std::lock_guard lock(m_mutex);
    if (m_finished)
        return;
    const auto now = Clock::now();
    const double every = m_terminal ? m_style.redrawEverySeconds : m_style.plainEverySeconds;
    if (m_lastShown && std::chrono::duration<double>(now - *m_lastShown).count() < every)
        return;
    m_lastShown = now;
    const std::string text = render(fraction, detail);
    if (m_terminal) {
        // \r and "erase line" redraw in place; the bar stays open until a
        // line, finish or the destructor ends it with a newline.
        std::fprintf(m_stream, "\r\033[K%s", text.c_str());
        m_barOpen = true;
    } else {
        std::fprintf(m_stream, "%s\n", text.c_str());
    }
    std::fflush(m_stream);
}

void ProgressMeter::clearBarLocked() {
    if (!m_barOpen)
        return;
    std::fputs("\r\033[K", m_stream);
    std::fflush(m_stream);
    m_barOpen = false;
}

void ProgressMeter::line(const std::string &text) {
    std::lock_guard lock(m_mutex);
    clearBarLocked();
    std::fprintf(m_stream, "%s\n", text.c_str());
    std::fflush(m_stream);
    m_lastShown.reset(); // redraw the bar under the line at the next update
}

void ProgressMeter::finish(const std::string &summary) {
    std::lock_guard lock(m_mutex);
    m_finished = true;
    if (m_style.quiet)
        return;
    clearBarLocked();
    if (!summary.empty())
        std::fprintf(m_stream, "%s: %s\n", m_label.c_str(), summary.c_str());
    std::fflush(m_stream);
}

void ProgressMeter::restart(std::string label) {
    std::lock_guard lock(m_mutex);
    clearBarLocked();
    m_label = std::move(label);
    m_start = Clock::now();
    m_lastShown.reset();
    m_finished = false;
}

} // namespace synaptic::engine
