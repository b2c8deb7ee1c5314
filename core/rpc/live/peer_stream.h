#pragma once

#include "synaptic_v1.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace synaptic::rpc {

// One client stream of best-effort node messages to a peer (callback API):
// writes go out one at a time in the order they were queued. Once the
// stream breaks (peer gone, deadline), what is still queued is lost, as a
// best-effort message on a dead link is in the simulator; the owner sees
// broken() and opens a new stream. gRPC calls the reactor methods on its
// own threads; enqueue() may be called from any thread.
class PeerStream : public grpc::ClientWriteReactor<v1::NodeMessage> {
public:
    // `prepare` adds the token; the stream ends by itself after `deadlineSeconds`.
    PeerStream(v1::Peer::Stub &stub, const std::function<void(grpc::ClientContext &)> &prepare,
               double deadlineSeconds);

    // False when the stream is broken (the message was not queued).
    bool enqueue(v1::NodeMessage message);
    bool broken() const;
    bool done() const;
    std::size_t queued() const;
    // Ends the stream (cancels it) and waits until gRPC is done with it.
    void close();

    void OnWriteDone(bool ok) override;
    void OnDone(const grpc::Status &status) override;

private:
    grpc::ClientContext m_context;
    v1::StreamSummary m_summary;
    mutable std::mutex m_mutex;
    std::condition_variable m_doneSignal;
    std::deque<v1::NodeMessage> m_queue; // guarded; front() is being written while m_writing
    bool m_writing = false;              // guarded
    bool m_broken = false;               // guarded
    bool m_done = false;                 // guarded
};

} // namespace synaptic::rpc
