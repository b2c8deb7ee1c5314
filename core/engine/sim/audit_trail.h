#pragma once

#include "message.h"
#include "sim_events.h"
#include "sim_node.h"

#include <functional>

namespace synaptic::engine {

// The audit history (AuditEvent, issue 15 §3) as a driver sees it: what a
// node's handler put in its outbox (grants and gradients it sends, updates
// and versions it reports) and what the network lost. Taken from messages
// and reports, never from the verdicts of the guards the checkers audit.
// The simulator calls these; a live center can call them on the reports it
// folds.
// `region`: the node's region (-1 for the center).
void auditOutbox(int node, int region, double now, const Outbox &out,
                 const std::function<void(AuditEvent)> &emit);

// A message that will never be delivered (link down, receiver or sender
// dead): the window gradients it carried are lost, and why.
void auditDropped(double now, const Message &m, const char *reason, const std::function<void(AuditEvent)> &emit);

} // namespace synaptic::engine
