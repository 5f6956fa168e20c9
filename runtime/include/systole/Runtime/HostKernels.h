//===- HostKernels.h - Builtin host kernels of the runtime ------*- C++ -*-===//
//
// What a HostSegment of kind Builtin runs (docs/runtime.md): model-boundary
// work the compiler leaves to the host until compiled host code lands.
// Arguments are (input tensor, output tensor); quantization parameters come
// from the quantized tensor's descriptor, a permutation from `params`.
//
//   quantize   float32 -> int8/uint8, exactly ONNX Runtime's x86
//              MlasQuantizeLinear: fl(x / scale), clamp to
//              [qmin - zp, qmax - zp] (NaN -> qmin - zp), round half to even,
//              + zp. Per-tensor or per-axis.
//   dequantize int8/uint8/int32 -> float32: fl(float(q - zp) * scale).
//   transpose  any dtype, out.shape[i] = in.shape[perm[i]].
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_RUNTIME_HOSTKERNELS_H
#define SYSTOLE_RUNTIME_HOSTKERNELS_H

#include "systole/ISA/Program.h"
#include "systole/Support/QuantizeLinear.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace systole::rt {

/// Views of tensor bytes with their descriptors.
struct TensorView {
  const isa::TensorDesc *desc;
  uint8_t *data;
};

/// Runs builtin `segment` on its argument tensors (already resolved and
/// bounds-checked by the caller). Errors name the kernel and the tensor.
llvm::Error runBuiltin(const isa::HostSegment &segment, TensorView in,
                       TensorView out);

} // namespace systole::rt

#endif
