#pragma once

#include "cluster_clock.h"

#include "core/engine/sim/cluster_config.h"
#include "core/engine/sim/link.h"
#include "core/engine/sim/message.h"
#include "core/engine/sim/node_context.h"
#include "core/engine/sim/sim_command.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <string>
#include <thread>

namespace grpc {
class Channel;
class ClientContext;
} // namespace grpc

namespace synaptic::rpc {

class PeerStream;

// What a live transport sent, for reports and bench/live.
struct LiveTransportStats {
    std::uint64_t messages = 0;      // handed to gRPC (retries included)
    std::uint64_t wireBytes = 0;     // their encoded size + gRPC framing (engine::wireBytes)
    std::uint64_t lost = 0;          // lost by loss emulation and sent again
    std::uint64_t dropped = 0;       // best effort and the link was down, the peer unknown or its stream broke
    std::uint64_t retries = 0;       // reliable messages sent again after a failed call
};

// Sends one node's messages to its peers over gRPC (DESIGN.md §3, the live
// driver). This machine's kernel has no netem, so each configured link's
// latency, bandwidth and loss are applied here, on the sending side, per
// peer, with the simulator's own Link model: a message leaves when the
// emulated link delivers it. Partitions are the same switch as in the
// simulator. Best-effort kinds go on one client stream per peer, in order;
// reliable kinds (engine::isReliable) go as single calls, retried with
// backoff until accepted (versions and sequences make a redelivery
// harmless). One thread schedules everything; send() may be called from
// any thread.
class LiveTransport {
public:
    struct Options {
        bool emulateLinks = true;
        std::size_t maxMessageBytes = 4u << 20; // larger messages are split by shard below this
        double callDeadlineSeconds = 10;        // reliable calls
        double streamDeadlineSeconds = 1800;    // a stream is reopened when it ends
    };
    struct Channels {
        // A channel to `address`, with this process's credentials.
        std::function<std::shared_ptr<grpc::Channel>(const std::string &address)> open;
        // Adds the token and anything else a call needs.
        std::function<void(grpc::ClientContext &)> prepare;
        // A message from this node to itself (an edge is also an owner):
        // handed back to the node's host, as the simulator delivers it.
        std::function<void(engine::Message &&)> local;
    };

    LiveTransport(int self, const engine::ClusterConfig &config, const engine::ClusterShape &shape,
                  const ClusterClock &clock, Channels channels, Options options);
    ~LiveTransport();
    LiveTransport(const LiveTransport &) = delete;
    LiveTransport &operator=(const LiveTransport &) = delete;

    // Where a peer listens (from the center), and whether it is up.
    void setPeer(int node, const std::string &address, bool up);
    // Sends `m` (from = self, to set): stamps sentAt with the cluster clock.
    void send(engine::Message m);
    // The parts of a network command that concern links from this node.
    void applyCommand(const engine::SimCommand &command);
    // Waits until nothing is queued or in flight, at most `seconds`.
    bool drain(double seconds);
    void stop();

    LiveTransportStats stats() const;
    // Bytes put on the wire to each peer since the last call (LinkBytesEvents).
    std::map<int, std::uint64_t> takeIntervalBytes();
    // Whether this node's link to `peer` is up (not partitioned).
    bool linkUp(int peer);

private:
    struct Pending {
        ClusterClock::Steady::time_point due;
        std::uint64_t seq;
        int attempt;
        std::shared_ptr<engine::Message> message;
        bool operator>(const Pending &o) const { return due != o.due ? due > o.due : seq > o.seq; }
    };
    struct Peer;

    void run();
    void schedule(std::shared_ptr<engine::Message> m, int attempt, double delaySeconds); // m_mutex held
    void route(std::shared_ptr<engine::Message> m, int attempt);                          // m_mutex held
    // m_mutex held; what they return is the gRPC call to make once it is released.
    std::function<void()> write(Peer &peer, std::shared_ptr<engine::Message> m, int attempt);
    std::function<void()> deliverReliable(Peer &peer, std::shared_ptr<engine::Message> m, int attempt);
    Peer &peer(int node);                                                                 // m_mutex held
    engine::LinkSpec baseSpec(int peer) const;
    std::vector<engine::Message> split(engine::Message m) const;

    const int m_self;
    const engine::ClusterConfig &m_config;
    const engine::ClusterShape &m_shape;
    const ClusterClock &m_clock;
    Channels m_channels;
    Options m_options;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::map<int, std::unique_ptr<Peer>> m_peers;                                          // guarded
    std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> m_queue;     // guarded
    std::uint64_t m_seq = 0;                                                               // guarded
    int m_inFlight = 0;                                                                    // guarded: reliable calls
    std::set<grpc::ClientContext *> m_calls;                                               // guarded: their contexts
    LiveTransportStats m_stats;                                                            // guarded
    std::map<int, std::uint64_t> m_intervalBytes;                                          // guarded: by peer
    bool m_stop = false;                                                                   // guarded
    std::thread m_thread;
};

} // namespace synaptic::rpc
