#pragma once

#include "center_backend.h"

#include "synaptic_v1.grpc.pb.h"

namespace synaptic::rpc {

// The center's Cluster service (edges join, watch, report, leave): thin
// callback handlers over the center process.
class ClusterService final : public v1::Cluster::CallbackService {
public:
    explicit ClusterService(CenterBackend &backend) : m_backend(backend) {}

    grpc::ServerUnaryReactor *Join(grpc::CallbackServerContext *context, const v1::JoinRequest *request,
                                   v1::JoinReply *reply) override;
    grpc::ServerWriteReactor<v1::ClusterUpdate> *Watch(grpc::CallbackServerContext *context,
                                                        const v1::WatchRequest *request) override;
    grpc::ServerUnaryReactor *Report(grpc::CallbackServerContext *context, const v1::ReportBatch *request,
                                     v1::ReportAck *reply) override;
    grpc::ServerUnaryReactor *Leave(grpc::CallbackServerContext *context, const v1::LeaveRequest *request,
                                    v1::LeaveReply *reply) override;

private:
    CenterBackend &m_backend;
};

// The center's Control service (the app, tools and tests drive the cluster).
class ControlService final : public v1::Control::CallbackService {
public:
    explicit ControlService(CenterBackend &backend) : m_backend(backend) {}

    grpc::ServerUnaryReactor *Describe(grpc::CallbackServerContext *context, const v1::DescribeRequest *request,
                                       v1::ClusterDescription *reply) override;
    grpc::ServerWriteReactor<v1::ControlUpdate> *Watch(grpc::CallbackServerContext *context,
                                                        const v1::ControlWatchRequest *request) override;
    grpc::ServerUnaryReactor *Routing(grpc::CallbackServerContext *context, const v1::DescribeRequest *request,
                                      session::pb::RoutingState *reply) override;
    grpc::ServerUnaryReactor *Submit(grpc::CallbackServerContext *context, const session::pb::Command *request,
                                     v1::SubmitReply *reply) override;

private:
    CenterBackend &m_backend;
};

} // namespace synaptic::rpc
