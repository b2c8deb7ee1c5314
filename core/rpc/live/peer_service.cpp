#include "peer_service.h"

#include "core/rpc/wire/message_codec.h"
#include "core/rpc/wire/tensor_codec.h"

namespace synaptic::rpc {

namespace {

// Reads a peer's stream of best-effort messages. A message refused as
// invalid ends the stream with its status (a peer that sends garbage is
// cut off, and reconnects if it was an accident); one refused for a flood
// or as stale or replayed is counted and the stream goes on: a slow peer's
// backlog, or an old message overtaken by a newer one on another path,
// must not cost the messages queued behind it.
class StreamReader : public grpc::ServerReadReactor<grpc::ByteBuffer> {
public:
    StreamReader(PeerService &service, std::string peer, grpc::ByteBuffer *summary)
        : m_service(service), m_peer(std::move(peer)), m_summary(summary) {
        StartRead(&m_message);
    }
    void OnReadDone(bool ok) override {
        if (!ok) { // the peer closed its side
            bool own = false;
            const auto status = grpc::SerializationTraits<v1::StreamSummary>::Serialize(m_count, m_summary, &own);
            Finish(status);
            return;
        }
        const auto status = m_service.accept(m_message, m_peer);
        if (!status.ok() && status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED &&
            status.error_code() != grpc::StatusCode::FAILED_PRECONDITION) {
            Finish(status);
            return;
        }
        m_count.set_messages(m_count.messages() + 1);
        m_message.Clear();
        StartRead(&m_message);
    }
    void OnDone() override { delete this; }

private:
    PeerService &m_service;
    std::string m_peer;
    grpc::ByteBuffer *m_summary;
    v1::StreamSummary m_count;
    grpc::ByteBuffer m_message;
};

} // namespace

PeerService::PeerService(MessageGuard &guard, RejectionLog &rejections, Post post, double floodRate, double floodBurst)
    : m_rejections(rejections), m_post(std::move(post)), m_flood(floodRate, floodBurst) {
    m_guard = &guard;
}

PeerService::PeerService(RejectionLog &rejections, double floodRate, double floodBurst)
    : m_rejections(rejections), m_flood(floodRate, floodBurst) {}

void PeerService::attach(MessageGuard &guard, Post post) {
    m_post = std::move(post);
    m_guard.store(&guard);
}

grpc::Status PeerService::refuse(grpc::StatusCode code, const std::string &why, const std::string &peer) {
    m_rejections.add(why, peer);
    return grpc::Status(code, why);
}

MessageGuard *PeerService::admitCaller(const std::string &peer, grpc::Status &refused) {
    auto *guard = m_guard.load();
    if (!guard)
        refused = grpc::Status(grpc::StatusCode::UNAVAILABLE, "this node has not joined its cluster yet");
    else if (!m_flood.allow(peer))
        refused = refuse(grpc::StatusCode::RESOURCE_EXHAUSTED, "flood: over the message rate", peer);
    else
        return guard;
    return nullptr;
}

grpc::Status PeerService::check(MessageGuard &guard, const v1::NodeMessage &message, const std::string &peer) {
    engine::Message m;
    try {
        m = fromProto(message);
    } catch (const WireError &e) {
        return refuse(grpc::StatusCode::INVALID_ARGUMENT, std::string("malformed: ") + e.what(), peer);
    }
    if (const auto why = guard.admit(m); !why.empty()) {
        const bool stale = why.rfind("replayed", 0) == 0 || why.rfind("stale", 0) == 0;
        return refuse(stale ? grpc::StatusCode::FAILED_PRECONDITION : grpc::StatusCode::INVALID_ARGUMENT, why, peer);
    }
    if (!m_post(std::move(m)))
        return refuse(grpc::StatusCode::RESOURCE_EXHAUSTED, "flood: the node's input queue is full", peer);
    return grpc::Status::OK;
}

grpc::Status PeerService::accept(const v1::NodeMessage &message, const std::string &peer) {
    grpc::Status refused;
    auto *guard = admitCaller(peer, refused);
    return guard ? check(*guard, message, peer) : refused;
}

grpc::Status PeerService::accept(const grpc::ByteBuffer &bytes, const std::string &peer) {
    grpc::Status refused;
    auto *guard = admitCaller(peer, refused);
    if (!guard)
        return refused;
    grpc::ByteBuffer copy(bytes); // parsing consumes its buffer; this shares the slices
    v1::NodeMessage message;
    if (!grpc::SerializationTraits<v1::NodeMessage>::Deserialize(&copy, &message).ok())
        return refuse(grpc::StatusCode::INVALID_ARGUMENT, "malformed: not a synaptic.v1.NodeMessage", peer);
    return check(*guard, message, peer);
}

grpc::ServerReadReactor<grpc::ByteBuffer> *PeerService::Stream(grpc::CallbackServerContext *context,
                                                               grpc::ByteBuffer *summary) {
    return new StreamReader(*this, context->peer(), summary);
}

grpc::ServerUnaryReactor *PeerService::Deliver(grpc::CallbackServerContext *context, const grpc::ByteBuffer *request,
                                               grpc::ByteBuffer *reply) {
    auto *reactor = context->DefaultReactor();
    auto status = accept(*request, context->peer());
    if (status.ok()) {
        bool own = false;
        status = grpc::SerializationTraits<v1::DeliverReply>::Serialize(v1::DeliverReply{}, reply, &own);
    }
    reactor->Finish(status);
    return reactor;
}

} // namespace synaptic::rpc
