#include "server_setup.h"

#include "core/rpc/security/channel_security.h"
#include "core/rpc/security/server_security.h"

#include <grpcpp/health_check_service_interface.h>

#include <algorithm>
#include <stdexcept>

namespace synaptic::rpc {

int WireLimits::keepaliveMs() const { return std::max(1000, int(leaseSeconds * 1000 / 4)); }

std::unique_ptr<grpc::Server> buildServer(const std::string &address, const std::vector<grpc::Service *> &services,
                                          const LoadedSecurity &security, std::shared_ptr<TokenGate> gate,
                                          const WireLimits &limits, int &port) {
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort(address, makeServerCredentials(security, address, std::move(gate)), &port);
    for (auto *service : services)
        builder.RegisterService(service);
    builder.SetMaxReceiveMessageSize(limits.maxMessageBytes);
    builder.SetMaxSendMessageSize(limits.maxMessageBytes);
    // Keepalive both ways: pings on idle connections notice a vanished peer
    // within the lease, and peers may ping as often as we do.
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, limits.keepaliveMs());
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, limits.keepaliveMs());
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 500);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
    auto server = builder.BuildAndStart();
    if (!server || port == 0)
        throw std::runtime_error("cannot listen on " + address + " (in use, or not an address of this host?)");
    if (auto *health = server->GetHealthCheckService())
        health->SetServingStatus(true);
    return server;
}

std::shared_ptr<grpc::Channel> openChannel(const std::string &target, const LoadedSecurity &security,
                                           const WireLimits &limits) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(limits.maxMessageBytes);
    args.SetMaxSendMessageSize(limits.maxMessageBytes);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, limits.keepaliveMs());
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, limits.keepaliveMs());
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    // Reconnect quickly after a peer comes back (the default backoff grows to 2 minutes).
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);
    return makeChannel(security, target, args);
}

std::string boundAddress(const std::string &listen, int port) {
    const auto colon = listen.rfind(':');
    std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
    if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::")
        host = "127.0.0.1";
    return host + ":" + std::to_string(port);
}

} // namespace synaptic::rpc
