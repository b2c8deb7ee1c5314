#include "peer_service.h"

#include "core/rpc/wire/message_codec.h"
#include "core/rpc/wire/tensor_codec.h"

namespace synaptic::rpc {

namespace {

// Reads a peer's stream of best-effort messages; the first refused one
// ends the stream with its status (a peer that sends garbage is cut off,
// and reconnects if it was an accident).
class StreamReader : public grpc::ServerReadReactor<v1::NodeMessage> {
public:
    StreamReader(PeerService &service, std::string peer, v1::StreamSummary *summary)
        : m_service(service), m_peer(std::move(peer)), m_summary(summary) {
        StartRead(&m_message);
    }
    void OnReadDone(bool ok) override {
        if (!ok) {
            Finish(grpc::Status::OK); // the peer closed its side
            return;
        }
        const auto status = m_service.accept(m_message, m_peer);
        if (!status.ok() && status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) {
            Finish(status);
            return;
        }
        m_summary->set_messages(m_summary->messages() + 1);
        m_message.Clear();
        StartRead(&m_message);
    }
    void OnDone() override { delete this; }

private:
    PeerService &m_service;
    std::string m_peer;
    v1::StreamSummary *m_summary;
    v1::NodeMessage m_message;
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

grpc::Status PeerService::accept(const v1::NodeMessage &message, const std::string &peer) {
    auto refuse = [&](grpc::StatusCode code, const std::string &why) {
        m_rejections.add(why, peer);
        return grpc::Status(code, why);
    };
    auto *guard = m_guard.load();
    if (!guard)
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "this node has not joined its cluster yet");
    if (!m_flood.allow(peer))
        return refuse(grpc::StatusCode::RESOURCE_EXHAUSTED, "flood: over the message rate");
    engine::Message m;
    try {
        m = fromProto(message);
    } catch (const WireError &e) {
        return refuse(grpc::StatusCode::INVALID_ARGUMENT, std::string("malformed: ") + e.what());
    }
    if (const auto why = guard->admit(m); !why.empty()) {
        const bool stale = why.rfind("replayed", 0) == 0 || why.rfind("stale", 0) == 0;
        return refuse(stale ? grpc::StatusCode::FAILED_PRECONDITION : grpc::StatusCode::INVALID_ARGUMENT, why);
    }
    if (!m_post(std::move(m)))
        return refuse(grpc::StatusCode::RESOURCE_EXHAUSTED, "flood: the node's input queue is full");
    return grpc::Status::OK;
}

grpc::ServerReadReactor<v1::NodeMessage> *PeerService::Stream(grpc::CallbackServerContext *context,
                                                              v1::StreamSummary *summary) {
    return new StreamReader(*this, context->peer(), summary);
}

grpc::ServerUnaryReactor *PeerService::Deliver(grpc::CallbackServerContext *context, const v1::NodeMessage *request,
                                               v1::DeliverReply *) {
    auto *reactor = context->DefaultReactor();
    reactor->Finish(accept(*request, context->peer()));
    return reactor;
}

} // namespace synaptic::rpc
