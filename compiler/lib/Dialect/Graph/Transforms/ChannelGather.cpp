//===- ChannelGather.cpp - Channel shuffles and splits as 1x1 convs -------===//
//
// ShuffleNet shuffles channels (reshape [N, g, C/g, H, W], transpose the
// two group dims, reshape back) and splits them (Slice along C); both move
// int8 codes between channels of a pixel and nothing else. On the host they
// are transposes of whole tensors, in float for the slices of a QDQ model.
//
// A channel gather is a matrix product with a 0/1 matrix: output channel o
// takes input channel src[o]. As a 1x1 NHWC convolution with those weights
// (int8, scale 1, zero point 0) and the input's quantization on its result,
// the NPU computes acc = x - zx and REQUANT's multiplier is
// fl(fl(sx * 1) / sx) = 1 exactly, so out = acc + zx = x: a copy, at the
// cost of a few array cycles per pixel. A Slice between DequantizeLinear
// and QuantizeLinear keeps the quantize after a dequantize of the gather
// (Q(DQ(x)) elementwise, which npu-fold-tables makes the conv's REQUANT
// table). A slice of one contiguous run whose weights would outweigh its
// copy (a transformer's Q/K/V split) stays a slice of the codes instead:
// the NPU copies it with strided DMA rows (npu-partition,
// lowerChannelSlice).
//
//===----------------------------------------------------------------------===//
#include "ChannelGather.h"
#include "systole/Dialect/Graph/QuantizedTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"

using namespace mlir;
using namespace systole::graph;

namespace {

/// The 1x1 NHWC convolution of `x` ([N, H, W, C], 8-bit per-tensor
/// quantized) whose output channel o copies input channel src[o].
Value gatherConv(PatternRewriter &rewriter, Location loc, Value x,
                 ArrayRef<int64_t> src) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t C = xt.getShape().back(), O = static_cast<int64_t>(src.size());
  MLIRContext *ctx = rewriter.getContext();
  auto i8 = IntegerType::get(ctx, 8);
  std::vector<int8_t> w(C * O, 0);
  for (int64_t o = 0; o < O; ++o)
    w[src[o] * O + o] = 1; // HWIO [1, 1, C, O]
  auto raw = RankedTensorType::get({1, 1, C, O}, i8);
  Value cst = rewriter.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(raw, ArrayRef<int8_t>(w)));
  auto one = quant::UniformQuantizedType::get(quant::QuantizationFlags::Signed,
                                              i8, rewriter.getF32Type(), 1.0, 0,
                                              -128, 127);
  Value filter = rewriter.create<quant::StorageCastOp>(
      loc, RankedTensorType::get({1, 1, C, O}, one), cst);
  SmallVector<int64_t> shape(xt.getShape());
  shape.back() = O;
  auto conv = rewriter.create<Conv2DOp>(
      loc, RankedTensorType::get(shape, xt.getElementType()), x, filter,
      Value(), rewriter.getDenseI64ArrayAttr({1, 1}),
      rewriter.getDenseI64ArrayAttr({1, 1}),
      rewriter.getDenseI64ArrayAttr({0, 0, 0, 0}),
      rewriter.getI64IntegerAttr(1), LayoutAttr::get(ctx, Layout::NHWC),
      IntegerAttr(), IntegerAttr());
  conv->setAttr(kDataMovementAttr, rewriter.getUnitAttr());
  return conv;
}

/// Applies a transpose to a row-major index array of `shape`.
std::vector<int64_t> transposeIndices(const std::vector<int64_t> &in,
                                      ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> perm) {
  int64_t rank = shape.size();
  SmallVector<int64_t> outShape, inStride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStride[d] = inStride[d + 1] * shape[d + 1];
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  std::vector<int64_t> out(in.size());
  SmallVector<int64_t> idx(rank, 0);
  for (size_t e = 0; e < out.size(); ++e) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d)
      off += idx[d] * inStride[perm[d]];
    out[e] = in[off];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < outShape[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

/// A chain of reshapes and transposes (and DequantizeLinear/QuantizeLinear
/// pairs with x's parameters, which give back the codes) from a 4-D
/// 8-bit x ([N, H, W, C]) to a 4-D [N, C, H, W] result of x's type that
/// only permutes channels (ShuffleNet's shuffle: NHWC -> NCHW, reshape
/// [N, g, C/g, H, W], transpose the group dims, reshape back) ->
/// transpose(gather conv of x, NHWC -> NCHW). Checked by running the
/// chain on the indices of x.
struct ChannelShuffleToConv : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp r2,
                                PatternRewriter &rewriter) const override {
    auto out = cast<RankedTensorType>(r2.getOutput().getType());
    auto outQ = quantized8(out);
    if (!outQ || out.getRank() != 4 || !out.hasStaticShape())
      return failure();
    // Walk back through the chain; every 4-D value of the result's type
    // behind a transpose is a candidate x, the nearest that checks out
    // wins.
    SmallVector<Operation *> chain = {r2};
    Value x = r2.getInput();
    bool transposed = false;
    for (int steps = 0; steps < 10; ++steps) {
      auto xt = cast<RankedTensorType>(x.getType());
      if (transposed && xt.getRank() == 4 &&
          xt.getElementType() == out.getElementType())
        if (succeeded(tryGather(r2, chain, x, rewriter)))
          return success();
      Operation *d = x.getDefiningOp();
      if (!d)
        return failure();
      if (auto q = dyn_cast<QuantizeOp>(d)) {
        if (cast<ShapedType>(q.getOutput().getType()).getElementType() !=
            out.getElementType())
          return failure();
      } else if (auto dq = dyn_cast<DequantizeOp>(d)) {
        if (cast<ShapedType>(dq.getInput().getType()).getElementType() !=
            out.getElementType())
          return failure();
      } else if (isa<TransposeOp>(d)) {
        transposed = true;
      } else if (!isa<ReshapeOp>(d)) {
        return failure();
      }
      chain.push_back(d);
      x = d->getOperand(0);
    }
    return failure();
  }

  /// Replaces r2 when the chain (r2 first) maps x's NHWC elements to r2's
  /// NCHW ones by a channel permutation.
  static LogicalResult tryGather(ReshapeOp r2, ArrayRef<Operation *> chain,
                                 Value x, PatternRewriter &rewriter) {
    auto out = cast<RankedTensorType>(r2.getOutput().getType());
    auto xt = cast<RankedTensorType>(x.getType());
    if (!xt.hasStaticShape() || xt.getNumElements() > (1 << 22))
      return failure();
    int64_t N = xt.getDimSize(0), H = xt.getDimSize(1), W = xt.getDimSize(2),
            C = xt.getDimSize(3);
    if (out.getShape() != ArrayRef<int64_t>{N, C, H, W})
      return failure();
    std::vector<int64_t> idx(xt.getNumElements());
    for (size_t i = 0; i < idx.size(); ++i)
      idx[i] = static_cast<int64_t>(i);
    for (Operation *op : llvm::reverse(chain))
      if (auto t = dyn_cast<TransposeOp>(op))
        idx = transposeIndices(
            idx, cast<RankedTensorType>(t.getInput().getType()).getShape(),
            t.getPerm());
    // idx is [N, C, H, W] (r2's shape) of flat NHWC indices of x.
    SmallVector<int64_t> src(C, -1);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w) {
            int64_t s = idx[((n * C + c) * H + h) * W + w];
            int64_t sc = s % C, sp = s / C;
            if (sp != (n * H + h) * W + w || (src[c] >= 0 && src[c] != sc))
              return failure();
            src[c] = sc;
          }
    // The identity is the caller's business (transposes cancel).
    bool identity = true;
    for (int64_t c = 0; c < C; ++c)
      identity &= src[c] == c;
    if (identity)
      return failure();
    Value g = gatherConv(rewriter, r2.getLoc(), x, src);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        r2, out, g, rewriter.getDenseI64ArrayAttr({0, 3, 1, 2}));
    return success();
  }
};

/// The channels `s` takes from the last dim of 8-bit x (any rank >= 2, the
/// other dims whole) as a gather conv: x is viewed as NHWC [1, 1, P, C]
/// (a reshape moves nothing) unless it is 4-D already; the result has the
/// slice's shape and x's element type. Null if `s` is not such a slice.
Value lastDimGather(PatternRewriter &rewriter, SliceOp s, Value x) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto st = cast<RankedTensorType>(s.getOutput().getType());
  int64_t rank = xt.getRank();
  if (rank < 2 || !xt.hasStaticShape() || !quantized8(xt))
    return Value();
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (s.getOffsets()[d] != 0 || s.getStrides()[d] != 1 ||
        st.getDimSize(d) != xt.getDimSize(d))
      return Value();
  // A contiguous run whose 0/1 weights (C x Co bytes) would outweigh
  // copying it (P x Co bytes read, as many written) stays a slice of the
  // codes: the NPU copies it with strided DMA rows, no array work (a
  // transformer's Q/K/V split: C = 3D, P tokens). Small splits of large
  // feature maps (ShuffleNet's) stay convolutions, whose input and output
  // the scratchpad can keep (npu-plan-cascades).
  int64_t C = xt.getShape().back(), P = xt.getNumElements() / C;
  if (s.getStrides()[rank - 1] == 1 && C > 2 * P) {
    if (s.getInput() == x)
      return Value(); // already that slice
    return rewriter.create<SliceOp>(
        s.getLoc(), RankedTensorType::get(st.getShape(), xt.getElementType()),
        x, s.getOffsetsAttr(), s.getStridesAttr());
  }
  SmallVector<int64_t> src;
  for (int64_t o = 0; o < st.getShape().back(); ++o)
    src.push_back(s.getOffsets()[rank - 1] + o * s.getStrides()[rank - 1]);
  if (rank == 4)
    return gatherConv(rewriter, s.getLoc(), x, src);
  // Viewed as NHWC [1, 1, P, C].
  auto view = RankedTensorType::get({1, 1, xt.getNumElements() / C, C},
                                    xt.getElementType());
  Value x4 = rewriter.create<ReshapeOp>(s.getLoc(), view, x);
  Value g = gatherConv(rewriter, s.getLoc(), x4, src);
  return rewriter.create<ReshapeOp>(
      s.getLoc(), RankedTensorType::get(st.getShape(), xt.getElementType()), g);
}

/// quantize(slice(dequantize(x))) along the last dim (ShuffleNet's split,
/// a transformer's Q/K/V split) -> the gather conv of the sliced channels,
/// then quantize(dequantize()) of it when the quantize's parameters
/// differ from x's.
struct ChannelSliceToConv : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp q,
                                PatternRewriter &rewriter) const override {
    auto s = q.getInput().getDefiningOp<SliceOp>();
    auto dq = s ? s.getInput().getDefiningOp<DequantizeOp>() : DequantizeOp();
    if (!dq || !s->hasOneUse() || !quantized8(q.getOutput().getType()))
      return failure();
    Value g = lastDimGather(rewriter, s, dq.getInput());
    if (!g)
      return failure();
    if (g.getType() != q.getOutput().getType()) {
      Value f =
          rewriter.create<DequantizeOp>(q.getLoc(), s.getOutput().getType(), g);
      g = rewriter.create<QuantizeOp>(q.getLoc(), q.getOutput().getType(), f);
    }
    rewriter.replaceOp(q, g);
    return success();
  }
};

/// slice(x) of 8-bit x along the last dim (a QOperator model slices the
/// codes) -> the gather conv of the sliced channels.
struct QuantizedChannelSliceToConv : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp s,
                                PatternRewriter &rewriter) const override {
    if (s.getOutput().getType() !=
        RankedTensorType::get(
            cast<RankedTensorType>(s.getOutput().getType()).getShape(),
            cast<RankedTensorType>(s.getInput().getType()).getElementType()))
      return failure();
    Value g = lastDimGather(rewriter, s, s.getInput());
    if (!g)
      return failure();
    rewriter.replaceOp(s, g);
    return success();
  }
};

/// A quantized CRD DepthToSpace (PyTorch's pixel_shuffle) in NHWC: a
/// channel gather into DCR order, then a DCR DepthToSpace, whose b x b
/// blocks of each pixel are contiguous channel runs the NPU stores with
/// strides. DCR channel (i * b + j) * C' + c is CRD channel
/// c * b^2 + i * b + j.
struct CrdDepthToSpaceToGather : OpRewritePattern<DepthToSpaceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DepthToSpaceOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getCrd() || op.getLayout() != Layout::NHWC ||
        !quantized8(op.getInput().getType()))
      return failure();
    int64_t b = op.getBlocksize();
    int64_t cOut =
        cast<RankedTensorType>(op.getOutput().getType()).getShape().back();
    std::vector<int64_t> src(b * b * cOut);
    for (int64_t i = 0; i < b; ++i)
      for (int64_t j = 0; j < b; ++j)
        for (int64_t c = 0; c < cOut; ++c)
          src[(i * b + j) * cOut + c] = c * b * b + i * b + j;
    Value g = gatherConv(rewriter, op.getLoc(), op.getInput(), src);
    rewriter.replaceOpWithNewOp<DepthToSpaceOp>(
        op, op.getOutput().getType(), g, op.getBlocksizeAttr(),
        rewriter.getBoolAttr(false), op.getLayoutAttr());
    return success();
  }
};

} // namespace

void systole::graph::populateChannelGatherPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ChannelShuffleToConv, ChannelSliceToConv, CrdDepthToSpaceToGather>(
          patterns.getContext());
}
