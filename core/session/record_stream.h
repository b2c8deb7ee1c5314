#pragma once

// The records of one chunk: length-delimited pb::Record messages back to back.

#include "events.pb.h"

#include <string>
#include <vector>

namespace synaptic::session {

void appendRecord(std::string &raw, const pb::Record &record);

// Every record of a chunk's raw bytes. Throws std::runtime_error naming the
// record's number and byte position if one is cut or malformed.
std::vector<pb::Record> parseRecords(const std::string &raw);

} // namespace synaptic::session
