#include "center_services.h"

#include "core/session/record_codec.h"

namespace synaptic::rpc {

namespace {
grpc::ServerUnaryReactor *finished(grpc::CallbackServerContext *context, const grpc::Status &status) {
    auto *reactor = context->DefaultReactor();
    reactor->Finish(status);
    return reactor;
}
} // namespace

grpc::ServerUnaryReactor *ClusterService::Join(grpc::CallbackServerContext *context, const v1::JoinRequest *request,
                                               v1::JoinReply *reply) {
    auto *reactor = context->DefaultReactor();
    m_backend.join(
        *request, reply, [reactor](grpc::Status status) { reactor->Finish(status); },
        [context] { return context->IsCancelled(); });
    return reactor;
}

grpc::ServerWriteReactor<v1::ClusterUpdate> *ClusterService::Watch(grpc::CallbackServerContext *,
                                                                    const v1::WatchRequest *request) {
    auto *writer = new QueuedWriter<v1::ClusterUpdate>();
    if (const auto status = m_backend.attachWatch(*request, writer); !status.ok())
        writer->finish(status);
    return writer;
}

grpc::ServerUnaryReactor *ClusterService::Report(grpc::CallbackServerContext *context, const v1::ReportBatch *request,
                                                 v1::ReportAck *) {
    return finished(context, m_backend.report(*request));
}

grpc::ServerUnaryReactor *ClusterService::Leave(grpc::CallbackServerContext *context, const v1::LeaveRequest *request,
                                                v1::LeaveReply *) {
    return finished(context, m_backend.leave(*request));
}

grpc::ServerUnaryReactor *ControlService::Describe(grpc::CallbackServerContext *context, const v1::DescribeRequest *,
                                                   v1::ClusterDescription *reply) {
    *reply = m_backend.describe();
    return finished(context, grpc::Status::OK);
}

grpc::ServerWriteReactor<v1::ControlUpdate> *ControlService::Watch(grpc::CallbackServerContext *,
                                                                    const v1::ControlWatchRequest *) {
    auto *writer = new QueuedWriter<v1::ControlUpdate>();
    m_backend.attachControlWatch(writer);
    return writer;
}

grpc::ServerUnaryReactor *ControlService::Routing(grpc::CallbackServerContext *context, const v1::DescribeRequest *,
                                                  session::pb::RoutingState *reply) {
    *reply = m_backend.routing();
    return finished(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor *ControlService::Submit(grpc::CallbackServerContext *context,
                                                 const session::pb::Command *request, v1::SubmitReply *reply) {
    const auto refused = m_backend.submit(session::fromProto(*request));
    reply->set_accepted(refused.empty());
    reply->set_detail(refused);
    return finished(context, grpc::Status::OK);
}

} // namespace synaptic::rpc
