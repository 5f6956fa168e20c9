//===- ToNHWC.cpp - Convert 4-D activations to NHWC -----------------------===//
//
// Wraps every NCHW window op in transposes, then lets canonical patterns push
// the transposes through layout-agnostic ops until pairs meet and cancel.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/Graph/Passes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace systole::graph {
#define GEN_PASS_DEF_TONHWC
#include "systole/Dialect/Graph/Passes.h.inc"
} // namespace systole::graph

using namespace mlir;
using namespace systole::graph;

namespace {

constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};
/// OIHW -> HWIO.
constexpr int64_t kFilterToHWIO[] = {2, 3, 1, 0};

/// The element type of a permuted tensor: per-axis parameters follow their
/// axis to its new position.
Type permuteElement(Type elem, ArrayRef<int64_t> perm) {
  auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(elem);
  if (!pa)
    return elem;
  int32_t axis = pa.getQuantizedDimension();
  int32_t moved = static_cast<int32_t>(llvm::find(perm, axis) - perm.begin());
  return quant::UniformQuantizedPerAxisType::get(
      pa.getFlags(), pa.getStorageType(), pa.getExpressedType(), pa.getScales(),
      pa.getZeroPoints(), moved, pa.getStorageTypeMin(),
      pa.getStorageTypeMax());
}

Value createTranspose(PatternRewriter &rewriter, Location loc, Value v,
                      ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  auto result =
      RankedTensorType::get(shape, permuteElement(type.getElementType(), perm));
  return rewriter.create<TransposeOp>(loc, result, v,
                                      rewriter.getDenseI64ArrayAttr(perm));
}

RankedTensorType permutedType(Type t, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(t);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return RankedTensorType::get(shape,
                               permuteElement(type.getElementType(), perm));
}

/// conv2d / pool / global_avg_pool in NCHW -> the same op in NHWC between
/// transposes.
template <typename OpT> struct ConvertWindowOp : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    if (op.getLayout() != Layout::NCHW)
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> operands(op->getOperands());
    operands[0] = createTranspose(rewriter, loc, operands[0], kToNHWC);
    if constexpr (std::is_same_v<OpT, Conv2DOp>)
      operands[1] = createTranspose(rewriter, loc, operands[1], kFilterToHWIO);
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addAttributes(op->getAttrs());
    state.attributes.set("layout",
                         LayoutAttr::get(op.getContext(), Layout::NHWC));
    state.addTypes(permutedType(op.getOutput().getType(), kToNHWC));
    Operation *converted = rewriter.create(state);
    rewriter.replaceOp(
        op, createTranspose(rewriter, loc, converted->getResult(0), kToNCHW));
    return success();
  }
};

/// unary(transpose(x, p)) -> transpose(unary(x), p) for elementwise ops.
template <typename OpT> struct SinkTransposeUnary : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    auto t = op->getOperand(0).template getDefiningOp<TransposeOp>();
    if (!t)
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    SmallVector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[perm[i]] = static_cast<int64_t>(i);
    OperationState state(op.getLoc(), op->getName());
    state.addOperands(t.getInput());
    state.addAttributes(op->getAttrs());
    state.addTypes(permutedType(op->getResult(0).getType(), inverse));
    Operation *moved = rewriter.create(state);
    rewriter.replaceOp(
        op, createTranspose(rewriter, op.getLoc(), moved->getResult(0), perm));
    return success();
  }
};

/// binary(transpose(a, p), transpose(b, p)) -> transpose(binary(a, b), p),
/// for operands of equal rank (broadcast dims move with the permutation).
template <typename OpT> struct SinkTransposeBinary : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    auto ta = op.getLhs().template getDefiningOp<TransposeOp>();
    auto tb = op.getRhs().template getDefiningOp<TransposeOp>();
    if (!ta && !tb)
      return failure();
    if (ta && tb && ta.getPerm() != tb.getPerm())
      return failure();
    ArrayRef<int64_t> perm = ta ? ta.getPerm() : tb.getPerm();
    SmallVector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[perm[i]] = static_cast<int64_t>(i);
    // With one side untransposed, move it into the other layout when that is
    // free: a graph input (its transpose is shared), another transpose (they
    // compose), or a broadcast operand whose non-unit dims keep their order
    // (e.g. squeeze-excitation's [1,C,1,1] scale: a reshape, no data
    // movement); anything else would add work.
    auto movesUnitDimsOnly = [&](Value v) {
      auto type = cast<RankedTensorType>(v.getType());
      if (type.getRank() != static_cast<int64_t>(perm.size()) ||
          isa<quant::UniformQuantizedPerAxisType>(type.getElementType()))
        return false;
      int64_t last = -1;
      for (int64_t p : inverse) {
        if (type.getDimSize(p) == 1)
          continue;
        if (p < last)
          return false;
        last = p;
      }
      return true;
    };
    // A one-element operand (GELU's 1 / sqrt(2), HardSwish's 6) broadcasts
    // the same in every layout: it stays as it is.
    auto isScalar = [&](Value v) {
      auto type = cast<RankedTensorType>(v.getType());
      return type.getNumElements() == 1 &&
             type.getRank() <= static_cast<int64_t>(perm.size()) &&
             !isa<quant::UniformQuantizedPerAxisType>(type.getElementType());
    };
    auto movable = [&](Value v) {
      return isa<BlockArgument>(v) || v.template getDefiningOp<TransposeOp>() ||
             movesUnitDimsOnly(v) || isScalar(v);
    };
    auto operandIn = [&](Value v, TransposeOp t) -> Value {
      if (t)
        return t.getInput();
      if (isScalar(v))
        return v;
      if (cast<RankedTensorType>(v.getType()).getRank() !=
          static_cast<int64_t>(perm.size()))
        return Value();
      if (!isa<BlockArgument>(v) && !v.template getDefiningOp<TransposeOp>())
        return rewriter.create<ReshapeOp>(
            op.getLoc(), permutedType(v.getType(), inverse), v);
      return createTranspose(rewriter, op.getLoc(), v, inverse);
    };
    if ((!ta && !movable(op.getLhs())) || (!tb && !movable(op.getRhs())))
      return failure();
    Value lhs = operandIn(op.getLhs(), ta), rhs = operandIn(op.getRhs(), tb);
    if (!lhs || !rhs)
      return failure();
    OperationState state(op.getLoc(), op->getName());
    state.addOperands({lhs, rhs});
    state.addAttributes(op->getAttrs());
    state.addTypes(permutedType(op.getOutput().getType(), inverse));
    Operation *moved = rewriter.create(state);
    rewriter.replaceOp(
        op, createTranspose(rewriter, op.getLoc(), moved->getResult(0), perm));
    return success();
  }
};

/// concat(transpose(x_i, p), axis) -> transpose(concat(x_i, p[axis]), p).
struct SinkTransposeConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    ArrayRef<int64_t> perm;
    for (Value v : op.getInputs()) {
      auto t = v.getDefiningOp<TransposeOp>();
      if (!t || (!perm.empty() && t.getPerm() != perm))
        return failure();
      perm = t.getPerm();
      inputs.push_back(t.getInput());
    }
    SmallVector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[perm[i]] = static_cast<int64_t>(i);
    auto moved = rewriter.create<ConcatOp>(
        op.getLoc(), permutedType(op.getOutput().getType(), inverse), inputs,
        rewriter.getI64IntegerAttr(perm[op.getAxis()]));
    rewriter.replaceOp(op, createTranspose(rewriter, op.getLoc(), moved, perm));
    return success();
  }
};

/// A transpose that keeps the order of all non-unit dimensions moves no data:
/// it is a reshape (e.g. NHWC [1,1,1,C] -> NCHW [1,C,1,1]).
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    int64_t last = -1;
    for (int64_t p : op.getPerm()) {
      if (in.getDimSize(p) == 1)
        continue;
      if (p < last)
        return failure();
      last = p;
    }
    if (isa<quant::UniformQuantizedPerAxisType>(in.getElementType()))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getOutput().getType(),
                                           op.getInput());
    return success();
  }
};

struct ToNHWCPass : systole::graph::impl::ToNHWCBase<ToNHWCPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<ConvertWindowOp<Conv2DOp>, ConvertWindowOp<PoolOp>,
                 ConvertWindowOp<GlobalAvgPoolOp>>(ctx);
    patterns.add<SinkTransposeUnary<RequantizeOp>, SinkTransposeUnary<ClipOp>,
                 SinkTransposeUnary<QuantizeOp>,
                 SinkTransposeUnary<DequantizeOp>, SinkTransposeUnary<UnaryOp>>(
        ctx);
    patterns.add<SinkTransposeBinary<AddOp>, SinkTransposeBinary<MulOp>,
                 SinkTransposeBinary<SubOp>, SinkTransposeBinary<DivOp>>(ctx);
    patterns.add<SinkTransposeConcat, TransposeOfUnitDimsToReshape>(ctx);
    TransposeOp::getCanonicalizationPatterns(patterns, ctx);
    ReshapeOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
