#include "simulation.h"

#include "event_loop.h"
#include "link.h"
#include "sim_node.h"
#include "sim_world.h"
#include "strategy.h"

#include "core/engine/evaluate.h"
#include "core/engine/model_file.h"
#include "core/engine/inference/live_serving.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <map>

namespace synaptic::engine {

namespace {
using Clock = std::chrono::steady_clock;
constexpr double kQuiescentSeconds = 60;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
} // namespace

struct Simulation::Impl {
    SimWorld &world;
    const TensorSet &test;
    TensorSet testSubset;
    SimOptions options;
    std::unique_ptr<Strategy> strategy;
    std::vector<std::unique_ptr<SimNode>> nodes;
    std::vector<bool> alive;
    std::vector<std::uint64_t> incarnation;
    EventLoop loop;
    std::map<std::pair<int, int>, Link> links;
    std::map<std::pair<int, int>, std::uint64_t> intervalBytes;
    std::unique_ptr<FlatModel> scratch;
    std::unique_ptr<FlatModel> servingScratch; // the global model a release is cut from
    std::unique_ptr<LiveServing> serving;      // null when config.serving.request_rate is 0
    bool sawCenterSync = false;
    StrategyResult result;
    EventHash hash;
    double lastLinkReport = 0;
    double lastStepBoundary = 0;
    double driftSum = 0;
    int driftCount = 0;

    std::mutex commandMutex;
    std::vector<SimCommand> submitted; // guarded by commandMutex
    std::vector<SimCommand> scheduled; // engine thread, ordered by `at`
    std::uint64_t commandBoundary = 0; // engine thread: applyDueCommands() calls so far
    std::uint64_t nextEvalSamples = 0;

    Impl(SimWorld &w, const TensorSet &t, SimOptions o) : world(w), test(t), options(std::move(o)) {}

    int regionOfNode(int node) const { return node == kCenterNode ? -1 : world.regionOfEdge[std::size_t(node - 1)]; }
    bool isWan(int a, int b) const { return a == kCenterNode || b == kCenterNode || regionOfNode(a) != regionOfNode(b); }

    LinkSpec baseSpec(int a, int b) const {
        if (a == kCenterNode || b == kCenterNode)
            return world.config.edgeCenter;
        return regionOfNode(a) == regionOfNode(b) ? world.config.intraRegion : world.config.interRegion;
    }

    Link &link(int from, int to) {
        auto it = links.find({from, to});
        if (it == links.end()) {
            const std::uint64_t seed = world.config.seed * 0x9E3779B97F4A7C15ull + std::uint64_t(from) * 7919 + std::uint64_t(to);
            it = links.emplace(std::pair{from, to}, Link(baseSpec(from, to), seed)).first;
        }
        return it->second;
    }

    void emit(SimEvent e) {
        if (serving && std::holds_alternative<ConsistencyEvent>(e)) {
            sawCenterSync = true;
            // Cut the release after the merge that emitted this has finished.
            if (serving->onCenterSync())
                loop.at(loop.now(), [this] { releaseEdgeImage(); });
        }
        if (const auto *d = std::get_if<DriftEvent>(&e)) {
            result.maxRegionDrift = std::max(result.maxRegionDrift, d->parameterDrift);
            driftSum += d->parameterDrift;
            ++driftCount;
        }
        hash.add(e);
        if (options.observer)
            options.observer(e);
        if (options.queue)
            options.queue->push(std::move(e));
    }

    void dispatch(int node, Outbox &out) {
        for (const auto &t : out.timers) {
            const std::uint64_t inc = incarnation[std::size_t(node)];
            loop.at(std::max(t.at, loop.now()), [this, node, t, inc] {
                if (!alive[std::size_t(node)] || incarnation[std::size_t(node)] != inc)
                    return;
                Outbox next;
                nodes[std::size_t(node)]->onTimer(loop.now(), t.kind, t.arg, next);
                dispatch(node, next);
            });
        }
        for (auto &m : out.messages) {
            m.from = node;
            send(std::move(m));
        }
    }

    void send(Message m) {
        m.sentAt = loop.now();
        if (m.from == m.to) {
            loop.at(loop.now(), [this, m]() mutable { deliver(std::move(m)); });
            return;
        }
        if (!alive[std::size_t(m.from)])
            return;
        Link &l = link(m.from, m.to);
        const std::uint64_t bytes = m.bytes();
        const auto arrival = l.send(loop.now(), bytes);
        if (l.spec().up) {
            ++result.messages;
            result.totalBytes += bytes;
            if (m.from == kCenterNode || m.to == kCenterNode)
                result.bytesToCenter += bytes;
            if (isWan(m.from, m.to))
                result.wanBytes += bytes;
            intervalBytes[{m.from, m.to}] += bytes;
        }
        if (arrival) {
            loop.at(*arrival, [this, m]() mutable { deliver(std::move(m)); });
        } else if (l.spec().up) {
            // Lost on a lossy link: the transport notices after a round trip
            // and sends again, as TCP would, so loss costs time and bytes.
            ++result.messagesLost;
            const double rto = l.busyUntil() - loop.now() + 2 * l.spec().latencySeconds;
            loop.at(loop.now() + rto, [this, m]() mutable { send(std::move(m)); });
        } else if (reliable(m.kind)) {
            // The center's channel and shard handoffs are reliable (DESIGN.md
            // §1): the sender's transport keeps retrying until the link is back.
            loop.at(loop.now() + kReliableRetrySeconds, [this, m]() mutable { send(std::move(m)); });
        } else {
            ++result.messagesDropped;
        }
    }

    static constexpr double kReliableRetrySeconds = 0.5;
    static bool reliable(MessageKind k) {
        return k == MessageKind::CenterDelta || k == MessageKind::CenterValues || k == MessageKind::Handoff;
    }

    void deliver(Message m) {
        const int to = m.to;
        if (!alive[std::size_t(to)]) {
            if (nodes[std::size_t(to)] && reliable(m.kind)) {
                // A reliable sender keeps retrying until the receiver is back.
                loop.at(loop.now() + kReliableRetrySeconds, [this, m]() mutable { send(std::move(m)); });
                return;
            }
            ++result.messagesDropped;
            return;
        }
        Outbox out;
        nodes[std::size_t(to)]->onMessage(loop.now(), std::move(m), out);
        dispatch(to, out);
    }

    // ---- commands --------------------------------------------------------

    void setLinkPair(int a, int b, const std::function<void(LinkSpec &)> &edit) {
        for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
            Link &l = link(x, y);
            LinkSpec s = l.spec();
            edit(s);
            l.setSpec(s);
        }
    }

    std::string apply(const SimCommand &c) {
        using K = SimCommand::Kind;
        const int edges = world.edgeCount();
        auto nodeOf = [&](int edgeOrCenter) { return edgeOrCenter < 0 ? kCenterNode : edgeOrCenter + 1; };
        auto validNode = [&](int n) { return n >= -1 && n < edges; };
        auto &k = world.config.knobs;
        switch (c.kind) {
        case K::MoveShard: {
            std::string why;
            const int target = strategy->moveTarget(c, why);
            if (target < 0)
                return why;
            if (!alive[std::size_t(target)])
                return "the shard's current owner is down";
            if (c.node < 0 || c.node >= edges || !alive[std::size_t(c.node + 1)])
                return "the new owner is down or unknown";
            Outbox out;
            const std::string refused = nodes[std::size_t(target)]->onCommand(loop.now(), c, out);
            dispatch(target, out);
            return refused;
        }
        case K::SetAggregationWindow:
            k.aggregationWindowSteps = int(c.value);
            k.aggregationWindowMs = 0;
            return "";
        case K::SetAggregationWindowMs: k.aggregationWindowMs = c.value; return "";
        case K::SetCenterSync: k.centerSyncWindows = int(c.value); return "";
        case K::SetLeaseSeconds:
            if (c.value <= k.heartbeatSeconds)
                return "lease must be longer than the heartbeat interval";
            k.leaseSeconds = c.value;
            return "";
        case K::SetReleaseCadence:
            if (!(c.value >= 1 && c.value <= 1e6))
                return "the cadence must be 1 to 1,000,000 center syncs";
            world.config.serving.releaseEverySyncs = int(c.value);
            if (serving)
                serving->setReleaseEverySyncs(int(c.value));
            return "";
        case K::SetConfidenceThreshold:
            if (c.node >= edges)
                return "no such edge";
            if (!(c.value >= 0 && c.value <= 1))
                return "the threshold must be between 0 and 1";
            if (c.node < 0) {
                k.confidenceThreshold = c.value;
                std::fill(world.confidenceOverride.begin(), world.confidenceOverride.end(), std::nan(""));
            } else {
                world.confidenceOverride[std::size_t(c.node)] = c.value;
            }
            return "";
        case K::SetHeartbeatSeconds:
            if (c.value >= k.leaseSeconds)
                return "heartbeat interval must be shorter than the lease";
            k.heartbeatSeconds = c.value;
            return "";
        case K::SetLink:
            if (!validNode(c.node) || !validNode(c.nodeB) || c.node == c.nodeB)
                return "no such link";
            try {
                setLinkPair(nodeOf(c.node), nodeOf(c.nodeB), [&](LinkSpec &s) {
                    const bool up = s.up;
                    s = c.link;
                    s.up = up;
                });
            } catch (const std::invalid_argument &e) {
                return e.what();
            }
            return "";
        case K::KillNode:
        case K::ReviveNode: {
            if (!validNode(c.node))
                return "no such node";
            const int n = nodeOf(c.node);
            const bool kill = c.kind == K::KillNode;
            if (!nodes[std::size_t(n)])
                return "this strategy has no such node";
            if (alive[std::size_t(n)] != kill)
                return kill ? "already down" : "already running";
            alive[std::size_t(n)] = !kill;
            world.alive[std::size_t(n)] = !kill;
            ++incarnation[std::size_t(n)];
            if (kill) {
                nodes[std::size_t(n)]->onKilled(loop.now());
            } else {
                Outbox out;
                nodes[std::size_t(n)]->start(loop.now(), out);
                dispatch(n, out);
            }
            return "";
        }
        case K::PartitionLink:
        case K::HealLink:
            if (!validNode(c.node) || !validNode(c.nodeB) || c.node == c.nodeB)
                return "no such link";
            setLinkPair(nodeOf(c.node), nodeOf(c.nodeB), [&](LinkSpec &s) { s.up = c.kind == K::HealLink; });
            return "";
        case K::PartitionRegion:
        case K::HealRegion: {
            if (c.region < 0 || c.region >= world.regionCount())
                return "no such region";
            for (int a = 0; a <= edges; ++a)
                for (int b = a + 1; b <= edges; ++b)
                    if ((regionOfNode(a) == c.region) != (regionOfNode(b) == c.region))
                        setLinkPair(a, b, [&](LinkSpec &s) { s.up = c.kind == K::HealRegion; });
            return "";
        }
        }
        return "unknown command";
    }

    void applyDueCommands() {
        {
            std::lock_guard lock(commandMutex);
            for (auto &c : submitted)
                scheduled.push_back(c);
            submitted.clear();
        }
        ++commandBoundary;
        std::vector<SimCommand> later;
        for (const auto &c : scheduled) {
            if (c.atBoundary > 0 ? c.atBoundary > commandBoundary : c.at > loop.now()) {
                later.push_back(c);
                continue;
            }
            const std::string refused = apply(c);
            emit(CommandEvent{loop.now(), c.describe(), refused.empty(), refused, c, commandBoundary});
        }
        scheduled.swap(later);
    }

    // ---- measurement -----------------------------------------------------

    void evaluateNow(bool full, Clock::time_point &evalClock) {
        const auto t0 = Clock::now();
        const TensorSet &set = full ? test : testSubset;
        strategy->globalModel(*scratch);
        const Accuracy acc = evaluate(scratch->net(), set);
        CurvePoint p;
        p.virtualSeconds = loop.now();
        p.samples = world.samplesTrained;
        p.accuracy = acc.main;
        p.exitAccuracy = acc.exit;
        // Training loss since the last point: per region, and over all edges.
        std::vector<double> regionLoss(std::size_t(world.regionCount()), 0);
        std::vector<int> regionLossCount(std::size_t(world.regionCount()), 0);
        double lossSum = 0;
        int lossCount = 0;
        const auto replicas = strategy->replicas();
        for (std::size_t e = 0; e < replicas.size(); ++e) {
            const double l = replicas[e]->takeMeanLoss();
            if (std::isnan(l))
                continue;
            lossSum += l;
            ++lossCount;
            regionLoss[std::size_t(world.regionOfEdge[e])] += l;
            ++regionLossCount[std::size_t(world.regionOfEdge[e])];
        }
        p.loss = lossCount ? lossSum / lossCount : std::numeric_limits<double>::quiet_NaN();
        p.bytesToCenter = result.bytesToCenter;
        p.wanBytes = result.wanBytes;
        p.totalBytes = result.totalBytes;
        if (!full) {
            result.curve.push_back(p);
            if (!result.timeToTargetSeconds && acc.main >= options.targetAccuracy)
                result.timeToTargetSeconds = loop.now();
        } else {
            result.finalAccuracy = acc.main;
            result.finalExitAccuracy = acc.exit;
        }
        emit(MetricEvent{loop.now(), full ? "global:full" : "global", p.samples, p.loss, acc.main, acc.exit});
        if (!full) {
            for (int r = 0; r < world.regionCount(); ++r) {
                const auto i = std::size_t(r);
                const double loss = regionLossCount[i] ? regionLoss[i] / regionLossCount[i]
                                                       : std::numeric_limits<double>::quiet_NaN();
                Accuracy ra{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
                if (options.evaluateRegions && r < strategy->regionModels()) {
                    strategy->regionModel(r, *scratch);
                    ra = evaluate(scratch->net(), set);
                }
                emit(MetricEvent{loop.now(), "region:" + world.config.regions[i].name, p.samples, loss, ra.main,
                                 ra.exit});
            }
        }
        result.evalWallSeconds += secondsSince(t0);
        (void)evalClock;
    }

    void releaseEdgeImage() {
        strategy->globalModel(*servingScratch);
        serving->release(servingScratch->net());
    }

    // Serving traffic (issue 6): on the run's real links, so it queues with
    // the training traffic and shows in the link reports, but counted apart
    // from the strategy's bytes (StrategyResult::servingBytes).
    std::optional<double> sendRaw(int from, int to, std::uint64_t bytes) {
        Link &l = link(from, to);
        const auto arrival = l.send(loop.now(), bytes);
        if (l.spec().up) {
            result.servingBytes += bytes;
            intervalBytes[{from, to}] += bytes;
        }
        return arrival;
    }

    void startServing() {
        const auto &s = world.config.serving;
        if (!(s.requestRate > 0))
            return;
        if (!nodes[std::size_t(kCenterNode)]) {
            result.notes.push_back("serving is off: " + world.config.strategy +
                                   " has no center to forward requests to or to release edge images");
            return;
        }
        LiveServing::Env env;
        env.loop = &loop;
        env.send = [this](int from, int to, std::uint64_t bytes) { return sendRaw(from, to, bytes); };
        env.linkUp = [this](int a, int b) { return link(a, b).spec().up; };
        env.alive = [this](int node) { return bool(alive[std::size_t(node)]); };
        env.threshold = [this](int edge) { return world.confidenceThreshold(edge); };
        env.computeSeconds = [this](int node, double flops) { return world.computeSeconds(node, flops); };
        env.emit = [this](SimEvent e) { emit(std::move(e)); };
        LiveServing::Options o;
        o.ratePerEdge = s.requestRate;
        o.measure = parseConfidenceMeasure(s.confidence).value_or(ConfidenceMeasure::MaxSoftmax);
        o.releaseEverySyncs = s.releaseEverySyncs;
        o.timeoutSeconds = s.timeoutMs / 1000.0;
        o.seed = world.config.seed;
        o.edges = world.edgeCount();
        servingScratch = world.newModel();
        serving = std::make_unique<LiveServing>(std::move(env), o, testSubset);
        serving->start(servingScratch->net());
    }

    void reportLinkBytes(double interval) {
        if (serving)
            serving->report(interval);
        for (const auto &[key, bytes] : intervalBytes)
            if (bytes > 0)
                emit(LinkBytesEvent{loop.now(), interval, key.first, key.second, bytes});
        intervalBytes.clear();
        lastLinkReport = loop.now();
    }

    void scheduleLinkReport(double at) {
        loop.at(at, [this, at] {
            reportLinkBytes(options.linkReportSeconds);
            // Commands wait for a step boundary; when no edge is training
            // (all read-only, say) this tick applies them instead.
            if (loop.now() - lastStepBoundary >= options.linkReportSeconds)
                applyDueCommands();
            scheduleLinkReport(at + options.linkReportSeconds);
        });
    }

    void scheduleEval(double at) {
        loop.at(at, [this, at] {
            Clock::time_point unused;
            evaluateNow(false, unused);
            // Strategies without center syncs release an edge image per evaluation.
            if (serving && !sawCenterSync)
                releaseEdgeImage();
            scheduleEval(at + world.config.evalEverySeconds);
        });
    }
};

// Run controls shared with other threads.
struct Simulation::Control {
    mutable std::mutex mutex;
    std::condition_variable wake;
    bool paused = false;       // guarded by mutex
    bool held = false;         // guarded by mutex: the engine is waiting
    int stepsAllowed = 0;      // guarded by mutex: single steps granted while paused
    double speed = 0;          // guarded by mutex
    bool speedChanged = false; // guarded by mutex
};

void Simulation::requestStop() {
    m_stop = true;
    std::lock_guard lock(m_control->mutex);
    m_control->wake.notify_all();
}

void Simulation::pause() {
    std::lock_guard lock(m_control->mutex);
    m_control->paused = true;
}

void Simulation::resume() {
    std::lock_guard lock(m_control->mutex);
    m_control->paused = false;
    m_control->wake.notify_all();
}

void Simulation::step() {
    std::lock_guard lock(m_control->mutex);
    m_control->paused = true;
    ++m_control->stepsAllowed;
    m_control->wake.notify_all();
}

void Simulation::setSpeed(double k) {
    std::lock_guard lock(m_control->mutex);
    m_control->speed = k > 0 ? k : 0;
    m_control->speedChanged = true;
    m_control->wake.notify_all();
}

bool Simulation::isHeld() const {
    std::lock_guard lock(m_control->mutex);
    return m_control->held;
}

Simulation::Simulation(const ClusterConfig &config, const TensorSet &train,
                       const std::vector<std::uint8_t> &trainLabels, const TensorSet &test, SimOptions options)
    : m_world(makeWorld(config, train, trainLabels, options.device)), m_control(std::make_unique<Control>()) {
    if (options.stepsPerEdge == 0 && !(options.virtualSeconds > 0))
        throw std::invalid_argument("simulation needs a budget: steps per edge or virtual seconds");
    m_world->stepsPerEdge = options.stepsPerEdge;
    m_impl = std::make_unique<Impl>(*m_world, test, std::move(options));
    auto &impl = *m_impl;
    const auto n = std::min<std::int64_t>(std::int64_t(config.evalTestSubset), test.size());
    impl.testSubset = TensorSet{test.images.slice(0, 0, n), test.labels.slice(0, 0, n)};
    impl.strategy = makeStrategy(config.strategy);
    impl.scheduled = impl.options.commands;
    impl.result.strategy = config.strategy;
    impl.result.targetAccuracy = impl.options.targetAccuracy;
    impl.result.notes = m_world->plan.problems;
    m_world->emit = [&impl](SimEvent e) { impl.emit(std::move(e)); };
}

Simulation::~Simulation() = default;

void Simulation::submit(SimCommand command) {
    std::lock_guard lock(m_impl->commandMutex);
    m_impl->submitted.push_back(std::move(command));
}

std::shared_ptr<const RoutingSnapshot> Simulation::routing() const { return m_world->routing->snapshot(); }

StrategyResult Simulation::run() {
    auto &impl = *m_impl;
    auto &world = *m_world;
    const auto start = Clock::now();
    impl.scratch = world.newModel();
    impl.nodes = impl.strategy->createNodes(world);
    impl.alive.assign(impl.nodes.size(), true);
    world.alive.assign(impl.nodes.size(), true);
    impl.incarnation.assign(impl.nodes.size(), 0);
    for (std::size_t i = 0; i < impl.nodes.size(); ++i) {
        if (!impl.nodes[i]) { // a strategy without a center
            impl.alive[i] = false;
            world.alive[i] = false;
            continue;
        }
        Outbox out;
        impl.nodes[i]->start(0, out);
        impl.dispatch(int(i), out);
    }
    impl.scheduleLinkReport(impl.options.linkReportSeconds);
    impl.startServing();
    Clock::time_point unused;
    impl.evaluateNow(false, unused); // the starting point of every curve
    if (impl.options.evalEverySamples > 0)
        impl.nextEvalSamples = impl.options.evalEverySamples;
    else
        impl.scheduleEval(world.config.evalEverySeconds);

    const double budget = impl.options.virtualSeconds > 0 ? impl.options.virtualSeconds
                                                          : std::numeric_limits<double>::infinity();
    // Pacing: virtual time runs at `speed` x wall time from this anchor.
    auto paceStart = Clock::now();
    double paceVirtual = 0;
    while (!impl.loop.empty() && !m_stop) {
        if (impl.strategy->finished())
            break;
        if (impl.loop.nextTime() > budget)
            break;
        double speed = 0;
        {
            std::unique_lock lock(m_control->mutex);
            m_control->held = m_control->paused && m_control->stepsAllowed == 0;
            m_control->wake.wait(lock, [&] { return m_stop || !m_control->paused || m_control->stepsAllowed > 0; });
            m_control->held = false;
            if (m_control->speedChanged || m_control->paused) {
                m_control->speedChanged = false;
                paceStart = Clock::now(); // re-anchor: time spent paused is not made up for
                paceVirtual = impl.loop.now();
            }
            speed = m_control->speed;
        }
        if (m_stop)
            break;
        if (speed > 0) {
            const auto due = paceStart + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>((impl.loop.nextTime() - paceVirtual) / speed));
            std::unique_lock lock(m_control->mutex);
            m_control->wake.wait_until(lock, due, [&] { return m_stop.load() || m_control->speedChanged; });
            if (m_stop || m_control->speedChanged)
                continue;
        }
        impl.loop.step();
        m_virtualNow.store(impl.loop.now(), std::memory_order_relaxed);
        m_samplesNow.store(world.samplesTrained, std::memory_order_relaxed);
        if (world.stepBoundary) {
            {
                std::lock_guard lock(m_control->mutex);
                if (m_control->paused && m_control->stepsAllowed > 0)
                    --m_control->stepsAllowed; // a single step has been taken
            }
            world.stepBoundary = false;
            impl.lastStepBoundary = impl.loop.now();
            impl.applyDueCommands();
        }
        if (impl.options.stepsPerEdge > 0 && impl.loop.now() - impl.lastStepBoundary > kQuiescentSeconds) {
            // A step budget whose last exchanges can never complete (a node
            // died for good, a ring lost a member): stop instead of ticking forever.
            impl.result.stoppedEarly = "stopped after " + std::to_string(int(kQuiescentSeconds)) +
                                       " virtual seconds without a training step; some exchange never completed "
                                       "(a node or link is down)";
            break;
        }
        if (impl.nextEvalSamples > 0 && world.samplesTrained >= impl.nextEvalSamples) {
            impl.evaluateNow(false, unused);
            while (impl.nextEvalSamples <= world.samplesTrained)
                impl.nextEvalSamples += impl.options.evalEverySamples;
        }
    }
    if (std::isfinite(budget) && !m_stop && !impl.strategy->finished())
        impl.loop.runUntil(budget); // the budget ran out between two events: the clock ends at it
    impl.reportLinkBytes(impl.loop.now() - impl.lastLinkReport); // the last, partial interval
    // The last point of the curve is the model as the run left it.
    if (impl.result.curve.empty() || impl.result.curve.back().samples != world.samplesTrained)
        impl.evaluateNow(false, unused);
    if (impl.options.finalFullEvaluation)
        impl.evaluateNow(true, unused);
    else {
        impl.result.finalAccuracy = impl.result.curve.back().accuracy;
        impl.result.finalExitAccuracy = impl.result.curve.back().exitAccuracy;
    }

    auto &r = impl.result;
    if (!impl.options.saveModelPath.empty()) {
        impl.strategy->globalModel(*impl.scratch);
        saveModel(impl.options.saveModelPath, impl.scratch->net(),
                  {"sim:" + world.config.strategy, r.finalAccuracy, r.finalExitAccuracy, {}});
    }
    r.samples = world.samplesTrained;
    r.device = world.device;
    r.virtualSeconds = impl.loop.now();
    r.wallSeconds = secondsSince(start);
    r.trainWallSeconds = r.wallSeconds - r.evalWallSeconds;
    r.contributionsSent = world.ledger.sent;
    r.contributionsApplied = world.ledger.applied;
    r.contributionsRejected = world.ledger.rejected;
    r.contributionsDuplicated = world.ledger.duplicates;
    r.contributionsForwarded = world.ledger.forwarded;
    r.contributionsUnderExpiredLease = world.ledger.appliedUnderExpiredLease;
    r.gradientsSentWhileReadOnly = world.ledger.sentWhileReadOnly;
    r.meanRegionDrift = impl.driftCount ? impl.driftSum / impl.driftCount : 0;
    r.events = impl.hash.count();
    r.eventHash = impl.hash.value();
    return r;
}

} // namespace synaptic::engine
