//===- FuseGate.cpp - x * f(x) in the producing conv's epilogue -----------===//
//
// SiLU (EfficientNet, YOLO) is exported as x * Sigmoid(x) and HardSwish at
// low opsets as x * HardSigmoid(x); a QDQ model quantizes f(x) on its own
// (DequantizeLinear -> f -> QuantizeLinear) and multiplies with QLinearMul.
// x is then read twice, so npu-fold-tables cannot make f the conv's REQUANT
// table, and f runs on the host with the conv's result making a round trip.
// Here the chain becomes a graph.table of x and the mul is applied in the
// conv's epilogue: REQUANT gives x, a second REQUANT of the same
// accumulator tile through the table gives f(x) (exactly the chain's host
// result for every code), VMUL multiplies them with QLinearMul's
// arithmetic. Each stage is the unfused op's own arithmetic, so the result
// is the same bit for bit.
//
//===----------------------------------------------------------------------===//
#include "LayerLowering.h"
#include "TableChain.h"

#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

namespace systole::npu {
#define GEN_PASS_DEF_FUSEGATE
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;
using namespace systole::npu::tables;
namespace graph = systole::graph;

namespace {

bool isSignedInt8(Type t) {
  auto q = quantized8(t);
  return q && q.isSigned();
}

/// The producer of `x` when it can apply the gate: an NPU convolution whose
/// result only `reader` (the mul or the transpose before it) and one
/// dequantize read.
graph::Conv2DOp gateProducer(Value x, Operation *reader,
                             graph::DequantizeOp &dq) {
  auto conv = x.getDefiningOp<graph::Conv2DOp>();
  if (!conv || getPlacement(conv) != Placement::Npu)
    return {};
  dq = {};
  int uses = 0;
  for (OpOperand &use : x.getUses()) {
    ++uses;
    if (use.getOwner() == reader)
      continue;
    auto d = dyn_cast<graph::DequantizeOp>(use.getOwner());
    if (!d || dq)
      return {};
    dq = d;
  }
  return uses == 2 && dq ? conv : graph::Conv2DOp();
}

/// Whether applying `p` then `q` is the identity.
bool isInverse(llvm::ArrayRef<int64_t> p, llvm::ArrayRef<int64_t> q) {
  if (p.size() != q.size())
    return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[q[i]] != static_cast<int64_t>(i))
      return false;
  return true;
}

struct FuseGatePass : systole::npu::impl::FuseGateBase<FuseGatePass> {
  void runOnOperation() override {
    SmallVector<graph::MulOp> muls;
    getOperation().walk([&](graph::MulOp m) { muls.push_back(m); });
    for (graph::MulOp mul : muls) {
      if (getPlacement(mul) != Placement::Npu ||
          !isSignedInt8(mul.getLhs().getType()) ||
          !isSignedInt8(mul.getRhs().getType()) ||
          !isSignedInt8(mul.getOutput().getType()) ||
          binaryBroadcast(cast<ShapedType>(mul.getLhs().getType()),
                          cast<ShapedType>(mul.getRhs().getType())) !=
              BinaryBroadcast::Equal ||
          cast<ShapedType>(mul.getLhs().getType()).getShape() !=
              cast<ShapedType>(mul.getOutput().getType()).getShape())
        continue;
      for (unsigned k = 0; k < 2; ++k) {
        Value x = mul->getOperand(k), g = mul->getOperand(1 - k);
        // An NCHW mul (ToNHWC does not move transposes across host ops):
        // x reaches it through a transpose, f's chain through the same
        // transpose of the dequantized value.
        auto tx = x.getDefiningOp<graph::TransposeOp>();
        if (tx && tx.getOutput().hasOneUse())
          x = tx.getInput();
        else
          tx = {};
        graph::DequantizeOp dq;
        if (!gateProducer(x, tx ? tx.getOperation() : mul.getOperation(), dq))
          continue;
        auto q = g.getDefiningOp<graph::QuantizeOp>();
        if (!q || !g.hasOneUse())
          continue;
        std::optional<Chain> chain = chainAfter(dq, /*allowTranspose=*/true);
        if (!chain || chain->quantize != q)
          continue;
        auto tf = dyn_cast<graph::TransposeOp>(chain->ops.front());
        bool sameLayout = llvm::none_of(chain->ops, [&](Operation *op) {
          return llvm::isa<graph::TransposeOp>(op) && op != tf;
        });
        if (!sameLayout || bool(tx) != bool(tf) ||
            (tx && tx.getPerm() != tf.getPerm()))
          continue;
        auto table = evaluate(dq, *chain);
        if (!table) {
          dq.emitError() << "cannot compute the activation table: "
                         << llvm::toString(table.takeError());
          return signalPassFailure();
        }
        OpBuilder b(mul);
        graph::TableOp t =
            createTable(b, chain->ops.back()->getLoc(), x, q, *table);
        graph::MulOp gate = mul;
        if (tx) {
          // The mul in x's layout, then the transpose after it; a
          // transpose back to x's layout (the next NHWC op) cancels it.
          auto outType = cast<RankedTensorType>(x.getType())
                             .clone(getElementTypeOrSelf(mul.getType()));
          Value a = k == 0 ? x : t.getOutput(), c = k == 0 ? t.getOutput() : x;
          gate =
              b.create<graph::MulOp>(mul.getLoc(), outType, a, c,
                                     mul.getActMinAttr(), mul.getActMaxAttr());
          setPlacement(gate, Placement::Npu);
          auto back = b.create<graph::TransposeOp>(
              tx.getLoc(), mul.getType(), gate.getOutput(), tx.getPermAttr());
          setPlacement(back, Placement::Host);
          for (OpOperand &use :
               llvm::make_early_inc_range(mul.getOutput().getUses()))
            if (auto inv = dyn_cast<graph::TransposeOp>(use.getOwner());
                inv && inv.getOutput().getType() == outType &&
                isInverse(tx.getPerm(), inv.getPerm())) {
              inv.getOutput().replaceAllUsesWith(gate.getOutput());
              inv.erase();
            }
          mul.getOutput().replaceAllUsesWith(back.getOutput());
          if (back.getOutput().use_empty())
            back.erase();
          mul.erase();
          tx.erase();
        } else {
          mul->setOperand(1 - k, t.getOutput());
        }
        eraseChain(dq, *chain);
        gate->setAttr(kGateAttr,
                      IntegerAttr::get(IntegerType::get(&getContext(), 64), k));
        break;
      }
    }
  }
};

} // namespace
