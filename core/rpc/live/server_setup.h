#pragma once

#include "core/rpc/security/security_options.h"
#include "core/rpc/security/token_gate.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

namespace synaptic::rpc {

// Transport limits every live server and channel shares (issue 13 §7).
struct WireLimits {
    int maxMessageBytes = 64 << 20;   // receive limit; senders split below their own (smaller) limit
    // Keepalive pings notice a dead peer within the lease: ping every
    // leaseSeconds / 4 (at least 1 s) and give up after as long again.
    double leaseSeconds = 10;
    int keepaliveMs() const;
};

// A server on `address` with `services`, the health service, keepalive,
// message limits and this process's security. Returns the bound port in
// `port`; throws std::runtime_error naming the address if it cannot listen.
std::unique_ptr<grpc::Server> buildServer(const std::string &address, const std::vector<grpc::Service *> &services,
                                          const LoadedSecurity &security, std::shared_ptr<TokenGate> gate,
                                          const WireLimits &limits,
                                          int &port);

// A channel to `target` with the same security, keepalive and limits.
std::shared_ptr<grpc::Channel> openChannel(const std::string &target, const LoadedSecurity &security,
                                           const WireLimits &limits);

// host:port of a listen address once bound ("0.0.0.0:0" + port 4242 ->
// "127.0.0.1:4242": a wildcard is advertised as loopback unless told otherwise).
std::string boundAddress(const std::string &listen, int port);

} // namespace synaptic::rpc
