#include "node_server.h"

#include "node.grpc.pb.h"
#include "synaptic_version.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <chrono>
#include <stdexcept>

namespace synaptic::rpc {

namespace {

class NodeService final : public pb::Node::CallbackService {
public:
    explicit NodeService(NodeIdentity identity) : m_identity(std::move(identity)) {}

    grpc::ServerUnaryReactor *GetInfo(grpc::CallbackServerContext *context, const pb::NodeInfoRequest *,
                                      pb::NodeInfo *reply) override {
        reply->set_version(SYNAPTIC_VERSION);
        reply->set_torch_version(SYNAPTIC_TORCH_VERSION);
        reply->set_device(m_identity.device);
        reply->set_role(m_identity.role);
        reply->set_node_id(m_identity.nodeId);
        auto *reactor = context->DefaultReactor();
        reactor->Finish(grpc::Status::OK);
        return reactor;
    }

private:
    const NodeIdentity m_identity;
};

} // namespace

struct NodeServer::Impl {
    explicit Impl(NodeIdentity id) : service(std::move(id)) {}
    NodeService service;
    std::unique_ptr<grpc::Server> server;
};

NodeServer::NodeServer(NodeIdentity identity) : m_impl(std::make_unique<Impl>(std::move(identity))) {}

NodeServer::~NodeServer() { shutdown(); }

int NodeServer::start(const std::string &address) {
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&m_impl->service);
    // Keepalive: ping idle peers every 10 s so a vanished edge is noticed.
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    m_impl->server = builder.BuildAndStart();
    if (!m_impl->server || port == 0)
        throw std::runtime_error("cannot listen on " + address);
    if (auto *health = m_impl->server->GetHealthCheckService())
        health->SetServingStatus(true);
    return port;
}

void NodeServer::shutdown() {
    if (m_impl && m_impl->server) {
        m_impl->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
        m_impl->server->Wait();
        m_impl->server.reset();
    }
}

RemoteNodeInfo queryNodeInfo(const std::string &address, int timeoutMs) {
    auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
    auto stub = pb::Node::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeoutMs));
    pb::NodeInfo reply;
    const grpc::Status status = stub->GetInfo(&context, pb::NodeInfoRequest{}, &reply);
    if (!status.ok())
        throw std::runtime_error("node " + address + ": " + status.error_message() + " (gRPC code " +
                                 std::to_string(int(status.error_code())) + ")");
    return {reply.version(), reply.torch_version(), reply.device(), reply.role(), reply.node_id()};
}

} // namespace synaptic::rpc
