#pragma once

#include <memory>
#include <string>

namespace synaptic::rpc {

struct NodeIdentity {
    std::string nodeId;
    std::string role;   // "center" or "edge"
    std::string device; // resolved device string
};

// A gRPC server for one node: the Node service plus the standard health
// service, with keepalive so dead peers are noticed. Callback API: handlers
// copy what they need and never block (DESIGN.md §4).
class NodeServer {
public:
    explicit NodeServer(NodeIdentity identity);
    ~NodeServer();

    // Binds `address` ("127.0.0.1:0" picks a free port) and starts serving.
    // Returns the bound port; throws std::runtime_error if binding fails.
    int start(const std::string &address);
    void shutdown();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

struct RemoteNodeInfo {
    std::string version;
    std::string torchVersion;
    std::string device;
    std::string role;
    std::string nodeId;
};

// Asks the node at `address` for its info; throws std::runtime_error with the
// gRPC status when it cannot be reached within `timeoutMs`.
RemoteNodeInfo queryNodeInfo(const std::string &address, int timeoutMs = 2000);

} // namespace synaptic::rpc
