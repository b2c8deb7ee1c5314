#include "audit_summary.h"

#include "record_codec.h"

#include <cstdio>
#include <map>

namespace synaptic::session {

std::string describeAuditHistory(const std::vector<engine::SimEvent> &events) {
    using K = engine::AuditEvent::Kind;
    std::map<K, std::pair<std::size_t, std::size_t>> byKind; // kind -> (events, bytes)
    std::size_t cacheVersions = 0, auditBytes = 0, allBytes = 0;
    for (const auto &e : events) {
        const std::size_t bytes = toProto(e).ByteSizeLong();
        allBytes += bytes;
        const auto *a = std::get_if<engine::AuditEvent>(&e);
        if (!a)
            continue;
        auto &k = byKind[a->kind];
        ++k.first;
        k.second += bytes;
        auditBytes += bytes;
        cacheVersions += a->cache ? 1 : 0;
    }
    const std::pair<K, const char *> names[] = {{K::Grant, "grants"}, {K::Send, "sends"},     {K::Apply, "applies"},
                                                {K::Lost, "lost"},    {K::Version, "versions"}, {K::Serve, "serving"},
                                                {K::Merge, "center merges"}, {K::Restore, "restores"}};
    std::string parts;
    for (const auto &[kind, name] : names)
        if (const auto it = byKind.find(kind); it != byKind.end())
            parts += (parts.empty() ? "" : ", ") + std::to_string(it->second.first) + " " + name + " (" +
                     std::to_string(it->second.second / 1000) + " kB)";
    char tail[160];
    std::snprintf(tail, sizeof tail,
                  "; %zu of the versions are edge caches; %.2f MB of the run's %.2f MB of events before compression",
                  cacheVersions, double(auditBytes) / 1e6, double(allBytes) / 1e6);
    return parts + tail;
}

} // namespace synaptic::session
