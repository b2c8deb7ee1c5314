#pragma once

#include "synaptic_v1.pb.h"

#include "core/engine/sim/message.h"

#include <ATen/core/Tensor.h>

#include <stdexcept>
#include <string>

namespace synaptic::rpc {

// A message that cannot be decoded: malformed, or not what the receiver
// accepts (wrong dtype or shape, non-finite values, unknown kind). The text
// names the field.
class WireError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Tensors travel as raw little-endian bytes with their dtype and shape.
// Encoding copies to the CPU; decoding makes a CPU tensor (the node moves
// it to its device).
void encodeTensor(const at::Tensor &t, v1::Tensor *out);
// Throws WireError naming `field` for an unknown dtype, a negative or
// overflowing shape, data whose length does not match the shape, or (when
// `finite` is asked) any NaN or Inf.
at::Tensor decodeTensor(const v1::Tensor &t, const std::string &field, bool finite = true);

// A tensor field with its codec (issue 14): encodes the codec's values and
// the rest of `coding`; decoding rebuilds the fp32 tensor. Throws WireError
// naming `field` for an unknown codec, scales or indices of the wrong
// length, positions out of range or not ascending, or non-finite values.
// The most elements a coded tensor may decode to: 64 MiB of fp32, the
// largest message a node accepts.
inline constexpr std::int64_t kMaxCodedElements = std::int64_t(1) << 24;

void encodeCodedTensor(const at::Tensor &values, const engine::TensorCoding &coding, v1::Tensor *out);
at::Tensor decodeCodedTensor(const v1::Tensor &t, const std::string &field);

} // namespace synaptic::rpc
