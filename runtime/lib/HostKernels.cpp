//===- HostKernels.cpp - quantize, dequantize, transpose ------------------===//
#include "systole/Runtime/HostKernels.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace systole;
using namespace systole::rt;

namespace {
llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

uint64_t elements(const isa::TensorDesc &t) {
  uint64_t n = 1;
  for (int64_t d : t.shape)
    n *= uint64_t(d);
  return n;
}

// Per-axis parameters: element i belongs to channel (i / inner) % dim.
struct Channels {
  uint64_t inner = 1, dim = 1;
  Channels(const isa::TensorDesc &t) {
    const isa::QuantParams &q = *t.quant;
    if (q.scales.size() <= 1)
      return;
    dim = uint64_t(t.shape[q.axis]);
    for (size_t d = q.axis + 1; d < t.shape.size(); ++d)
      inner *= uint64_t(t.shape[d]);
  }
  size_t of(uint64_t i) const { return dim == 1 ? 0 : (i / inner) % dim; }
};

int32_t zeroPoint(const isa::QuantParams &q, size_t c) {
  return q.zeroPoints.empty() ? 0 : q.zeroPoints[c];
}

/// The input element behind each output element of out = transpose(in,
/// perm), in output order: `src` for the current one, `next()` to advance
/// (an odometer over the output shape). An empty perm is the identity.
class PermutedWalk {
public:
  PermutedWalk(const isa::TensorDesc &in, const isa::TensorDesc &out,
               llvm::ArrayRef<int64_t> perm)
      : shape(out.shape), stride(perm.size()), idx(perm.size(), 0) {
    std::vector<uint64_t> inStride(perm.size(), 1);
    for (size_t d = perm.size(); d-- > 1;)
      inStride[d - 1] = inStride[d] * uint64_t(in.shape[d]);
    for (size_t d = 0; d < perm.size(); ++d)
      stride[d] = inStride[perm[d]];
  }
  uint64_t src = 0;
  void next() {
    if (stride.empty()) {
      ++src;
      return;
    }
    for (size_t d = stride.size(); d-- > 0;) {
      src += stride[d];
      if (++idx[d] < uint64_t(shape[d]))
        return;
      src -= stride[d] * idx[d];
      idx[d] = 0;
    }
  }

private:
  std::vector<int64_t> shape;
  std::vector<uint64_t> stride, idx;
};
} // namespace

llvm::Error rt::runBuiltin(const isa::HostSegment &h, TensorView in,
                           TensorView out) {
  const uint64_t n = elements(*in.desc);
  if (h.entry == "quantize") {
    const isa::QuantParams &q = *out.desc->quant;
    Channels ch(*out.desc);
    bool u8 = out.desc->dtype == isa::DType::UInt8;
    const int32_t qmin = u8 ? 0 : -128, qmax = u8 ? 255 : 127;
    // With params, the output is the permuted input (the model's NCHW input
    // quantized straight into the NPU's NHWC), walked as transpose walks it.
    PermutedWalk walk(*in.desc, *out.desc, h.params);
    for (uint64_t i = 0; i < n; ++i, walk.next()) {
      float x;
      std::memcpy(&x, in.data + 4 * walk.src, 4);
      size_t c = ch.of(i);
      int32_t v = quantizeLinear(x, q.scales[c], zeroPoint(q, c), qmin, qmax);
      out.data[i] = static_cast<uint8_t>(v);
    }
    return llvm::Error::success();
  }
  if (h.entry == "dequantize") {
    const isa::QuantParams &q = *in.desc->quant;
    Channels ch(*in.desc);
    for (uint64_t i = 0; i < n; ++i) {
      int32_t v;
      switch (in.desc->dtype) {
      case isa::DType::Int8:
        v = int8_t(in.data[i]);
        break;
      case isa::DType::UInt8:
        v = in.data[i];
        break;
      default:
        std::memcpy(&v, in.data + 4 * i, 4);
        break;
      }
      size_t c = ch.of(i);
      float f = dequantizeLinear(v, q.scales[c], zeroPoint(q, c));
      std::memcpy(out.data + 4 * i, &f, 4);
    }
    return llvm::Error::success();
  }
  if (h.entry == "transpose") {
    const uint64_t esz = isa::dtypeBytes(in.desc->dtype);
    PermutedWalk walk(*in.desc, *out.desc, h.params);
    for (uint64_t o = 0; o < n; ++o, walk.next())
      std::memcpy(out.data + o * esz, in.data + walk.src * esz, esz);
    return llvm::Error::success();
  }
  return error("unknown builtin host kernel '" + h.entry + "'");
}
