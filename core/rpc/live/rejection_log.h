#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace synaptic::rpc {

// Inputs a node process refused (issue 13 §8): counted by reason so the
// driver can turn them into events the app shows. Any thread.
class RejectionLog {
public:
    struct Entry {
        std::string reason;
        std::string peer;
        std::uint64_t count = 0;
    };

    void add(const std::string &reason, const std::string &peer);
    // What was refused since the last call, one entry per reason.
    std::vector<Entry> take();
    std::uint64_t total() const { return m_total.load(); }

private:
    std::mutex m_mutex;
    std::map<std::string, Entry> m_pending; // guarded
    std::atomic<std::uint64_t> m_total{0};
};

} // namespace synaptic::rpc
