#pragma once

#include "flood_guard.h"
#include "node_host.h"

#include "core/engine/sim/node_context.h"

#include "synaptic_v1.grpc.pb.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace synaptic::rpc {

// Early-exit serving of a live node (DESIGN.md §1, issue 13): a request is
// answered on the node's thread with the model it trains (NodeHost task,
// so the gRPC callback never waits). An edge answers itself when its exit
// head is confident enough; otherwise it asks the center through `forward`
// and, when the center cannot answer (the edge is read-only, cut off, or
// the answer is late), answers itself, marked degraded. The center answers
// with its global model. Live serving forwards the 784-byte image, not the
// simulator's fp16 bottleneck features (that split needs versioned edge
// images, which only the simulator ships).
class InferenceService final : public v1::Inference::CallbackService {
public:
    struct Setup {
        NodeHost *host = nullptr;
        std::string name;                                // "edge eu-0" / "center"
        std::function<double()> threshold;               // the live confidence knob (node's thread)
        std::function<bool()> canReachCenter;            // edges: holds a lease and is not cut off (any thread)
        // Edges: asks the center; `done` gets its answer or a failed status.
        std::function<void(const v1::ClassifyRequest &, std::function<void(const grpc::Status &,
                                                                           const v1::ClassifyReply &)>)>
            forward;
        // Center: the model to answer with, filled on the node's thread.
        std::function<bool(engine::SimNode &, engine::FlatModel &)> centerModel;
        std::shared_ptr<const engine::ModelSetup> model;
    };

    explicit InferenceService(Setup setup);
    // An edge serves before it has joined (it must say where it listens):
    // until attach(), requests are refused with UNAVAILABLE.
    InferenceService() = default;
    void attach(Setup setup);

    grpc::ServerUnaryReactor *Classify(grpc::CallbackServerContext *context, const v1::ClassifyRequest *request,
                                       v1::ClassifyReply *reply) override;

private:
    Setup m_setup;                  // set before m_ready
    std::atomic<bool> m_ready{false};
    std::unique_ptr<engine::FlatModel> m_centerScratch; // node's thread only
    // Each request is a forward pass on the node's thread, which trains:
    // a caller over this rate is refused before it queues anything.
    FloodGuard m_flood{500, 1000};
};

} // namespace synaptic::rpc
