#pragma once

#include "cluster_config.h"
#include "message.h"
#include "sim_command.h"
#include "sim_event_samples.h"
#include "sim_events.h"
#include "sim_result.h"

#include "run_control.h"

#include "node_context.h"

#include "core/engine/synapse/routing_table.h"
#include "core/engine/tensor_data.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace synaptic::engine {

class SimNode;

struct SimOptions {
    std::string device = "cpu";
    std::uint64_t stepsPerEdge = 0;     // training steps per edge; 0 = until virtualSeconds
    double virtualSeconds = 0;          // 0 = until every edge used stepsPerEdge
    double targetAccuracy = 0.88;
    std::uint64_t evalEverySamples = 0; // 0 = every config.evalEverySeconds of virtual time
    bool evaluateRegions = false;       // also evaluate each region's model (synaptic)
    bool finalFullEvaluation = true;    // final accuracy on the whole test set
    double linkReportSeconds = 1.0;     // LinkBytesEvent interval (virtual)
    std::vector<SimCommand> commands;   // applied at the first step boundary at or after `at`
    std::string saveModelPath;          // the final global model is saved here (model_file.h); empty = not
    SimEventQueue *queue = nullptr;                    // observers on other threads (state events never dropped)
    std::function<void(const SimEvent &)> observer;    // same thread (tests, console)
    // Every message the simulated network carries, with the bytes charged
    // for it (engine thread; tests check them against the wire encoding).
    std::function<void(const Message &, std::uint64_t bytes)> messageTap;
    // The nodes as the run left them, before the final evaluation (engine
    // thread; tests look at an edge's replica against its owners' values).
    std::function<void(const std::vector<std::unique_ptr<SimNode>> &)> inspectNodes;
    // Faults and guard breaks (issue 15), per node id; never from a config file.
    std::map<int, NodeContext::Faults> faults;
    // Owners' durable state (issue 15 §1) goes to files under this
    // directory (node-<id>/state.bin); empty: an in-memory store, which a
    // kill does not touch either (the node's memory is what a kill drops).
    std::string stateDir;
};

struct SimWorld;
class Strategy;
class Link;
class EventLoop;

// The simulation driver (DESIGN.md §3): a discrete-event loop over virtual
// time that carries messages between the strategy's nodes through simulated
// links (SimTransport), fires their timers, folds what they report into the
// routing table, ledger and event stream (ReportFolder), applies commands at
// step boundaries (CommandApplier), evaluates the strategy's model
// (SimEvaluator) and serves inference while it trains (SimServing). Same
// config, seed, options and commands -> the same event stream, bit for bit.
// run() on the engine thread; submit(), routing() and requestStop() from any.
// `train`, `trainLabels` and `test` must outlive the Simulation (they are
// shared, not copied: one copy of the data serves every strategy of a run).
class Simulation {
public:
    Simulation(const ClusterConfig &config, const TensorSet &train, const std::vector<std::uint8_t> &trainLabels,
               const TensorSet &test, SimOptions options);
    ~Simulation();

    StrategyResult run();

    void submit(SimCommand command);
    void requestStop() { m_control.requestStop(); }
    // Run controls, from any thread. Pause holds the engine between two
    // events; step() lets exactly one more training step finish, then
    // holds again. Speed k > 0 paces virtual time at k x wall time; 0 runs
    // as fast as possible.
    void pause() { m_control.pause(); }
    void resume() { m_control.resume(); }
    void step() { m_control.step(); }
    void setSpeed(double k) { m_control.setSpeed(k); }
    bool isHeld() const { return m_control.isHeld(); }
    // Where the run is, for progress readouts on other threads.
    double virtualNow() const { return m_virtualNow.load(std::memory_order_relaxed); }
    std::uint64_t samplesNow() const { return m_samplesNow.load(std::memory_order_relaxed); }
    std::shared_ptr<const RoutingSnapshot> routing() const;
    const SimWorld &world() const { return *m_world; }

private:
    struct Impl;
    std::unique_ptr<SimWorld> m_world;
    std::unique_ptr<Impl> m_impl;
    RunControl m_control;
    std::atomic<double> m_virtualNow{0};
    std::atomic<std::uint64_t> m_samplesNow{0};
};

} // namespace synaptic::engine
