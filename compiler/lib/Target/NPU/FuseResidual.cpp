//===- FuseResidual.cpp - Residual adds in the producing conv's epilogue --===//
//
// A residual block ends in Add(conv(...), shortcut) (+ ReLU). As a layer of
// its own the add reads two tensors from DRAM and writes one: almost pure
// DMA, and the convolution's result makes a DRAM round trip first. Applied
// in the convolution's epilogue (REQUANT, then VADD with the shortcut's
// tile, then the store), the conv's int8 result stays in the scratchpad and
// the add costs one tile load and one vector instruction per tile. The
// values are those of the two separate ops: REQUANT rounds the conv's result
// to int8 exactly as before and VADD is QLinearAdd's arithmetic.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"

#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"

namespace systole::npu {
#define GEN_PASS_DEF_FUSERESIDUAL
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;
namespace graph = systole::graph;

namespace {

/// An 8-bit per-tensor quantized tensor's signedness, if it is one (VADD
/// runs int8, or uint8 in its uint8 mode; never the two mixed).
std::optional<bool> signedness8(Type t) {
  auto q = dyn_cast<quant::UniformQuantizedType>(getElementTypeOrSelf(t));
  if (!q || q.getStorageTypeIntegralWidth() != 8)
    return std::nullopt;
  return q.isSigned();
}

/// The convolution producing operand `idx` of `add` that can apply it, if
/// any: on the NPU, its result read only by the add, and the other operand
/// an activation computed before it.
graph::Conv2DOp producerFor(graph::AddOp add, unsigned idx) {
  Value v = add->getOperand(idx), other = add->getOperand(1 - idx);
  auto conv = v.getDefiningOp<graph::Conv2DOp>();
  if (!conv || getPlacement(conv) != Placement::Npu || !v.hasOneUse() ||
      conv->getBlock() != add->getBlock() || isConstantTensor(other))
    return {};
  if (Operation *def = other.getDefiningOp())
    if (def->getBlock() != conv->getBlock() || !def->isBeforeInBlock(conv))
      return {};
  return conv;
}

struct FuseResidualPass
    : systole::npu::impl::FuseResidualBase<FuseResidualPass> {
  void runOnOperation() override {
    getOperation().walk([&](graph::AddOp add) {
      if (getPlacement(add) != Placement::Npu ||
          !signedness8(add.getOutput().getType()) ||
          signedness8(add.getLhs().getType()) !=
              signedness8(add.getOutput().getType()) ||
          signedness8(add.getRhs().getType()) !=
              signedness8(add.getOutput().getType()) ||
          binaryBroadcast(cast<ShapedType>(add.getLhs().getType()),
                          cast<ShapedType>(add.getRhs().getType())) !=
              BinaryBroadcast::Equal ||
          cast<ShapedType>(add.getLhs().getType()).getShape() !=
              cast<ShapedType>(add.getOutput().getType()).getShape())
        return;
      graph::Conv2DOp lhs = producerFor(add, 0), rhs = producerFor(add, 1);
      // Both qualify: the later one, so the other operand exists when it
      // runs (producerFor checked it against that conv's position).
      int64_t idx = -1;
      if (lhs && rhs)
        idx = lhs->isBeforeInBlock(rhs) ? 1 : 0;
      else if (lhs)
        idx = 0;
      else if (rhs)
        idx = 1;
      if (idx < 0)
        return;
      add->setAttr(kResidualAttr,
                   IntegerAttr::get(IntegerType::get(&getContext(), 64), idx));
    });
  }
};

} // namespace
