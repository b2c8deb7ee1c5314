#include "edge_process.h"

#include "core/engine/compute_threads.h"
#include "core/engine/config_error.h"
#include "core/engine/tasks/task_registry.h"

#include "inference_service.h"
#include "live_transport.h"
#include "message_guard.h"
#include "node_host.h"
#include "peer_service.h"
#include "rejection_log.h"
#include "server_setup.h"

#include "core/rpc/security/token_gate.h"
#include "core/rpc/wire/report_codec.h"
#include "core/rpc/wire/tensor_codec.h"

#include "core/data/fashion_mnist.h"
#include "core/engine/device.h"
#include "core/engine/durable/state_store.h"
#include "core/engine/sim/knob_commands.h"
#include "core/engine/sim/sim_world.h"
#include "core/engine/sim/strategies/shard_hubs.h"
#include "core/engine/sim/strategy.h"
#include "core/session/record_codec.h"
#include "synaptic_version.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <thread>

namespace synaptic::rpc {

namespace e = synaptic::engine;

namespace {
constexpr auto kReportEvery = std::chrono::milliseconds(100);
constexpr double kCallSeconds = 5;

std::chrono::system_clock::time_point deadlineIn(double seconds) {
    return std::chrono::system_clock::now() + std::chrono::milliseconds(std::int64_t(seconds * 1000));
}

std::string newIncarnation() {
    std::random_device rd;
    return std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) + "-" +
           std::to_string(rd());
}
} // namespace

struct EdgeProcess::Impl {
    class Watch;

    EdgeOptions options;
    LoadedSecurity security;
    WireLimits limits;
    std::string incarnation = newIncarnation();
    ClusterClock clock;
    RejectionLog rejections;
    PeerService peerService{rejections};
    InferenceService inferenceService;
    std::unique_ptr<v1::Inference::Stub> centerInference;
    std::atomic<bool> holdsLease{false}; // the node's last lease mode was training or catching up
    std::shared_ptr<TokenGate> gate;
    std::unique_ptr<grpc::Server> server;
    std::string address;
    std::shared_ptr<grpc::Channel> centerChannel;
    std::unique_ptr<v1::Cluster::Stub> cluster;

    int node = -1;
    e::ClusterConfig config; // knobs: edited on the node's thread only
    std::shared_ptr<const e::ClusterShape> shape;
    std::shared_ptr<const e::ModelSetup> model;
    e::TensorSet train;
    e::NodeContext context;
    std::unique_ptr<e::StateStore> stateStore; // --state-dir: the owner's durable state survives a kill -9
    std::unique_ptr<MessageGuard> guard;
    std::unique_ptr<LiveTransport> transport;
    std::unique_ptr<NodeHost> host;

    std::mutex mutex; // guards what follows
    std::condition_variable wake;
    std::vector<std::pair<double, e::NodeReport>> pending; // reports not sent yet
    std::vector<bool> edgeUp;
    bool stopping = false;
    bool stoppedByCenter = false;
    bool crash = false;
    std::uint64_t sequence = 0;
    std::unique_ptr<Watch> watch;
    std::thread reporter;

    explicit Impl(EdgeOptions o) : options(std::move(o)) {
        security = loadSecurity(options.process.security);
        if (options.name.empty())
            throw std::invalid_argument("an edge needs --name");
        if (options.center.empty())
            throw std::invalid_argument("an edge needs --center ADDR");
        if (options.process.threads > 0)
            e::setComputeThreads(options.process.threads);
    }

    ~Impl() { stop(); }

    // ---- joining ---------------------------------------------------------

    std::string start(const std::function<void(const std::string &)> &listening) {
        gate = std::make_shared<TokenGate>(security.token);
        int port = 0;
        server = buildServer(options.listen, {&peerService, &inferenceService}, security, gate, limits, port);
        address = options.advertise.empty() ? boundAddress(options.listen, port) : options.advertise;
        if (listening)
            listening(address);
        centerChannel = openChannel(options.center, security, limits);
        cluster = v1::Cluster::NewStub(centerChannel);
        centerInference = v1::Inference::NewStub(centerChannel);
        const v1::JoinReply reply = joinCenter();
        build(reply);
        host->start();
        openWatch();
        reporter = std::thread([this] { reportLoop(); });
        return address;
    }

    v1::JoinReply joinCenter() {
        v1::JoinRequest request;
        request.set_name(options.name);
        request.set_address(address);
        request.set_version(SYNAPTIC_VERSION);
        request.set_incarnation(incarnation);
        const auto giveUp = std::chrono::steady_clock::now() +
                            std::chrono::milliseconds(std::int64_t(options.joinTimeoutSeconds * 1000));
        double backoff = 0.2;
        for (;;) {
            grpc::ClientContext ctx;
            // The center answers once the run starts (its start gate waits
            // for the other edges): wait for it as long as we keep trying.
            const double left = std::chrono::duration<double>(giveUp - std::chrono::steady_clock::now()).count();
            ctx.set_deadline(deadlineIn(std::max(kCallSeconds, left)));
            v1::JoinReply reply;
            const auto sent = ClusterClock::Steady::now();
            const auto status = cluster->Join(&ctx, request, &reply);
            const auto received = ClusterClock::Steady::now();
            if (status.ok()) {
                clock.syncTo(reply.cluster_time(), received, std::chrono::duration<double>(received - sent).count());
                return reply;
            }
            const auto code = status.error_code();
            if (code == grpc::StatusCode::NOT_FOUND || code == grpc::StatusCode::UNAUTHENTICATED ||
                code == grpc::StatusCode::INVALID_ARGUMENT || std::chrono::steady_clock::now() > giveUp)
                throw std::runtime_error("cannot join the center at " + options.center + ": " +
                                         status.error_message() + " (gRPC code " + std::to_string(int(code)) + ")");
            std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
            backoff = std::min(2.0, backoff * 2);
        }
    }

    // The node's context from what the center sent: the same shape, plan
    // and starting model every node of the cluster has.
    void build(const v1::JoinReply &reply) {
        node = reply.node();
        config = e::parseClusterConfig(reply.config_json(), "the center's config");
        if (!options.process.dataDir.empty())
            config.dataDir = options.process.dataDir;
        // The center refuses other tasks; a center of another build might not.
        if (config.task != e::kDefaultTask)
            throw e::ConfigError("the center's config", "task: \"" + config.task +
                                                            "\" runs only in the simulator; live edges train " +
                                                            e::kDefaultTask);
        limits.leaseSeconds = config.knobs.leaseSeconds;
        const std::string device = e::resolveDevice(options.process.device);
        shape = std::make_shared<const e::ClusterShape>(config);
        auto setup = std::make_shared<e::ModelSetup>(*e::makeModelSetup(config, e::topologyOf(config), device));
        setup->initialValues = decodeTensor(reply.initial_values(), "initial_values").to(device);
        setup->initialBuffers = decodeTensor(reply.initial_buffers(), "initial_buffers").to(device);
        if (setup->initialValues.numel() != setup->plan.totalParameters)
            throw std::runtime_error("the center sent a model of " + std::to_string(setup->initialValues.numel()) +
                                     " values for a plan of " + std::to_string(setup->plan.totalParameters));
        model = setup;
        const auto set = data::loadFashionMnist(data::resolveDataDir(config.dataDir), data::Split::Train);
        train = e::toTensors(set, device);
        context.node = node;
        context.config = &config;
        context.shape = shape;
        context.model = model;
        context.owners.assign(reply.owners().begin(), reply.owners().end());
        context.ownerVersions.assign(reply.owner_versions().begin(), reply.owner_versions().end());
        context.centerVersions.assign(reply.center_versions().begin(), reply.center_versions().end());
        context.train = &train;
        for (auto i : reply.partition())
            if (i < set.size())
                context.partition.push_back(i);
        // A restarted edge trains what its budget has left from its region's
        // step (the center's steps_done), so it finishes with the others.
        const auto resumed = e::resumeBudget(reply.steps_per_edge(), reply.steps_done());
        context.stepsPerEdge = resumed.stepsPerEdge;
        context.stepsDoneBefore = resumed.stepsDoneBefore;
        context.incarnation = reply.incarnation();
        context.realTime = true;
        // A hub restarted without its state would start over at version 0
        // and name its versions again with other values (owners have a
        // version gap for that; the center takes a hub's copies only as
        // they pass what it holds).
        if (const auto hubbed = e::shardsOfHub(context, node); !hubbed.empty() && options.process.stateDir.empty())
            throw e::ConfigError("--state-dir", "is required under knobs.hub_merges: edge " + options.name +
                                                    " hosts the hub of " + std::to_string(hubbed.size()) +
                                                    " shard(s), whose merges must survive a restart");
        if (!options.process.stateDir.empty()) {
            // An owner (and a hub) created over its node's existing state
            // file reloads it when it starts (versions jump past what its
            // lost memory issued).
            stateStore = std::make_unique<e::FileStateStore>(options.process.stateDir);
            context.stateStore = stateStore.get();
            std::fprintf(stderr, "edge %s: durable state in %s (%s)\n", options.name.c_str(),
                         stateStore->describe(node).c_str(),
                         stateStore->read(node) || stateStore->read(node, e::StatePart::Hub) ? "found: reloading it"
                                                                                               : "none yet");
        }
        edgeUp.assign(std::size_t(shape->edgeCount()), false);
        edgeUp[std::size_t(context.edge())] = true;

        LiveTransport::Channels channels;
        channels.open = [this](const std::string &target) { return openChannel(target, security, limits); };
        channels.local = [this](e::Message &&m) { host->post(std::move(m)); };
        LiveTransport::Options to;
        to.emulateLinks = options.process.emulateLinks;
        to.maxMessageBytes = options.process.maxMessageBytes;
        transport = std::make_unique<LiveTransport>(node, config, *shape, clock, channels, to);
        transport->setPeer(e::kCenterNode, options.center, true);
        for (const auto &p : reply.peers())
            setPeer(p);
        guard = std::make_unique<MessageGuard>(node, *shape, *model, e::hubNodesOfShards(context));
        NodeHost::Sinks sinks;
        sinks.send = [this](e::Message &&m) { transport->send(std::move(m)); };
        if (stateStore)
            sinks.persist = [this](const std::string &bytes, e::StatePart part) { stateStore->write(node, bytes, part); };
        sinks.report = [this](double now, std::vector<e::NodeReport> &&reports) {
            std::lock_guard lock(mutex);
            for (auto &r : reports) {
                if (const auto *ev = std::get_if<e::SimEvent>(&r))
                    if (const auto *lease = std::get_if<e::LeaseEvent>(ev))
                        holdsLease = lease->mode == "training" || lease->mode == "catching_up";
                pending.emplace_back(now, std::move(r));
            }
        };
        host = std::make_unique<NodeHost>(e::makeStrategyNode(config.strategy, context), clock, std::move(sinks));
        peerService.attach(*guard, [this](e::Message &&m) { return host->post(std::move(m)); });
        attachServing();
        std::fprintf(stderr, "edge %s: node %d of %s (%s), listening on %s\n", options.name.c_str(), node,
                     config.strategy.c_str(), describe(security.options).c_str(), address.c_str());
    }

    void attachServing() {
        InferenceService::Setup serving;
        serving.host = host.get();
        serving.name = "edge " + options.name;
        serving.model = model;
        serving.threshold = [this] { return config.knobs.confidenceThreshold; };
        serving.canReachCenter = [this] { return holdsLease.load() && transport->linkUp(e::kCenterNode); };
        serving.forward = [this](const v1::ClassifyRequest &request, auto done) {
            struct Call {
                grpc::ClientContext context;
                v1::ClassifyRequest request;
                v1::ClassifyReply reply;
            };
            auto call = std::make_shared<Call>();
            call->request = request;
            call->context.set_deadline(deadlineIn(config.serving.timeoutMs / 1000.0));
            centerInference->async()->Classify(&call->context, &call->request, &call->reply,
                                               [call, done](grpc::Status status) { done(status, call->reply); });
        };
        inferenceService.attach(std::move(serving));
    }

    void setPeer(const v1::PeerAddress &p) {
        if (p.node() < 0 || p.node() > shape->edgeCount() || p.node() == node)
            return;
        transport->setPeer(p.node(), p.address(), p.up());
        if (p.node() > 0) {
            std::lock_guard lock(mutex);
            edgeUp[std::size_t(e::ClusterShape::edgeOfNode(p.node()))] = p.up();
        }
    }

    // ---- what the center says --------------------------------------------

    void onUpdate(const v1::ClusterUpdate &u) {
        if (u.has_peer()) {
            setPeer(u.peer());
        } else if (u.has_command()) {
            const auto c = session::fromProto(u.command());
            host->postTask([this, c](e::SimNode &self, double now, e::Outbox &out) { apply(self, c, now, out); });
        } else if (u.has_stop()) {
            std::lock_guard lock(mutex);
            stoppedByCenter = true;
            crash = u.stop().crash();
            wake.notify_all();
        }
    }

    void apply(e::SimNode &self, const e::SimCommand &c, double now, e::Outbox &out) {
        if (c.kind == e::SimCommand::Kind::MoveShard) {
            const std::string refused = self.onCommand(now, c, out);
            out.report(e::CommandEvent{now, c.describe(), refused.empty(), refused, c, 0});
        } else if (e::isKnobCommand(c)) {
            e::applyKnobCommand(config, c); // the center checked it
        } else {
            transport->applyCommand(c);
        }
    }

    class Watch : public grpc::ClientReadReactor<v1::ClusterUpdate> {
    public:
        Watch(Impl &impl) : m_impl(impl) {
            m_request.set_node(impl.node);
            m_request.set_incarnation(impl.incarnation);
            // Every call has a deadline: a watch is reopened (by the report
            // loop) when this one ends; keepalive notices a dead center sooner.
            m_context.set_deadline(deadlineIn(3600));
            impl.cluster->async()->Watch(&m_context, &m_request, this);
            StartRead(&m_update);
            StartCall();
        }
        void OnReadDone(bool ok) override {
            if (!ok)
                return; // OnDone follows
            m_impl.onUpdate(m_update);
            m_update.Clear();
            StartRead(&m_update);
        }
        void OnDone(const grpc::Status &status) override {
            std::lock_guard lock(m_mutex);
            m_status = status;
            m_done = true;
            m_doneSignal.notify_all();
        }
        bool done() {
            std::lock_guard lock(m_mutex);
            return m_done;
        }
        void cancel() {
            m_context.TryCancel();
            std::unique_lock lock(m_mutex);
            m_doneSignal.wait_for(lock, std::chrono::seconds(5), [this] { return m_done; });
        }

    private:
        Impl &m_impl;
        grpc::ClientContext m_context;
        v1::WatchRequest m_request;
        v1::ClusterUpdate m_update;
        std::mutex m_mutex;
        std::condition_variable m_doneSignal;
        grpc::Status m_status;
        bool m_done = false;
    };

    void openWatch() { watch = std::make_unique<Watch>(*this); }

    // ---- reports ---------------------------------------------------------

    // Every 100 ms: what the node reported, the inputs refused, whether it
    // is finished, and the transport's byte count; a batch that did not
    // reach the center is sent again with the same sequence.
    void reportLoop() {
        v1::ReportBatch batch;
        bool unsent = false;
        double lastLinkReport = clock.now();
        std::unique_lock lock(mutex);
        while (!stopping) {
            wake.wait_for(lock, kReportEvery);
            if (stopping)
                break;
            if (!unsent) {
                batch.Clear();
                batch.set_node(node);
                batch.set_incarnation(incarnation);
                batch.set_sequence(++sequence);
                for (const auto &[time, r] : pending)
                    *batch.add_reports() = toProto(r, time);
                pending.clear();
            }
            lock.unlock();
            const double now = clock.now();
            // Bytes this edge put on each link, once a second (the app's
            // topology and bandwidth chart).
            if (!unsent && now - lastLinkReport >= 1.0) {
                for (const auto &[peer, bytes] : transport->takeIntervalBytes())
                    *batch.add_reports() = toProto(
                        e::NodeReport{e::SimEvent{e::LinkBytesEvent{now, now - lastLinkReport, node, peer, bytes}}}, now);
                lastLinkReport = now;
            }
            if (!unsent)
                for (const auto &r : rejections.take())
                    *batch.add_reports() =
                        toProto(e::NodeReport{e::SimEvent{e::RejectedInputEvent{now, node, r.reason, r.peer, r.count}}}, now);
            batch.set_finished(host->finished());
            batch.set_wire_bytes_sent(transport->stats().wireBytes);
            batch.set_rejected_inputs(rejections.total());
            grpc::ClientContext ctx;
            ctx.set_deadline(deadlineIn(kCallSeconds));
            v1::ReportAck ack;
            unsent = !cluster->Report(&ctx, batch, &ack).ok();
            // The watch ended (the center restarted, a network blip): watch again.
            if (watch && watch->done()) {
                watch.reset();
                openWatch();
            }
            lock.lock();
        }
    }

    // ---- leaving ---------------------------------------------------------

    void leave() {
        if (!host)
            return;
        std::vector<bool> up;
        {
            std::lock_guard lock(mutex);
            up = edgeUp;
        }
        host->postTask([up](e::SimNode &self, double now, e::Outbox &out) { self.onLeave(now, up, out); });
        // The handoffs are reliable sends: give them time to land.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        transport->drain(10);
        std::this_thread::sleep_for(2 * kReportEvery); // the last reports go out
        v1::LeaveRequest request;
        request.set_node(node);
        request.set_incarnation(incarnation);
        request.set_reason("SIGTERM");
        grpc::ClientContext ctx;
        ctx.set_deadline(deadlineIn(kCallSeconds));
        v1::LeaveReply reply;
        cluster->Leave(&ctx, request, &reply);
        std::fprintf(stderr, "edge %s: left the cluster\n", options.name.c_str());
    }

    void stop() {
        {
            std::lock_guard lock(mutex);
            if (stopping)
                return;
            stopping = true;
        }
        if (transport) {
            const auto s = transport->stats();
            std::fprintf(stderr,
                         "edge %s: sent %llu messages, %llu bytes; %llu lost (emulated), %llu dropped, %llu retried; "
                         "%llu inputs refused\n",
                         options.name.c_str(), (unsigned long long)s.messages, (unsigned long long)s.wireBytes,
                         (unsigned long long)s.lost, (unsigned long long)s.dropped, (unsigned long long)s.retries,
                         (unsigned long long)rejections.total());
        }
        wake.notify_all();
        if (reporter.joinable())
            reporter.join();
        if (watch)
            watch->cancel();
        // The server before the node: a Classify in flight waits on a task
        // of the node's thread, which must still run to finish the call.
        if (server) {
            server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
            server->Wait();
        }
        if (host)
            host->stop();
        if (transport)
            transport->stop();
    }
};

EdgeProcess::EdgeProcess(EdgeOptions options) : m_impl(std::make_unique<Impl>(std::move(options))) {}

EdgeProcess::~EdgeProcess() = default;

std::string EdgeProcess::start(const std::function<void(const std::string &)> &listening) {
    return m_impl->start(listening);
}

bool EdgeProcess::wait(const std::atomic<bool> &stop) {
    std::unique_lock lock(m_impl->mutex);
    while (!stop && !m_impl->stoppedByCenter)
        m_impl->wake.wait_for(lock, std::chrono::milliseconds(100));
    return m_impl->crash;
}

void EdgeProcess::leave() { m_impl->leave(); }

void EdgeProcess::shutdown() { m_impl->stop(); }

int EdgeProcess::node() const { return m_impl->node; }

} // namespace synaptic::rpc
