#include "console_progress.h"

#include <unistd.h>

#include <cmath>
#include <string>

namespace synaptic::engine {

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

ConsoleProgress::ConsoleProgress(std::FILE *stream)
    : m_stream(stream), m_terminal(isatty(fileno(stream)) == 1) {}

void ConsoleProgress::drawBar(const TrainProgress &p) {
    constexpr int kWidth = 30;
    const double fraction = p.totalSteps > 0 ? double(p.step) / double(p.totalSteps) : 0;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kWidth - filled), '.');
    std::fprintf(m_stream, "\r\033[Kepoch %d/%d [%s] %3.0f%%  loss %.4f  %.0f samples/s  ETA %s", p.epoch,
                 p.epochs, bar.c_str(), fraction * 100.0, p.loss, p.samplesPerSecond,
                 formatDuration(p.etaSeconds).c_str());
    std::fflush(m_stream);
    m_barOpen = true;
}

void ConsoleProgress::operator()(const TrainProgress &p) {
    using Kind = TrainProgress::Kind;
    if (p.kind == Kind::Step) {
        if (m_terminal) {
            drawBar(p);
        } else if (const long long decile = p.totalSteps > 0 ? (p.step * 10) / p.totalSteps : 0;
                   decile != m_lastDecile) {
            // Plain mode: about ten lines per run (plus one per evaluation).
            m_lastDecile = decile;
            std::fprintf(m_stream, "epoch %d/%d step %lld/%lld loss %.4f %.0f samples/s ETA %s\n", p.epoch,
                         p.epochs, p.step, p.totalSteps, p.loss, p.samplesPerSecond,
                         formatDuration(p.etaSeconds).c_str());
        }
        return;
    }
    if (m_barOpen) {
        std::fputc('\n', m_stream);
        m_barOpen = false;
    }
    const char *what = p.kind == Kind::Finished ? "final" : "eval";
    std::fprintf(m_stream, "%s: epoch %d step %lld test accuracy %.4f exit-head accuracy %.4f\n", what, p.epoch,
                 p.step, p.testAccuracy, p.exitTestAccuracy);
    std::fflush(m_stream);
}

} // namespace synaptic::engine
