#pragma once

#include "node_cli.h"

// The recording side of synaptic-node (issue 5): sim --record, info, export,
// rerun. Built only with the session layer (protobuf, zstd); engine-only
// builds say so instead.
namespace synaptic::app {

int runSimRecorded(const NodeCommand &cmd);
int runInfo(const NodeCommand &cmd);
int runExport(const NodeCommand &cmd);
int runRerun(const NodeCommand &cmd);
// Exit 0: every invariant holds on every checked run; 3: one is violated;
// 1: the file is unreadable or holds no audit history.
int runCheck(const NodeCommand &cmd);

} // namespace synaptic::app
