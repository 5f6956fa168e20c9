//===- GraphToLinalg.cpp - Float graph ops -> linalg/tensor/math ----------===//
//
// The host fallback's entry into upstream MLIR. Every float32 graph op the
// host runs becomes tensor-level linalg, so one-shot bufferization, loop
// lowering and the LLVM/NVVM backends are all upstream. Reductions follow
// ONNX Runtime's CPU kernels (softmax multiplies by 1/sum; layer norm takes
// sum and sum of squares in one pass) to stay close to the reference.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/LoweringUtils.h"
#include "systole/Conversion/OrtMath.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

namespace systole::conversion {
#define GEN_PASS_DEF_CONVERTGRAPHTOLINALG
#include "systole/Conversion/Passes.h.inc"
} // namespace systole::conversion

using namespace mlir;
namespace graph = systole::graph;
using namespace systole::conversion::lowering;

namespace {

template <typename OpT> struct BinaryLowering : F32Pattern<OpT> {
  using F32Pattern<OpT>::F32Pattern;
  FailureOr<Value> lower(OpT op, PatternRewriter &rw) const override {
    auto shape = tensorTypeOf(op.getOutput()).getShape();
    return elementwise(rw, op.getLoc(), shape,
                       ValueRange{op.getLhs(), op.getRhs()},
                       [](OpBuilder &b, Location l, ValueRange a) -> Value {
                         if constexpr (std::is_same_v<OpT, graph::AddOp>)
                           return b.create<arith::AddFOp>(l, a[0], a[1]);
                         if constexpr (std::is_same_v<OpT, graph::SubOp>)
                           return b.create<arith::SubFOp>(l, a[0], a[1]);
                         if constexpr (std::is_same_v<OpT, graph::MulOp>)
                           return b.create<arith::MulFOp>(l, a[0], a[1]);
                         return b.create<arith::DivFOp>(l, a[0], a[1]);
                       });
  }
};

Value unaryBody(OpBuilder &b, Location l, StringRef fn, Value x) {
  if (fn == "exp")
    return systole::conversion::mlasExp(b, l, x);
  if (fn == "tanh")
    return systole::conversion::mlasTanh(b, l, x);
  if (fn == "erf")
    return systole::conversion::mlasErf(b, l, x);
  if (fn == "sqrt")
    return b.create<math::SqrtOp>(l, x);
  if (fn == "abs")
    return b.create<math::AbsFOp>(l, x);
  if (fn == "neg")
    return b.create<arith::NegFOp>(l, x);
  if (fn == "reciprocal")
    return b.create<arith::DivFOp>(l, f32(b, l, 1.0), x);
  if (fn == "sigmoid")
    return systole::conversion::mlasLogistic(b, l, x);
  if (fn == "hardswish") {
    Value t = b.create<arith::AddFOp>(
        l, b.create<arith::MulFOp>(l, x, f32(b, l, 1.0 / 6.0)), f32(b, l, 0.5));
    t = b.create<arith::MaximumFOp>(l, t, f32(b, l, 0.0));
    t = b.create<arith::MinimumFOp>(l, t, f32(b, l, 1.0));
    return b.create<arith::MulFOp>(l, x, t);
  }
  // gelu: 0.5 * x * (1 + erf(x / sqrt(2)))
  Value e = systole::conversion::mlasErf(
      b, l, b.create<arith::MulFOp>(l, x, f32(b, l, M_SQRT1_2)));
  Value half = b.create<arith::MulFOp>(l, x, f32(b, l, 0.5));
  return b.create<arith::MulFOp>(l, half,
                                 b.create<arith::AddFOp>(l, f32(b, l, 1.0), e));
}

struct UnaryLowering : F32Pattern<graph::UnaryOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::UnaryOp op,
                         PatternRewriter &rw) const override {
    std::string fn = op.getFn().str();
    return elementwise(rw, op.getLoc(), tensorTypeOf(op.getOutput()).getShape(),
                       ValueRange{op.getInput()},
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         return unaryBody(b, l, fn, a[0]);
                       });
  }
};

struct ClipLowering : F32Pattern<graph::ClipOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::ClipOp op, PatternRewriter &rw) const override {
    std::optional<double> lo, hi;
    if (op.getMin())
      lo = op.getMin()->convertToDouble();
    if (op.getMax())
      hi = op.getMax()->convertToDouble();
    return elementwise(
        rw, op.getLoc(), tensorTypeOf(op.getOutput()).getShape(),
        ValueRange{op.getInput()}, [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = a[0];
          if (lo)
            x = b.create<arith::MaximumFOp>(l, x, f32(b, l, *lo));
          if (hi)
            x = b.create<arith::MinimumFOp>(l, x, f32(b, l, *hi));
          return x;
        });
  }
};

struct SoftmaxLowering : F32Pattern<graph::SoftmaxOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::SoftmaxOp op,
                         PatternRewriter &rw) const override {
    SmallVector<int64_t> axes = {static_cast<int64_t>(op.getAxis())};
    return systole::conversion::mlasSoftmax(rw, op.getLoc(), op.getInput(),
                                            axes);
  }
};

struct LayerNormLowering : F32Pattern<graph::LayerNormOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::LayerNormOp op,
                         PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    ArrayRef<int64_t> shape = tensorTypeOf(x).getShape();
    int64_t rank = shape.size();
    SmallVector<int64_t> axes;
    int64_t n = 1;
    for (int64_t d = op.getAxis(); d < rank; ++d) {
      axes.push_back(d);
      n *= shape[d];
    }
    auto add = [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
      return b.create<arith::AddFOp>(l, acc, v);
    };
    Value sum = reduce(rw, loc, x, axes, 0.0, add);
    Value sq = elementwise(rw, loc, shape, ValueRange{x},
                           [](OpBuilder &b, Location l, ValueRange a) -> Value {
                             return b.create<arith::MulFOp>(l, a[0], a[0]);
                           });
    Value sumSq = reduce(rw, loc, sq, axes, 0.0, add);
    double eps = op.getEpsilon().convertToDouble();
    // As ORT's LayerNormImpl: mean = s / n,
    // denom = sqrt(s2 / n - mean * mean + eps), y = (x - mean) / denom.
    Value norm =
        withReduced(rw, loc, x, ValueRange{sum, sumSq}, axes,
                    [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                      Value nf = f32(b, l, double(n));
                      Value mean = b.create<arith::DivFOp>(l, a[1], nf);
                      Value ms = b.create<arith::DivFOp>(l, a[2], nf);
                      Value var = b.create<arith::SubFOp>(
                          l, ms, b.create<arith::MulFOp>(l, mean, mean));
                      Value denom = b.create<math::SqrtOp>(
                          l, b.create<arith::AddFOp>(l, var, f32(b, l, eps)));
                      return b.create<arith::DivFOp>(
                          l, b.create<arith::SubFOp>(l, a[0], mean), denom);
                    });
    SmallVector<int64_t> normShape(shape.begin() + op.getAxis(), shape.end());
    Value scale = reshapeTo(rw, loc, op.getScale(), normShape);
    SmallVector<Value> ins = {norm, scale};
    if (op.getBias())
      ins.push_back(reshapeTo(rw, loc, op.getBias(), normShape));
    return elementwise(rw, loc, shape, ins,
                       [](OpBuilder &b, Location l, ValueRange a) -> Value {
                         Value y = b.create<arith::MulFOp>(l, a[0], a[1]);
                         if (a.size() > 2)
                           y = b.create<arith::AddFOp>(l, y, a[2]);
                         return y;
                       });
  }
};

struct ReduceLowering : F32Pattern<graph::ReduceOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::ReduceOp op,
                         PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    StringRef kind = op.getKind();
    bool isMax = kind == "max";
    // Trailing axes: ORT sums each row in Eigen's order (OrtMath.h).
    if (!isMax)
      if (Value r = systole::conversion::ortTrailingSum(
              rw, loc, x, op.getAxes(), kind == "mean",
              tensorTypeOf(op.getOutput()).getShape()))
        return r;
    int64_t n = 1;
    for (int64_t a : op.getAxes())
      n *= tensorTypeOf(x).getShape()[a];
    Value r =
        reduce(rw, loc, x, op.getAxes(),
               isMax ? -std::numeric_limits<double>::infinity() : 0.0,
               [&](OpBuilder &b, Location l, Value acc, Value v) -> Value {
                 if (isMax)
                   return b.create<arith::MaximumFOp>(l, acc, v);
                 return b.create<arith::AddFOp>(l, acc, v);
               });
    if (kind == "mean") {
      r = elementwise(rw, loc, tensorTypeOf(r).getShape(), ValueRange{r},
                      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                        return b.create<arith::DivFOp>(l, a[0],
                                                       f32(b, l, double(n)));
                      });
    }
    return reshapeTo(rw, loc, r, tensorTypeOf(op.getOutput()).getShape());
  }
};

/// [..., M, K] x [..., K, N] (+ bias [N]) with broadcast batch dims, as one
/// contraction (loops: batch..., m, n, k).
struct MatMulLowering : F32Pattern<graph::MatMulOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::MatMulOp op,
                         PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rw.getContext();
    ArrayRef<int64_t> out = tensorTypeOf(op.getOutput()).getShape();
    auto lhs = tensorTypeOf(op.getLhs()).getShape(),
         rhs = tensorTypeOf(op.getRhs()).getShape();
    int64_t rank = out.size(), batch = rank - 2, loops = rank + 1;
    auto operandMap = [&](ArrayRef<int64_t> s, int64_t row, int64_t col) {
      SmallVector<AffineExpr> e;
      int64_t sb = int64_t(s.size()) - 2, off = batch - sb;
      for (int64_t i = 0; i < sb; ++i)
        e.push_back(s[i] == 1 && out[i + off] != 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(i + off, ctx));
      e.push_back(getAffineDimExpr(row, ctx));
      e.push_back(getAffineDimExpr(col, ctx));
      return AffineMap::get(loops, 0, e, ctx);
    };
    int64_t m = batch, n = batch + 1, k = batch + 2;
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {operandMap(lhs, m, k), operandMap(rhs, k, n),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    // Summed as ORT's MatMul<float> (MLAS SGEMM) sums: a 2-D B folds the
    // batch into M, and a constant 2-D B is prepacked.
    systole::conversion::SgemmShape shape;
    shape.m = out[m];
    if (rhs.size() == 2)
      for (int64_t i = 0; i < batch; ++i)
        shape.m *= out[i];
    shape.n = out[n];
    shape.k = lhs.back();
    shape.packedB = rhs.size() == 2 &&
                    op.getRhs().getDefiningOp<arith::ConstantOp>() != nullptr;
    Value y =
        systole::conversion::mlasSgemm(rw, loc, op.getLhs(), op.getRhs(),
                                       maps[0], maps[1], maps[2], out, shape);
    if (op.getBias())
      y = elementwise(rw, loc, out, ValueRange{y, op.getBias()},
                      [](OpBuilder &b, Location l, ValueRange a) -> Value {
                        return b.create<arith::AddFOp>(l, a[0], a[1]);
                      });
    return y;
  }
};

struct ConvLowering : F32Pattern<graph::Conv2DOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::Conv2DOp op,
                         PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    bool nhwc = op.getLayout() == graph::Layout::NHWC;
    if (op.getGroup() != 1)
      return rw.notifyMatchFailure(op, "grouped float convolution");
    Value in = padSpatial(rw, loc, op.getInput(), op.getPads(), nhwc, 0.0);
    ArrayRef<int64_t> out = tensorTypeOf(op.getOutput()).getShape();
    Value init = filled(rw, loc, out, 0.0);
    auto strides = rw.getI64TensorAttr(op.getStrides());
    auto dilations = rw.getI64TensorAttr(op.getDilations());
    Value y;
    if (nhwc)
      y = rw.create<linalg::Conv2DNhwcHwcfOp>(
                loc, TypeRange{init.getType()}, ValueRange{in, op.getFilter()},
                ValueRange{init}, strides, dilations)
              .getResult(0);
    else
      y = rw.create<linalg::Conv2DNchwFchwOp>(
                loc, TypeRange{init.getType()}, ValueRange{in, op.getFilter()},
                ValueRange{init}, strides, dilations)
              .getResult(0);
    if (Value bias = op.getBias()) {
      // [O] broadcast along the channel dim.
      SmallVector<int64_t> bshape = nhwc ? SmallVector<int64_t>{out[3]}
                                         : SmallVector<int64_t>{out[1], 1, 1};
      y = elementwise(rw, loc, out,
                      ValueRange{y, reshapeTo(rw, loc, bias, bshape)},
                      [](OpBuilder &b, Location l, ValueRange a) -> Value {
                        return b.create<arith::AddFOp>(l, a[0], a[1]);
                      });
    }
    return y;
  }
};

struct PoolLowering : F32Pattern<graph::PoolOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::PoolOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    bool nhwc = op.getLayout() == graph::Layout::NHWC;
    bool isMax = op.getKind() == graph::PoolKind::Max;
    ArrayRef<int64_t> pads = op.getPads(), kernel = op.getKernel(),
                      strides = op.getStrides();
    Value in =
        padSpatial(rw, loc, op.getInput(), pads, nhwc,
                   isMax ? -std::numeric_limits<double>::infinity() : 0.0);
    ArrayRef<int64_t> out = tensorTypeOf(op.getOutput()).getShape();
    Value init = filled(rw, loc, out,
                        isMax ? -std::numeric_limits<double>::infinity() : 0.0);
    Value window = emptyTensor(rw, loc, kernel);
    auto s = rw.getI64TensorAttr(strides);
    auto d = rw.getI64TensorAttr({1, 1});
    Value y;
    if (isMax && nhwc)
      y = rw.create<linalg::PoolingNhwcMaxOp>(loc, TypeRange{init.getType()},
                                              ValueRange{in, window},
                                              ValueRange{init}, s, d)
              .getResult(0);
    else if (isMax)
      y = rw.create<linalg::PoolingNchwMaxOp>(loc, TypeRange{init.getType()},
                                              ValueRange{in, window},
                                              ValueRange{init}, s, d)
              .getResult(0);
    else if (nhwc)
      y = rw.create<linalg::PoolingNhwcSumOp>(loc, TypeRange{init.getType()},
                                              ValueRange{in, window},
                                              ValueRange{init}, s, d)
              .getResult(0);
    else
      y = rw.create<linalg::PoolingNchwSumOp>(loc, TypeRange{init.getType()},
                                              ValueRange{in, window},
                                              ValueRange{init}, s, d)
              .getResult(0);
    if (isMax)
      return y;
    // Divisor per output position, known at compile time (ORT's rule: the
    // window clipped to the padded extent, or to the input without
    // count_include_pad).
    ArrayRef<int64_t> inShape = tensorTypeOf(op.getInput()).getShape();
    int64_t h = nhwc ? 1 : 2;
    int64_t oh = out[h], ow = out[h + 1], ih = inShape[h], iw = inShape[h + 1];
    SmallVector<float> counts;
    for (int64_t y0 = 0; y0 < oh; ++y0)
      for (int64_t x0 = 0; x0 < ow; ++x0) {
        int64_t hs = y0 * strides[0] - pads[0], ws = x0 * strides[1] - pads[1];
        int64_t he = std::min(hs + kernel[0], ih + pads[2]);
        int64_t we = std::min(ws + kernel[1], iw + pads[3]);
        if (!op.getCountIncludePad()) {
          hs = std::max<int64_t>(hs, 0);
          ws = std::max<int64_t>(ws, 0);
          he = std::min(he, ih);
          we = std::min(we, iw);
        }
        counts.push_back(float((he - hs) * (we - ws)));
      }
    SmallVector<int64_t> cshape =
        nhwc ? SmallVector<int64_t>{oh, ow, 1} : SmallVector<int64_t>{oh, ow};
    auto ctype = RankedTensorType::get(cshape, rw.getF32Type());
    Value c = rw.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(ctype, ArrayRef<float>(counts)));
    return elementwise(rw, loc, out, ValueRange{y, c},
                       [](OpBuilder &b, Location l, ValueRange a) -> Value {
                         return b.create<arith::DivFOp>(l, a[0], a[1]);
                       });
  }
};

struct GlobalAvgPoolLowering : F32Pattern<graph::GlobalAvgPoolOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::GlobalAvgPoolOp op,
                         PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    bool nhwc = op.getLayout() == graph::Layout::NHWC;
    ArrayRef<int64_t> in = tensorTypeOf(op.getInput()).getShape();
    SmallVector<int64_t> axes =
        nhwc ? SmallVector<int64_t>{1, 2} : SmallVector<int64_t>{2, 3};
    double n = double(in[axes[0]] * in[axes[1]]);
    Value s = reduce(rw, loc, op.getInput(), axes, 0.0,
                     [](OpBuilder &b, Location l, Value acc, Value v) {
                       return b.create<arith::AddFOp>(l, acc, v);
                     });
    s = elementwise(rw, loc, tensorTypeOf(s).getShape(), ValueRange{s},
                    [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                      return b.create<arith::DivFOp>(l, a[0], f32(b, l, n));
                    });
    return reshapeTo(rw, loc, s, tensorTypeOf(op.getOutput()).getShape());
  }
};

struct TransposeLowering : F32Pattern<graph::TransposeOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::TransposeOp op,
                         PatternRewriter &rw) const override {
    ArrayRef<int64_t> out = tensorTypeOf(op.getOutput()).getShape();
    return rw
        .create<linalg::TransposeOp>(op.getLoc(), op.getInput(),
                                     emptyTensor(rw, op.getLoc(), out),
                                     op.getPerm())
        .getResult()[0];
  }
};

struct ReshapeLowering : F32Pattern<graph::ReshapeOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::ReshapeOp op,
                         PatternRewriter &rw) const override {
    return reshapeTo(rw, op.getLoc(), op.getInput(),
                     tensorTypeOf(op.getOutput()).getShape());
  }
};

struct SliceLowering : F32Pattern<graph::SliceOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::SliceOp op,
                         PatternRewriter &rw) const override {
    auto outType = tensorTypeOf(op.getOutput());
    return rw
        .create<tensor::ExtractSliceOp>(
            op.getLoc(), outType, op.getInput(),
            getAsIndexOpFoldResult(rw.getContext(), op.getOffsets()),
            getAsIndexOpFoldResult(rw.getContext(), outType.getShape()),
            getAsIndexOpFoldResult(rw.getContext(), op.getStrides()))
        .getResult();
  }
};

struct ConcatLowering : F32Pattern<graph::ConcatOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::ConcatOp op,
                         PatternRewriter &rw) const override {
    auto outType = tensorTypeOf(op.getOutput());
    Value acc = emptyTensor(rw, op.getLoc(), outType.getShape());
    int64_t offset = 0, axis = op.getAxis();
    for (Value in : op.getInputs()) {
      auto shape = tensorTypeOf(in).getShape();
      SmallVector<int64_t> offsets(shape.size(), 0), strides(shape.size(), 1);
      offsets[axis] = offset;
      offset += shape[axis];
      MLIRContext *ctx = rw.getContext();
      acc = rw.create<tensor::InsertSliceOp>(
          op.getLoc(), in, acc, getAsIndexOpFoldResult(ctx, offsets),
          getAsIndexOpFoldResult(ctx, shape),
          getAsIndexOpFoldResult(ctx, strides));
    }
    return acc;
  }
};

/// A 4-D copy: output element (d0..d3) is input element `in`(d0..d3).
Value gatherCopy(PatternRewriter &rw, Location loc, Value input,
                 ArrayRef<int64_t> out, ArrayRef<AffineExpr> in) {
  MLIRContext *ctx = rw.getContext();
  Value init = emptyTensor(rw, loc, out);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, in, ctx),
                                 AffineMap::getMultiDimIdentityMap(4, ctx)};
  return rw
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ValueRange{input}, ValueRange{init},
          maps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [](OpBuilder &b, Location l, ValueRange a) {
            b.create<linalg::YieldOp>(l, a[0]);
          })
      .getResult(0);
}

struct UpsampleLowering : F32Pattern<graph::UpsampleOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::UpsampleOp op,
                         PatternRewriter &rw) const override {
    MLIRContext *ctx = rw.getContext();
    int64_t h = op.getLayout() == graph::Layout::NHWC ? 1 : 2;
    SmallVector<AffineExpr> in;
    for (int64_t d = 0; d < 4; ++d) {
      AffineExpr e = getAffineDimExpr(d, ctx);
      if (d == h || d == h + 1)
        e = e.floorDiv(op.getFactors()[d - h]);
      in.push_back(e);
    }
    return gatherCopy(rw, op.getLoc(), op.getInput(),
                      tensorTypeOf(op.getOutput()).getShape(), in);
  }
};

struct DepthToSpaceLowering : F32Pattern<graph::DepthToSpaceOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::DepthToSpaceOp op,
                         PatternRewriter &rw) const override {
    ArrayRef<int64_t> out = tensorTypeOf(op.getOutput()).getShape();
    MLIRContext *ctx = rw.getContext();
    bool nhwc = op.getLayout() == graph::Layout::NHWC;
    int64_t c = nhwc ? 3 : 1, h = nhwc ? 1 : 2;
    int64_t b = op.getBlocksize(), cOut = out[c];
    AffineExpr y = getAffineDimExpr(h, ctx), x = getAffineDimExpr(h + 1, ctx),
               ch = getAffineDimExpr(c, ctx);
    AffineExpr src = op.getCrd() ? ch * (b * b) + (y % b) * b + x % b
                                 : ((y % b) * b + x % b) * cOut + ch;
    SmallVector<AffineExpr> in;
    for (int64_t d = 0; d < 4; ++d)
      in.push_back(d == c                 ? src
                   : d == h || d == h + 1 ? getAffineDimExpr(d, ctx).floorDiv(b)
                                          : getAffineDimExpr(d, ctx));
    return gatherCopy(rw, op.getLoc(), op.getInput(), out, in);
  }
};

struct SpaceToDepthLowering : F32Pattern<graph::SpaceToDepthOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::SpaceToDepthOp op,
                         PatternRewriter &rw) const override {
    MLIRContext *ctx = rw.getContext();
    bool nhwc = op.getLayout() == graph::Layout::NHWC;
    int64_t c = nhwc ? 3 : 1, h = nhwc ? 1 : 2;
    int64_t b = op.getBlocksize();
    int64_t cIn = tensorTypeOf(op.getInput()).getShape()[c];
    AffineExpr oc = getAffineDimExpr(c, ctx), block = oc.floorDiv(cIn);
    SmallVector<AffineExpr> in;
    for (int64_t d = 0; d < 4; ++d) {
      AffineExpr e = getAffineDimExpr(d, ctx);
      in.push_back(d == c       ? oc % cIn
                   : d == h     ? e * b + block.floorDiv(b)
                   : d == h + 1 ? e * b + block % b
                                : e);
    }
    return gatherCopy(rw, op.getLoc(), op.getInput(),
                      tensorTypeOf(op.getOutput()).getShape(), in);
  }
};

struct PadLowering : F32Pattern<graph::PadOp> {
  using F32Pattern::F32Pattern;
  FailureOr<Value> lower(graph::PadOp op, PatternRewriter &rw) const override {
    ArrayRef<int64_t> pads = op.getPads();
    size_t rank = pads.size() / 2;
    if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
      return rw.notifyMatchFailure(op, "negative pads");
    return padded(rw, op.getLoc(), op.getInput(), pads.take_front(rank),
                  pads.drop_front(rank), op.getValue().convertToDouble());
  }
};

struct ConvertGraphToLinalgPass
    : systole::conversion::impl::ConvertGraphToLinalgBase<
          ConvertGraphToLinalgPass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<graph::GraphDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           scf::SCFDialect>();
    RewritePatternSet patterns(&getContext());
    systole::conversion::populateGraphToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void systole::conversion::populateGraphToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BinaryLowering<graph::AddOp>, BinaryLowering<graph::SubOp>,
               BinaryLowering<graph::MulOp>, BinaryLowering<graph::DivOp>,
               UnaryLowering, ClipLowering, SoftmaxLowering, LayerNormLowering,
               ReduceLowering, MatMulLowering, ConvLowering, PoolLowering,
               GlobalAvgPoolLowering, TransposeLowering, ReshapeLowering,
               SliceLowering, ConcatLowering, PadLowering, UpsampleLowering,
               DepthToSpaceLowering, SpaceToDepthLowering>(
      patterns.getContext());
}
