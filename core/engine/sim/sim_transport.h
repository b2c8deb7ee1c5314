#pragma once

#include "cluster_config.h"
#include "link.h"
#include "link_geography.h"
#include "message.h"
#include "node_context.h"
#include "sim_result.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace synaptic::engine {

class EventLoop;

// Every byte the simulated network carried, as a run reports it.
struct TransportCounters {
    std::uint64_t messages = 0;
    std::uint64_t messagesLost = 0;    // lost on a lossy link and sent again
    std::uint64_t messagesDropped = 0; // link down or receiver dead: never delivered
    std::uint64_t messagesDuplicated = 0; // delivered twice by a duplicating link (a fault)
    std::uint64_t bytesLost = 0;       // lost on lossy links (then sent again) or dropped: sent for nothing
    std::uint64_t totalBytes = 0;
    std::uint64_t bytesToCenter = 0;
    std::uint64_t wanBytes = 0;
    std::uint64_t servingBytes = 0;    // early-exit serving, counted apart
    std::array<KindTraffic, kMessageKinds> wanByKind{}; // sums to wanBytes
};

// The simulator's network (DESIGN.md §3): one Link per direction between
// two nodes (latency, bandwidth queue, loss, partition switch), built on
// first use from the config's geography (LinkGeography). When the config
// models node interfaces (links.node_interfaces), a message also queues on
// its sender's outgoing interface (carry()) and, once off its link, on its
// receiver's incoming one (throughReceiver()), each a FIFO at the node's
// rate shared by all the node's links; serving's raw sends queue on the
// sender's only (their sizes are a few KB). Without interfaces each pair's
// line is independent. Duplicates (a fault) skip the receiver's
// interface. send() charges a message its
// wire size, schedules its arrival, and does what a real transport would
// when it does not arrive: a lost message is sent again after a round
// trip (as TCP would), a reliable kind (isReliable) keeps being retried
// while its link is down or its receiver dead, anything else is dropped.
// Engine thread only.
class SimTransport {
public:
    struct Hooks {
        std::function<bool(int node)> alive;   // the receiver runs now
        std::function<bool(int node)> exists;  // the strategy has this node (it may come back)
        std::function<void(Message &&)> deliver;
        // Sees every message put on a link with the bytes charged for it
        // (tests compare them with the real encoding). May be empty.
        std::function<void(const Message &, std::uint64_t bytes)> tap;
        // A message that will never arrive (link down, receiver dead), and
        // why; the audit reports the contributions it carried lost. May be empty.
        std::function<void(const Message &, const char *reason)> dropped;
    };

    SimTransport(EventLoop &loop, const ClusterConfig &config, const ClusterShape &shape, Hooks hooks);

    // Sends `m` (from, to set) now: stamps sentAt, charges the link.
    void send(Message m);
    // Serving traffic (issue 6): `bytes` on the same links, counted apart.
    // The arrival time, or nullopt when lost or the link is down.
    std::optional<double> sendRaw(int from, int to, std::uint64_t bytes);

    Link &link(int from, int to);
    bool linkUp(int from, int to) { return link(from, to).spec().up; }
    // Both directions between a and b (node ids).
    void setLinkSpec(int a, int b, const LinkSpec &spec); // keeps each direction's up/down; throws on a bad spec
    void setLinkUp(int a, int b, bool up);
    // One direction only (an asymmetric partition): from -> to.
    void setDirectionUp(int from, int to, bool up);
    // Every link between the region's nodes and the rest of the cluster.
    void setRegionUp(int region, bool up);

    const TransportCounters &counters() const { return m_counters; }
    // Window gradients on their way (sent, neither delivered nor dropped):
    // what the audit reports lost when a run ends with them in flight.
    std::vector<std::pair<int, std::uint64_t>> inFlightContributions() const; // (shard, id)
    // Bytes per directed link since the last call (for LinkBytesEvents).
    std::map<std::pair<int, int>, std::uint64_t> takeIntervalBytes();

    static constexpr double kReliableRetrySeconds = 0.5;

private:
    int regionOfNode(int node) const;
    bool isWan(int a, int b) const;
    LinkSpec baseSpec(int a, int b) const;
    void deliver(Message m);
    void drop(const Message &m, const char *reason);
    void track(const Message &m, bool add);
    // Puts `bytes` from `from` to `to` through the sender's interface (when
    // modelled) and on their link: when it is off the link, or nullopt (lost, down).
    std::optional<double> carry(int from, int to, std::uint64_t bytes, std::optional<double> *duplicate);
    bool queuesAtReceiver(int node) const;
    // At the time a message of `bytes` is off its link (its bits took
    // `linkSeconds` on it): books the receiver's interface, returns when the
    // message is through it.
    double throughReceiver(int node, std::uint64_t bytes, double linkSeconds);

    // A node's interface: a FIFO per direction at its rate. Outgoing: when
    // its queue empties (sender's clock). Incoming: when the last bit queued
    // for it has been taken in (receiver's clock, latency included).
    struct Interface {
        double bitsPerSecond = 0; // 0: not modelled for this node
        double outFreeAt = 0;
        double inFreeAt = 0;
    };

    EventLoop &m_loop;
    const ClusterConfig &m_config;
    const ClusterShape &m_shape;
    LinkGeography m_geography;
    Hooks m_hooks;
    std::map<std::pair<int, int>, Link> m_links;
    std::vector<Interface> m_interfaces; // per node id; empty when the config models none
    std::map<std::pair<int, int>, std::uint64_t> m_intervalBytes;
    TransportCounters m_counters;
    std::multiset<std::pair<int, std::uint64_t>> m_inFlight;
};

} // namespace synaptic::engine
