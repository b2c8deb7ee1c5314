#include "tensor_codec.h"

#include <ATen/ATen.h>

#include <bit>
#include <cstring>
#include <limits>

namespace synaptic::rpc {

// Raw bytes are written in the host's order; the format says little-endian.
static_assert(std::endian::native == std::endian::little,
              "synaptic.v1 tensors are little-endian: a big-endian host must byte-swap here");

namespace {

v1::Tensor::DType dtypeOf(at::ScalarType t) {
    switch (t) {
    case at::kFloat: return v1::Tensor::FLOAT32;
    case at::kHalf: return v1::Tensor::FLOAT16;
    case at::kChar: return v1::Tensor::INT8;
    case at::kLong: return v1::Tensor::INT64;
    default: throw WireError(std::string("tensor dtype ") + at::toString(t) + " has no wire encoding");
    }
}

at::ScalarType scalarOf(v1::Tensor::DType d, const std::string &field) {
    switch (d) {
    case v1::Tensor::FLOAT32: return at::kFloat;
    case v1::Tensor::FLOAT16: return at::kHalf;
    case v1::Tensor::INT8: return at::kChar;
    case v1::Tensor::INT64: return at::kLong;
    default: throw WireError(field + ": unknown tensor dtype " + std::to_string(int(d)));
    }
}

} // namespace

void encodeTensor(const at::Tensor &t, v1::Tensor *out) {
    const auto cpu = t.to(at::kCPU).contiguous();
    out->set_dtype(dtypeOf(cpu.scalar_type()));
    for (auto d : cpu.sizes())
        out->add_shape(d);
    const auto bytes = std::size_t(cpu.numel()) * cpu.element_size();
    if (bytes > 0)
        out->set_data(static_cast<const char *>(cpu.data_ptr()), bytes);
}

at::Tensor decodeTensor(const v1::Tensor &t, const std::string &field, bool finite) {
    const auto type = scalarOf(t.dtype(), field);
    std::vector<std::int64_t> shape;
    std::uint64_t numel = 1;
    for (auto d : t.shape()) {
        if (d < 0)
            throw WireError(field + ": negative dimension " + std::to_string(d));
        if (d > 0 && numel > std::numeric_limits<std::uint64_t>::max() / std::uint64_t(d) / 8)
            throw WireError(field + ": shape too large");
        numel *= std::uint64_t(d);
        shape.push_back(d);
    }
    const std::uint64_t elementBytes = at::elementSize(type);
    if (std::uint64_t(t.data().size()) != numel * elementBytes)
        throw WireError(field + ": " + std::to_string(t.data().size()) + " bytes of data for a shape of " +
                        std::to_string(numel) + " elements of " + std::to_string(elementBytes) + " bytes");
    auto out = at::empty(shape, at::TensorOptions().dtype(type));
    if (numel > 0)
        std::memcpy(out.data_ptr(), t.data().data(), t.data().size());
    if (finite && at::isFloatingType(type) && numel > 0 && !at::isfinite(out).all().item<bool>())
        throw WireError(field + ": NaN or Inf values");
    return out;
}

} // namespace synaptic::rpc
