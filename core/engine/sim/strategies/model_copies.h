#pragma once

#include "core/engine/codec/delta_publisher.h"
#include "core/engine/sim/message.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <utility>

namespace synaptic::engine {

// A node that sends a whole model to nodes keeping a copy of it (a
// center's model to its edges, a region leader's to its region): with a
// lossy codec each node gets a coded delta from the copy it last received,
// tracked per node (DeltaPublisher), when the node says it still holds that
// copy; whole fp32 values otherwise (fp32, a node that restarted or missed
// one). The first step's answer is a coded delta too, from the initial
// model, as synaptic's center codes its first answer to a region: a node
// that still holds version 0 when version 1 goes out took its copy before
// any step, so it holds the initial model, in the simulator and in a live
// cluster alike. Version 0 alone would not say so: a live edge that joins
// later is handed the model of its time as version 0 (center_process.cpp),
// and gets the whole copy. This takes version 1 to be the first step
// since the cluster started: a live center keeps no state file and would
// count from 1 again after a restart, which is not supported
// (RELIABILITY.md, "Known gaps").
class ModelCopies {
public:
    // `initial`: the model every node that joined before the first step holds.
    explicit ModelCopies(at::Tensor initial) : m_initial(std::move(initial)) {}

    // The version the answer to the first step carries.
    static constexpr std::uint64_t kFirstStepVersion = 1;

    // A FullValues message to `node` for `values` as of `version`; `held`
    // is the version the node said it holds.
    Message valuesFor(int node, std::uint64_t held, const at::Tensor &values, std::uint64_t version,
                      const CodecSpec &codec);

private:
    at::Tensor m_initial;
    std::map<int, DeltaPublisher> m_copies;
};

// The receiving side: `copy` becomes the values a FullValues message
// carries (whole, or `copy` plus the delta). False, with `copy` untouched,
// for a delta from a version other than `held`.
bool receiveModel(const Message &m, at::Tensor &copy, std::uint64_t &held);

} // namespace synaptic::engine
