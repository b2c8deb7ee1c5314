#include "console_progress.h"

namespace synaptic::engine {

ConsoleProgress::ConsoleProgress(std::FILE *stream, ProgressStyle style, std::string label)
    : m_meter(stream, std::move(label), style) {}

void ConsoleProgress::operator()(const TrainProgress &p) {
    using Kind = TrainProgress::Kind;
    char text[160];
    if (p.kind == Kind::Step) {
        std::snprintf(text, sizeof text, "epoch %d/%d step %lld/%lld  loss %.4f  %.0f samples/s", p.epoch, p.epochs,
                      p.step, p.totalSteps, p.loss, p.samplesPerSecond);
        m_meter.update(p.totalSteps > 0 ? double(p.step) / double(p.totalSteps) : -1, text);
        return;
    }
    if (m_meter.quiet())
        return;
    std::snprintf(text, sizeof text, "%s: epoch %d step %lld test accuracy %.4f exit-head accuracy %.4f",
                  p.kind == Kind::Finished ? "final" : "eval", p.epoch, p.step, p.testAccuracy, p.exitTestAccuracy);
    m_meter.line(text);
    if (p.kind == Kind::Finished)
        m_meter.finish();
}

} // namespace synaptic::engine
