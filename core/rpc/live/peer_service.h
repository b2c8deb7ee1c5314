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
//
// Both methods take the raw bytes and parse them here: gRPC's callback API
// answers a request it cannot parse with UNIMPLEMENTED and counts it
// nowhere, and ends a stream whose next message does not parse as if the
// peer had closed it. Parsed here, bytes that are not a NodeMessage are
// refused with INVALID_ARGUMENT and counted like any malformed message.
class PeerService final
    : public v1::Peer::WithRawCallbackMethod_Stream<v1::Peer::WithRawCallbackMethod_Deliver<v1::Peer::Service>> {
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

    // Replies are a v1::StreamSummary and a v1::DeliverReply, serialized here.
    grpc::ServerReadReactor<grpc::ByteBuffer> *Stream(grpc::CallbackServerContext *context,
                                                      grpc::ByteBuffer *summary) override;
    grpc::ServerUnaryReactor *Deliver(grpc::CallbackServerContext *context, const grpc::ByteBuffer *request,
                                      grpc::ByteBuffer *reply) override;

    // Decodes, checks and posts one message: OK, or the status it is refused with.
    grpc::Status accept(const v1::NodeMessage &message, const std::string &peer);
    // The same for a message as it came off the wire (parsed after the flood check).
    grpc::Status accept(const grpc::ByteBuffer &bytes, const std::string &peer);

private:
    grpc::Status refuse(grpc::StatusCode code, const std::string &why, const std::string &peer);
    // Joined and within the caller's rate: the guard to check with; else the refusal.
    MessageGuard *admitCaller(const std::string &peer, grpc::Status &refused);
    grpc::Status check(MessageGuard &guard, const v1::NodeMessage &message, const std::string &peer);

    std::atomic<MessageGuard *> m_guard{nullptr};
    RejectionLog &m_rejections;
    Post m_post; // set once, before m_guard
    FloodGuard m_flood;
};

} // namespace synaptic::rpc
