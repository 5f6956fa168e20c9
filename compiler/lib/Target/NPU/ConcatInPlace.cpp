//===- ConcatInPlace.cpp - Channel concat written by its producers --------===//
//
// Inception blocks, SqueezeNet's fire modules and detector necks
// concatenate the outputs of parallel convolutions along channels. A QDQ
// model does it in float: DequantizeLinear per input, Concat,
// QuantizeLinear; as host ops that is a round trip of every input. But each
// input's part of the result is a function of that input's code alone,
// Q(DQ_i(x)), a 256-entry table computed with the runtime's own
// dequantize/quantize arithmetic (what the host fallback computes). So
// each producing convolution applies its input's table in REQUANT and
// stores its tile straight into its channel slice of the concat's buffer
// (DRAM pixel stride = the concat's channels): the concat costs nothing.
//
// Only when every input is an NPU convolution's result that nothing else
// reads (each is written once, into its slice), the concat is along the
// channels of NHWC tensors and its only reader is the quantize.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"
#include "TableChain.h"

#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

namespace systole::npu {
#define GEN_PASS_DEF_CONCATINPLACE
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;
using namespace systole::npu::tables;
namespace graph = systole::graph;

namespace {

/// The convolution behind concat input `v` = DequantizeLinear(x) when it
/// can write its slice: on the NPU, x read only by the dequantize, the
/// dequantize only by the concat.
graph::Conv2DOp slicedProducer(Value v) {
  auto dq = v.getDefiningOp<graph::DequantizeOp>();
  if (!dq || !v.hasOneUse())
    return {};
  Value x = dq.getInput();
  auto conv = x.getDefiningOp<graph::Conv2DOp>();
  if (!conv || getPlacement(conv) != Placement::Npu || !x.hasOneUse() ||
      !quantized8(x.getType()))
    return {};
  return conv;
}

struct ConcatInPlacePass
    : systole::npu::impl::ConcatInPlaceBase<ConcatInPlacePass> {
  void runOnOperation() override {
    SmallVector<graph::ConcatOp> concats;
    getOperation().walk([&](graph::ConcatOp c) { concats.push_back(c); });
    for (graph::ConcatOp c : concats) {
      auto type = cast<ShapedType>(c.getOutput().getType());
      int64_t rank = type.getRank();
      if (rank != 4 || (c.getAxis() != 3 && c.getAxis() != -1) ||
          !c.getOutput().hasOneUse() || !getElementTypeOrSelf(type).isF32())
        continue;
      auto q = dyn_cast<graph::QuantizeOp>(*c.getOutput().user_begin());
      auto outQ = q ? quantized8(q.getOutput().getType()) : nullptr;
      if (!outQ)
        continue;
      SmallVector<graph::Conv2DOp> producers;
      for (Value in : c.getInputs())
        if (graph::Conv2DOp conv = slicedProducer(in);
            conv && !llvm::is_contained(producers, conv))
          producers.push_back(conv);
      if (producers.size() != c.getInputs().size())
        continue;
      // Each producer maps its result through its table, written into the
      // concat's slice.
      OpBuilder b(q);
      SmallVector<Value> tables;
      for (graph::Conv2DOp conv : producers) {
        Value x = conv.getOutput();
        tables.push_back(
            createTable(b, conv.getLoc(), x, q,
                        requantTable(quantized8(x.getType()), outQ))
                .getOutput());
      }
      auto concat = b.create<graph::ConcatOp>(
          c.getLoc(), q.getOutput().getType(), tables, c.getAxisAttr());
      setPlacement(concat, Placement::Npu);
      concat->setAttr(kInPlaceAttr, b.getUnitAttr());
      q.getOutput().replaceAllUsesWith(concat.getOutput());
      SmallVector<Operation *> dqs;
      for (Value in : c.getInputs())
        dqs.push_back(in.getDefiningOp());
      q.erase();
      c.erase();
      for (Operation *dq : dqs)
        dq->erase();
    }
  }
};

} // namespace
