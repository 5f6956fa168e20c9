//===- FuseGate.cpp - x * f(x) as one table of x --------------------------===//
//
// SiLU (EfficientNet, YOLO) is exported as x * Sigmoid(x), HardSwish at
// low opsets as x * HardSigmoid(x) or x * Clip(x + 3, 0, 6) / 6; a QDQ
// model quantizes f(x) on its own (DequantizeLinear -> f -> QuantizeLinear,
// possibly in several quantized steps) and multiplies with QLinearMul. x is
// then read twice, so npu-fold-tables cannot make f the producer's REQUANT
// table, and f runs on the host with x making a round trip.
//
// But the product is still a function of x's code alone: with f's table T
// (the chain's host code run on the 256 codes, as npu-fold-tables computes
// it, each quantized step composed) the result for code c is
// QLinearMul(c, T[c]), evaluated with the ISA's own VMUL arithmetic
// (isa::mulValue, which is MLAS's and what the NPU computes). So the chain
// and the mul become one graph.table of x, which the producer's REQUANT
// applies (npu-fold-tables then composes any chain after it, e.g. the
// "/ 6"): no extra instruction, nothing on the host.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"
#include "TableChain.h"

#include "systole/ISA/Arithmetic.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

#include "mlir/IR/Matchers.h"

namespace systole::npu {
#define GEN_PASS_DEF_FUSEGATE
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;
using namespace systole::npu::tables;
namespace graph = systole::graph;
namespace isa = systole::isa;

namespace {

/// Whether applying `p` then `q` is the identity.
bool isInverse(llvm::ArrayRef<int64_t> p, llvm::ArrayRef<int64_t> q) {
  if (p.size() != q.size())
    return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[q[i]] != static_cast<int64_t>(i))
      return false;
  return true;
}

/// One quantized step of f: a chain from a dequantize to its quantize.
struct Step {
  graph::DequantizeOp dq;
  Chain chain;
};

/// The dequantize a chain ending in `q` starts from: follows the non-
/// constant operand of each op back from the quantize's input.
graph::DequantizeOp chainRoot(graph::QuantizeOp q) {
  Value v = q.getInput();
  for (int depth = 0; depth < 64; ++depth) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return {};
    if (auto dq = dyn_cast<graph::DequantizeOp>(def))
      return dq;
    Value next;
    for (Value o : def->getOperands())
      if (!matchPattern(o, m_Constant())) {
        if (next)
          return {}; // two activation operands: not a chain
        next = o;
      }
    if (!next)
      return {};
    v = next;
  }
  return {};
}

/// f's quantized steps from `x` (through `dqOfX`'s chain) to `g`, outermost
/// last, when `g` is Q(f_k(DQ(... Q(f_1(DQ(x))))))
/// with every intermediate value read only by the next step.
std::optional<SmallVector<Step>> stepsTo(Value g, Value x,
                                         bool allowTranspose) {
  SmallVector<Step> steps;
  Value cur = g;
  while (true) {
    auto q = cur.getDefiningOp<graph::QuantizeOp>();
    if (!q || !cur.hasOneUse() || !quantized8(q.getOutput().getType()))
      return std::nullopt;
    graph::DequantizeOp dq = chainRoot(q);
    if (!dq)
      return std::nullopt;
    bool first = dq.getInput() == x;
    std::optional<Chain> chain = chainAfter(dq, allowTranspose && first);
    if (!chain || chain->quantize != q)
      return std::nullopt;
    steps.insert(steps.begin(), Step{dq, *chain});
    if (first)
      return steps;
    cur = dq.getInput();
    if (!cur.hasOneUse())
      return std::nullopt;
  }
}

/// Whether `v` is an NPU convolution's or matmul's result (whose REQUANT
/// can apply a table).
bool isTableable(Value v) {
  Operation *p = v.getDefiningOp();
  return p && llvm::isa<graph::Conv2DOp, graph::MatMulOp>(p) &&
         getPlacement(p) == Placement::Npu;
}

/// A chain from an NPU convolution's or matmul's result to `x`, as
/// Q(f(DQ(p))) with p read only by it, whose constants may hold one value
/// per channel: a transformer's bias Add, which exporters keep apart from
/// its MatMul (ViT's MLP: MatMul -> Add(bias) -> GELU). The chain is a
/// [C, 256] table of p that the gate's table composes with; npu-fold-tables
/// would make it a table layer of its own (VLUT) otherwise.
struct ProducerChain {
  graph::DequantizeOp dq;
  Chain chain;
};
std::optional<ProducerChain> producerChainTo(Value x) {
  auto q = x.getDefiningOp<graph::QuantizeOp>();
  if (!q || !quantized8(x.getType()))
    return std::nullopt;
  graph::DequantizeOp dq = chainRoot(q);
  // The same shape on both ends: no reshape alias between p and x.
  if (!dq || !isTableable(dq.getInput()) || !dq.getInput().hasOneUse() ||
      !quantized8(dq.getInput().getType()) ||
      cast<ShapedType>(dq.getInput().getType()).getShape() !=
          cast<ShapedType>(x.getType()).getShape())
    return std::nullopt;
  std::optional<Chain> chain = chainAfter(dq, /*allowTranspose=*/false,
                                          /*allowPerChannel=*/true);
  if (!chain || chain->quantize != q)
    return std::nullopt;
  return ProducerChain{dq, *chain};
}

/// The dequantize reading `x` beside `reader` (the mul or the transpose
/// before it) when x's producer can apply a table: an NPU convolution or
/// matmul, an NPU table of one read only by that table (the tables
/// compose), or (`allowChain`) a chain from one (producerChainTo), and x
/// has no other reader.
graph::DequantizeOp soleOtherReader(Value x, Operation *reader,
                                    bool allowChain) {
  auto t = x.getDefiningOp<graph::TableOp>();
  if (t ? !(getPlacement(t) == Placement::Npu && isTableable(t.getInput()) &&
            t.getInput().hasOneUse())
        : !isTableable(x) && !(allowChain && producerChainTo(x)))
    return {};
  graph::DequantizeOp dq;
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
  return uses == 2 ? dq : graph::DequantizeOp();
}

struct FuseGatePass : systole::npu::impl::FuseGateBase<FuseGatePass> {
  void runOnOperation() override {
    SmallVector<graph::MulOp> muls;
    getOperation().walk([&](graph::MulOp m) { muls.push_back(m); });
    for (graph::MulOp mul : muls)
      if (failed(foldGate(mul)))
        return signalPassFailure();
  }

  LogicalResult foldGate(graph::MulOp mul) {
    if (getPlacement(mul) != Placement::Npu ||
        !quantized8(mul.getLhs().getType()) ||
        !quantized8(mul.getRhs().getType()) ||
        !quantized8(mul.getOutput().getType()) ||
        // int8 and uint8 mixed: no QLinearMul kernel (the host's float).
        quantized8(mul.getLhs().getType()).isSigned() !=
            quantized8(mul.getOutput().getType()).isSigned() ||
        quantized8(mul.getRhs().getType()).isSigned() !=
            quantized8(mul.getOutput().getType()).isSigned() ||
        binaryBroadcast(cast<ShapedType>(mul.getLhs().getType()),
                        cast<ShapedType>(mul.getRhs().getType())) !=
            BinaryBroadcast::Equal ||
        cast<ShapedType>(mul.getLhs().getType()).getShape() !=
            cast<ShapedType>(mul.getOutput().getType()).getShape())
      return success();
    for (unsigned k = 0; k < 2; ++k) {
      Value x = mul->getOperand(k), g = mul->getOperand(1 - k);
      // An NCHW mul (ToNHWC does not move transposes across host ops): x
      // reaches it through a transpose, f's chain through the same
      // transpose of the dequantized value.
      auto tx = x.getDefiningOp<graph::TransposeOp>();
      if (tx && tx.getOutput().hasOneUse())
        x = tx.getInput();
      else
        tx = {};
      graph::DequantizeOp dqx =
          soleOtherReader(x, tx ? tx.getOperation() : mul.getOperation(),
                          /*allowChain=*/!tx);
      if (!dqx)
        continue;
      auto steps = stepsTo(g, x, /*allowTranspose=*/bool(tx));
      if (!steps || steps->front().dq != dqx)
        continue;
      // The first step may transpose (exactly as x's operand does); no
      // other step may.
      auto tf = dyn_cast<graph::TransposeOp>(steps->front().chain.ops.front());
      bool oneTranspose = llvm::all_of(*steps, [&](const Step &s) {
        return llvm::none_of(s.chain.ops, [&](Operation *op) {
          return llvm::isa<graph::TransposeOp>(op) && op != tf;
        });
      });
      if (!oneTranspose || bool(tx) != bool(tf) ||
          (tx && tx.getPerm() != tf.getPerm()))
        continue;

      // f's table over x's codes (index: code - storage minimum), step by
      // step, as codes of each step's output type.
      auto xq = quantized8(x.getType());
      std::vector<int32_t> f(256);
      for (int i = 0; i < 256; ++i)
        f[i] = int32_t(xq.getStorageTypeMin()) + i;
      for (Step s : *steps) {
        auto t = evaluate(s.dq, s.chain);
        if (!t)
          return s.dq.emitError() << "cannot compute the activation table: "
                                  << llvm::toString(t.takeError());
        auto in = quantized8(s.dq.getInput().getType());
        auto out = quantized8(s.chain.quantize.getOutput().getType());
        for (int32_t &v : f)
          v = codeOf(out, (*t)[v - in.getStorageTypeMin()]);
      }
      // QLinearMul(x, f(x)) per code, the operands in the mul's order, with
      // the stored zero points and bounds (uint8: unsigned, the uint8
      // kernel's arithmetic).
      QParams qa = perTensorParams(mul.getLhs().getType());
      QParams qb = perTensorParams(mul.getRhs().getType());
      QParams qc = perTensorParams(mul.getOutput().getType());
      float ratio = mulRatio(qa, qb, qc);
      auto [lo, hi] = clampBounds(mul);
      if (qc.isUnsigned) {
        for (QParams *q : {&qa, &qb, &qc})
          q->zeroPoint += 128;
        lo += 128, hi += 128;
      }
      std::vector<int8_t> table(256);
      for (int i = 0; i < 256; ++i) {
        int32_t c = int32_t(xq.getStorageTypeMin()) + i, fc = f[i];
        table[i] = static_cast<int8_t>(
            isa::mulValue(k == 0 ? c : fc, k == 0 ? fc : c, qa.zeroPoint,
                          qb.zeroPoint, qc.zeroPoint, ratio,
                          static_cast<int32_t>(lo), static_cast<int32_t>(hi)));
      }

      // x a chain of the producer's result: that chain's table first.
      if (std::optional<ProducerChain> pc = producerChainTo(x)) {
        auto t = evaluate(pc->dq, pc->chain);
        if (!t)
          return pc->dq.emitError() << "cannot compute the activation table: "
                                    << llvm::toString(t.takeError());
        x = replaceChain(pc->dq, pc->chain, pc->dq.getInput(), *t, nullptr)
                .getOutput();
      }
      // x itself a table of the producer's result: one table of that.
      Value input = x;
      auto first = x.getDefiningOp<graph::TableOp>();
      if (first) {
        table = composeAfter(first, table);
        input = first.getInput();
      }
      OpBuilder b(mul);
      auto outType = cast<RankedTensorType>(x.getType())
                         .clone(getElementTypeOrSelf(mul.getType()));
      auto t = b.create<graph::TableOp>(mul.getLoc(), outType, input,
                                        tableAttr(b, table));
      setPlacement(t, Placement::Npu);
      Value result = t.getOutput();
      if (tx) {
        // The table is in x's layout; the mul's result is transposed. A
        // transpose back to x's layout (the next NHWC op) cancels.
        for (OpOperand &use :
             llvm::make_early_inc_range(mul.getOutput().getUses()))
          if (auto inv = dyn_cast<graph::TransposeOp>(use.getOwner());
              inv && inv.getOutput().getType() == outType &&
              isInverse(tx.getPerm(), inv.getPerm())) {
            inv.getOutput().replaceAllUsesWith(result);
            inv.erase();
          }
        if (!mul.getOutput().use_empty()) {
          auto back = b.create<graph::TransposeOp>(tx.getLoc(), mul.getType(),
                                                   result, tx.getPermAttr());
          setPlacement(back, Placement::Host);
          result = back;
        }
      }
      mul.getOutput().replaceAllUsesWith(result);
      mul.erase();
      if (tx)
        tx.erase();
      for (const Step &s : llvm::reverse(*steps))
        eraseChain(s.dq, s.chain);
      if (first)
        first.erase();
      return success();
    }
    return success();
  }
};

} // namespace
