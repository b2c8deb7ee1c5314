#pragma once

#include "core/engine/train_report.h"

#include <istream>
#include <memory>
#include <optional>
#include <ostream>

namespace synaptic::session {

struct TimedProgress {
    double time = 0;
    engine::TrainProgress progress;
};

// Writes one event as a length-delimited protobuf message (the unit a
// session chunk is made of). Returns false if the stream failed.
bool writeDelimited(std::ostream &out, const TimedProgress &event);

// Reads length-delimited events back. One reader per stream: protobuf's
// stream adaptor reads ahead, so a second reader on the same stream would
// miss bytes.
class EventReader {
public:
    explicit EventReader(std::istream &in);
    ~EventReader();
    // The next event; std::nullopt at a clean end of stream. Throws
    // std::runtime_error naming the event index for a truncated or malformed one.
    std::optional<TimedProgress> next();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace synaptic::session
