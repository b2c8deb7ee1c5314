#pragma once

#include <cstdint>
#include <optional>
#include <random>

namespace synaptic::engine {

struct LinkSpec {
    double latencySeconds = 0.001;    // one way
    double bandwidthBitsPerSecond = 1e9;
    double lossRate = 0.0;            // probability a message is lost, 0..1
    bool up = true;
    // Faults (issue 15 §2), after `up` so {latency, bandwidth, loss, up}
    // initialisers keep their meaning: the probability a message arrives
    // twice, and the most a message's arrival is delayed at random on top
    // of the queue (messages overtake each other: reordering).
    double duplicateRate = 0.0;
    double jitterSeconds = 0.0;
};

// One direction of a simulated network link: a FIFO transmitter followed by
// a fixed propagation delay (DESIGN.md §3). A message of S bytes starts
// transmitting when the link is free, occupies it for S*8/bandwidth seconds,
// and arrives `latency` after its last bit left (plus a random jitter, when
// set: then messages can overtake each other). Lost messages still occupy
// the link (they were sent); a down link refuses messages without sending.
// A duplicating link delivers some messages twice.
// Deterministic for a seed. Engine thread only.
class Link {
public:
    explicit Link(LinkSpec spec = {}, std::uint64_t seed = 0);

    // Arrival time of a message sent at `now`, or std::nullopt if it is lost
    // or the link is down. When the link duplicates this one, `duplicate`
    // (if given) gets the second copy's arrival.
    std::optional<double> send(double now, std::uint64_t bytes, std::optional<double> *duplicate = nullptr) {
        return send(now, now, bytes, duplicate);
    }
    // The same for a message whose last bit reaches this link no sooner
    // than `readyAt` (>= now): it queued on its sender's interface, which
    // the link's own transmission overlaps (cut-through): the message leaves
    // when both are done, max(link's finish, readyAt).
    std::optional<double> send(double now, double readyAt, std::uint64_t bytes,
                               std::optional<double> *duplicate = nullptr);

    // Live change (a set-link command); applies to messages sent from now on.
    // Throws std::invalid_argument for a non-positive bandwidth, a negative
    // latency or a loss rate outside [0, 1].
    void setSpec(const LinkSpec &spec);
    const LinkSpec &spec() const { return m_spec; }
    double busyUntil() const { return m_busyUntil; }
    std::uint64_t bytesSent() const { return m_bytesSent; }
    std::uint64_t messagesSent() const { return m_messagesSent; }
    std::uint64_t messagesLost() const { return m_messagesLost; }
    std::uint64_t messagesDuplicated() const { return m_messagesDuplicated; }

    static double transmitSeconds(std::uint64_t bytes, double bitsPerSecond) {
        return double(bytes) * 8.0 / bitsPerSecond;
    }

private:
    LinkSpec m_spec;
    std::mt19937_64 m_rng;
    double m_busyUntil = 0;
    std::uint64_t m_bytesSent = 0;
    std::uint64_t m_messagesSent = 0;
    std::uint64_t m_messagesLost = 0;
    std::uint64_t m_messagesDuplicated = 0;
};

} // namespace synaptic::engine
