//===- HostWork.cpp - Elementary operations of host ops -------------------===//
//
// A host op's work is its output elements times the operations one element
// costs, or twice its multiply-accumulates for contractions. The per-element
// costs follow the kernels the host code runs: MLAS-style rational
// polynomials for the transcendental functions (about a dozen operations),
// one operation for plain arithmetic, none for data movement (its cost is
// the transfer). They are estimates, as a roofline's are: the host's time is
// ops / host.ops_per_cycle (docs/hwconfig.md).
//
//===----------------------------------------------------------------------===//
#include "HostWork.h"

#include "systole/Dialect/Graph/GraphOps.h"
#include "systole/Target/NPU/PlacementSummary.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace systole::graph;

namespace {

uint64_t elementsOf(Value v) {
  auto t = dyn_cast<ShapedType>(v.getType());
  return t && t.hasStaticShape() ? static_cast<uint64_t>(t.getNumElements())
                                 : 0;
}

uint64_t perElement(Operation *op) {
  if (auto u = dyn_cast<UnaryOp>(op))
    return llvm::StringSwitch<uint64_t>(u.getFn())
        .Cases("exp", "sigmoid", "tanh", 12)
        .Case("erf", 14)
        .Case("gelu", 18)
        .Case("hardswish", 4)
        .Default(1);
  if (llvm::isa<AddOp, SubOp, MulOp, DivOp>(op))
    return 1;
  if (llvm::isa<ClipOp>(op))
    return 2;
  if (llvm::isa<SoftmaxOp>(op))
    return 16; // max, subtract, exp, sum, scale
  if (llvm::isa<LayerNormOp>(op))
    return 8; // sum, sum of squares, normalize, scale, shift
  if (llvm::isa<QuantizeOp>(op))
    return 3; // divide, clamp, round
  if (llvm::isa<DequantizeOp>(op))
    return 2; // subtract, multiply
  if (llvm::isa<RequantizeOp>(op))
    return 5;
  return 0;
}

} // namespace

uint64_t systole::npu::hostOps(Operation *op) {
  if (op->getNumResults() != 1)
    return 0;
  if (uint64_t macs = countMacs(op))
    return 2 * macs;
  if (auto pool = dyn_cast<PoolOp>(op)) {
    uint64_t window = 1;
    for (int64_t k : pool.getKernel())
      window *= static_cast<uint64_t>(k);
    return elementsOf(op->getResult(0)) * window;
  }
  if (llvm::isa<ReduceOp, GlobalAvgPoolOp>(op))
    return elementsOf(op->getOperand(0));
  if (llvm::isa<HostOp>(
          op)) // an ONNX op in upstream dialects: a few per element
    return 4 * elementsOf(op->getResult(0));
  return perElement(op) * elementsOf(op->getResult(0));
}
