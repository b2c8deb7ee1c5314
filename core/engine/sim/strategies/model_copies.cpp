#include "model_copies.h"

#include <ATen/ATen.h>

namespace synaptic::engine {

Message ModelCopies::valuesFor(int node, std::uint64_t held, const at::Tensor &values, std::uint64_t version,
                               const CodecSpec &codec) {
    Message v;
    v.kind = MessageKind::FullValues;
    v.to = node;
    auto &copy = m_copies[node];
    if (codec.codec != Codec::Fp32)
        v.round = version; // only deltas need versions: fp32 costs what it always did
    if (codec.codec != Codec::Fp32 && copy.empty() && held == 0 && version == kFirstStepVersion && m_initial.defined())
        copy.reset(m_initial, 0); // reset keeps its own copy
    if (codec.codec != Codec::Fp32 && !copy.empty() && copy.version() == held) {
        v.tensorDelta = true;
        v.copyVersion = held;
        at::Tensor target = values; // lossy codecs leave it as it is
        setCoded(v.tensor, v.tensorCoding, copy.publish(target, version, codec));
        return v;
    }
    v.tensor = values.clone();
    copy = DeltaPublisher{};
    if (codec.codec != Codec::Fp32)
        copy.reset(values, version);
    return v;
}

bool receiveModel(const Message &m, at::Tensor &copy, std::uint64_t &held) {
    if (m.tensorDelta) {
        if (m.copyVersion != held || !copy.defined())
            return false;
        copy = copy + m.tensor;
    } else {
        copy = m.tensor.clone();
    }
    held = m.round;
    return true;
}

} // namespace synaptic::engine
