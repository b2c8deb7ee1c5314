#include "session_metadata.h"

#include "chunk_file.h"
#include "synaptic_version.h"

#include <google/protobuf/stubs/common.h>
#include <nlohmann/json.hpp>
#include <zstd.h>

#include <unistd.h>

#include <ctime>

namespace synaptic::session {

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

std::string recordingMetadata(const std::string &tool) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    nlohmann::json meta = {
        {"format", kFormatVersion},
        {"tool", tool},
        {"synaptic", SYNAPTIC_VERSION},
        {"libtorch", SYNAPTIC_TORCH_VERSION},
        {"protobuf", google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION)},
        {"zstd", ZSTD_versionString()},
        {"build", SYNAPTIC_BUILD_TYPE},
        {"host", host},
        {"created_utc", utcNow()},
    };
    return meta.dump();
}

} // namespace synaptic::session
