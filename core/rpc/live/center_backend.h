#pragma once

#include "queued_writer.h"

#include "events.pb.h"
#include "synaptic_v1.pb.h"

#include "core/engine/sim/sim_command.h"

#include <grpcpp/grpcpp.h>

#include <functional>
#include <string>

namespace synaptic::rpc {

// What the center's Cluster and Control services ask of the center process.
// Called on gRPC's threads: implementations copy and queue, never block on
// the node's thread (a reply that needs the node comes through `done`).
class CenterBackend {
public:
    virtual ~CenterBackend() = default;

    // Fills `reply` for a joining edge, then calls done(status) (on any
    // thread). `cancelled` says whether the caller gave up (or died) while
    // its join waits for the run to start; valid until `done`.
    virtual void join(const v1::JoinRequest &request, v1::JoinReply *reply, std::function<void(grpc::Status)> done,
                      std::function<bool()> cancelled) = 0;
    // The edge's watch stream: peers, commands and stop go out on it; when it
    // ends, the edge is down.
    virtual grpc::Status attachWatch(const v1::WatchRequest &request, QueuedWriter<v1::ClusterUpdate> *writer) = 0;
    virtual grpc::Status report(const v1::ReportBatch &batch) = 0;
    virtual grpc::Status leave(const v1::LeaveRequest &request) = 0;

    virtual v1::ClusterDescription describe() = 0;
    virtual void attachControlWatch(QueuedWriter<v1::ControlUpdate> *writer) = 0;
    virtual session::pb::RoutingState routing() = 0;
    // Why the command was refused at once (empty: queued; its outcome comes as an event).
    virtual std::string submit(const engine::SimCommand &command) = 0;
};

} // namespace synaptic::rpc
