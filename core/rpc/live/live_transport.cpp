#include "live_transport.h"

#include "peer_stream.h"

#include "core/rpc/wire/message_codec.h"

#include "core/engine/sim/link_geography.h"
#include "core/engine/sim/wire_size.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace synaptic::rpc {

namespace e = synaptic::engine;

namespace {
constexpr double kReliableRetrySeconds = 0.5; // as the simulator's transport
double backoffSeconds(int attempt) { return std::min(2.0, 0.05 * std::pow(2.0, std::min(attempt, 10))); }
} // namespace

struct LiveTransport::Peer {
    std::string address;
    bool up = false;
    e::Link link;
    std::shared_ptr<grpc::Channel> channel;
    std::shared_ptr<v1::Peer::Stub> stub;
    std::unique_ptr<PeerStream> stream;
    std::vector<std::unique_ptr<PeerStream>> ended; // broken, closed on the transport thread
};

LiveTransport::LiveTransport(int self, const e::ClusterConfig &config, const e::ClusterShape &shape,
                             const ClusterClock &clock, Channels channels, Options options)
    : m_self(self), m_config(config), m_shape(shape), m_clock(clock), m_channels(std::move(channels)),
      m_options(options) {
    m_thread = std::thread([this] { run(); });
}

LiveTransport::~LiveTransport() { stop(); }

void LiveTransport::stop() {
    std::vector<std::unique_ptr<PeerStream>> streams;
    {
        std::lock_guard lock(m_mutex);
        if (m_stop)
            return;
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    {
        std::unique_lock lock(m_mutex);
        // Reliable calls still in flight: cancelled (outside the lock: a
        // cancelled call's callback may run inline and takes it), and they
        // must finish before this object goes.
        const std::vector<grpc::ClientContext *> calls(m_calls.begin(), m_calls.end());
        lock.unlock();
        for (auto *context : calls)
            context->TryCancel();
        lock.lock();
        m_wake.wait(lock, [this] { return m_inFlight == 0; });
        for (auto &[node, p] : m_peers) {
            if (p->stream)
                streams.push_back(std::move(p->stream));
            for (auto &s : p->ended)
                streams.push_back(std::move(s));
            p->ended.clear();
        }
    }
    for (auto &s : streams)
        s->close();
}

// Built once per peer, so the geography is not kept for the process's life.
e::LinkSpec LiveTransport::baseSpec(int peer) const { return e::LinkGeography(m_config).between(m_self, peer); }

LiveTransport::Peer &LiveTransport::peer(int node) {
    auto &p = m_peers[node];
    if (!p) {
        p = std::make_unique<Peer>();
        const std::uint64_t seed =
            m_config.seed * 0x9E3779B97F4A7C15ull + std::uint64_t(m_self) * 7919 + std::uint64_t(node);
        p->link = e::Link(baseSpec(node), seed);
    }
    return *p;
}

void LiveTransport::setPeer(int node, const std::string &address, bool up) {
    std::lock_guard lock(m_mutex);
    auto &p = peer(node);
    if (p.address != address) {
        p.address = address;
        p.channel.reset();
        p.stub.reset();
        if (p.stream)
            p.ended.push_back(std::move(p.stream));
    }
    p.up = up;
    if (!up && p.stream)
        p.ended.push_back(std::move(p.stream));
    m_wake.notify_all();
}

std::vector<e::Message> LiveTransport::split(e::Message m) const {
    std::vector<e::Message> parts;
    if (e::encodedSize(m) <= m_options.maxMessageBytes || m.shards.size() < 2) {
        parts.push_back(std::move(m));
        return parts;
    }
    // A message above the limit travels as several of the same kind, each
    // with some of the shards: receivers treat shards one by one.
    e::Message head = m;
    head.shards.clear();
    e::Message part = head;
    for (auto &item : m.shards) {
        part.shards.push_back(std::move(item));
        if (part.shards.size() > 1 && e::encodedSize(part) > m_options.maxMessageBytes) {
            auto last = std::move(part.shards.back());
            part.shards.pop_back();
            parts.push_back(std::move(part));
            part = head;
            part.shards.push_back(std::move(last));
        }
    }
    parts.push_back(std::move(part));
    // Values answering a catch-up request echo its stamp (writtenAt), and
    // the stamp ends the edge's catch-up with that owner: only the last
    // part, sent after the others, carries it. (Emulated jitter or a lost
    // and resent part can still deliver it first: docs/RELIABILITY.md.)
    if (head.kind == e::MessageKind::Values)
        for (std::size_t i = 0; i + 1 < parts.size(); ++i)
            parts[i].writtenAt = 0;
    return parts;
}

void LiveTransport::send(e::Message m) {
    m.from = m_self;
    m.sentAt = m_clock.now();
    if (m.to == m_self) {
        if (m_channels.local)
            m_channels.local(std::move(m));
        return;
    }
    std::lock_guard lock(m_mutex);
    if (m_stop)
        return;
    for (auto &part : split(std::move(m)))
        route(std::make_shared<e::Message>(std::move(part)), 0);
}

void LiveTransport::schedule(std::shared_ptr<e::Message> m, int attempt, double delaySeconds) {
    const auto due = ClusterClock::Steady::now() +
                     std::chrono::duration_cast<ClusterClock::Steady::duration>(
                         std::chrono::duration<double>(std::max(0.0, delaySeconds)));
    m_queue.push({due, m_seq++, attempt, std::move(m)});
    m_wake.notify_all();
}

// Through the emulated link, as the simulator's transport does: the message
// is written to gRPC when the link would deliver it.
void LiveTransport::route(std::shared_ptr<e::Message> m, int attempt) {
    Peer &p = peer(m->to);
    const double now = m_clock.now();
    std::optional<double> arrival;
    if (m_options.emulateLinks)
        arrival = p.link.send(now, e::wireBytes(*m));
    else if (p.link.spec().up)
        arrival = now;
    if (arrival) {
        // Attempt -1 marks "through the link, write it now".
        m_queue.push({m_clock.toSteady(*arrival), m_seq++, -1 - attempt, std::move(m)});
        m_wake.notify_all();
    } else if (p.link.spec().up) {
        ++m_stats.lost; // emulated loss: sent again after a round trip, as TCP would
        schedule(std::move(m), attempt, p.link.busyUntil() - now + 2 * p.link.spec().latencySeconds);
    } else if (e::isReliable(m->kind)) {
        schedule(std::move(m), attempt, kReliableRetrySeconds); // partitioned: retry until the link is back
    } else {
        ++m_stats.dropped;
    }
}

std::function<void()> LiveTransport::write(Peer &p, std::shared_ptr<e::Message> m, int attempt) {
    if (p.address.empty() || !p.up) {
        if (e::isReliable(m->kind))
            schedule(std::move(m), attempt + 1, kReliableRetrySeconds);
        else
            ++m_stats.dropped;
        return {};
    }
    if (!p.channel) {
        p.channel = m_channels.open(p.address);
        p.stub = v1::Peer::NewStub(p.channel);
    }
    if (e::isReliable(m->kind))
        return deliverReliable(p, std::move(m), attempt);
    if (p.stream && p.stream->broken())
        p.ended.push_back(std::move(p.stream));
    if (!p.stream)
        p.stream = std::make_unique<PeerStream>(*p.stub, m_channels.prepare, m_options.streamDeadlineSeconds);
    auto pb = toProto(*m);
    const std::uint64_t bytes = pb.ByteSizeLong() + e::kGrpcFramingBytes;
    // PeerStream never calls back into this object, so its writes may start
    // under our lock.
    const int to = m->to;
    if (p.stream->enqueue(std::move(pb))) {
        ++m_stats.messages;
        m_stats.wireBytes += bytes;
        m_intervalBytes[to] += bytes;
    } else {
        ++m_stats.dropped;
    }
    return {};
}

// The call itself starts outside the lock (run() calls what this returns):
// its callback takes the lock and gRPC may run it inline.
std::function<void()> LiveTransport::deliverReliable(Peer &p, std::shared_ptr<e::Message> m, int attempt) {
    struct Call {
        grpc::ClientContext context;
        v1::NodeMessage request;
        v1::DeliverReply reply;
    };
    auto call = std::make_shared<Call>();
    if (m_channels.prepare)
        m_channels.prepare(call->context);
    call->context.set_deadline(std::chrono::system_clock::now() +
                               std::chrono::milliseconds(std::int64_t(m_options.callDeadlineSeconds * 1000)));
    call->request = toProto(*m);
    ++m_stats.messages;
    m_stats.wireBytes += call->request.ByteSizeLong() + e::kGrpcFramingBytes;
    m_intervalBytes[m->to] += call->request.ByteSizeLong() + e::kGrpcFramingBytes;
    if (attempt > 0)
        ++m_stats.retries;
    ++m_inFlight;
    m_calls.insert(&call->context);
    std::shared_ptr<v1::Peer::Stub> stub = p.stub;
    return [this, stub, call, m, attempt] {
        stub->async()->Deliver(&call->context, &call->request, &call->reply,
                             [this, call, m, attempt](grpc::Status status) {
                                 std::lock_guard lock(m_mutex);
                                 --m_inFlight;
                                 m_calls.erase(&call->context);
                                 // Refused as invalid or stale, or over a side's message
                                 // size limit: sending it again cannot help.
                                 const bool tooLarge = status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
                                                       status.error_message().find("larger than max") != std::string::npos;
                                 const bool hopeless = status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
                                                       status.error_code() == grpc::StatusCode::FAILED_PRECONDITION ||
                                                       tooLarge;
                                 if (tooLarge)
                                     std::fprintf(stderr, "live transport: %s to node %d dropped: %s\n",
                                                  e::messageKindName(m->kind), m->to, status.error_message().c_str());
                                 if (!status.ok() && !hopeless && !m_stop)
                                     schedule(m, attempt + 1, backoffSeconds(attempt));
                                 m_wake.notify_all();
                             });
    };
}

void LiveTransport::applyCommand(const e::SimCommand &c) {
    using K = e::SimCommand::Kind;
    std::lock_guard lock(m_mutex);
    const int edges = m_shape.edgeCount();
    auto nodeOf = [](int edgeOrCenter) { return edgeOrCenter < 0 ? e::kCenterNode : edgeOrCenter + 1; };
    auto regionOf = [&](int node) {
        return node == e::kCenterNode ? -1 : m_shape.regionOfEdge[std::size_t(e::ClusterShape::edgeOfNode(node))];
    };
    auto edit = [&](int other, const std::function<void(e::LinkSpec &)> &change) {
        auto &l = peer(other).link;
        auto spec = l.spec();
        change(spec);
        l.setSpec(spec);
    };
    switch (c.kind) {
    case K::SetLink:
    case K::PartitionLink:
    case K::HealLink: {
        if (c.node < -1 || c.node >= edges || c.nodeB < -1 || c.nodeB >= edges)
            return;
        const int a = nodeOf(c.node), b = nodeOf(c.nodeB);
        const int other = a == m_self ? b : b == m_self ? a : -1;
        if (other < 0)
            return; // not a link of this node
        edit(other, [&](e::LinkSpec &s) {
            if (c.kind == K::SetLink) {
                const bool up = s.up;
                s = c.link;
                s.up = up;
            } else {
                s.up = c.kind == K::HealLink;
            }
        });
        break;
    }
    case K::PartitionRegion:
    case K::HealRegion:
        for (int other = 0; other <= edges; ++other)
            if (other != m_self && (regionOf(other) == c.region) != (regionOf(m_self) == c.region))
                edit(other, [&](e::LinkSpec &s) { s.up = c.kind == K::HealRegion; });
        break;
    default: break;
    }
}

bool LiveTransport::drain(double seconds) {
    std::unique_lock lock(m_mutex);
    return m_wake.wait_for(lock, std::chrono::duration<double>(seconds), [this] {
        bool streamsIdle = true;
        for (const auto &[n, p] : m_peers)
            if (p->stream && !p->stream->broken() && p->stream->queued() > 0)
                streamsIdle = false;
        return m_queue.empty() && m_inFlight == 0 && streamsIdle;
    });
}

std::map<int, std::uint64_t> LiveTransport::takeIntervalBytes() {
    std::lock_guard lock(m_mutex);
    std::map<int, std::uint64_t> out;
    out.swap(m_intervalBytes);
    return out;
}

bool LiveTransport::linkUp(int node) {
    std::lock_guard lock(m_mutex);
    return peer(node).link.spec().up;
}

LiveTransportStats LiveTransport::stats() const {
    std::lock_guard lock(m_mutex);
    return m_stats;
}

void LiveTransport::run() {
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
        if (m_queue.empty()) {
            m_wake.wait_for(lock, std::chrono::milliseconds(200));
        } else if (m_queue.top().due > ClusterClock::Steady::now()) {
            m_wake.wait_until(lock, m_queue.top().due);
        } else {
            auto item = m_queue.top();
            m_queue.pop();
            std::function<void()> call;
            if (item.attempt < 0)
                call = write(peer(item.message->to), item.message, -1 - item.attempt);
            else
                route(item.message, item.attempt);
            if (call) {
                lock.unlock();
                call();
                lock.lock();
            }
        }
        // Streams that broke are closed here, off gRPC's threads.
        std::vector<std::unique_ptr<PeerStream>> ended;
        for (auto &[node, p] : m_peers) {
            for (auto &s : p->ended)
                ended.push_back(std::move(s));
            p->ended.clear();
        }
        if (!ended.empty()) {
            lock.unlock();
            for (auto &s : ended)
                s->close();
            lock.lock();
        }
        m_wake.notify_all(); // drain() waiters
    }
}

} // namespace synaptic::rpc
