#include "rejection_log.h"

namespace synaptic::rpc {

void RejectionLog::add(const std::string &reason, const std::string &peer) {
    ++m_total;
    std::lock_guard lock(m_mutex);
    auto &e = m_pending[reason];
    e.reason = reason;
    e.peer = peer;
    ++e.count;
}

std::vector<RejectionLog::Entry> RejectionLog::take() {
    std::lock_guard lock(m_mutex);
    std::vector<Entry> out;
    for (auto &[k, e] : m_pending)
        out.push_back(std::move(e));
    m_pending.clear();
    return out;
}

} // namespace synaptic::rpc
