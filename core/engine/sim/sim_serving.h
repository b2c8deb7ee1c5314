#pragma once

#include "sim_events.h"

#include "core/engine/tensor_data.h"

#include <functional>
#include <memory>
#include <string>

namespace synaptic::engine {

class EventLoop;
class FlatModel;
class LiveServing;
class SimTransport;
class Strategy;
struct SimWorld;

// Early-exit serving inside a simulated run (issue 6): wires LiveServing to
// the run's clock and links (serving traffic queues with training on them,
// counted apart), cuts an edge image from the strategy's global model every
// K center syncs, or at every evaluation when the strategy has no center
// syncs. Off when the config's request rate is 0. Engine thread only.
class SimServing {
public:
    SimServing();
    struct Setup {
        EventLoop *loop = nullptr;
        SimTransport *transport = nullptr;
        const SimWorld *world = nullptr;
        Strategy *strategy = nullptr;
        std::function<bool(int node)> alive;
        std::function<double(int node, double seconds)> occupy; // the node's compute queue, shared with training
        std::function<void(SimEvent)> emit;
        bool hasCenter = true;
    };

    // Returns a note why serving is off when the config asks for it but the
    // strategy cannot serve (no center), else an empty string.
    std::string start(Setup setup, const TensorSet &pool);
    ~SimServing();

    bool active() const { return bool(m_serving); }
    // Every event the run emits passes here before observers see it.
    void observe(const SimEvent &event);
    // An evaluation happened, by time or by samples (strategies without
    // center syncs, param_server among them, release here).
    void onEvaluation();
    void setReleaseEverySyncs(int k);
    void report(double interval);

private:
    void release();

    Setup m_setup;
    std::unique_ptr<FlatModel> m_scratch;   // the global model a release is cut from
    std::unique_ptr<LiveServing> m_serving; // null when serving is off
    bool m_sawCenterSync = false;
    std::vector<bool> m_readOnly; // per edge, from its lease events (a test-only guard break reads it)
};

} // namespace synaptic::engine
