#pragma once

#include <string>

namespace synaptic::session {

// The header's metadata: JSON naming the writer and the versions it was
// built with (Synaptic, LibTorch, protobuf, zstd), the host and the time.
std::string recordingMetadata(const std::string &tool);
std::string utcNow(); // ISO 8601, seconds

} // namespace synaptic::session
