//===- ToNHWC.cpp - Convert 4-D activations to NHWC -----------------------===//
//
// Wraps every NCHW window op in transposes, then lets canonical patterns push
// the transposes through layout-agnostic ops until pairs meet and cancel.
//
//===----------------------------------------------------------------------===//
#include "ChannelGather.h"
#include "systole/Dialect/Graph/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
    // A lower-rank operand broadcasts with leading 1s (ONNX): ConvNeXt's
    // [C, 1, 1] layer scale is a [1, C, 1, 1] one.
    int64_t rank = static_cast<int64_t>(perm.size());
    auto paddedShape = [&](RankedTensorType type) {
      SmallVector<int64_t> shape(rank - type.getRank(), 1);
      llvm::append_range(shape, type.getShape());
      return shape;
    };
    auto movesUnitDimsOnly = [&](Value v) {
      auto type = cast<RankedTensorType>(v.getType());
      if (type.getRank() > rank ||
          isa<quant::UniformQuantizedPerAxisType>(type.getElementType()))
        return false;
      SmallVector<int64_t> shape = paddedShape(type);
      int64_t last = -1;
      for (int64_t p : inverse) {
        if (shape[p] == 1)
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
      auto type = cast<RankedTensorType>(v.getType());
      if (type.getRank() < rank && movesUnitDimsOnly(v)) {
        SmallVector<int64_t> shape = paddedShape(type), moved;
        for (int64_t p : inverse)
          moved.push_back(shape[p]);
        return rewriter.create<ReshapeOp>(op.getLoc(), type.clone(moved), v);
      }
      if (type.getRank() != rank)
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

/// host(transpose(x, p), c...) -> transpose(host(x, c...), p) for a host op
/// whose body is elementwise in x: LeakyRelu, Max(x, 0.0), and
/// BatchNormalization with its [C] parameters. tf2onnx wraps every NHWC op
/// of a TensorFlow model in transposes and a pre-activation BatchNorm sits
/// between NHWC convolutions; without this a transpose stops at the first
/// such op, which stays on the host in NCHW, and no table can absorb it.
///
/// The body is re-typed, not rebuilt. Accepted only when every
/// linalg.generic in it is all-parallel, reads and writes x-shaped tensors
/// with identity maps and anything else (a parameter, a scalar) with maps
/// whose results are loop dims or 0; those maps are renamed into the new
/// loop order (old loop dim i is new dim p[i]). Other operands must not be
/// x-shaped: they are not transposed.
struct SinkTransposeHost : OpRewritePattern<HostOp> {
  using OpRewritePattern::OpRewritePattern;

  /// The generics of an elementwise body, or nothing.
  static std::optional<SmallVector<linalg::GenericOp>>
  elementwiseBody(HostOp op, ArrayRef<int64_t> shape) {
    auto full = [&](Type t) {
      auto rt = dyn_cast<RankedTensorType>(t);
      return rt && rt.getShape() == shape;
    };
    llvm::DenseSet<Type> params;
    for (BlockArgument a : op.getBody().getArguments().drop_front())
      params.insert(a.getType());
    auto tensorOk = [&](Type t) {
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt)
        return !isa<ShapedType>(t);
      return rt.hasStaticShape() &&
             (full(t) || rt.getNumElements() == 1 || params.contains(t));
    };
    SmallVector<linalg::GenericOp> generics;
    WalkResult r = op.getBody().walk([&](Operation *inner) {
      for (Type t : inner->getResultTypes())
        if (!tensorOk(t))
          return WalkResult::interrupt();
      for (Type t : inner->getOperandTypes())
        if (!tensorOk(t))
          return WalkResult::interrupt();
      if (isa<tensor::EmptyOp, YieldOp, linalg::YieldOp>(inner))
        return WalkResult::advance();
      if (auto g = dyn_cast<linalg::GenericOp>(inner)) {
        if (g.getNumReductionLoops() != 0 ||
            g.getNumLoops() != static_cast<unsigned>(shape.size()))
          return WalkResult::interrupt();
        for (OpOperand &o : g->getOpOperands()) {
          AffineMap m = g.getMatchingIndexingMap(&o);
          if (full(o.get().getType())
                  ? !m.isIdentity()
                  : !llvm::all_of(m.getResults(), [](AffineExpr e) {
                      auto c = dyn_cast<AffineConstantExpr>(e);
                      return isa<AffineDimExpr>(e) || (c && c.getValue() == 0);
                    }))
            return WalkResult::interrupt();
        }
        generics.push_back(g);
        return WalkResult::advance();
      }
      // Scalar arith/math inside the generic, scalar constants.
      bool tensors = llvm::any_of(inner->getResultTypes(),
                                  [](Type t) { return isa<ShapedType>(t); });
      if (tensors &&
          !(isa<arith::ConstantOp>(inner) &&
            cast<ShapedType>(inner->getResult(0).getType()).getNumElements() ==
                1))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return std::nullopt;
    return generics;
  }

  LogicalResult matchAndRewrite(HostOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getInputs().empty())
      return failure();
    auto t = op.getInputs()[0].getDefiningOp<TransposeOp>();
    if (!t)
      return failure();
    auto in = cast<RankedTensorType>(t.getOutput().getType());
    auto out = cast<RankedTensorType>(op.getOutput().getType());
    if (!in.hasStaticShape() || in.getShape() != out.getShape() ||
        in.getNumElements() == 1 ||
        isa<quant::QuantizedType>(in.getElementType()) ||
        isa<quant::QuantizedType>(out.getElementType()))
      return failure();
    ArrayRef<int64_t> shape = in.getShape();
    for (Value v : op.getInputs().drop_front()) {
      auto vt = cast<RankedTensorType>(v.getType());
      if (!vt.hasStaticShape() || vt.getShape() == shape ||
          isa<quant::QuantizedType>(vt.getElementType()))
        return failure();
    }
    if (!elementwiseBody(op, shape))
      return failure();
    SmallVector<int64_t> moved = llvm::to_vector(
        cast<RankedTensorType>(t.getInput().getType()).getShape());
    ArrayRef<int64_t> perm = t.getPerm();
    SmallVector<Value> operands(op.getInputs());
    operands[0] = t.getInput();
    auto newOp = rewriter.create<HostOp>(
        op.getLoc(), RankedTensorType::get(moved, out.getElementType()),
        operands, op.getOnnxOpAttr(), op.getParamsAttr());
    newOp->setAttrs(op->getAttrs());
    rewriter.cloneRegionBefore(op.getBody(), newOp.getBody(),
                               newOp.getBody().end());
    // Parameter maps first (they are told apart by their old types).
    SmallVector<AffineExpr> rename;
    for (int64_t p : perm)
      rename.push_back(rewriter.getAffineDimExpr(p));
    for (linalg::GenericOp g : *elementwiseBody(newOp, shape)) {
      SmallVector<Attribute> maps;
      for (OpOperand &o : g->getOpOperands()) {
        AffineMap m = g.getMatchingIndexingMap(&o);
        auto rt = cast<RankedTensorType>(o.get().getType());
        if (rt.getShape() != shape)
          m = m.replaceDimsAndSymbols(rename, {}, m.getNumDims(), 0);
        maps.push_back(AffineMapAttr::get(m));
      }
      g->setAttr("indexing_maps", rewriter.getArrayAttr(maps));
    }
    auto retype = [&](Value v) {
      auto rt = dyn_cast<RankedTensorType>(v.getType());
      if (rt && rt.getShape() == shape)
        v.setType(RankedTensorType::get(moved, rt.getElementType()));
    };
    for (BlockArgument a : newOp.getBody().getArguments())
      retype(a);
    newOp.getBody().walk([&](Operation *inner) {
      for (Value r : inner->getResults())
        retype(r);
    });
    rewriter.replaceOp(
        op, createTranspose(rewriter, op.getLoc(), newOp.getOutput(), perm));
    return success();
  }
};

/// Per-dimension values of op(transpose(x, perm)) as they apply to x: the
/// value of result dim i belongs to x's dim perm[i].
SmallVector<int64_t> beforeTranspose(ArrayRef<int64_t> values,
                                     ArrayRef<int64_t> perm) {
  SmallVector<int64_t> out(values.size());
  for (size_t i = 0; i < perm.size(); ++i)
    out[perm[i]] = values[i];
  return out;
}

/// op(transpose(x, p)) -> transpose(op'(x), p) for an op whose attributes
/// are per dimension (`build` makes op' from x, its result type and the
/// attributes moved with beforeTranspose).
template <typename OpT>
LogicalResult sinkThrough(OpT op, PatternRewriter &rewriter,
                          llvm::function_ref<Value(TransposeOp, Type)> build) {
  auto t = op.getInput().template getDefiningOp<TransposeOp>();
  if (!t)
    return failure();
  auto out = cast<RankedTensorType>(op.getOutput().getType());
  Type type = RankedTensorType::get(
      beforeTranspose(out.getShape(), t.getPerm()),
      cast<RankedTensorType>(t.getInput().getType()).getElementType());
  rewriter.replaceOp(
      op, createTranspose(rewriter, op.getLoc(), build(t, type), t.getPerm()));
  return success();
}

/// slice(transpose(x, p)) -> transpose(slice'(x), p): offsets and strides
/// follow their dims (a channel split of an NCHW view is a last-dim slice
/// of the NHWC tensor).
struct SinkTransposeSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    return sinkThrough(op, rewriter, [&](TransposeOp t, Type type) -> Value {
      return rewriter.create<SliceOp>(
          op.getLoc(), type, t.getInput(),
          rewriter.getDenseI64ArrayAttr(
              beforeTranspose(op.getOffsets(), t.getPerm())),
          rewriter.getDenseI64ArrayAttr(
              beforeTranspose(op.getStrides(), t.getPerm())));
    });
  }
};

/// pad(transpose(x, p), pads) -> transpose(pad(x, pads permuted), p): an
/// explicit Pad between NCHW layers (TensorFlow converters write one
/// before a pool) pads H and W of the NHWC tensor.
struct SinkTransposePad : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    return sinkThrough(op, rewriter, [&](TransposeOp t, Type type) -> Value {
      ArrayRef<int64_t> pads = op.getPads(), perm = t.getPerm();
      size_t rank = perm.size();
      SmallVector<int64_t> moved = beforeTranspose(pads.take_front(rank), perm);
      llvm::append_range(moved, beforeTranspose(pads.drop_front(rank), perm));
      return rewriter.create<PadOp>(op.getLoc(), type, t.getInput(),
                                    rewriter.getDenseI64ArrayAttr(moved),
                                    op.getValueAttr());
    });
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
    patterns
        .add<ConvertWindowOp<Conv2DOp>, ConvertWindowOp<PoolOp>,
             ConvertWindowOp<GlobalAvgPoolOp>, ConvertWindowOp<UpsampleOp>,
             ConvertWindowOp<DepthToSpaceOp>, ConvertWindowOp<SpaceToDepthOp>>(
            ctx);
    patterns.add<SinkTransposeUnary<RequantizeOp>, SinkTransposeUnary<ClipOp>,
                 SinkTransposeUnary<QuantizeOp>,
                 SinkTransposeUnary<DequantizeOp>, SinkTransposeUnary<UnaryOp>>(
        ctx);
    patterns.add<SinkTransposeBinary<AddOp>, SinkTransposeBinary<MulOp>,
                 SinkTransposeBinary<SubOp>, SinkTransposeBinary<DivOp>>(ctx);
    patterns.add<SinkTransposeConcat, SinkTransposeHost, SinkTransposeSlice,
                 SinkTransposePad, TransposeOfUnitDimsToReshape>(ctx);
    populateChannelGatherPatterns(patterns);
    TransposeOp::getCanonicalizationPatterns(patterns, ctx);
    ReshapeOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
