#include "center_process.h"

#include "core/engine/compute_threads.h"
#include "core/engine/tasks/task_registry.h"

#include "center_services.h"
#include "center_state.h"
#include "inference_service.h"
#include "live_commands.h"
#include "live_transport.h"
#include "message_guard.h"
#include "node_host.h"
#include "peer_service.h"
#include "rejection_log.h"
#include "server_setup.h"

#include "core/rpc/security/token_gate.h"
#include "core/rpc/wire/report_codec.h"
#include "core/rpc/wire/tensor_codec.h"

#include "core/engine/device.h"
#include "core/engine/evaluate.h"
#include "core/engine/sim/cluster_config_json.h"
#include "core/engine/sim/sim_runner.h"
#include "core/engine/sim/strategies/shard_hubs.h"
#include "core/engine/sim/strategy.h"
#include "core/engine/trainer.h"
#include "core/session/record_codec.h"
#include "synaptic_version.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <limits>
#include <map>
#include <thread>

namespace synaptic::rpc {

namespace e = synaptic::engine;

namespace {
// A restarted owner resumes its shards' versions this far past the last one
// the center heard of, so the region's caches (which may have seen a few
// more than the center) accept its values at once.
constexpr std::uint64_t kOwnerVersionGap = 64;
constexpr auto kTick = std::chrono::milliseconds(200);

// Events as one log line, edges by name.
std::string describeForLog(const e::SimEvent &ev) { return e::describeEvent(ev); }
} // namespace

struct CenterProcess::Impl final : CenterBackend {
    CenterOptions options;
    LoadedSecurity security;
    WireLimits limits;
    e::ClusterConfig config; // knobs are edited on the node's thread only
    std::shared_ptr<const e::ClusterShape> shape;
    std::shared_ptr<const e::ModelSetup> model;
    e::SimData data;
    data::Partition partition;
    ClusterClock clock;
    e::NodeContext context;
    std::unique_ptr<CenterState> state;
    std::unique_ptr<LiveTransport> transport;
    std::unique_ptr<MessageGuard> guard;
    RejectionLog rejections;
    std::unique_ptr<PeerService> peerService;
    std::unique_ptr<ClusterService> clusterService;
    std::unique_ptr<ControlService> controlService;
    std::unique_ptr<InferenceService> inferenceService;
    std::unique_ptr<NodeHost> host;
    std::shared_ptr<TokenGate> gate;
    std::unique_ptr<grpc::Server> server;
    std::string address;
    std::string runId;

    std::mutex mutex; // guards what follows
    std::string configJson; // the config as the node's thread last edited it (others must not read `config`)
    std::condition_variable wake;
    std::map<int, QueuedWriter<v1::ClusterUpdate> *> edgeWatch; // by node
    std::map<QueuedWriter<v1::ControlUpdate> *, int> controlWatch; // writers that get routing and descriptions
    std::uint64_t routingPushed = std::numeric_limits<std::uint64_t>::max();
    bool stopping = false;
    bool finished = false;
    double allFinishedAt = std::numeric_limits<double>::quiet_NaN(); // when every edge had finished (runComplete)
    double firstJoin = -1;      // when the run started (the start gate opened)
    // The start gate: joins are answered only once every edge of the config
    // has joined, or startTimeoutSeconds after the first did, so the edges
    // start together as in the simulator (edges that join later are
    // answered at once).
    struct WaitingJoin {
        const v1::JoinRequest *request; // gRPC's, valid until `done`
        int node;
        v1::JoinReply *reply;
        std::function<void(grpc::Status)> done;
        std::function<bool()> cancelled; // the edge gave up or died while waiting
    };
    std::vector<WaitingJoin> waitingToStart;
    bool started = false;
    double startDeadline = -1;
    LiveRunSummary result;
    std::uint64_t nextEval = 0;
    std::thread ticker;
    std::thread evaluator;
    // Streams that ended, to forget and delete on the ticker's thread: an
    // ending stream may be inside a push() made under `mutex` (gRPC runs
    // reactions inline), so it only queues its cleanup here.
    std::mutex graveMutex;
    std::vector<std::function<void()>> grave; // guarded by graveMutex

    void bury(std::function<void()> cleanup) {
        std::lock_guard lock(graveMutex);
        grave.push_back(std::move(cleanup));
    }
    void cleanUp() {
        std::vector<std::function<void()>> due;
        {
            std::lock_guard lock(graveMutex);
            due.swap(grave);
        }
        for (auto &f : due)
            f();
    }

    explicit Impl(CenterOptions o) : options(std::move(o)) {
        security = loadSecurity(options.process.security);
        config = e::loadClusterConfig(options.configPath);
        if (!options.process.dataDir.empty())
            config.dataDir = options.process.dataDir;
        if (!e::runsLive(config.strategy))
            throw e::ConfigError(options.configPath, "strategy: \"" + config.strategy +
                                                         "\" runs only in the simulator; live clusters run synaptic, "
                                                         "param_server or diloco");
        // The live processes are tested on Fashion-MNIST only (their edges
        // serve early exit, which langid's model has not got).
        if (config.task != e::kDefaultTask)
            throw e::ConfigError(options.configPath, "task: \"" + config.task +
                                                         "\" runs only in the simulator (synaptic-node sim --task " +
                                                         config.task + " --strategy NAME); live clusters train " +
                                                         e::kDefaultTask);
        limits.leaseSeconds = config.knobs.leaseSeconds;
        if (options.process.threads > 0)
            e::setComputeThreads(options.process.threads);
        const std::string device = e::resolveDevice(options.process.device);
        shape = std::make_shared<const e::ClusterShape>(config);
        model = e::makeModelSetup(config, e::topologyOf(config), device);
        data = e::loadSimData(config, device);
        partition = e::partitionFor(config, data.trainLabels);
        context.node = e::kCenterNode;
        context.config = &config;
        context.shape = shape;
        context.model = model;
        context.stepsPerEdge = options.stepsPerEdge;
        context.realTime = true;
        state = std::make_unique<CenterState>(config, *shape, *model);
        configJson = e::clusterConfigToJson(config);
        runId = std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
        result.strategy = config.strategy;
        result.finalAccuracy = std::nan("");
        nextEval = options.evalEverySamples;
    }

    ~Impl() override { stop(); }

    // ---- start / stop ----------------------------------------------------

    std::string start() {
        LiveTransport::Channels channels;
        channels.open = [this](const std::string &target) { return openChannel(target, security, limits); };
        channels.local = [this](e::Message &&m) { host->post(std::move(m)); };
        LiveTransport::Options to;
        to.emulateLinks = options.process.emulateLinks;
        to.maxMessageBytes = options.process.maxMessageBytes;
        transport = std::make_unique<LiveTransport>(e::kCenterNode, config, *shape, clock, channels, to);
        guard = std::make_unique<MessageGuard>(e::kCenterNode, *shape, *model, e::hubNodesOfShards(context));
        NodeHost::Sinks sinks;
        sinks.send = [this](e::Message &&m) { transport->send(std::move(m)); };
        sinks.report = [this](double now, std::vector<e::NodeReport> &&reports) { state->foldLocal(now, reports); };
        host = std::make_unique<NodeHost>(e::makeStrategyNode(config.strategy, context), clock, std::move(sinks));
        peerService = std::make_unique<PeerService>(*guard, rejections, [this](e::Message &&m) {
            return host->post(std::move(m));
        });
        clusterService = std::make_unique<ClusterService>(*this);
        InferenceService::Setup serving;
        serving.host = host.get();
        serving.name = "center";
        serving.model = model;
        serving.centerModel = [](e::SimNode &center, e::FlatModel &into) {
            at::Tensor values, buffers;
            if (!center.evaluationModel(values, buffers))
                return false;
            into.setValues(values);
            into.setBuffers(buffers);
            return true;
        };
        inferenceService = std::make_unique<InferenceService>(std::move(serving));
        controlService = std::make_unique<ControlService>(*this);
        gate = std::make_shared<TokenGate>(security.token);
        int port = 0;
        server = buildServer(options.listen,
                             {peerService.get(), clusterService.get(), controlService.get(), inferenceService.get()},
                             security, gate, limits, port);
        address = boundAddress(options.listen, port);
        // The center's log: what an operator watches for (leases, commands,
        // accuracy, refused inputs); the full stream is on the Control service.
        state->subscribe([this](const e::SimEvent &ev) {
            if (std::holds_alternative<e::LeaseEvent>(ev) || std::holds_alternative<e::CommandEvent>(ev) ||
                std::holds_alternative<e::RejectedInputEvent>(ev) || (std::getenv("SYNAPTIC_TRACE_MESSAGES") && std::holds_alternative<e::ConsistencyEvent>(ev)) ||
                (std::holds_alternative<e::MetricEvent>(ev) && std::get<e::MetricEvent>(ev).scope.rfind("global", 0) == 0))
                std::fprintf(stderr, "center: %s\n", describeForLog(ev).c_str());
        });
        host->start();
        ticker = std::thread([this] { tick(); });
        evaluator = std::thread([this] { evaluate(); });
        return address;
    }

    void stop() {
        {
            std::lock_guard lock(mutex);
            if (stopping)
                return;
            stopping = true;
            for (auto &w : waitingToStart) // answered, or the server never finishes shutting down
                w.done(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the center is shutting down"));
            waitingToStart.clear();
            for (auto &[node, w] : edgeWatch) {
                v1::ClusterUpdate u;
                u.mutable_stop()->set_reason("the center is shutting down");
                w->push(u);
            }
        }
        wake.notify_all();
        if (ticker.joinable())
            ticker.join();
        if (evaluator.joinable())
            evaluator.join();
        // The server first: a call in flight may wait on a task of the node's
        // thread (Join, Classify), which must still run to finish it, or
        // Wait() never returns. Then the node, then its transport.
        if (server) {
            server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
            server->Wait();
            server.reset();
        }
        if (host)
            host->stop();
        if (transport)
            transport->stop();
        cleanUp(); // the streams the shutdown ended
    }

    // ---- edges -----------------------------------------------------------

    void broadcast(const v1::ClusterUpdate &update, int except = -1) {
        for (auto &[node, w] : edgeWatch)
            if (node != except)
                w->push(update);
    }

    void join(const v1::JoinRequest &request, v1::JoinReply *reply, std::function<void(grpc::Status)> done,
              std::function<bool()> cancelled) override {
        std::string why;
        const double now = clock.now();
        const int node = state->join(request.name(), request.address(), request.incarnation(), now, why);
        if (node < 0) {
            done(grpc::Status(grpc::StatusCode::NOT_FOUND, why));
            return;
        }
        std::vector<WaitingJoin> startNow;
        {
            std::unique_lock lock(mutex);
            if (stopping) { // stop() has answered the waiting joins already
                lock.unlock();
                done(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the center is shutting down"));
                return;
            }
            if (!started) {
                if (startDeadline < 0)
                    startDeadline = now + options.startTimeoutSeconds;
                std::erase_if(waitingToStart, [&](const WaitingJoin &w) {
                    if (w.node != node)
                        return false;
                    w.done(grpc::Status(grpc::StatusCode::ABORTED, "the same edge joined again"));
                    return true;
                });
                waitingToStart.push_back({&request, node, reply, std::move(done), std::move(cancelled)});
                std::fprintf(stderr, "center: %s joined as node %d from %s, waiting for the others\n",
                             request.name().c_str(), node, request.address().c_str());
                if (!allJoinedOrLate(now))
                    return; // the ticker opens the gate at the deadline
                startNow = openStartGate(now);
            }
        }
        if (!startNow.empty()) {
            for (auto &w : startNow)
                answerJoin(*w.request, w.node, w.reply, std::move(w.done));
            return;
        }
        answerJoin(request, node, reply, std::move(done));
    }

    // Mutex held. An edge that gave up waiting (or died) is down again: the
    // run must not start counting on it.
    void dropCancelledJoins(double now) {
        std::erase_if(waitingToStart, [&](WaitingJoin &w) {
            if (!w.cancelled())
                return false;
            const std::string incarnation = w.request->incarnation(); // the request dies with `done`
            const std::string name = w.request->name();
            w.done(grpc::Status(grpc::StatusCode::CANCELLED, "the edge left before the run started"));
            state->markDown(w.node, incarnation, now, false);
            std::fprintf(stderr, "center: %s left before the run started\n", name.c_str());
            return true;
        });
    }

    // Mutex held.
    bool allJoinedOrLate(double now) const {
        int up = 0;
        for (const auto &entry : state->edges())
            up += entry.up ? 1 : 0;
        return up >= shape->edgeCount() || now >= startDeadline;
    }

    // Mutex held. The joins to answer now that the run starts.
    std::vector<WaitingJoin> openStartGate(double now) {
        started = true;
        firstJoin = now;
        std::fprintf(stderr, "center: the run starts with %zu of %d edges\n", waitingToStart.size(),
                     shape->edgeCount());
        return std::exchange(waitingToStart, {});
    }

    void answerJoin(const v1::JoinRequest &request, int node, v1::JoinReply *reply,
                    std::function<void(grpc::Status)> done) {
        const int edge = e::ClusterShape::edgeOfNode(node);
        const int region = shape->regionOfEdge[std::size_t(edge)];
        reply->set_node(node);
        reply->set_incarnation(state->edge(node).joins - 1);
        reply->set_steps_per_edge(options.stepsPerEdge);
        // A restarted edge rejoins at its region's step, as a worker of an
        // elastic data-parallel job rejoins at the job's: the steps it
        // missed while down are skipped, not trained alone after the others
        // finished (a lone edge's tail costs more accuracy than the samples
        // it would add).
        std::uint64_t regionStep = 0;
        for (const auto &entry : state->edges())
            if (shape->regionOfEdge[std::size_t(e::ClusterShape::edgeOfNode(entry.node))] == region)
                regionStep = std::max(regionStep, entry.stepsDone);
        state->resumeAt(node, regionStep); // where it stands now, for the next to rejoin
        reply->set_steps_done(regionStep);
        reply->set_run_id(runId);
        for (auto i : partition[std::size_t(edge)])
            reply->add_partition(std::uint32_t(i));
        for (const auto &entry : state->edges())
            if (entry.node != node && !entry.address.empty()) {
                auto *p = reply->add_peers();
                p->set_node(entry.node);
                p->set_address(entry.address);
                p->set_up(entry.up);
            }
        transport->setPeer(node, request.address(), true);
        {
            std::lock_guard lock(mutex);
            v1::ClusterUpdate u;
            auto *p = u.mutable_peer();
            p->set_node(node);
            p->set_address(request.address());
            p->set_up(true);
            broadcast(u, node);
        }
        // Before the task: once it ran, `done` may have freed the request.
        std::fprintf(stderr, "center: %s starts as node %d from %s\n", request.name().c_str(), node,
                     request.address().c_str());
        // The model to start from, with the config's knobs as they are now:
        // both belong to the node's thread.
        const bool queued = host->postTask([this, reply, done, edge, region](e::SimNode &center, double now, e::Outbox &) {
            reply->set_config_json(e::clusterConfigToJson(config));
            // The table folds the center's own reports on this thread, so its
            // center versions are those of the values below.
            for (const auto &row : state->routing()->rows) {
                const auto r = std::size_t(region);
                reply->add_owners(row->owner[r]);
                // A region that has made progress: the (re)joining owner
                // resumes past it. A fresh cluster starts at 0.
                const auto seen = row->ownerVersion[r];
                reply->add_owner_versions(row->owner[r] == edge && seen > 0 ? seen + kOwnerVersionGap : 0);
                reply->add_center_versions(row->centerVersion);
            }
            at::Tensor values, buffers;
            if (!center.evaluationModel(values, buffers)) {
                values = model->initialValues;
                buffers = model->initialBuffers;
            }
            encodeTensor(values, reply->mutable_initial_values());
            encodeTensor(buffers, reply->mutable_initial_buffers());
            reply->set_cluster_time(now);
            done(grpc::Status::OK);
        });
        if (!queued) {
            done(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the center is shutting down"));
            return;
        }
    }

    grpc::Status attachWatch(const v1::WatchRequest &request, QueuedWriter<v1::ClusterUpdate> *writer) override {
        const int node = request.node();
        if (node < 1 || node > shape->edgeCount())
            return grpc::Status(grpc::StatusCode::NOT_FOUND, "no node " + std::to_string(node));
        if (state->edge(node).incarnation != request.incarnation())
            return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "not the process that joined last");
        const std::string incarnation = request.incarnation();
        writer->setOnEnd([this, node, incarnation, writer] {
            bury([this, node, incarnation, writer] {
                {
                    std::lock_guard lock(mutex);
                    const auto it = edgeWatch.find(node);
                    if (it != edgeWatch.end() && it->second == writer)
                        edgeWatch.erase(it);
                }
                edgeGone(node, incarnation, false);
                delete writer;
            });
        });
        std::lock_guard lock(mutex);
        if (stopping)
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the center is shutting down");
        if (const auto it = edgeWatch.find(node); it != edgeWatch.end())
            it->second->finish(grpc::Status(grpc::StatusCode::ABORTED, "a newer process of this edge joined"));
        edgeWatch[node] = writer;
        // Every peer as it is now: edges that joined between this one's join
        // and its watch were broadcast to everyone but it.
        for (const auto &entry : state->edges())
            if (entry.node != node && !entry.address.empty()) {
                v1::ClusterUpdate u;
                auto *p = u.mutable_peer();
                p->set_node(entry.node);
                p->set_address(entry.address);
                p->set_up(entry.up);
                writer->push(u);
            }
        return grpc::Status::OK;
    }

    void edgeGone(int node, const std::string &incarnation, bool left) {
        const auto entry = state->edge(node);
        if (entry.incarnation != incarnation || !entry.up)
            return;
        state->markDown(node, incarnation, clock.now(), left);
        transport->setPeer(node, entry.address, false);
        std::lock_guard lock(mutex);
        v1::ClusterUpdate u;
        auto *p = u.mutable_peer();
        p->set_node(node);
        p->set_address(entry.address);
        p->set_up(false);
        broadcast(u, node);
        std::fprintf(stderr, "center: %s (node %d) %s\n", entry.name.c_str(), node, left ? "left" : "is gone");
    }

    grpc::Status report(const v1::ReportBatch &batch) override {
        const auto node = batch.node();
        if (node < 1 || node > shape->edgeCount())
            return grpc::Status(grpc::StatusCode::NOT_FOUND, "no node " + std::to_string(node));
        std::vector<std::pair<double, e::NodeReport>> reports;
        reports.reserve(std::size_t(batch.reports_size()));
        // A report this build cannot fold is shown in the app like any
        // refused input, named by what was wrong, and never folded; counted
        // once, when its batch is folded (not for a resent batch).
        std::vector<std::string> refused;
        for (const auto &r : batch.reports()) {
            std::string why;
            if (auto decoded = fromProto(r, &why))
                reports.emplace_back(r.time(), std::move(*decoded));
            else
                refused.push_back(std::move(why));
        }
        std::size_t outOfRange = 0;
        if (state->foldBatch(node, batch.incarnation(), batch.sequence(), clock.now(), reports, batch.finished(),
                             batch.wire_bytes_sent(), batch.rejected_inputs(), &outOfRange)) {
            const std::string sender = "node " + std::to_string(node);
            refused.insert(refused.end(), outOfRange, "report naming a shard, region or edge out of range");
            for (const auto &why : refused)
                rejections.add(why, sender);
        }
        wake.notify_all();
        return grpc::Status::OK;
    }

    grpc::Status leave(const v1::LeaveRequest &request) override {
        if (request.node() < 1 || request.node() > shape->edgeCount())
            return grpc::Status(grpc::StatusCode::NOT_FOUND, "no node " + std::to_string(request.node()));
        edgeGone(request.node(), request.incarnation(), true);
        return grpc::Status::OK;
    }

    // ---- control plane ---------------------------------------------------

    v1::ClusterDescription describe() override {
        v1::ClusterDescription d;
        {
            std::lock_guard lock(mutex);
            d.set_config_json(configJson);
        }
        d.set_strategy(config.strategy);
        d.set_run_id(runId);
        auto *c = d.add_nodes();
        c->set_node(0);
        c->set_name("center");
        c->set_address(address);
        c->set_up(true);
        std::uint64_t bytes = transport->stats().wireBytes;
        for (const auto &entry : state->edges()) {
            auto *n = d.add_nodes();
            n->set_node(entry.node);
            n->set_name(entry.name);
            n->set_address(entry.address);
            n->set_up(entry.up);
            n->set_incarnation(entry.incarnation);
            bytes += entry.wireBytes;
        }
        d.set_cluster_time(clock.now());
        d.set_samples(state->samples());
        d.set_wire_bytes(bytes);
        d.set_rejected_inputs(rejections.total());
        std::lock_guard lock(mutex);
        d.set_finished(finished);
        d.set_final_accuracy(result.finalAccuracy);
        return d;
    }

    void attachControlWatch(QueuedWriter<v1::ControlUpdate> *writer) override {
        // The cleanup is in place before the first push: a watcher can end
        // (cut off, too slow) while its history is still being queued.
        auto subscription = std::make_shared<std::atomic<int>>(0);
        writer->setOnEnd([this, writer, subscription] { bury(forgetWatcher(writer, subscription)); });
        {
            v1::ControlUpdate first;
            *first.mutable_description() = describe();
            writer->push(std::move(first));
            v1::ControlUpdate table;
            *table.mutable_routing() = routing();
            writer->push(std::move(table));
        }
        {
            std::lock_guard lock(mutex);
            controlWatch[writer] = 0;
        }
        // Every event of the run so far, then each new one as it happens.
        *subscription = state->subscribe([writer](const e::SimEvent &ev) {
            v1::ControlUpdate u;
            *u.mutable_event() = session::toProto(ev);
            writer->push(std::move(u));
        });
    }

    // Deletes an ended watcher once its subscription exists and is gone
    // (until then, tries again on the next tick).
    std::function<void()> forgetWatcher(QueuedWriter<v1::ControlUpdate> *writer,
                                        std::shared_ptr<std::atomic<int>> subscription) {
        return [this, writer, subscription] {
            const int id = subscription->load();
            if (id == 0) {
                bury(forgetWatcher(writer, subscription));
                return;
            }
            state->unsubscribe(id); // no listener call is running after this
            {
                std::lock_guard lock(mutex);
                controlWatch.erase(writer);
            }
            delete writer;
        };
    }

    session::pb::RoutingState routing() override { return session::toProto(*state->routing(), clock.now()); }

    std::string submit(const e::SimCommand &command) override;

    // ---- periodic work ---------------------------------------------------

    void tick() {
        auto lastDescription = std::chrono::steady_clock::now();
        double lastLinkReport = clock.now();
        std::unique_lock lock(mutex);
        while (!stopping) {
            wake.wait_for(lock, kTick);
            if (stopping)
                break;
            std::vector<WaitingJoin> startNow;
            if (!started && startDeadline >= 0) {
                dropCancelledJoins(clock.now());
                if (allJoinedOrLate(clock.now()))
                    startNow = openStartGate(clock.now());
            }
            lock.unlock();
            for (auto &w : startNow)
                answerJoin(*w.request, w.node, w.reply, std::move(w.done));
            cleanUp();
            if (const double now = clock.now(); now - lastLinkReport >= 1.0) {
                for (const auto &[peer, bytes] : transport->takeIntervalBytes())
                    state->publish(e::LinkBytesEvent{now, now - lastLinkReport, e::kCenterNode, peer, bytes});
                lastLinkReport = now;
            }
            for (const auto &r : rejections.take())
                state->publish(e::RejectedInputEvent{clock.now(), 0, r.reason, r.peer, r.count});
            const auto snapshot = state->routing();
            const bool describeNow = std::chrono::steady_clock::now() - lastDescription > std::chrono::seconds(1);
            v1::ControlUpdate table, description;
            if (describeNow) {
                *description.mutable_description() = describe();
                lastDescription = std::chrono::steady_clock::now();
            }
            lock.lock();
            const bool routingMoved = snapshot->revision != routingPushed;
            if (routingMoved) {
                *table.mutable_routing() = session::toProto(*snapshot, clock.now());
                routingPushed = snapshot->revision;
            }
            for (auto &[writer, id] : controlWatch) {
                if (routingMoved)
                    writer->push(table);
                if (describeNow)
                    writer->push(description);
            }
        }
    }

    bool runComplete() { // mutex held
        if (options.stepsPerEdge == 0 || !state->allEdgesFinished()) {
            allFinishedAt = std::numeric_limits<double>::quiet_NaN();
            return false;
        }
        if (std::isnan(allFinishedAt))
            allFinishedAt = clock.now();
        // The center's view must postdate every edge's end: under hub
        // merges, a pull round sent since found every hub's copy held.
        return host->finished() && host->settledAt() >= allFinishedAt;
    }

    // Evaluates the center's model every evalEverySamples samples, and once
    // more on the whole test set when every edge used its budget.
    void evaluate() {
        const auto subsetSize = std::min<std::int64_t>(std::int64_t(config.evalTestSubset), data.test.size());
        const e::TensorSet subset = e::sliceSamples(data.test, 0, subsetSize);
        auto scratch = model->newModel();
        std::unique_lock lock(mutex);
        while (!stopping && !finished) {
            wake.wait_for(lock, kTick);
            if (stopping)
                break;
            const std::uint64_t samples = state->samples();
            const bool complete = runComplete();
            const bool due = options.evalEverySamples > 0 && samples >= nextEval;
            if (!complete && !due)
                continue;
            while (nextEval <= samples && options.evalEverySamples > 0)
                nextEval += options.evalEverySamples;
            const double askedAt = clock.now(); // the run's end, before the final evaluation's own time
            lock.unlock();
            auto promise = std::make_shared<std::promise<std::pair<at::Tensor, at::Tensor>>>();
            auto snapshot = promise->get_future();
            host->postTask([promise](e::SimNode &center, double, e::Outbox &) {
                at::Tensor values, buffers;
                center.evaluationModel(values, buffers);
                promise->set_value({values, buffers});
            });
            if (snapshot.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
                lock.lock();
                continue;
            }
            auto [values, buffers] = snapshot.get();
            if (!values.defined()) {
                lock.lock();
                continue;
            }
            scratch->setValues(values);
            scratch->setBuffers(buffers);
            const auto acc = scratch->task().evaluate(complete ? data.test : subset);
            const double now = clock.now();
            state->publish(e::MetricEvent{now, complete ? "global:full" : "global", samples,
                                          std::numeric_limits<double>::quiet_NaN(), acc.main, acc.exit});
            lock.lock();
            if (complete) {
                finishRun(acc, samples, std::isnan(allFinishedAt) ? askedAt : allFinishedAt);
                break;
            }
        }
    }

    // `now`: when the last edge finished (the final evaluation is not the run's time).
    void finishRun(const e::Accuracy &acc, std::uint64_t samples, double now) { // mutex held
        finished = true;
        result.finished = true;
        result.finalAccuracy = acc.main;
        result.finalExitAccuracy = acc.exit;
        result.samples = samples;
        result.wallSeconds = firstJoin >= 0 ? now - firstJoin : now;
        std::fprintf(stderr, "center: run finished: accuracy %.4f after %llu samples, %.1f s\n", acc.main,
                     (unsigned long long)samples, result.wallSeconds);
        wake.notify_all();
    }

    LiveRunSummary summary() {
        LiveRunSummary s;
        {
            std::lock_guard lock(mutex);
            s = result;
        }
        s.samples = state->samples();
        s.wireBytes = transport ? transport->stats().wireBytes : 0;
        for (const auto &entry : state->edges())
            s.wireBytes += entry.wireBytes;
        s.rejectedInputs = rejections.total();
        for (const auto &entry : state->edges())
            s.rejectedInputs += entry.rejected;
        const auto ledger = state->ledger();
        s.contributionsSent = ledger.sent;
        s.contributionsApplied = ledger.applied;
        s.contributionsRejected = ledger.rejected;
        s.contributionsRejectedByReason = ledger.rejectedByReason;
        s.contributionsSentByEdge = e::byEdgeName(ledger.sentByEdge, *shape);
        s.contributionsRejectedByEdge = e::byEdgeName(ledger.rejectedByEdge, *shape);
        s.contributionsDuplicated = ledger.duplicates;
        return s;
    }
};

std::string CenterProcess::Impl::submit(const e::SimCommand &c) {
    using K = e::SimCommand::Kind;
    const double now = clock.now();
    auto outcome = [&](const std::string &refused) {
        state->publish(e::CommandEvent{now, c.describe(), refused.empty(), refused, c, 0});
        return std::string();
    };
    const std::string invalid = validateLiveCommand(c, *shape, int(model->plan.shards.size()));
    if (!invalid.empty())
        return outcome(invalid);
    v1::ClusterUpdate update;
    *update.mutable_command() = session::toProto(c);
    switch (c.kind) {
    case K::MoveShard: {
        // To the shard's owner in the region, which applies it (its outcome
        // comes back as its report).
        const auto routing = state->routing();
        const int owner = routing->rows[std::size_t(c.shard)]->owner[std::size_t(c.region)];
        const int node = e::ClusterShape::nodeOfEdge(owner);
        std::lock_guard lock(mutex);
        const auto it = edgeWatch.find(node);
        if (it == edgeWatch.end())
            return outcome("the shard's current owner is down");
        if (edgeWatch.find(e::ClusterShape::nodeOfEdge(c.node)) == edgeWatch.end())
            return outcome("the new owner is down or unknown");
        it->second->push(update);
        return "";
    }
    case K::KillNode: {
        if (c.node < 0)
            return outcome("the center is not killed from its own control plane: stop its process");
        const int node = e::ClusterShape::nodeOfEdge(c.node);
        std::lock_guard lock(mutex);
        const auto it = edgeWatch.find(node);
        if (it == edgeWatch.end())
            return outcome("already down");
        v1::ClusterUpdate stop;
        stop.mutable_stop()->set_crash(true);
        stop.mutable_stop()->set_reason("killed from the control plane");
        it->second->push(stop);
        state->publish(e::CommandEvent{now, c.describe(), true, "the process exits at once, without leaving", c, 0});
        return "";
    }
    case K::ReviveNode: {
        if (c.node < 0)
            return outcome("the center is running");
        const auto entry = state->edge(e::ClusterShape::nodeOfEdge(c.node));
        if (entry.up)
            return outcome("already running");
        // A launcher (synaptic-node cluster) restarts the process on this event.
        state->publish(e::CommandEvent{now, c.describe(), true,
                                       "waiting for " + entry.name + " to join again (its launcher restarts it)", c, 0});
        return "";
    }
    default:
        break;
    }
    // Knobs and links: applied here on the node's thread (the config is
    // its), then at every edge; the outcome is published from there, so
    // this gRPC callback never waits for the node.
    host->postTask([this, c, update, now](e::SimNode &, double, e::Outbox &) {
        const std::string refused = e::isKnobCommand(c) ? e::applyKnobCommand(config, c) : std::string();
        if (refused.empty()) {
            transport->applyCommand(c);
            std::lock_guard lock(mutex);
            configJson = e::clusterConfigToJson(config);
            broadcast(update);
        }
        state->publish(e::CommandEvent{now, c.describe(), refused.empty(), refused, c, 0});
    });
    return "";
}

CenterProcess::CenterProcess(CenterOptions options) : m_impl(std::make_unique<Impl>(std::move(options))) {}

CenterProcess::~CenterProcess() = default;

std::string CenterProcess::start() { return m_impl->start(); }

void CenterProcess::wait(const std::atomic<bool> &stop) {
    std::unique_lock lock(m_impl->mutex);
    while (!stop && !(m_impl->finished && m_impl->options.exitWhenDone))
        m_impl->wake.wait_for(lock, std::chrono::milliseconds(100));
}

void CenterProcess::shutdown() { m_impl->stop(); }

LiveRunSummary CenterProcess::summary() const { return m_impl->summary(); }

std::string CenterProcess::submit(const e::SimCommand &command) { return m_impl->submit(command); }

} // namespace synaptic::rpc
