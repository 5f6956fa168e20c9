//===- ConcatCopy.cpp - Concats as NPU copies -----------------------------===//
//
// A QDQ model concatenates in float: DequantizeLinear per input, Concat,
// QuantizeLinear. npu-concat-in-place makes the producing convolutions
// write their slices when each input is read by the concat alone; the
// others (DenseNet concatenates every earlier feature map of a block again
// for each layer, ShuffleNet joins split halves, a detector neck reads a
// feature map twice) stayed on the host: every input dequantized, copied
// and quantized in float.
//
// Each input's part of the result is Q(DQ_i(x)), a function of the input's
// code (requantTable, the runtime's arithmetic), so the concat becomes a
// quantized graph.concat of the x_i on the NPU, lowered as copies through
// VLUT tables into the channel slices (TableCodegen.cpp); a concat along
// another axis (Swin's roll: Slice + Concat along H or W) copies rows of
// the dims after it the same way. The dequantizes stay only for their
// other readers.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"
#include "TableChain.h"

#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

namespace systole::npu {
#define GEN_PASS_DEF_CONCATCOPY
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;
using namespace systole::npu::tables;
namespace graph = systole::graph;

namespace {

struct ConcatCopyPass : systole::npu::impl::ConcatCopyBase<ConcatCopyPass> {
  void runOnOperation() override {
    SmallVector<graph::ConcatOp> concats;
    getOperation().walk([&](graph::ConcatOp c) { concats.push_back(c); });
    for (graph::ConcatOp c : concats) {
      auto type = cast<ShapedType>(c.getOutput().getType());
      if (type.getRank() < 1 || !c.getOutput().hasOneUse() ||
          !getElementTypeOrSelf(type).isF32() || !type.hasStaticShape())
        continue;
      auto q = dyn_cast<graph::QuantizeOp>(*c.getOutput().user_begin());
      if (!q || !quantized8(q.getOutput().getType()))
        continue;
      SmallVector<Value> inputs;
      for (Value in : c.getInputs()) {
        auto dq = in.getDefiningOp<graph::DequantizeOp>();
        if (!dq || !quantized8(dq.getInput().getType()) ||
            isConstantTensor(dq.getInput()))
          break;
        inputs.push_back(dq.getInput());
      }
      if (inputs.size() != c.getInputs().size())
        continue;
      OpBuilder b(q);
      auto concat = b.create<graph::ConcatOp>(
          c.getLoc(), q.getOutput().getType(), inputs, c.getAxisAttr());
      setPlacement(concat, Placement::Npu);
      q.getOutput().replaceAllUsesWith(concat.getOutput());
      SmallVector<Operation *> dqs;
      for (Value in : c.getInputs())
        if (!llvm::is_contained(dqs, in.getDefiningOp()))
          dqs.push_back(in.getDefiningOp());
      q.erase();
      c.erase();
      for (Operation *dq : dqs)
        if (dq->use_empty())
          dq->erase();
    }
  }
};

} // namespace
