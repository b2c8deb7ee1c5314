#pragma once

#include "core/engine/sim/cluster_config.h"

#include <string>

namespace synaptic::bench {

// A codec point of bench/strategies: one name for the codecs of all three
// traffic classes. "fp32", "fp16", "int8", "topk[:F]" use that codec for
// every class; "mixed" is fp16 inside regions and int8 on the center's
// channel (issue 14's codec goal), "mixed+zstd" the same with a zstd stage
// after the center's int8; "G/V/C" names each class (gradients, values,
// center; each may end in "+zstd"). Throws std::invalid_argument for
// anything else.
engine::CodecKnobs codecPoint(const std::string &name);

// Puts the point's three codecs on `codecs` and keeps the rest: whether
// values travel as deltas (value_deltas) stays the config's, so a config
// that sends whole values is measured with whole values at every point.
void applyCodecPoint(const std::string &name, engine::CodecKnobs &codecs);

} // namespace synaptic::bench
