#include "simulation.h"

#include "audit_trail.h"
#include "command_applier.h"
#include "event_loop.h"
#include "report_folder.h"
#include "sim_evaluator.h"
#include "sim_node.h"
#include "sim_serving.h"
#include "sim_transport.h"
#include "sim_world.h"
#include "cluster_config_json.h"
#include "strategy.h"

#include "core/engine/durable/state_store.h"
#include "core/engine/model_file.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cmath>
#include <limits>
#include <map>

namespace synaptic::engine {

namespace {
using Clock = std::chrono::steady_clock;
constexpr double kQuiescentSeconds = 60;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
} // namespace

// The run's parts, wired together: nodes and their lifecycle here; moving
// bytes, folding reports, commands, measurement and serving in their own
// classes.
struct Simulation::Impl {
    SimWorld &world;
    SimOptions options;
    std::unique_ptr<Strategy> strategy;
    std::vector<std::unique_ptr<SimNode>> nodes;
    std::vector<std::uint64_t> incarnation;
    EventLoop loop;
    SimTransport transport;
    ReportFolder folder;
    SimServing serving;
    std::unique_ptr<SimEvaluator> evaluator;
    std::unique_ptr<CommandApplier> commands;
    StrategyResult result;
    EventHash hash;
    double lastLinkReport = 0;
    double lastStepBoundary = 0;
    double driftSum = 0;
    int driftCount = 0;
    std::uint64_t nextEvalSamples = 0;

    Impl(SimWorld &w, SimOptions o)
        : world(w), options(std::move(o)), strategy(makeStrategy(w.config.strategy)),
          transport(loop, w.config, *w.shape,
                    {[this](int n) { return isAlive(n); }, [this](int n) { return exists(n); },
                     [this](Message &&m) { deliver(std::move(m)); }, options.messageTap,
                     [this](const Message &m, const char *why) {
                         auditDropped(loop.now(), m, why, [this](AuditEvent e) { emit(std::move(e)); });
                     }}),
          folder({w.routing.get(), &w.ledger, [this](SimEvent e) { emit(std::move(e)); },
                  [this](std::uint64_t samples) {
                      world.samplesTrained += samples;
                      world.stepBoundary = true;
                  },
                  // A version going back is a bug the table stops at, unless a
                  // test broke a guard on purpose for the audit to catch.
                  !std::any_of(options.faults.begin(), options.faults.end(),
                               [](const auto &f) { return f.second.breaksAGuard(); })}) {}

    bool exists(int node) const { return std::size_t(node) < nodes.size() && nodes[std::size_t(node)] != nullptr; }
    bool isAlive(int node) const { return std::size_t(node) < world.alive.size() && world.alive[std::size_t(node)]; }

    void emit(SimEvent e) {
        serving.observe(e);
        if (const auto *d = std::get_if<DriftEvent>(&e)) {
            result.maxRegionDrift = std::max(result.maxRegionDrift, d->parameterDrift);
            driftSum += d->parameterDrift;
            ++driftCount;
        }
        hash.add(e);
        if (options.observer)
            options.observer(e);
        // The audit history (thousands of events per virtual second) is for
        // recorders and checkers, which take it from the observer on this
        // thread; no view shows it, and as state events (never coalesced)
        // it would grow the views' queue without bound behind a busy GUI.
        if (options.queue && !std::holds_alternative<AuditEvent>(e))
            options.queue->push(std::move(e));
    }

    // What a node's handler asked for: reports first (they describe what the
    // handler did), then timers and messages.
    void dispatch(int node, Outbox &out) {
        // Durable state first: written before anything the handler sends
        // can leave (a crash after this point keeps it).
        if (out.durableState && world.stateStore) {
            world.stateStore->write(node, *out.durableState);
            folder.fold(loop.now(), LedgerReport{LedgerReport::Kind::StateWritten, -1, 1, {}});
        }
        if (out.durableHubState && world.stateStore) {
            world.stateStore->write(node, *out.durableHubState, StatePart::Hub);
            folder.fold(loop.now(), LedgerReport{LedgerReport::Kind::StateWritten, -1, 1, {}});
        }
        auditOutbox(node, node == kCenterNode ? -1 : world.regionOfEdge(SimWorld::edgeOfNode(node)), loop.now(), out,
                    [this](AuditEvent e) { emit(std::move(e)); });
        for (const auto &r : out.reports)
            folder.fold(loop.now(), r);
        for (const auto &t : out.timers)
            setTimer(node, std::max(t.at, loop.now()), t.kind, t.arg);
        // One compute queue per node (FIFO) for training steps and serving
        // requests. Charged compute (an owner's or a center's optimizer step
        // and merge) runs at once, beside a step in progress, as an optimizer
        // thread would, and delays everything queued by as much; what the
        // handler sends leaves when that compute is done, in order behind
        // earlier results (sendAfter), never behind a training step or a
        // request that carries nothing it sends.
        double &busy = busyUntil[node];
        double &after = sendAfter[node];
        if (out.computeSeconds > 0) {
            busy = std::max(busy, loop.now()) + out.computeSeconds;
            after = std::max(after, loop.now()) + out.computeSeconds;
        }
        const double leaveAt = std::max(after, loop.now());
        for (auto &m : out.messages) {
            m.from = node;
            const std::uint64_t inc = incarnation[std::size_t(node)];
            if (leaveAt > loop.now()) {
                const std::uint64_t ticket = nextTicket++;
                leaving.emplace(ticket, std::pair{node, m});
                loop.at(leaveAt, [this, node, inc, ticket]() mutable {
                    auto it = leaving.find(ticket);
                    Message m = std::move(it->second.second);
                    leaving.erase(it);
                    if (incarnation[std::size_t(node)] == inc) // a kill loses what was still being computed
                        transport.send(std::move(m));
                    else
                        auditDropped(loop.now(), m, "sender_crashed", [this](AuditEvent e) { emit(std::move(e)); });
                });
            }
            else
                transport.send(std::move(m));
        }
        // Booked after the messages: they never wait for the step they start.
        for (const auto &t : out.computeTimers) {
            busy = std::max(busy, loop.now()) + t.seconds;
            setTimer(node, busy, t.kind, t.arg);
        }
    }

    // A timer dies with the incarnation that set it (a kill drops it).
    void setTimer(int node, double at, int kind, std::uint64_t arg) {
        const std::uint64_t inc = incarnation[std::size_t(node)];
        loop.at(at, [this, node, kind, arg, inc] {
            if (!isAlive(node) || incarnation[std::size_t(node)] != inc)
                return;
            Outbox next;
            nodes[std::size_t(node)]->onTimer(loop.now(), kind, arg, next);
            dispatch(node, next);
        });
    }
    // Messages waiting for their sender's charged compute, by ticket: the
    // audit reports their gradients lost if the run ends first.
    std::map<std::uint64_t, std::pair<int, Message>> leaving;
    std::uint64_t nextTicket = 0;
    std::map<int, double> busyUntil; // per node: when its compute queue is empty
    std::map<int, double> sendAfter; // per node: when its charged compute (merges) is done

    // A serving request's compute joins the node's queue; returns when it is done.
    double occupy(int node, double seconds) {
        double &busy = busyUntil[node];
        busy = std::max(busy, loop.now()) + seconds;
        return busy;
    }

    void deliver(Message m) {
        const int to = m.to;
        Outbox out;
        nodes[std::size_t(to)]->onMessage(loop.now(), std::move(m), out);
        dispatch(to, out);
    }

    void setAlive(int node, bool kill, bool oldState = false) {
        world.alive[std::size_t(node)] = !kill;
        ++incarnation[std::size_t(node)];
        Outbox out;
        if (kill) {
            busyUntil.erase(node); // charged compute dies with the process
            sendAfter.erase(node);
            nodes[std::size_t(node)]->onKilled(loop.now(), out);
        }
        else
            nodes[std::size_t(node)]->revive(loop.now(), oldState, out);
        dispatch(node, out);
    }

    std::string commandToNode(int node, const SimCommand &c) {
        Outbox out;
        const std::string refused = nodes[std::size_t(node)]->onCommand(loop.now(), c, out);
        dispatch(node, out);
        return refused;
    }

    void evaluateNow(bool full) { evaluator->evaluate(loop.now(), full, transport.counters(), result); }

    void reportLinkBytes(double interval) {
        serving.report(interval);
        for (const auto &[key, bytes] : transport.takeIntervalBytes())
            if (bytes > 0)
                emit(LinkBytesEvent{loop.now(), interval, key.first, key.second, bytes});
        lastLinkReport = loop.now();
    }

    void scheduleLinkReport(double at) {
        loop.at(at, [this, at] {
            reportLinkBytes(options.linkReportSeconds);
            // Commands wait for a step boundary; when no edge is training
            // (all read-only, say) this tick applies them instead.
            if (loop.now() - lastStepBoundary >= options.linkReportSeconds)
                commands->applyDue();
            scheduleLinkReport(at + options.linkReportSeconds);
        });
    }

    // Every evaluation during the run, by time or by samples; the serving
    // release follows it for strategies without center syncs.
    void evaluateDuringRun() {
        evaluateNow(false);
        serving.onEvaluation();
    }

    void scheduleEval(double at) {
        loop.at(at, [this, at] {
            evaluateDuringRun();
            scheduleEval(at + world.config.evalEverySeconds);
        });
    }

    void startNodes() {
        nodes = strategy->createNodes(world);
        world.alive.assign(nodes.size(), true);
        incarnation.assign(nodes.size(), 0);
        if (strategy->hasShardOwners())
            for (const auto &shard : world.plan().shards)
                for (int r = 0; r < world.regionCount(); ++r)
                    emit(RoutingEvent{0, shard.id, r, world.plan().owner[std::size_t(r)][std::size_t(shard.id)], 0,
                                      "plan"});
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (!nodes[i]) { // a strategy without a center
                world.alive[i] = false;
                continue;
            }
            Outbox out;
            nodes[i]->start(0, out);
            dispatch(int(i), out);
        }
    }

    // The run ended: window gradients still buffered at an owner, waiting
    // to leave or on a link will never be applied; the audit says so.
    void auditRunEnd() {
        const auto emitter = [this](AuditEvent e) { emit(std::move(e)); };
        const auto lost = [&](int node, const std::vector<std::pair<int, std::uint64_t>> &held, const char *why) {
            AuditEvent e;
            e.time = loop.now();
            e.kind = AuditEvent::Kind::Lost;
            e.node = node;
            e.reason = why;
            for (const auto &[shard, id] : held) {
                e.shards.push_back(shard);
                e.ids.push_back(id);
            }
            if (!e.ids.empty())
                emitter(std::move(e));
        };
        for (std::size_t n = 0; n < nodes.size(); ++n)
            if (nodes[n])
                lost(int(n), nodes[n]->heldContributions(), "run_ended_buffered");
        for (const auto &[ticket, leavingMessage] : leaving)
            auditDropped(loop.now(), leavingMessage.second, "run_ended_unsent", emitter);
        lost(-1, transport.inFlightContributions(), "run_ended_in_flight");
    }

    void finishResult(Clock::time_point start) {
        auto &r = result;
        const auto &c = transport.counters();
        r.messages = c.messages;
        r.messagesLost = c.messagesLost;
        r.messagesDropped = c.messagesDropped;
        r.bytesLost = c.bytesLost;
        r.messagesDuplicated = c.messagesDuplicated;
        r.totalBytes = c.totalBytes;
        r.bytesToCenter = c.bytesToCenter;
        r.wanBytes = c.wanBytes;
        r.servingBytes = c.servingBytes;
        for (int k = 0; k < kMessageKinds; ++k)
            if (const auto &t = c.wanByKind[std::size_t(k)]; t.messages > 0)
                r.wanByKind[messageKindName(MessageKind(k))] = t;
        r.samples = world.samplesTrained;
        r.device = world.device;
        r.virtualSeconds = loop.now();
        r.wallSeconds = secondsSince(start);
        r.trainWallSeconds = r.wallSeconds - r.evalWallSeconds;
        const auto &l = world.ledger;
        r.contributionsSent = l.sent;
        r.contributionsApplied = l.applied;
        r.contributionsRejected = l.rejected;
        r.contributionsRejectedByReason = l.rejectedByReason;
        r.contributionsRejectedByEdge = byEdgeName(l.rejectedByEdge, *world.shape);
        r.contributionsSentByEdge = byEdgeName(l.sentByEdge, *world.shape);
        r.contributionsDuplicated = l.duplicates;
        r.contributionsForwarded = l.forwarded;
        r.contributionsUnderExpiredLease = l.appliedUnderExpiredLease;
        r.gradientsSentWhileReadOnly = l.sentWhileReadOnly;
        r.contributionsLostInCrash = l.lostInCrash;
        r.contributionsRolledBack = l.rolledBack;
        r.mergesLostInCrash = l.mergesLost;
        r.durableStateWrites = l.stateWrites;
        r.centerDeltasResent = l.centerResent;
        r.centerResentAlreadyMerged = l.centerResentMerged;
        r.meanRegionDrift = driftCount ? driftSum / driftCount : 0;
        r.events = hash.count();
        r.eventHash = hash.value();
    }
};

Simulation::Simulation(const ClusterConfig &config, const TensorSet &train,
                       const std::vector<std::uint8_t> &trainLabels, const TensorSet &test, SimOptions options)
    : m_world(makeWorld(config, train, trainLabels, options.device)) {
    if (options.stepsPerEdge == 0 && !(options.virtualSeconds > 0))
        throw std::invalid_argument("simulation needs a budget: steps per edge or virtual seconds");
    m_world->stepsPerEdge = options.stepsPerEdge;
    m_world->faults = options.faults;
    if (options.stateDir.empty()) {
        m_world->stateStore = std::make_shared<MemoryStateStore>();
    } else {
        // Another run's state would be taken for this run's nodes restarting.
        std::error_code ec;
        if (std::filesystem::exists(options.stateDir, ec) && !std::filesystem::is_empty(options.stateDir, ec))
            throw std::invalid_argument("state directory " + options.stateDir +
                                        " is not empty: a run starts from no state (use a new directory)");
        m_world->stateStore = std::make_shared<FileStateStore>(options.stateDir);
    }
    m_impl = std::make_unique<Impl>(*m_world, std::move(options));
    auto &impl = *m_impl;
    const auto n = std::min<std::int64_t>(std::int64_t(config.evalTestSubset), test.size());
    SimEvaluator::Setup eval;
    eval.world = m_world.get();
    eval.strategy = impl.strategy.get();
    eval.test = &test;
    eval.testSubset = sliceSamples(test, 0, n);
    eval.targetAccuracy = impl.options.targetAccuracy;
    eval.evaluateRegions = impl.options.evaluateRegions;
    eval.emit = [&impl](SimEvent e) { impl.emit(std::move(e)); };
    impl.evaluator = std::make_unique<SimEvaluator>(std::move(eval));
    CommandApplier::Hooks hooks;
    hooks.toNode = [&impl](int node, const SimCommand &c) { return impl.commandToNode(node, c); };
    hooks.alive = [&impl](int node) { return impl.isAlive(node); };
    hooks.exists = [&impl](int node) { return impl.exists(node); };
    hooks.setAlive = [&impl](int node, bool kill, bool oldState) { impl.setAlive(node, kill, oldState); };
    hooks.now = [&impl] { return impl.loop.now(); };
    hooks.emit = [&impl](SimEvent e) { impl.emit(std::move(e)); };
    impl.commands = std::make_unique<CommandApplier>(*m_world, *impl.strategy, impl.transport, impl.serving,
                                                     std::move(hooks), impl.options.commands);
    impl.result.strategy = config.strategy;
    impl.result.task = config.task;
    impl.result.startConfigJson = clusterConfigToJson(config);
    impl.result.targetAccuracy = impl.options.targetAccuracy;
    impl.result.notes = m_world->plan().problems;
}

Simulation::~Simulation() = default;

void Simulation::submit(SimCommand command) { m_impl->commands->submit(std::move(command)); }

std::shared_ptr<const RoutingSnapshot> Simulation::routing() const { return m_world->routing->snapshot(); }

StrategyResult Simulation::run() {
    auto &impl = *m_impl;
    auto &world = *m_world;
    const auto start = Clock::now();
    impl.startNodes();
    impl.scheduleLinkReport(impl.options.linkReportSeconds);
    SimServing::Setup serving;
    serving.loop = &impl.loop;
    serving.transport = &impl.transport;
    serving.world = &world;
    serving.strategy = impl.strategy.get();
    serving.alive = [&impl](int node) { return impl.isAlive(node); };
    serving.occupy = [&impl](int node, double seconds) { return impl.occupy(node, seconds); };
    serving.emit = [&impl](SimEvent e) { impl.emit(std::move(e)); };
    serving.hasCenter = impl.exists(kCenterNode);
    if (const auto note = impl.serving.start(std::move(serving), impl.evaluator->testSubset()); !note.empty())
        impl.result.notes.push_back(note);
    impl.evaluateNow(false); // the starting point of every curve
    if (impl.options.evalEverySamples > 0)
        impl.nextEvalSamples = impl.options.evalEverySamples;
    else
        impl.scheduleEval(world.config.evalEverySeconds);

    const double budget = impl.options.virtualSeconds > 0 ? impl.options.virtualSeconds
                                                          : std::numeric_limits<double>::infinity();
    while (!impl.loop.empty() && !m_control.stopRequested()) {
        if (impl.strategy->finished())
            break;
        if (impl.loop.nextTime() > budget)
            break;
        if (!m_control.waitTurn(impl.loop.now(), impl.loop.nextTime()))
            break;
        impl.loop.step();
        m_virtualNow.store(impl.loop.now(), std::memory_order_relaxed);
        m_samplesNow.store(world.samplesTrained, std::memory_order_relaxed);
        if (world.stepBoundary) {
            m_control.stepTaken();
            world.stepBoundary = false;
            impl.lastStepBoundary = impl.loop.now();
            impl.commands->applyDue();
        }
        if (impl.options.stepsPerEdge > 0 && impl.loop.now() - impl.lastStepBoundary > kQuiescentSeconds) {
            // A step budget whose last exchanges can never complete (a node
            // died for good, a ring lost a member): stop instead of ticking forever.
            impl.result.stoppedEarly = "stopped after " + std::to_string(int(kQuiescentSeconds)) +
                                       " virtual seconds without a training step; some exchange never completed "
                                       "(a node or link is down, or a node waits for what never comes)";
            if (const auto parts = impl.strategy->unfinishedParts(); !parts.empty())
                impl.result.stoppedEarly += "; waiting: " + parts;
            break;
        }
        if (impl.nextEvalSamples > 0 && world.samplesTrained >= impl.nextEvalSamples) {
            impl.evaluateDuringRun();
            while (impl.nextEvalSamples <= world.samplesTrained)
                impl.nextEvalSamples += impl.options.evalEverySamples;
        }
    }
    const bool stopped = m_control.stopRequested();
    if (std::isfinite(budget) && !stopped && !impl.strategy->finished())
        impl.loop.runUntil(budget); // the budget ran out between two events: the clock ends at it
    impl.reportLinkBytes(impl.loop.now() - impl.lastLinkReport); // the last, partial interval
    impl.auditRunEnd();
    if (impl.options.inspectNodes)
        impl.options.inspectNodes(impl.nodes);
    // The last point of the curve is the model as the run left it: also
    // when no sample was trained since the point before, whenever the clock
    // moved on (messages in flight, the last gradients and a final sync,
    // still change the model after the last step; a quiet tail of timers
    // may only move the clock). Under label skew those last updates, from
    // the edges that finish last, put param_server's final accuracy 4.5 pp
    // below the point taken at its last step (issue 14's non-IID runs).
    // Such a point has no training loss (NaN): nothing trained since.
    if (impl.result.curve.empty() || impl.result.curve.back().samples != world.samplesTrained ||
        impl.result.curve.back().virtualSeconds < impl.loop.now())
        impl.evaluateNow(false);
    if (impl.options.finalFullEvaluation) {
        impl.evaluateNow(true);
    } else {
        impl.result.finalAccuracy = impl.result.curve.back().accuracy;
        impl.result.finalExitAccuracy = impl.result.curve.back().exitAccuracy;
    }
    if (!impl.options.saveModelPath.empty()) {
        auto model = world.newModel();
        impl.strategy->globalModel(*model);
        saveModel(impl.options.saveModelPath, model->module(),
                  {"sim:" + world.config.strategy, impl.result.finalAccuracy, impl.result.finalExitAccuracy, {}});
    }
    impl.finishResult(start);
    return impl.result;
}

} // namespace synaptic::engine
