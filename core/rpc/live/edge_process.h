#pragma once

#include "live_options.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace synaptic::rpc {

// `synaptic-node edge` (issue 13 §3): serves its Peer service, joins the
// center (which says which node it is, its region, data partition, peers
// and the model to start from), then runs its node of the cluster's
// strategy in real time: messages to its peers go straight to them (its
// region's owners, not through the center), reports and the center's
// commands go over its watch and report calls to the center. Built and
// driven from one thread; the work runs on gRPC's, the node's, the
// transport's and the reporter's threads.
class EdgeProcess {
public:
    explicit EdgeProcess(EdgeOptions options);
    ~EdgeProcess();

    // Listens, tells `listening` where (before joining: the center holds
    // joins until the run starts, and a launcher starting edges one after
    // another waits for this), then joins (retrying until
    // options.joinTimeoutSeconds). Returns the address its Peer service
    // listens on. Throws on failure (cannot listen, the center refused,
    // never reached).
    std::string start(const std::function<void(const std::string &address)> &listening = {});
    // Blocks until `stop` is set or the center stopped this edge. Returns
    // true when the center asked it to crash (the kill command).
    bool wait(const std::atomic<bool> &stop);
    // SIGTERM: hands its shards to edges that stay, tells the center it
    // leaves, then stops.
    void leave();
    void shutdown();

    int node() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace synaptic::rpc
