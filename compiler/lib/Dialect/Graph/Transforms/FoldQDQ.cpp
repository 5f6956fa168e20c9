//===- FoldQDQ.cpp - Fold Q/DQ pairs into quantized ops -------------------===//
//
// ONNX QDQ models express `QLinearConv` as DQ -> Conv -> Q. This pass turns
// such islands into one quantized op, mirroring the fusions ONNX Runtime
// performs with `session.qdqisint8allowed=1`, which is the numerical reference.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/Graph/ConstantTensors.h"
#include "systole/Dialect/Graph/Passes.h"
#include "systole/Dialect/Graph/QuantizedTypes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace systole::graph {
#define GEN_PASS_DEF_FOLDQDQ
#include "systole/Dialect/Graph/Passes.h.inc"
} // namespace systole::graph

using namespace mlir;
using namespace systole::graph;

namespace {

/// Quantizes one real value the way ONNX QuantizeLinear does (fp32 division,
/// round half to even, saturate), for turning Clip bounds into int8 bounds.
int64_t quantizeScalar(double value, quant::UniformQuantizedType type) {
  float q = static_cast<float>(value) / static_cast<float>(type.getScale());
  double r = std::nearbyint(q) + type.getZeroPoint();
  r = std::max<double>(r, type.getStorageTypeMin());
  r = std::min<double>(r, type.getStorageTypeMax());
  return static_cast<int64_t>(r);
}

/// Ops whose integer form needs only the operands' and result's parameters:
/// they requantize internally, so their Q/DQ fold unconditionally.
bool isRequantizingOp(Operation *op) {
  return isa<Conv2DOp, MatMulOp, AddOp, MulOp, GlobalAvgPoolOp>(op) ||
         (isa<PoolOp>(op) && cast<PoolOp>(op).getKind() == PoolKind::Avg);
}

/// Ops that only move or select values: exact on integers when the input and
/// output parameters agree.
bool isDataMovementOp(Operation *op) {
  return isa<ReshapeOp, TransposeOp, ConcatOp, PadOp, UpsampleOp,
             DepthToSpaceOp, SpaceToDepthOp, SliceOp>(op) ||
         (isa<PoolOp>(op) && cast<PoolOp>(op).getKind() == PoolKind::Max);
}

Type withElementType(Type shaped, Type element) {
  return cast<RankedTensorType>(shaped).clone(element);
}

struct FoldQuantizedIsland : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp q,
                                PatternRewriter &rewriter) const override {
    auto outType = cast<RankedTensorType>(q.getOutput().getType());
    auto outQuant =
        dyn_cast<quant::UniformQuantizedType>(outType.getElementType());
    if (!outQuant)
      return rewriter.notifyMatchFailure(q, "per-axis activation quantization");

    Operation *producer = q.getInput().getDefiningOp();
    if (!producer || !producer->hasOneUse())
      return rewriter.notifyMatchFailure(q, "producer has other users");

    // A Relu/Clip between the op and its Q becomes a clamp of the int8 result.
    std::optional<int64_t> actMin, actMax;
    if (auto clip = dyn_cast<ClipOp>(producer)) {
      Operation *inner = clip.getInput().getDefiningOp();
      if (inner && inner->hasOneUse() && isRequantizingOp(inner) &&
          !isa<GlobalAvgPoolOp, PoolOp>(inner)) {
        if (clip.getMin())
          actMin = quantizeScalar(clip.getMin()->convertToDouble(), outQuant);
        if (clip.getMax())
          actMax = quantizeScalar(clip.getMax()->convertToDouble(), outQuant);
        producer = inner;
      }
    }
    if (producer->getDialect() != q->getDialect() ||
        !(isRequantizingOp(producer) || isDataMovementOp(producer)))
      return rewriter.notifyMatchFailure(q, "producer is not foldable");

    // Every float operand must come straight from a DequantizeLinear.
    SmallVector<Value> operands;
    for (Value v : producer->getOperands()) {
      auto dq = v.getDefiningOp<DequantizeOp>();
      if (!dq)
        return rewriter.notifyMatchFailure(q, "operand is not dequantized");
      operands.push_back(dq.getInput());
    }

    if (isRequantizingOp(producer))
      return foldRequantizing(q, producer, operands, actMin, actMax, rewriter);
    return foldDataMovement(q, producer, operands, rewriter);
  }

  LogicalResult foldRequantizing(QuantizeOp q, Operation *producer,
                                 ArrayRef<Value> operands,
                                 std::optional<int64_t> actMin,
                                 std::optional<int64_t> actMax,
                                 PatternRewriter &rewriter) const {
    // Activations (the first operand, and both sides of add/mul) must be
    // per-tensor; weights and bias may be per-axis.
    if (!isa<quant::UniformQuantizedType>(
            getElementTypeOrSelf(operands.front().getType())))
      return rewriter.notifyMatchFailure(q, "per-axis activation input");
    OperationState state(producer->getLoc(), producer->getName());
    state.addOperands(operands);
    state.addAttributes(producer->getAttrs());
    state.addTypes(q.getOutput().getType());
    Operation *folded = rewriter.create(state);
    if (actMin)
      folded->setAttr("act_min", rewriter.getI64IntegerAttr(*actMin));
    if (actMax)
      folded->setAttr("act_max", rewriter.getI64IntegerAttr(*actMax));
    rewriter.replaceOp(q, folded->getResults());
    return success();
  }

  LogicalResult foldDataMovement(QuantizeOp q, Operation *producer,
                                 ArrayRef<Value> operands,
                                 PatternRewriter &rewriter) const {
    // Integer data movement is exact only if all inputs share one parameter
    // set; the output then carries the input's parameters and a requantize
    // reproduces ORT's float DQ -> Q when the Q's parameters differ.
    Type inElement = getElementTypeOrSelf(operands.front().getType());
    if (!isa<quant::UniformQuantizedType>(inElement))
      return rewriter.notifyMatchFailure(q, "per-axis input");
    for (Value v : operands)
      if (getElementTypeOrSelf(v.getType()) != inElement)
        return rewriter.notifyMatchFailure(q, "inputs differ in parameters");
    auto resultType =
        withElementType(producer->getResult(0).getType(), inElement);
    OperationState state(producer->getLoc(), producer->getName());
    state.addOperands(operands);
    state.addAttributes(producer->getAttrs());
    state.addTypes(resultType);
    if (auto pad = dyn_cast<PadOp>(producer)) {
      // The pad value becomes the stored integer it quantizes to. With a
      // requantize after it, that integer is dequantized again before the
      // output's quantize, which ORT applies to the value itself: exact only
      // if the input's parameters represent the value.
      auto inQuant = cast<quant::UniformQuantizedType>(inElement);
      float real = static_cast<float>(pad.getValue().convertToDouble());
      int64_t stored = quantizeScalar(real, inQuant);
      float back = static_cast<float>(stored - inQuant.getZeroPoint()) *
                   static_cast<float>(inQuant.getScale());
      if (resultType != q.getOutput().getType() && back != real)
        return rewriter.notifyMatchFailure(
            q, "pad value not representable in the input's parameters");
      state.attributes.set("value", rewriter.getF64FloatAttr(double(stored)));
    }
    Operation *folded = rewriter.create(state);
    Value result = folded->getResult(0);
    if (resultType != q.getOutput().getType())
      result = rewriter.create<RequantizeOp>(q.getLoc(),
                                             q.getOutput().getType(), result);
    rewriter.replaceOp(q, result);
    return success();
  }
};

/// Q(layer_norm(DQ(x), scale, bias)) with x 8-bit per tensor: one
/// layer_norm from x's codes to the Q's, meaning exactly that island
/// (ORT's LayerNormImpl between the two; the NPU runs it as VLAYERNORM,
/// the host in float between a dequantize and a quantize again). Scale and
/// bias stay float.
struct FoldQuantizedLayerNorm : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp q,
                                PatternRewriter &rewriter) const override {
    auto ln = q.getInput().getDefiningOp<LayerNormOp>();
    if (!ln || !ln->hasOneUse())
      return rewriter.notifyMatchFailure(q, "not a layer norm's only use");
    auto dq = ln.getInput().getDefiningOp<DequantizeOp>();
    auto in = dq ? dyn_cast<quant::UniformQuantizedType>(
                       getElementTypeOrSelf(dq.getInput().getType()))
                 : nullptr;
    auto out = dyn_cast<quant::UniformQuantizedType>(
        getElementTypeOrSelf(q.getOutput().getType()));
    if (!in || !out || in.getStorageTypeIntegralWidth() != 8 ||
        out.getStorageTypeIntegralWidth() != 8 ||
        !getElementTypeOrSelf(ln.getOutput().getType()).isF32())
      return rewriter.notifyMatchFailure(q, "not an 8-bit per-tensor island");
    auto folded = rewriter.create<LayerNormOp>(
        ln.getLoc(), q.getOutput().getType(), dq.getInput(), ln.getScale(),
        ln.getBias(), ln.getAxisAttr(), ln.getEpsilonAttr());
    rewriter.replaceOp(q, folded.getOutput());
    return success();
  }
};

/// Whether `v` is computed from the function's arguments, not from
/// constants only (those subgraphs are folded later, float islands and
/// all).
bool dependsOnArguments(Value v) {
  llvm::SmallPtrSet<Operation *, 16> seen;
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    Operation *def = x.getDefiningOp();
    if (!def)
      return true;
    if (!seen.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// Q(sub(DQ(a), DQ(b))) and Q(div(...)) with a, b and the Q 8-bit per
/// tensor: one sub or div from codes to codes, meaning exactly that island.
/// ORT fuses no QDQ Sub or Div (only Add and Mul, into QLinearAdd and
/// QLinearMul): it dequantizes, runs the float op and quantizes, which the
/// NPU's VBINARY computes, and the host in float again. An exporter's
/// LayerNorm at opset 13 is such a Sub and Div with a per-row mean and
/// deviation.
struct FoldQuantizedFloatBinary : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp q,
                                PatternRewriter &rewriter) const override {
    Operation *op = q.getInput().getDefiningOp();
    if (!op || !isa<SubOp, DivOp>(op) || !op->hasOneUse() ||
        op->hasAttr("act_min") || op->hasAttr("act_max"))
      return rewriter.notifyMatchFailure(q, "not a sub/div's only use");
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      auto dq = v.getDefiningOp<DequantizeOp>();
      if (!dq || !quantized8(dq.getInput().getType()))
        return rewriter.notifyMatchFailure(q, "operand is not an 8-bit DQ");
      operands.push_back(dq.getInput());
    }
    // Computed from constants only (Swin's attention mask), the float
    // island folds away at compile time (npu-fold-constant-subgraphs) with
    // what reads it.
    if (llvm::none_of(operands, dependsOnArguments))
      return rewriter.notifyMatchFailure(q, "constant operands");
    if (!quantized8(q.getOutput().getType()) ||
        !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
      return rewriter.notifyMatchFailure(q, "not an 8-bit per-tensor island");
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(operands);
    state.addTypes(q.getOutput().getType());
    rewriter.replaceOp(q, rewriter.create(state)->getResults());
    return success();
  }
};

/// Q(op(DQ(a), c)) with a and the Q 8-bit per tensor and c an fp32 tensor
/// computed from constants only (Swin's relative position bias and window
/// mask, an additive attention mask): one op from codes and c to codes.
/// ORT fuses no QDQ node whose operand is not a DQ: it dequantizes a, runs
/// the float op and quantizes, which VBINARY computes with an fp32 B
/// (b_f32). For add and mul c may come first (IEEE add and mul commute);
/// c - a and c / a keep their float form.
struct FoldQuantizedFloatConstantBinary : OpRewritePattern<QuantizeOp> {
  /// One value, or one per channel of `out`: the island is a table of the
  /// codes (npu-fold-tables), cheaper than an fp32 operand per element.
  static bool isTableOperand(Value c, Value out) {
    auto ct = dyn_cast<ShapedType>(c.getType());
    auto ot = dyn_cast<ShapedType>(out.getType());
    if (!ct || !ot || !ct.hasStaticShape() || !ot.hasStaticShape() ||
        ot.getRank() == 0)
      return true;
    int64_t channels = ot.getShape().back();
    return ct.getNumElements() == 1 ||
           (ct.getRank() > 0 && ct.getShape().back() == channels &&
            ct.getNumElements() == channels);
  }

  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp q,
                                PatternRewriter &rewriter) const override {
    Operation *op = q.getInput().getDefiningOp();
    if (!op || !isa<AddOp, SubOp, MulOp, DivOp>(op) || !op->hasOneUse() ||
        op->hasAttr("act_min") || op->hasAttr("act_max"))
      return rewriter.notifyMatchFailure(q, "not a binary op's only use");
    auto isF32 = [](Value v) {
      return getElementTypeOrSelf(v.getType()).isF32();
    };
    if (!isF32(op->getOperand(0)) || !isF32(op->getOperand(1)) ||
        !isF32(op->getResult(0)) || !quantized8(q.getOutput().getType()))
      return rewriter.notifyMatchFailure(q, "not an 8-bit per-tensor island");
    bool commutes = isa<AddOp, MulOp>(op);
    for (int codes = 0; codes < (commutes ? 2 : 1); ++codes) {
      auto dq = op->getOperand(codes).getDefiningOp<DequantizeOp>();
      Value c = op->getOperand(1 - codes);
      if (!dq || !quantized8(dq.getInput().getType()) ||
          !dependsOnArguments(dq.getInput()) ||
          c.getDefiningOp<DequantizeOp>() || dependsOnArguments(c) ||
          isTableOperand(c, op->getResult(0)))
        continue;
      OperationState state(op->getLoc(), op->getName());
      state.addOperands({dq.getInput(), c});
      state.addTypes(q.getOutput().getType());
      rewriter.replaceOp(q, rewriter.create(state)->getResults());
      return success();
    }
    return rewriter.notifyMatchFailure(q, "not DQ(codes) op fp32 constant");
  }
};

/// Q(reduce(DQ(x))) for a mean or a sum with x and the Q 8-bit per tensor:
/// one reduce from codes to codes meaning that island (ORT's float
/// ReduceMean/ReduceSum between them; the NPU runs trailing-axis ones as
/// VREDUCE, the host in float again).
struct FoldQuantizedReduce : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp q,
                                PatternRewriter &rewriter) const override {
    auto r = q.getInput().getDefiningOp<ReduceOp>();
    if (!r || !r->hasOneUse() ||
        (r.getKind() != "mean" && r.getKind() != "sum"))
      return rewriter.notifyMatchFailure(q, "not a mean/sum's only use");
    auto dq = r.getInput().getDefiningOp<DequantizeOp>();
    if (!dq || !quantized8(dq.getInput().getType()) ||
        !dependsOnArguments(dq.getInput()) ||
        !quantized8(q.getOutput().getType()) ||
        !getElementTypeOrSelf(r.getOutput().getType()).isF32())
      return rewriter.notifyMatchFailure(q, "not an 8-bit per-tensor island");
    rewriter.replaceOpWithNewOp<ReduceOp>(q, q.getOutput().getType(),
                                          dq.getInput(), r.getKindAttr(),
                                          r.getAxesAttr(), r.getKeepdimsAttr());
    return success();
  }
};

/// reshape(DQ(x)) -> DQ(reshape(x)) for a per-tensor x: dequantizing is
/// elementwise, so it commutes with a reshape, and the op reading the
/// reshape (an exporter's ReduceMean on a [1, T, C] view of a [T, 1, C]
/// tensor) meets its DQ and folds. The DQ stays for its other readers.
struct HoistDequantizeOverReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp r,
                                PatternRewriter &rewriter) const override {
    auto dq = r.getInput().getDefiningOp<DequantizeOp>();
    if (!dq)
      return failure();
    Type elem = getElementTypeOrSelf(dq.getInput().getType());
    if (!isa<quant::UniformQuantizedType>(elem))
      return failure();
    auto moved = rewriter.create<ReshapeOp>(
        r.getLoc(), withElementType(r.getOutput().getType(), elem),
        dq.getInput());
    rewriter.replaceOpWithNewOp<DequantizeOp>(r, r.getOutput().getType(),
                                              moved);
    return success();
  }
};

/// Gather(x, i) with one constant index along `axis`: the slice [i, i + 1)
/// of that axis (a scalar index then drops it: a reshape). Swin selects q,
/// k and v so from one tensor; as a slice it is data movement the QDQ folds
/// and the NPU's copies take.
struct GatherOfOneIndexAsSlice : OpRewritePattern<HostOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HostOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOnnxOp() != "Gather" || op.getInputs().size() != 2 ||
        op->getNumResults() != 1)
      return failure();
    DictionaryAttr p = op.getParamsAttr();
    auto axisAttr = p ? p.getAs<IntegerAttr>("axis") : nullptr;
    auto data = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    DenseElementsAttr idx = constantBehind(op.getInputs()[1]);
    // Float data only: a Gather of integers (shapes, token ids) is the
    // host's, which slices no integer tensor.
    if (!axisAttr || !data || !data.hasStaticShape() ||
        !data.getElementType().isF32() || !idx || idx.getNumElements() != 1 ||
        !isa<IntegerType>(idx.getElementType()))
      return failure();
    int64_t rank = data.getRank();
    int64_t axis =
        axisAttr.getInt() < 0 ? axisAttr.getInt() + rank : axisAttr.getInt();
    if (axis < 0 || axis >= rank)
      return failure();
    int64_t i = (*idx.getValues<APInt>().begin()).getSExtValue();
    int64_t dim = data.getDimSize(axis);
    if (i < 0)
      i += dim;
    if (i < 0 || i >= dim)
      return failure(); // out of range: the host kernel reports it
    SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
    SmallVector<int64_t> shape(data.getShape());
    offsets[axis] = i, shape[axis] = 1;
    Value slice = rewriter.create<SliceOp>(
        op.getLoc(), data.clone(shape), op.getInputs()[0],
        rewriter.getDenseI64ArrayAttr(offsets),
        rewriter.getDenseI64ArrayAttr(strides));
    Type outType = op->getResult(0).getType();
    if (slice.getType() != outType)
      slice = rewriter.create<ReshapeOp>(op.getLoc(), outType, slice);
    rewriter.replaceOp(op, slice);
    return success();
  }
};

/// Q(DQ(x)): nothing if the parameters agree, else an explicit requantize.
struct FoldQuantizeOfDequantize : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp q,
                                PatternRewriter &rewriter) const override {
    auto dq = q.getInput().getDefiningOp<DequantizeOp>();
    if (!dq)
      return failure();
    Value input = dq.getInput();
    if (input.getType() == q.getOutput().getType()) {
      rewriter.replaceOp(q, input);
      return success();
    }
    rewriter.replaceOpWithNewOp<RequantizeOp>(q, q.getOutput().getType(),
                                              input);
    return success();
  }
};

/// transpose(DQ(x)) -> DQ(transpose(x)): Gemm's transB puts a transpose
/// between a weight's DequantizeLinear and the MatMul; dequantizing is
/// elementwise, so it commutes with the permutation (per-axis scales follow
/// their axis).
struct HoistDequantizeOverTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp t,
                                PatternRewriter &rewriter) const override {
    auto dq = t.getInput().getDefiningOp<DequantizeOp>();
    if (!dq || !dq->hasOneUse())
      return failure();
    Type elem = getElementTypeOrSelf(dq.getInput().getType());
    if (auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(elem)) {
      ArrayRef<int64_t> perm = t.getPerm();
      int32_t axis = pa.getQuantizedDimension();
      int32_t newAxis =
          static_cast<int32_t>(llvm::find(perm, axis) - perm.begin());
      elem = quant::UniformQuantizedPerAxisType::get(
          pa.getFlags(), pa.getStorageType(), pa.getExpressedType(),
          pa.getScales(), pa.getZeroPoints(), newAxis, pa.getStorageTypeMin(),
          pa.getStorageTypeMax());
    }
    auto moved = rewriter.create<TransposeOp>(
        t.getLoc(), withElementType(t.getOutput().getType(), elem),
        dq.getInput(), t.getPermAttr());
    rewriter.replaceOpWithNewOp<DequantizeOp>(t, t.getOutput().getType(),
                                              moved);
    return success();
  }
};

/// Q(reshape(x)) -> reshape(Q(x)) for a per-tensor Q: quantizing is
/// elementwise, so it commutes with a reshape, and the op behind the
/// reshape (a 1-D convolution imported as a 2-D one, then reshaped back)
/// meets its Q and folds.
struct SinkReshapeBelowQuantize : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp q,
                                PatternRewriter &rewriter) const override {
    auto r = q.getInput().getDefiningOp<ReshapeOp>();
    Type elem = getElementTypeOrSelf(q.getOutput().getType());
    if (!r || !r->hasOneUse() || !isa<quant::UniformQuantizedType>(elem) ||
        r.getInput().getDefiningOp<DequantizeOp>())
      return failure();
    auto moved = rewriter.create<QuantizeOp>(
        q.getLoc(), withElementType(r.getInput().getType(), elem),
        r.getInput());
    rewriter.replaceOpWithNewOp<ReshapeOp>(q, q.getOutput().getType(), moved);
    return success();
  }
};

/// clip(reshape(x)) -> reshape(clip(x)): a ReLU between a reshaped op and
/// its Q (Conv1d -> ReLU) moves next to the op, where it folds.
struct SinkReshapeBelowClip : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClipOp clip,
                                PatternRewriter &rewriter) const override {
    auto r = clip.getInput().getDefiningOp<ReshapeOp>();
    if (!r || !r->hasOneUse() || r.getInput().getDefiningOp<DequantizeOp>())
      return failure();
    auto moved = rewriter.create<ClipOp>(clip.getLoc(), r.getInput().getType(),
                                         r.getInput(), clip.getMinAttr(),
                                         clip.getMaxAttr());
    rewriter.replaceOpWithNewOp<ReshapeOp>(clip, clip.getOutput().getType(),
                                           moved);
    return success();
  }
};

struct FoldQDQPass : systole::graph::impl::FoldQDQBase<FoldQDQPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Islands first: a Q(DQ) pair must not swallow the DQ an island needs.
    patterns.add<FoldQuantizedIsland, FoldQuantizedLayerNorm,
                 FoldQuantizedFloatBinary, FoldQuantizedFloatConstantBinary,
                 FoldQuantizedReduce>(&getContext(),
                                      /*benefit=*/2);
    patterns.add<FoldQuantizeOfDequantize>(&getContext(), /*benefit=*/1);
    patterns.add<GatherOfOneIndexAsSlice>(&getContext(), /*benefit=*/4);
    patterns.add<HoistDequantizeOverTranspose, HoistDequantizeOverReshape,
                 SinkReshapeBelowQuantize, SinkReshapeBelowClip>(&getContext(),
                                                                 /*benefit=*/3);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
