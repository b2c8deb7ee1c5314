#pragma once

namespace synaptic::engine {

// Which of a node's roles a durable state belongs to. An edge's owner role
// and the hub it may host (knobs.hubMerges) keep separate states, each
// replaced atomically on its own: neither waits for the other, and a crash
// between the two writes of one handler loses only what no message named
// yet (both are written before anything the handler sends leaves).
enum class StatePart { Node, Hub };

} // namespace synaptic::engine
