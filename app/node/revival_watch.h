#pragma once

#include "core/rpc/security/security_options.h"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace grpc {
class ClientContext;
}

namespace synaptic::app {

// The cluster launcher's ear on the center's Control stream: when the
// control plane revives an edge (a revive_node command the center
// accepted), the edge's name is queued here and the launcher starts its
// process again. Reconnects if the stream ends.
class RevivalWatch {
public:
    RevivalWatch(std::string center, const rpc::SecurityOptions &security);
    ~RevivalWatch();

    std::vector<std::string> take(); // names to restart since the last call
    void stop();

private:
    void run();

    std::string m_center;
    rpc::SecurityOptions m_security;
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::vector<std::string> m_names; // guarded
    grpc::ClientContext *m_active = nullptr; // guarded: the stream to cancel on stop()
    std::thread m_thread;
};

} // namespace synaptic::app
