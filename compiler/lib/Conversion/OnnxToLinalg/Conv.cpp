//===- Conv.cpp - Bodies of Conv, ConvInteger and ConvTranspose -----------===//
//
// The convolutions of any spatial rank on the host: the linalg named
// convolution ops where one has the layout and element semantics
// (conv_{1,2,3}d_nc*_fc*, depthwise_conv_*_nc*_c*, conv_2d_ngchw_gfchw),
// linalg.generic over the same window indexing otherwise. Padding is a
// tensor.pad with zeros. The importer (Frontend/ImportHostConv.cpp) checks
// the operands and resolves the window attributes (pads, auto_pad,
// strides, dilations, output_padding/output_shape) into the params.
//
//===----------------------------------------------------------------------===//
#include "Window.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace conv {
namespace {

using lw::filledWith;
using lw::scalar;
using window::dims;
using window::namedWindowOp;
using window::padWindow;

/// Groups dims [from, from + n) of a rank-`rank` tensor into one.
SmallVector<ReassociationIndices> groupDims(int64_t rank, int64_t from,
                                            int64_t n) {
  SmallVector<ReassociationIndices> r;
  for (int64_t d = 0; d < rank;) {
    ReassociationIndices g;
    int64_t len = d == from ? n : 1;
    for (int64_t i = 0; i < len; ++i)
      g.push_back(d + i);
    r.push_back(g);
    d += len;
  }
  return r;
}

Value expandDims(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape,
                 int64_t from, int64_t n) {
  return b.create<tensor::ExpandShapeOp>(loc, tensorType(shape, elementOf(v)),
                                         v, groupDims(shape.size(), from, n));
}

Value collapseDims(OpBuilder &b, Location loc, Value v, int64_t from,
                   int64_t n) {
  auto s = shapeOf(v);
  SmallVector<int64_t> shape(s.begin(), s.begin() + from);
  int64_t p = 1;
  for (int64_t i = 0; i < n; ++i)
    p *= s[from + i];
  shape.push_back(p);
  shape.append(s.begin() + from + n, s.end());
  return b.create<tensor::CollapseShapeOp>(loc, tensorType(shape, elementOf(v)),
                                           v, groupDims(s.size(), from, n));
}

/// y + bias with the [C] bias broadcast along dim 1.
Value addPerChannel(OpBuilder &b, Location loc, Value y, Value bias) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shapeOf(y).size();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, ctx),
      AffineMap::get(rank, 0, getAffineDimExpr(1, ctx)),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{y.getType()}, ValueRange{y, bias},
          ValueRange{b.create<tensor::EmptyOp>(loc, shapeOf(y), elementOf(y))},
          maps, iters,
          [](OpBuilder &nb, Location l, ValueRange a) {
            nb.create<linalg::YieldOp>(
                l, ValueRange{nb.create<arith::AddFOp>(l, a[0], a[1])});
          })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Grouped convolution of an already padded [N, C, ...] input with a
/// [F, C/group, k...] weight as one linalg.generic (loops: n, g, f, o...,
/// c, k...), for the ranks without a grouped named op.
Value genericGroupedConv(OpBuilder &b, Location loc, Value x, Value w,
                         const Window &win, int64_t group, Type elem) {
  MLIRContext *ctx = b.getContext();
  auto xs = shapeOf(x), ws = shapeOf(w);
  int64_t r = win.rank(), cg = ws[1], fg = ws[0] / group;
  int64_t loops = 3 + r + 1 + r;
  AffineExpr n = getAffineDimExpr(0, ctx), g = getAffineDimExpr(1, ctx),
             f = getAffineDimExpr(2, ctx), c = getAffineDimExpr(3 + r, ctx);
  SmallVector<AffineExpr> xe{n, g * cg + c}, we{g * fg + f, c};
  for (int64_t d = 0; d < r; ++d) {
    AffineExpr o = getAffineDimExpr(3 + d, ctx),
               k = getAffineDimExpr(4 + r + d, ctx);
    xe.push_back(o * win.strides[d] + k * win.dilations[d]);
    we.push_back(k);
  }
  SmallVector<AffineExpr> ye = dims(ctx, 0, 3 + r);
  SmallVector<int64_t> yshape{xs[0], group, fg};
  yshape.append(win.out.begin(), win.out.end());
  SmallVector<utils::IteratorType> iters(3 + r, utils::IteratorType::parallel);
  iters.append(1 + r, utils::IteratorType::reduction);
  Value init = filledWith(b, loc, yshape, scalar(b, loc, elem, 0));
  Value y =
      b.create<linalg::GenericOp>(
           loc, TypeRange{init.getType()}, ValueRange{x, w}, ValueRange{init},
           SmallVector<AffineMap>{AffineMap::get(loops, 0, xe, ctx),
                                  AffineMap::get(loops, 0, we, ctx),
                                  AffineMap::get(loops, 0, ye, ctx)},
           iters,
           [](OpBuilder &nb, Location l, ValueRange a) {
             Value acc;
             if (isa<FloatType>(a[2].getType()))
               acc = nb.create<arith::AddFOp>(
                   l, a[2], nb.create<arith::MulFOp>(l, a[0], a[1]));
             else
               acc = nb.create<arith::AddIOp>(
                   l, a[2], nb.create<arith::MulIOp>(l, a[0], a[1]));
             nb.create<linalg::YieldOp>(l, acc);
           })
          .getResult(0);
  return collapseDims(b, loc, y, 1, 2);
}

/// y = conv(pad(x), w) (+ bias) for [N, C, ...] x and [F, C/group, k...] w.
Value buildConvBody(OpBuilder &b, Location loc, Value x, Value w, Value bias,
                    const Window &win, int64_t group) {
  Type elem = elementOf(x);
  x = padWindow(b, loc, x, win.padBegin, win.padEnd, scalar(b, loc, elem, 0));
  auto xs = shapeOf(x), ws = shapeOf(w);
  int64_t r = win.rank();
  SmallVector<int64_t> yshape{xs[0], ws[0]};
  yshape.append(win.out.begin(), win.out.end());
  auto init = [&](ArrayRef<int64_t> shape) {
    return filledWith(b, loc, shape, scalar(b, loc, elem, 0));
  };
  ArrayRef<int64_t> s = win.strides, d = win.dilations;
  Value y;
  if (group == 1) {
    Value i = init(yshape);
    y = r == 1 ? namedWindowOp<linalg::Conv1DNcwFcwOp>(b, loc, x, w, i, s, d)
        : r == 2
            ? namedWindowOp<linalg::Conv2DNchwFchwOp>(b, loc, x, w, i, s, d)
            : namedWindowOp<linalg::Conv3DNcdhwFcdhwOp>(b, loc, x, w, i, s, d);
  } else if (group == xs[1] && ws[0] == xs[1]) {
    // Depthwise (one filter per channel): the [C, 1, k...] weight as
    // [C, k...].
    Value wd = collapseDims(b, loc, w, 0, 2);
    Value i = init(yshape);
    y = r == 1 ? namedWindowOp<linalg::DepthwiseConv1DNcwCwOp>(b, loc, x, wd, i,
                                                               s, d)
        : r == 2 ? namedWindowOp<linalg::DepthwiseConv2DNchwChwOp>(b, loc, x,
                                                                   wd, i, s, d)
                 : namedWindowOp<linalg::DepthwiseConv3DNcdhwCdhwOp>(
                       b, loc, x, wd, i, s, d);
  } else if (r == 2) {
    // [N, G, C/G, H, W] x [G, F/G, C/G, kh, kw] -> [N, G, F/G, oh, ow].
    SmallVector<int64_t> xg{xs[0], group, xs[1] / group, xs[2], xs[3]};
    SmallVector<int64_t> wg{group, ws[0] / group, ws[1], ws[2], ws[3]};
    SmallVector<int64_t> yg{xs[0], group, ws[0] / group, win.out[0],
                            win.out[1]};
    y = namedWindowOp<linalg::Conv2DNgchwGfchwOp>(
        b, loc, expandDims(b, loc, x, xg, 1, 2),
        expandDims(b, loc, w, wg, 0, 2), init(yg), s, d);
    y = collapseDims(b, loc, y, 1, 2);
  } else {
    y = genericGroupedConv(b, loc, x, w, win, group, elem);
  }
  return bias ? addPerChannel(b, loc, y, bias) : y;
}

//===----------------------------------------------------------------------===//
// Bodies
//===----------------------------------------------------------------------===//

/// The spatial rank of [N, C, D...] `x` with a weight of the same rank.
llvm::Expected<int64_t> spatialRank(const Params &p, ValueRange args,
                                    size_t minArgs, size_t maxArgs) {
  if (args.size() < minArgs || args.size() > maxArgs)
    return p.fail("expects " + llvm::Twine(minArgs) + " to " +
                  llvm::Twine(maxArgs) + " operands");
  int64_t rank = shapeOf(args[0]).size();
  if (rank < 3 || rank > 5 || int64_t(shapeOf(args[1]).size()) != rank)
    return p.fail("expects 3-D to 5-D input and weight");
  return rank - 2;
}

/// Conv: params `group` and the window; operands X, W and an optional bias.
llvm::Expected<Value> convBody(OpBuilder &b, Location loc, ValueRange a,
                               Type result, const Params &p) {
  SYSTOLE_PARAM(r, spatialRank(p, a, 2, 3));
  SYSTOLE_PARAM(win, window::windowOf(p, r));
  SYSTOLE_PARAM(group, p.i64("group"));
  return buildConvBody(b, loc, a[0], a[1], a.size() > 2 ? a[2] : Value(), win,
                       group);
}

/// ConvInteger: sum((x - x_zero_point) * (w - w_zero_point)) in int32, the
/// operands widened (zero-extended when `unsigned_x`/`unsigned_w`) and their
/// zero points subtracted (w's per output channel when it has one per
/// filter) before an int32 convolution. `x_zero_point`/`w_zero_point`: the
/// operand index of each zero point, -1 without.
llvm::Expected<Value> convIntegerBody(OpBuilder &b, Location loc, ValueRange a,
                                      Type result, const Params &p) {
  SYSTOLE_PARAM(r, spatialRank(p, a, 2, 4));
  SYSTOLE_PARAM(win, window::windowOf(p, r));
  SYSTOLE_PARAM(group, p.i64("group"));
  SYSTOLE_PARAM(xzp64, p.i64("x_zero_point"));
  SYSTOLE_PARAM(wzp64, p.i64("w_zero_point"));
  SYSTOLE_PARAM(xUnsigned, p.flag("unsigned_x"));
  SYSTOLE_PARAM(wUnsigned, p.flag("unsigned_w"));
  int xzp = int(xzp64), wzp = int(wzp64);
  for (int z : {xzp, wzp})
    if (z != -1 && (z < 2 || z >= int(a.size())))
      return p.fail("a zero point's operand index is out of range");
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  // v - zp in int32; `zpDim` is the dim of v that indexes a per-channel
  // zero point.
  auto centered = [&](Value v, int zpIdx, bool isUnsigned, int64_t zpDim) {
    int64_t rank = shapeOf(v).size();
    SmallVector<Value> in{v};
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx)};
    if (zpIdx >= 0) {
      Value z = a[zpIdx];
      auto zs = shapeOf(z);
      int64_t n = cast<RankedTensorType>(z.getType()).getNumElements();
      SmallVector<AffineExpr> e;
      for (size_t i = 0; i < zs.size(); ++i)
        e.push_back(n > 1 ? getAffineDimExpr(zpDim, ctx)
                          : getAffineConstantExpr(0, ctx));
      in.push_back(z);
      maps.push_back(AffineMap::get(rank, 0, e, ctx));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    auto widen = [&](OpBuilder &nb, Location l, Value s) -> Value {
      if (isUnsigned)
        return nb.create<arith::ExtUIOp>(l, i32, s);
      return nb.create<arith::ExtSIOp>(l, i32, s);
    };
    return b
        .create<linalg::GenericOp>(
            loc, TypeRange{tensorType(shapeOf(v), i32)}, in,
            ValueRange{b.create<tensor::EmptyOp>(loc, shapeOf(v), i32)}, maps,
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location l, ValueRange s) {
              Value c = widen(nb, l, s[0]);
              if (s.size() > 2)
                c = nb.create<arith::SubIOp>(l, c, widen(nb, l, s[1]));
              nb.create<linalg::YieldOp>(l, c);
            })
        .getResult(0);
  };
  return buildConvBody(b, loc, centered(a[0], xzp, xUnsigned, 0),
                       centered(a[1], wzp, wUnsigned, 0), Value(), win, group);
}

/// ConvTranspose as a convolution: x dilated by the strides (zeros between
/// its elements) and padded by extent - 1 - pads (+ output_padding at the
/// end), convolved at stride 1 with the spatially flipped weight whose
/// in/out channel axes are swapped per group. Negative paddings (pads
/// larger than the kernel extent, or an output_shape beyond the full
/// output) crop or extend the result. Params: `group`, `kernel`,
/// `strides`, `dilations`, `output_padding`, the resolved `pad_begin` and
/// `pad_end`, and the output's spatial size `out`.
llvm::Expected<Value> convTransposeBody(OpBuilder &b, Location loc,
                                        ValueRange a, Type result,
                                        const Params &p) {
  SYSTOLE_PARAM(r, spatialRank(p, a, 2, 3));
  SYSTOLE_PARAM(group, p.i64("group"));
  SYSTOLE_PARAM(kernel, p.i64s("kernel"));
  SYSTOLE_PARAM(strides, p.i64s("strides"));
  SYSTOLE_PARAM(dilations, p.i64s("dilations"));
  SYSTOLE_PARAM(outPad, p.i64s("output_padding"));
  SYSTOLE_PARAM(pb, p.i64s("pad_begin"));
  SYSTOLE_PARAM(pe, p.i64s("pad_end"));
  SYSTOLE_PARAM(out, p.i64s("out"));
  for (const auto *v : {&kernel, &strides, &dilations, &outPad, &pb, &pe, &out})
    if (int64_t(v->size()) != r)
      return p.fail("the window params need one entry per spatial dim");
  auto xs = shapeOf(a[0]), ws = shapeOf(a[1]);
  if (group <= 0 || xs[1] % group || ws[0] != xs[1])
    return p.fail("group is inconsistent with the operands");
  int64_t filters = ws[1] * group, cg = xs[1] / group;
  MLIRContext *ctx = b.getContext();
  Type elem = elementOf(a[0]);
  Value zero = scalar(b, loc, elem, 0);
  // Scatter x into a zero tensor: stride-s positions after `pre` zeros.
  SmallVector<int64_t> pre(r), post(r), crop(r), shape{xs[0], xs[1]};
  for (int64_t d = 0; d < r; ++d) {
    int64_t ext = dilations[d] * (kernel[d] - 1) + 1;
    int64_t p0 = ext - 1 - pb[d], p1 = ext - 1 - pe[d] + outPad[d];
    pre[d] = std::max<int64_t>(p0, 0);
    post[d] = std::max<int64_t>(p1, 0);
    crop[d] = pre[d] - p0;
    shape.push_back(pre[d] + (xs[2 + d] - 1) * strides[d] + 1 + post[d]);
  }
  SmallVector<int64_t> offsets{0, 0}, sizes(xs), steps{1, 1};
  offsets.append(pre.begin(), pre.end());
  steps.append(strides.begin(), strides.end());
  Value xd = b.create<tensor::InsertSliceOp>(
      loc, a[0], filledWith(b, loc, shape, zero),
      getAsIndexOpFoldResult(ctx, offsets), getAsIndexOpFoldResult(ctx, sizes),
      getAsIndexOpFoldResult(ctx, steps));
  // w'[g * F/G + f, c, k] = w[g * C/G + c, f, K - 1 - k], built as
  // [G, F/G, C/G, k...] and collapsed.
  int64_t fg = ws[1], loops = 3 + r;
  AffineExpr g = getAffineDimExpr(0, ctx), f = getAffineDimExpr(1, ctx),
             c = getAffineDimExpr(2, ctx);
  SmallVector<AffineExpr> we{g * cg + c, f};
  SmallVector<int64_t> wshape{group, fg, cg};
  for (int64_t d = 0; d < r; ++d) {
    we.push_back((kernel[d] - 1) - getAffineDimExpr(3 + d, ctx));
    wshape.push_back(kernel[d]);
  }
  Value wt = b.create<linalg::GenericOp>(
                  loc, TypeRange{tensorType(wshape, elem)}, ValueRange{a[1]},
                  ValueRange{b.create<tensor::EmptyOp>(loc, wshape, elem)},
                  SmallVector<AffineMap>{
                      AffineMap::get(loops, 0, we, ctx),
                      AffineMap::getMultiDimIdentityMap(loops, ctx)},
                  SmallVector<utils::IteratorType>(
                      loops, utils::IteratorType::parallel),
                  [](OpBuilder &nb, Location l, ValueRange v) {
                    nb.create<linalg::YieldOp>(l, v[0]);
                  })
                 .getResult(0);
  wt = collapseDims(b, loc, wt, 0, 2);
  Window win;
  win.kernel = kernel;
  win.strides.assign(r, 1);
  win.dilations = dilations;
  win.padBegin.assign(r, 0);
  win.padEnd.assign(r, 0);
  for (int64_t d = 0; d < r; ++d)
    win.out.push_back(shape[2 + d] - win.extent(d) + 1);
  Value yv = buildConvBody(b, loc, xd, wt, Value(), win, group);
  bool cropped = llvm::any_of(crop, [](int64_t v) { return v != 0; }) ||
                 ArrayRef<int64_t>(win.out) != ArrayRef<int64_t>(out);
  if (cropped) {
    SmallVector<int64_t> o{0, 0}, sz{xs[0], filters}, one(r + 2, 1);
    o.append(crop.begin(), crop.end());
    sz.append(out.begin(), out.end());
    yv = b.create<tensor::ExtractSliceOp>(
        loc, tensorType(sz, elem), yv, getAsIndexOpFoldResult(ctx, o),
        getAsIndexOpFoldResult(ctx, sz), getAsIndexOpFoldResult(ctx, one));
  }
  return a.size() > 2 ? addPerChannel(b, loc, yv, a[2]) : yv;
}

} // namespace
} // namespace conv

void registerConvBodies(llvm::StringMap<HostBodyFn> &table) {
  table["Conv"] = conv::convBody;
  table["ConvInteger"] = conv::convIntegerBody;
  table["ConvTranspose"] = conv::convTransposeBody;
}

} // namespace systole::conversion::onnx
