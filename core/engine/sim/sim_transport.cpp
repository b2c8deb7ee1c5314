#include "sim_transport.h"

#include "event_loop.h"
#include "wire_size.h"

#include <algorithm>
#include <string_view>


namespace synaptic::engine {

SimTransport::SimTransport(EventLoop &loop, const ClusterConfig &config, const ClusterShape &shape, Hooks hooks)
    : m_loop(loop), m_config(config), m_shape(shape), m_geography(config), m_hooks(std::move(hooks)) {
    if (m_geography.modelsInterfaces())
        for (int node = 0; node <= shape.edgeCount(); ++node)
            m_interfaces.push_back({m_geography.interfaceBitsPerSecond(node)});
}

std::optional<double> SimTransport::carry(int from, int to, std::uint64_t bytes, std::optional<double> *duplicate) {
    Link &l = link(from, to);
    const double now = m_loop.now();
    if (m_interfaces.empty() || !l.spec().up)
        return l.send(now, bytes, duplicate); // a down link sends nothing, so no interface is busy
    // The sender's interface is a FIFO at its rate; the link takes the
    // message from when its first bit leaves it, overlapping (cut-through):
    // the message is off the link when both have carried it.
    Interface &out = m_interfaces[std::size_t(from)];
    double firstBit = now;
    double readyAt = now;
    if (out.bitsPerSecond > 0) {
        firstBit = std::max(out.outFreeAt, now);
        out.outFreeAt = firstBit + Link::transmitSeconds(bytes, out.bitsPerSecond);
        readyAt = out.outFreeAt;
    }
    return l.send(firstBit, readyAt, bytes, duplicate);
}

bool SimTransport::queuesAtReceiver(int node) const {
    return !m_interfaces.empty() && m_interfaces[std::size_t(node)].bitsPerSecond > 0;
}

double SimTransport::throughReceiver(int node, std::uint64_t bytes, double linkSeconds) {
    // Called when the message is off its link: the receiver's interface
    // takes messages in the order they arrive, each from its first bit
    // (linkSeconds before), at its own rate. So 24 edges at 1 Gb/s into a
    // 10 Gb/s center take the center's time for 24 messages, not 24 times
    // one edge's; and a far sender's message does not hold up a near one's.
    Interface &in = m_interfaces[std::size_t(node)];
    const double now = m_loop.now();
    in.inFreeAt = std::max(in.inFreeAt, now - linkSeconds) + Link::transmitSeconds(bytes, in.bitsPerSecond);
    return std::max(now, in.inFreeAt);
}

int SimTransport::regionOfNode(int node) const {
    return node == kCenterNode ? -1 : m_shape.regionOfEdge[std::size_t(ClusterShape::edgeOfNode(node))];
}

bool SimTransport::isWan(int a, int b) const {
    return a == kCenterNode || b == kCenterNode || regionOfNode(a) != regionOfNode(b);
}

LinkSpec SimTransport::baseSpec(int a, int b) const { return m_geography.between(a, b); }

Link &SimTransport::link(int from, int to) {
    auto it = m_links.find({from, to});
    if (it == m_links.end()) {
        const std::uint64_t seed = m_config.seed * 0x9E3779B97F4A7C15ull + std::uint64_t(from) * 7919 + std::uint64_t(to);
        it = m_links.emplace(std::pair{from, to}, Link(baseSpec(from, to), seed)).first;
    }
    return it->second;
}

void SimTransport::track(const Message &m, bool add) {
    if (m.kind != MessageKind::Gradients)
        return;
    for (const auto &item : m.shards)
        for (const auto id : item.contributionIds) {
            if (add)
                m_inFlight.emplace(item.shard, id);
            else if (const auto it = m_inFlight.find({item.shard, id}); it != m_inFlight.end())
                m_inFlight.erase(it);
        }
}

std::vector<std::pair<int, std::uint64_t>> SimTransport::inFlightContributions() const {
    return {m_inFlight.begin(), m_inFlight.end()};
}

void SimTransport::send(Message m) {
    m.sentAt = m_loop.now();
    track(m, true); // until delivered, dropped or sent again
    if (m.from == m.to) {
        m_loop.at(m_loop.now(), [this, m]() mutable { deliver(std::move(m)); });
        return;
    }
    if (!m_hooks.alive(m.from)) {
        drop(m, "sender_down");
        return;
    }
    Link &l = link(m.from, m.to);
    const std::uint64_t bytes = m.bytes();
    std::optional<double> duplicate;
    const auto arrival = carry(m.from, m.to, bytes, &duplicate);
    if (l.spec().up) {
        if (m_hooks.tap)
            m_hooks.tap(m, bytes);
        ++m_counters.messages;
        m_counters.totalBytes += bytes;
        if (m.from == kCenterNode || m.to == kCenterNode)
            m_counters.bytesToCenter += bytes;
        if (isWan(m.from, m.to)) {
            m_counters.wanBytes += bytes;
            auto &kind = m_counters.wanByKind[std::size_t(m.kind)];
            ++kind.messages;
            kind.bytes += bytes;
            kind.tensorBytes += tensorPayloadBytes(m);
            kind.tensorElements += tensorElements(m);
            kind.batchNormBytes += batchNormBytes(m);
        }
        m_intervalBytes[{m.from, m.to}] += bytes;
    }
    if (duplicate) {
        ++m_counters.messagesDuplicated;
        track(m, true);
        m_loop.at(*duplicate, [this, m]() mutable { deliver(std::move(m)); });
    }
    if (arrival && queuesAtReceiver(m.to)) {
        // How long its bits take to come in: the slower of the link and the
        // sender's interface feeding it.
        const double outRate = m_interfaces[std::size_t(m.from)].bitsPerSecond;
        const double linkSeconds =
            std::max(Link::transmitSeconds(bytes, l.spec().bandwidthBitsPerSecond),
                     outRate > 0 ? Link::transmitSeconds(bytes, outRate) : 0.0);
        m_loop.at(*arrival, [this, m, bytes, linkSeconds]() mutable {
            const double through = throughReceiver(m.to, bytes, linkSeconds);
            m_loop.at(through, [this, m]() mutable { deliver(std::move(m)); });
        });
    } else if (arrival) {
        m_loop.at(*arrival, [this, m]() mutable { deliver(std::move(m)); });
    } else if (l.spec().up) {
        // Lost on a lossy link: the transport notices after a round trip
        // and sends again, as TCP would, so loss costs time and bytes.
        ++m_counters.messagesLost;
        m_counters.bytesLost += bytes;
        track(m, false); // send() tracks it again
        const double rto = l.busyUntil() - m_loop.now() + 2 * l.spec().latencySeconds;
        m_loop.at(m_loop.now() + rto, [this, m]() mutable { send(std::move(m)); });
    } else if (isReliable(m.kind)) {
        // The sender's transport keeps retrying until the link is back.
        track(m, false);
        m_loop.at(m_loop.now() + kReliableRetrySeconds, [this, m]() mutable { send(std::move(m)); });
    } else {
        drop(m, "link_down");
    }
}

void SimTransport::drop(const Message &m, const char *reason) {
    track(m, false);
    ++m_counters.messagesDropped;
    if (m.from != m.to && std::string_view(reason) == "receiver_down")
        m_counters.bytesLost += m.bytes(); // it crossed the link for nothing (a down link carries nothing)
    if (m_hooks.dropped)
        m_hooks.dropped(m, reason);
}

void SimTransport::deliver(Message m) {
    if (!m_hooks.alive(m.to)) {
        if (m_hooks.exists(m.to) && isReliable(m.kind)) {
            // A reliable sender keeps retrying until the receiver is back.
            track(m, false);
            m_loop.at(m_loop.now() + kReliableRetrySeconds, [this, m]() mutable { send(std::move(m)); });
            return;
        }
        drop(m, "receiver_down");
        return;
    }
    track(m, false);
    decodePayloads(m); // what the receiver's transport does: nodes read fp32
    m_hooks.deliver(std::move(m));
}

std::optional<double> SimTransport::sendRaw(int from, int to, std::uint64_t bytes) {
    const auto arrival = carry(from, to, bytes, nullptr);
    if (link(from, to).spec().up) {
        m_counters.servingBytes += bytes;
        m_intervalBytes[{from, to}] += bytes;
    }
    return arrival;
}

void SimTransport::setLinkSpec(int a, int b, const LinkSpec &spec) {
    for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        Link &l = link(x, y);
        LinkSpec s = spec;
        s.up = l.spec().up;
        l.setSpec(s);
    }
}

void SimTransport::setLinkUp(int a, int b, bool up) {
    for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        Link &l = link(x, y);
        LinkSpec s = l.spec();
        s.up = up;
        l.setSpec(s);
    }
}

void SimTransport::setDirectionUp(int from, int to, bool up) {
    Link &l = link(from, to);
    LinkSpec s = l.spec();
    s.up = up;
    l.setSpec(s);
}

void SimTransport::setRegionUp(int region, bool up) {
    const int nodes = m_shape.edgeCount() + 1;
    for (int a = 0; a < nodes; ++a)
        for (int b = a + 1; b < nodes; ++b)
            if ((regionOfNode(a) == region) != (regionOfNode(b) == region))
                setLinkUp(a, b, up);
}

std::map<std::pair<int, int>, std::uint64_t> SimTransport::takeIntervalBytes() {
    std::map<std::pair<int, int>, std::uint64_t> out;
    out.swap(m_intervalBytes);
    return out;
}

} // namespace synaptic::engine
