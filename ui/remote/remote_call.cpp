#include "remote_call.h"

#include "cancel_slot.h"

#include "core/rpc/live/server_setup.h"

#include "synaptic_v1.grpc.pb.h"

#include <stdexcept>

namespace synaptic::ui {

ClusterStatus toStatus(const v1::ClusterDescription &d) {
    ClusterStatus s;
    s.runId = d.run_id();
    s.strategy = d.strategy();
    s.configJson = d.config_json();
    s.clusterTime = d.cluster_time();
    s.samples = d.samples();
    s.finished = d.finished();
    s.finalAccuracy = d.final_accuracy();
    s.wireBytes = d.wire_bytes();
    for (const auto &n : d.nodes())
        s.nodes.push_back({n.name(), n.address(), n.up()});
    return s;
}

std::string statusCodeName(grpc::StatusCode code) {
    switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "status " + std::to_string(int(code));
    }
}

bool isRefusal(grpc::StatusCode code) {
    return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED;
}

std::string callFailure(const std::string &address, const grpc::Status &status) {
    const std::string detail = statusCodeName(status.error_code()) +
                               (status.error_message().empty() ? std::string() : ": " + status.error_message());
    switch (status.error_code()) {
    case grpc::StatusCode::UNAUTHENTICATED:
        return "the center at " + address + " refused the token (" + detail + "): is --token-file the cluster's?";
    case grpc::StatusCode::PERMISSION_DENIED:
        return "the center at " + address + " refused the call (" + detail + ")";
    case grpc::StatusCode::UNAVAILABLE:
        return "cannot reach the center at " + address + " (" + detail + ")";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
        return "the center at " + address + " did not answer in time (" + detail + ")";
    case grpc::StatusCode::UNIMPLEMENTED:
        return address + " is not a Synaptic center (" + detail + ")";
    default: return "the call to the center at " + address + " failed (" + detail + ")";
    }
}

std::shared_ptr<grpc::Channel> openControlChannel(const RemoteTarget &target) {
    try {
        return rpc::openChannel(target.address, rpc::loadSecurity(target.security), rpc::WireLimits{});
    } catch (const std::exception &e) {
        throw std::runtime_error("cannot connect to " + target.address + ": " + e.what());
    }
}

RemoteDescription describeCluster(const RemoteTarget &target, std::chrono::milliseconds timeout, CancelSlot *slot) {
    std::shared_ptr<grpc::Channel> channel;
    try {
        channel = openControlChannel(target);
    } catch (const std::exception &e) {
        RemoteDescription out;
        out.refused = true; // our own flags are wrong: retrying cannot help
        out.error = e.what();
        return out;
    }
    return describeCluster(channel, target.address, timeout, slot);
}

RemoteDescription describeCluster(const std::shared_ptr<grpc::Channel> &channel, const std::string &address,
                                  std::chrono::milliseconds timeout, CancelSlot *slot) {
    RemoteDescription out;
    auto stub = v1::Control::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + timeout);
    // Fail fast (gRPC's default): an address nobody listens on is reported
    // as such (UNAVAILABLE, connection refused) at once, not as a timeout.
    v1::DescribeRequest request;
    v1::ClusterDescription reply;
    if (slot && !slot->enter(&context)) {
        out.error = "cancelled";
        return out;
    }
    const grpc::Status status = stub->Describe(&context, request, &reply);
    if (slot)
        slot->leave();
    if (!status.ok()) {
        out.refused = isRefusal(status.error_code());
        out.error = callFailure(address, status);
        return out;
    }
    out.status = toStatus(reply);
    try {
        out.config = engine::parseClusterConfig(reply.config_json(), "the config of the center at " + address);
    } catch (const std::exception &e) {
        out.refused = true;
        out.error = e.what();
        return out;
    }
    out.ok = true;
    return out;
}

} // namespace synaptic::ui
