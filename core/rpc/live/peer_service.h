#pragma once

#include "flood_guard.h"
#include "message_guard.h"
#include "rejection_log.h"

#include "synaptic_v1.grpc.pb.h"

#include <atomic>
#include <functional>

namespace synaptic::rpc {

// The Peer service of a node process: other nodes' messages arrive here on
// gRPC's threads, are decoded, checked (MessageGuard, FloodGuard) and handed
// to the node's host, which queues them for the node's thread; nothing here
// blocks or touches the node (DESIGN.md §4). A refused message gets a status
// (INVALID_ARGUMENT for what can never be valid, FAILED_PRECONDITION for
// replays and stale data, RESOURCE_EXHAUSTED for floods and a full queue),
// and the refusal is counted.
class PeerService final : public v1::Peer::CallbackService {
public:
    using Post = std::function<bool(engine::Message &&)>;

    // `post` queues a checked message for the node; false when its queue is full.
    PeerService(MessageGuard &guard, RejectionLog &rejections, Post post, double floodRate = 4000,
                double floodBurst = 8000);
    // An edge serves before it knows its cluster (it must say where it
    // listens when it joins): until attach(), every message is refused
    // with UNAVAILABLE.
    explicit PeerService(RejectionLog &rejections, double floodRate = 4000, double floodBurst = 8000);
    void attach(MessageGuard &guard, Post post);

    grpc::ServerReadReactor<v1::NodeMessage> *Stream(grpc::CallbackServerContext *context,
                                                     v1::StreamSummary *summary) override;
    grpc::ServerUnaryReactor *Deliver(grpc::CallbackServerContext *context, const v1::NodeMessage *request,
                                      v1::DeliverReply *reply) override;

    // Decodes, checks and posts one message: OK, or the status it is refused with.
    grpc::Status accept(const v1::NodeMessage &message, const std::string &peer);

private:
    std::atomic<MessageGuard *> m_guard{nullptr};
    RejectionLog &m_rejections;
    Post m_post; // set once, before m_guard
    FloodGuard m_flood;
};

} // namespace synaptic::rpc
