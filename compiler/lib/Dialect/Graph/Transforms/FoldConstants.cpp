//===- FoldConstants.cpp - Evaluate data movement of constants ------------===//
//
// Weights must reach the NPU lowering as constants in the layout the hardware
// reads; this pass computes transposes and reshapes of constants, looking
// through the `quant.scast` that gives stored integers their parameters, and
// the float values of dequantized constants FoldQDQ did not absorb.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/Graph/ConstantTensors.h"
#include "systole/Dialect/Graph/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace systole::graph {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "systole/Dialect/Graph/Passes.h.inc"
} // namespace systole::graph

using namespace mlir;
using namespace systole::graph;

namespace {

struct FoldTransposeOfConstant : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr data = constantBehind(op.getInput());
    if (!data)
      return failure();
    auto inType = cast<ShapedType>(data.getType());
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    ArrayRef<int64_t> perm = op.getPerm();
    int64_t rank = inType.getRank();
    SmallVector<int64_t> inStrides(rank, 1);
    for (int64_t i = rank - 2; i >= 0; --i)
      inStrides[i] = inStrides[i + 1] * inType.getDimSize(i + 1);
    auto storageType =
        RankedTensorType::get(outType.getShape(), inType.getElementType());
    // A splat (all-zero weights of an untrained head) is the same splat in
    // any order.
    if (data.isSplat()) {
      rewriter.replaceOp(op, materializeConstant(rewriter, op.getLoc(),
                                                 data.reshape(storageType),
                                                 outType));
      return success();
    }
    // Work on raw element bytes: every storage type is a fixed width.
    ArrayRef<char> raw = data.getRawData();
    size_t elem = inType.getElementTypeBitWidth() / 8;
    if (elem == 0)
      return failure();
    std::vector<char> out(raw.size());
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t o = 0; o < inType.getNumElements(); ++o) {
      int64_t src = 0;
      for (int64_t d = 0; d < rank; ++d)
        src += idx[d] * inStrides[perm[d]];
      std::memcpy(&out[o * elem], &raw[src * elem], elem);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < outType.getDimSize(d))
          break;
        idx[d] = 0;
      }
    }
    auto folded = DenseElementsAttr::getFromRawBuffer(storageType, out);
    rewriter.replaceOp(
        op, materializeConstant(rewriter, op.getLoc(), folded, outType));
    return success();
  }
};

struct FoldReshapeOfConstant : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr data = constantBehind(op.getInput());
    if (!data)
      return failure();
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    // Per-axis parameters keep their meaning only when the reshape leaves
    // the dims up to the quantized axis alone (a 1-D conv's [O, I, K]
    // weight as [O, I, 1, K]).
    if (auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(
            outType.getElementType())) {
      auto inShape = cast<ShapedType>(op.getInput().getType()).getShape();
      int64_t axis = pa.getQuantizedDimension();
      if (axis >= static_cast<int64_t>(inShape.size()) ||
          inShape.take_front(axis + 1) !=
              outType.getShape().take_front(axis + 1))
        return failure();
    }
    auto storageType = RankedTensorType::get(
        outType.getShape(), cast<ShapedType>(data.getType()).getElementType());
    rewriter.replaceOp(op,
                       materializeConstant(rewriter, op.getLoc(),
                                           data.reshape(storageType), outType));
    return success();
  }
};

/// matmul(reshape(transpose(x, p) -> [B, K]), W) == matmul(reshape(x), W')
/// where W' permutes W's rows the same way: the flatten after an NHWC
/// feature map then costs nothing instead of a transpose on the NPU.
struct AbsorbTransposeIntoWeights : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto reshape = op.getLhs().getDefiningOp<ReshapeOp>();
    if (!reshape || !reshape->hasOneUse())
      return failure();
    auto t = reshape.getInput().getDefiningOp<TransposeOp>();
    if (!t || !t->hasOneUse())
      return failure();
    auto flat = cast<RankedTensorType>(reshape.getOutput().getType());
    auto xType = cast<RankedTensorType>(t.getInput().getType());
    ArrayRef<int64_t> perm = t.getPerm();
    if (flat.getRank() != 2 || perm.empty() || perm[0] != 0 ||
        flat.getDimSize(0) != xType.getDimSize(0))
      return failure();
    DenseElementsAttr w = constantBehind(op.getRhs());
    auto wType = cast<RankedTensorType>(op.getRhs().getType());
    if (!w || w.isSplat() || wType.getRank() != 2)
      return failure();
    // Row r of the transposed flattening reads element (perm-ordered) index;
    // find, for each row of the untransposed flattening, its source row.
    int64_t rank = xType.getRank();
    SmallVector<int64_t> tShape;
    for (int64_t p : perm)
      tShape.push_back(xType.getDimSize(p));
    SmallVector<int64_t> xStrides(rank, 1);
    for (int64_t i = rank - 2; i >= 0; --i)
      xStrides[i] = xStrides[i + 1] * xType.getDimSize(i + 1);
    int64_t k = flat.getDimSize(1);
    std::vector<int64_t> rowOfX(k);
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t r = 0; r < k; ++r) {
      int64_t x = 0;
      for (int64_t d = 1; d < rank; ++d)
        x += idx[d] * xStrides[perm[d]];
      rowOfX[x] = r;
      for (int64_t d = rank - 1; d >= 1; --d) {
        if (++idx[d] < tShape[d])
          break;
        idx[d] = 0;
      }
    }
    ArrayRef<char> raw = w.getRawData();
    size_t rowBytes = raw.size() / k;
    std::vector<char> out(raw.size());
    for (int64_t x = 0; x < k; ++x)
      std::memcpy(&out[x * rowBytes], &raw[rowOfX[x] * rowBytes], rowBytes);
    auto folded = DenseElementsAttr::getFromRawBuffer(
        cast<RankedTensorType>(w.getType()), out);
    Value newW = materializeConstant(rewriter, op.getLoc(), folded, wType);
    Value newLhs =
        rewriter.create<ReshapeOp>(reshape.getLoc(), flat, t.getInput());
    rewriter.modifyOpInPlace(op, [&] {
      op.getLhsMutable().assign(newLhs);
      op.getRhsMutable().assign(newW);
    });
    return success();
  }
};

/// graph.dequantize of a constant that FoldQDQ left (the weights of an op
/// the NPU does not run, e.g. a host ConvTranspose) becomes a float
/// constant: ONNX's DequantizeLinear, float(q - zero_point) * scale in
/// float32, per tensor or per axis. Without it the builtin dequantize would
/// need the constant as a DRAM tensor.
struct FoldDequantizeOfConstant : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr data = constantBehind(op->getOperand(0));
    auto inType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto outType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!data || !inType || !outType || !outType.getElementType().isF32() ||
        !isa<IntegerType>(data.getElementType()))
      return failure();
    Type qt = inType.getElementType();
    auto perTensor = dyn_cast<quant::UniformQuantizedType>(qt);
    auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(qt);
    if (!perTensor && !perAxis)
      return failure();
    bool isSigned = perTensor ? perTensor.isSigned() : perAxis.isSigned();
    ArrayRef<int64_t> shape = inType.getShape();
    int64_t inner = 1, axisSize = 1;
    if (perAxis) {
      int64_t axis = perAxis.getQuantizedDimension();
      axisSize = shape[axis];
      for (size_t d = axis + 1; d < shape.size(); ++d)
        inner *= shape[d];
    }
    SmallVector<float> values;
    values.reserve(inType.getNumElements());
    int64_t k = 0;
    for (const APInt &q : data.getValues<APInt>()) {
      int64_t c = perAxis ? (k / inner) % axisSize : 0;
      float scale = perAxis ? static_cast<float>(perAxis.getScales()[c])
                            : static_cast<float>(perTensor.getScale());
      int64_t zp =
          perAxis ? perAxis.getZeroPoints()[c] : perTensor.getZeroPoint();
      int64_t v = isSigned ? q.getSExtValue() : int64_t(q.getZExtValue());
      values.push_back(static_cast<float>(v - zp) * scale);
      ++k;
    }
    auto attr = DenseElementsAttr::get(outType, ArrayRef<float>(values));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, outType, attr);
    return success();
  }
};

struct FoldConstantsPass
    : systole::graph::impl::FoldConstantsBase<FoldConstantsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldConstantsPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void systole::graph::populateFoldConstantsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldTransposeOfConstant, FoldReshapeOfConstant,
               AbsorbTransposeIntoWeights, FoldDequantizeOfConstant>(
      patterns.getContext());
}
