#pragma once

#include "cluster_status.h"
#include "remote_target.h"

#include "core/engine/sim/cluster_config.h"

#include <grpcpp/channel.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <memory>
#include <string>


namespace synaptic::v1 {
class ClusterDescription;
}

namespace synaptic::ui {

class CancelSlot;

// The outcome of asking a center to describe its cluster.
struct RemoteDescription {
    bool ok = false;
    bool refused = false;       // the center answered and refused us (token, permission): retrying will not help
    std::string error;          // why not, naming the address and the gRPC status
    ClusterStatus status;
    engine::ClusterConfig config; // parsed from status.configJson
};

// A channel to the center with the target's security (TLS, or loopback
// plaintext, and the bearer token on every call). Reads the security
// files, so never on the GUI thread. Throws std::runtime_error naming the
// address and the problem (a missing token file, --insecure off loopback).
std::shared_ptr<grpc::Channel> openControlChannel(const RemoteTarget &target);

// One bounded Describe call, and the config parsed. Blocks: call it on a
// worker thread, or at start-up before any window exists (never from a
// running GUI). `slot`, when given, lets another thread cancel the call.
RemoteDescription describeCluster(const std::shared_ptr<grpc::Channel> &channel, const std::string &address,
                                  std::chrono::milliseconds timeout, CancelSlot *slot = nullptr);
// The same on a channel of its own.
RemoteDescription describeCluster(const RemoteTarget &target, std::chrono::milliseconds timeout,
                                  CancelSlot *slot = nullptr);

ClusterStatus toStatus(const v1::ClusterDescription &description);

// "OK", "UNAVAILABLE", ... as gRPC spells its codes.
std::string statusCodeName(grpc::StatusCode code);
// Whether the center refused us for who we are (a wrong token, no permission).
bool isRefusal(grpc::StatusCode code);
// One sentence for the operator: what failed, where, and the gRPC status,
// e.g. "the center at 127.0.0.1:4242 refused the token (UNAUTHENTICATED: ...)".
std::string callFailure(const std::string &address, const grpc::Status &status);

} // namespace synaptic::ui
