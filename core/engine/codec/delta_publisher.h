#pragma once

#include "codec.h"

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace synaptic::engine {

// The sending side of value deltas (issue 14): a node that keeps a tensor
// (an owner's shard, the center's global copy for one region) and sends it
// to receivers who keep a copy. It remembers the copy the receivers hold
// (`published`, at `version`) and sends each new version as the codec's
// encoding of what changed since then, adding the decoded change to its
// record exactly as a receiver adds it, so both stay bit-identical and
// what the codec left out goes out with the next delta. A receiver that
// missed a version asks for published() whole.
class DeltaPublisher {
public:
    bool empty() const { return !m_published.defined(); }
    // Start from a copy every receiver holds (the initial values, a full copy).
    void reset(const at::Tensor &values, std::uint64_t version);

    // The delta from version() to `newVersion` for `values`. With Fp32 the
    // change is exact only up to one rounding of the addition, so `values`
    // is set to the published copy: everyone then holds the same bits.
    Coded publish(at::Tensor &values, std::uint64_t newVersion, const CodecSpec &spec);

    const at::Tensor &published() const { return m_published; }
    std::uint64_t version() const { return m_version; }

private:
    at::Tensor m_published;
    std::uint64_t m_version = 0;
};

// The receiving side: `copy` += the decoded delta.
void applyDelta(at::Tensor &copy, const Coded &delta);

} // namespace synaptic::engine
