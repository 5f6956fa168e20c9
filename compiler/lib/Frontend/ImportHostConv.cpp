//===- ImportHostConv.cpp - Conv, ConvTranspose and pooling on the host ---===//
//
// The sliding-window ONNX ops of any spatial rank as graph.host ops: the
// linalg named convolution/pooling ops where one has the layout and
// element semantics (conv_{1,2,3}d_nc*_fc*, depthwise_conv_*_nc*_c*,
// conv_2d_ngchw_gfchw, pooling_nc{w,hw}_{max,sum}), linalg.generic over
// the same window indexing otherwise. Padding is a tensor.pad with the
// op's neutral value; every window attribute (pads, auto_pad, strides,
// dilations, group, ceil_mode, output_padding/output_shape) becomes that
// padding and the ops' strides/dilations.
//
// The graph.conv2d / graph.pool forms (ImportLinear.cpp, ImportPool.cpp)
// stay for 2-D ops whose input comes from a DequantizeLinear: FoldQDQ turns
// those into the NPU's int8 ops. Everything else runs here.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;

namespace systole::frontend {

namespace {

/// The graph-form importers registered before this file's (the QDQ path).
OpImporter graphConv, graphConvInteger, graphMaxPool, graphAveragePool,
    graphGlobalAveragePool, graphGlobalMaxPool;

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

Value scalar(OpBuilder &b, Location loc, Type t, double v) {
  if (auto f = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(f, v));
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, int64_t(v)));
}

/// The smallest value of `t`: max pooling's padding and initial value.
Value lowest(OpBuilder &b, Location loc, Type t, bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(f, -std::numeric_limits<double>::infinity()));
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = isUnsigned ? APInt::getMinValue(w) : APInt::getSignedMinValue(w);
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, v));
}

Value filledWith(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Value v) {
  Value e = b.create<tensor::EmptyOp>(loc, shape, v.getType());
  return b.create<linalg::FillOp>(loc, ValueRange{v}, ValueRange{e})
      .getResult(0);
}

Value padWith(OpBuilder &b, Location loc, Value in, ArrayRef<int64_t> low,
              ArrayRef<int64_t> high, Value pad) {
  if (llvm::all_of(low, [](int64_t x) { return x == 0; }) &&
      llvm::all_of(high, [](int64_t x) { return x == 0; }))
    return in;
  SmallVector<int64_t> shape(shapeOf(in));
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += low[d] + high[d];
  MLIRContext *ctx = b.getContext();
  return b.create<tensor::PadOp>(loc, tensorType(shape, elementOf(in)), in,
                                 getAsIndexOpFoldResult(ctx, low),
                                 getAsIndexOpFoldResult(ctx, high), pad);
}

/// N, C then the spatial dims padded by `begin`/`end`.
Value padSpatial(OpBuilder &b, Location loc, Value in, ArrayRef<int64_t> begin,
                 ArrayRef<int64_t> end, Value pad) {
  SmallVector<int64_t> low{0, 0}, high{0, 0};
  low.append(begin.begin(), begin.end());
  high.append(end.begin(), end.end());
  return padWith(b, loc, in, low, high, pad);
}

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

SmallVector<AffineExpr> dims(MLIRContext *ctx, int64_t from, int64_t n) {
  SmallVector<AffineExpr> e;
  for (int64_t i = 0; i < n; ++i)
    e.push_back(getAffineDimExpr(from + i, ctx));
  return e;
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
// Window geometry
//===----------------------------------------------------------------------===//

/// Per spatial dim: kernel, stride, dilation, padding and output size.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, padBegin, padEnd, out;
  /// End padding ceil_mode adds so that floor division yields the ceil
  /// output; part of padEnd, never counted by an average.
  SmallVector<int64_t> ceilExtra;
  int64_t rank() const { return kernel.size(); }
  int64_t extent(int64_t d) const { return dilations[d] * (kernel[d] - 1) + 1; }
};

llvm::Expected<SmallVector<int64_t>> attrVector(ImportContext &ic,
                                                StringRef name, int64_t n,
                                                int64_t dflt, int64_t min) {
  auto v = ic.attrInts(name);
  if (!v)
    return SmallVector<int64_t>(n, dflt);
  if (int64_t(v->size()) != n)
    return ic.fail(name + " must have " + llvm::Twine(n) + " entries, got " +
                   llvm::Twine(v->size()));
  for (int64_t x : *v)
    if (x < min)
      return ic.fail(name + " must be at least " + llvm::Twine(min));
  return SmallVector<int64_t>(v->begin(), v->end());
}

/// ONNX's pads/auto_pad/strides/dilations (and ceil_mode when `ceilMode`)
/// for a window `kernel` over `in`, as ORT's pool and conv attributes
/// compute them.
llvm::Expected<Window> resolveWindow(ImportContext &ic, ArrayRef<int64_t> in,
                                     ArrayRef<int64_t> kernel, bool ceilMode) {
  Window w;
  int64_t r = in.size();
  w.kernel.assign(kernel.begin(), kernel.end());
  auto strides = attrVector(ic, "strides", r, 1, 1);
  if (!strides)
    return strides.takeError();
  auto dilations = attrVector(ic, "dilations", r, 1, 1);
  if (!dilations)
    return dilations.takeError();
  w.strides = *strides;
  w.dilations = *dilations;
  w.padBegin.assign(r, 0);
  w.padEnd.assign(r, 0);
  w.ceilExtra.assign(r, 0);
  std::string autoPad = ic.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    auto pads = attrVector(ic, "pads", 2 * r, 0, 0);
    if (!pads)
      return pads.takeError();
    for (int64_t d = 0; d < r; ++d) {
      w.padBegin[d] = (*pads)[d];
      w.padEnd[d] = (*pads)[d + r];
    }
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // Output ceil(in / stride); the odd padding goes to the end for
    // SAME_UPPER, to the beginning for SAME_LOWER.
    for (int64_t d = 0; d < r; ++d) {
      int64_t out = (in[d] + w.strides[d] - 1) / w.strides[d];
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[d] + w.extent(d) - in[d]);
      int64_t small = total / 2;
      w.padBegin[d] = autoPad == "SAME_UPPER" ? small : total - small;
      w.padEnd[d] = total - w.padBegin[d];
    }
  } else if (autoPad != "VALID") {
    return ic.fail("unknown auto_pad '" + autoPad + "'");
  }
  for (int64_t d = 0; d < r; ++d) {
    int64_t span = in[d] + w.padBegin[d] + w.padEnd[d] - w.extent(d);
    if (span < 0)
      return ic.fail("the kernel does not fit the padded input");
    int64_t out = span / w.strides[d] + 1;
    if (ceilMode && span % w.strides[d]) {
      ++out;
      // The last window must start inside the input or the begin padding
      // (ORT, PyTorch).
      if ((out - 1) * w.strides[d] >= in[d] + w.padBegin[d])
        --out;
      w.ceilExtra[d] =
          std::max<int64_t>(0, (out - 1) * w.strides[d] + w.extent(d) -
                                   (in[d] + w.padBegin[d] + w.padEnd[d]));
      w.padEnd[d] += w.ceilExtra[d];
    }
    w.out.push_back(out);
  }
  return w;
}

/// The kernel's spatial shape: kernel_shape, which must agree with
/// `fromWeight` when the op has a weight.
llvm::Expected<SmallVector<int64_t>>
kernelShape(ImportContext &ic, int64_t rank,
            std::optional<ArrayRef<int64_t>> fromWeight) {
  auto k = ic.attrInts("kernel_shape");
  if (fromWeight) {
    if (k && ArrayRef<int64_t>(*k) != *fromWeight)
      return ic.fail("kernel_shape does not match the weight shape");
    return SmallVector<int64_t>(fromWeight->begin(), fromWeight->end());
  }
  if (!k)
    return ic.fail("kernel_shape is required");
  if (int64_t(k->size()) != rank)
    return ic.fail("kernel_shape must have " + llvm::Twine(rank) +
                   " entries for a " + llvm::Twine(rank + 2) + "-D input");
  for (int64_t x : *k)
    if (x <= 0)
      return ic.fail("kernel_shape must be positive");
  return SmallVector<int64_t>(k->begin(), k->end());
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

template <typename OpT>
Value namedWindowOp(OpBuilder &b, Location loc, Value in, Value filter,
                    Value init, ArrayRef<int64_t> strides,
                    ArrayRef<int64_t> dilations) {
  return b
      .create<OpT>(loc, TypeRange{init.getType()}, ValueRange{in, filter},
                   ValueRange{init}, b.getI64TensorAttr(strides),
                   b.getI64TensorAttr(dilations))
      .getResult(0);
}

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
  x = padSpatial(b, loc, x, win.padBegin, win.padEnd, scalar(b, loc, elem, 0));
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

bool fromDequantize(Value v) {
  return v.getDefiningOp<graph::DequantizeOp>() != nullptr;
}

llvm::Expected<SmallVector<Value>> convOperands(ImportContext &ic) {
  SmallVector<Value> ops;
  for (int i = 0; i < 3; ++i) {
    if (i == 2 && !ic.hasInput(2))
      break;
    auto v = ic.input(i);
    if (!v)
      return v.takeError();
    if (!isa<FloatType>(elementOf(*v)))
      return ic.fail(ic.node->op_type() +
                     " expects float tensors (int8 convolutions come as QDQ, "
                     "QLinearConv or ConvInteger)");
    if (elementOf(*v) != elementOf(ops.empty() ? *v : ops[0]))
      return ic.fail("operands have different element types");
    ops.push_back(*v);
  }
  auto xs = shapeOf(ops[0]), ws = shapeOf(ops[1]);
  if (xs.size() < 3 || xs.size() > 5 || ws.size() != xs.size())
    return ic.fail("expects 3-D to 5-D input and weight (1-D to 3-D "
                   "convolution), got a " +
                   llvm::Twine(xs.size()) + "-D input and a " +
                   llvm::Twine(ws.size()) + "-D weight");
  return ops;
}

/// A QDQ 1-D convolution (audio: [N, C, L]) is the 2-D one over [N, C, 1, L]
/// with a [O, I, 1, K] kernel: the same integers, so the NPU runs it. The
/// reshapes are on the quantized values (DQ(reshape(q)), the form FoldQDQ
/// folds); the node is imported as its 2-D twin (attributes with a leading
/// unit dimension) and the result reshaped back to [N, O, L'].
llvm::Error importConv1DAs2D(ImportContext &ic, Value x, Value w) {
  OpBuilder &b = ic.builder;
  auto to2D = [&](Value v) -> Value {
    auto dq = v.getDefiningOp<graph::DequantizeOp>();
    auto q = cast<RankedTensorType>(dq.getInput().getType());
    ArrayRef<int64_t> s = q.getShape();
    SmallVector<int64_t> shape = {s[0], s[1], 1, s[2]};
    Value r =
        b.create<graph::ReshapeOp>(ic.loc(), q.clone(shape), dq.getInput());
    return b.create<graph::DequantizeOp>(
        ic.loc(), cast<RankedTensorType>(v.getType()).clone(shape), r);
  };
  onnx::NodeProto node = *ic.node;
  if (node.name().empty()) // keep the location ImportContext::loc gives it
    node.set_name(node.op_type() + ":" + node.output(0));
  std::string suffix = "__systole_conv2d";
  ic.define(node.input(0) + suffix, to2D(x));
  ic.define(node.input(1) + suffix, to2D(w));
  node.set_input(0, node.input(0) + suffix);
  node.set_input(1, node.input(1) + suffix);
  node.set_output(0, node.output(0) + suffix);
  for (auto &a : *node.mutable_attribute()) {
    auto ints = a.ints();
    if (a.name() == "kernel_shape" || a.name() == "strides" ||
        a.name() == "dilations") {
      a.clear_ints();
      a.add_ints(1);
      for (int64_t v : ints)
        a.add_ints(v);
    } else if (a.name() == "pads" && ints.size() == 2) {
      a.clear_ints();
      for (int64_t v : {int64_t(0), ints[0], int64_t(0), ints[1]})
        a.add_ints(v);
    }
  }
  const onnx::NodeProto *original = ic.node;
  ic.node = &node;
  llvm::Error err = graphConv(ic);
  ic.node = original;
  if (err)
    return err;
  auto y = ic.value(node.output(0));
  if (!y)
    return y.takeError();
  auto t = cast<RankedTensorType>(y->getType());
  Value y1 = b.create<graph::ReshapeOp>(
      ic.loc(), t.clone({t.getDimSize(0), t.getDimSize(1), t.getDimSize(3)}),
      *y);
  return ic.defineOutput(0, y1);
}

llvm::Error importConv(ImportContext &ic) {
  auto ops = convOperands(ic);
  if (!ops)
    return ops.takeError();
  Value x = (*ops)[0], w = (*ops)[1],
        bias = ops->size() > 2 ? (*ops)[2] : Value();
  auto xs = shapeOf(x), ws = shapeOf(w);
  int64_t group = ic.attrInt("group", 1);
  // A QDQ convolution keeps graph.conv2d, which FoldQDQ makes the NPU's
  // int8 conv (plain, depthwise, or grouped without dilation, which the
  // array runs group by group; others run on the host through the
  // partitioner's float rewrite, which lowers group 1 only).
  auto dilations = ic.attrInts("dilations");
  bool undilated =
      !dilations || llvm::all_of(*dilations, [](int64_t d) { return d == 1; });
  bool npuGroup =
      group == 1 || (group == xs[1] && ws[0] == xs[1]) ||
      (group > 0 && xs[1] % group == 0 && ws[0] % group == 0 && undilated);
  if (graphConv && xs.size() == 4 && fromDequantize(x) && npuGroup)
    return graphConv(ic);
  if (graphConv && xs.size() == 3 && ws.size() == 3 && fromDequantize(x) &&
      fromDequantize(w) && npuGroup)
    return importConv1DAs2D(ic, x, w);
  int64_t r = xs.size() - 2;
  if (group <= 0 || xs[1] % group || ws[0] % group || xs[1] / group != ws[1])
    return ic.fail("group " + llvm::Twine(group) + " is inconsistent with " +
                   llvm::Twine(xs[1]) + " input channels, " +
                   llvm::Twine(ws[0]) + " filters and a weight of " +
                   llvm::Twine(ws[1]) + " channels per group");
  if (bias && (shapeOf(bias).size() != 1 || shapeOf(bias)[0] != ws[0]))
    return ic.fail("bias must be 1-D with one value per output channel");
  auto kernel = kernelShape(ic, r, ws.drop_front(2));
  if (!kernel)
    return kernel.takeError();
  auto win = resolveWindow(ic, xs.drop_front(2), *kernel, /*ceilMode=*/false);
  if (!win)
    return win.takeError();
  auto y = ic.hostOp(
      *ops,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        return buildConvBody(b, loc, a[0], a[1], a.size() > 2 ? a[2] : Value(),
                             *win, group);
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

/// ConvInteger: sum((x - x_zero_point) * (w - w_zero_point)) in int32, the
/// operands widened (zero-extended when uint8) and their zero points
/// subtracted (w's per output channel when it has one per filter) before
/// an int32 convolution. A constant weight with constant zero points keeps
/// the quantized graph.conv2d of ImportLinear.cpp (the NPU's form).
llvm::Error importConvInteger(ImportContext &ic) {
  auto x = ic.input(0), w = ic.input(1);
  if (!x)
    return x.takeError();
  if (!w)
    return w.takeError();
  auto xs = shapeOf(*x), ws = shapeOf(*w);
  bool constant = ic.constantInput(1) &&
                  (!ic.hasInput(2) || ic.constantInput(2)) &&
                  (!ic.hasInput(3) || ic.constantInput(3));
  if (graphConvInteger && constant && xs.size() == 4)
    return graphConvInteger(ic);
  for (Value v : {*x, *w})
    if (!elementOf(v).isInteger(8))
      return ic.fail("ConvInteger expects int8/uint8 X and W");
  if (xs.size() < 3 || xs.size() > 5 || ws.size() != xs.size())
    return ic.fail("expects 3-D to 5-D input and weight (1-D to 3-D "
                   "convolution)");
  int64_t r = xs.size() - 2, group = ic.attrInt("group", 1);
  if (group <= 0 || xs[1] % group || ws[0] % group || xs[1] / group != ws[1])
    return ic.fail("group " + llvm::Twine(group) + " is inconsistent with " +
                   llvm::Twine(xs[1]) + " input channels and a weight of " +
                   llvm::Twine(ws[1]) + " channels per group");
  SmallVector<Value> ins{*x, *w};
  int xzp = -1, wzp = -1;
  for (int i = 2; i < 4; ++i) {
    if (!ic.hasInput(i))
      continue;
    auto z = ic.input(i);
    if (!z)
      return z.takeError();
    int64_t n = cast<RankedTensorType>(z->getType()).getNumElements();
    if (!elementOf(*z).isInteger(8) || (n != 1 && (i == 2 || n != ws[0])))
      return ic.fail(i == 2 ? "x_zero_point must be one int8/uint8 value"
                            : "w_zero_point must be one int8/uint8 value or "
                              "one per output channel");
    (i == 2 ? xzp : wzp) = ins.size();
    ins.push_back(*z);
  }
  bool xUnsigned = ic.isUnsignedInput(0), wUnsigned = ic.isUnsignedInput(1);
  auto kernel = kernelShape(ic, r, ws.drop_front(2));
  if (!kernel)
    return kernel.takeError();
  auto win = resolveWindow(ic, xs.drop_front(2), *kernel, /*ceilMode=*/false);
  if (!win)
    return win.takeError();
  auto y = ic.hostOp(
      ins,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        MLIRContext *ctx = b.getContext();
        Type i32 = b.getI32Type();
        // v - zp in int32; `zpDim` is the dim of v that indexes a per-channel
        // zero point.
        auto centered = [&](Value v, int zpIdx, bool isUnsigned,
                            int64_t zpDim) {
          int64_t rank = shapeOf(v).size();
          SmallVector<Value> in{v};
          SmallVector<AffineMap> maps{
              AffineMap::getMultiDimIdentityMap(rank, ctx)};
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
                  ValueRange{b.create<tensor::EmptyOp>(loc, shapeOf(v), i32)},
                  maps,
                  SmallVector<utils::IteratorType>(
                      rank, utils::IteratorType::parallel),
                  [&](OpBuilder &nb, Location l, ValueRange s) {
                    Value c = widen(nb, l, s[0]);
                    if (s.size() > 2)
                      c = nb.create<arith::SubIOp>(l, c, widen(nb, l, s[1]));
                    nb.create<linalg::YieldOp>(l, c);
                  })
              .getResult(0);
        };
        return buildConvBody(b, loc, centered(a[0], xzp, xUnsigned, 0),
                             centered(a[1], wzp, wUnsigned, 0), Value(), *win,
                             group);
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

/// ConvTranspose as a convolution: x dilated by the strides (zeros between
/// its elements) and padded by extent - 1 - pads (+ output_padding at the
/// end), convolved at stride 1 with the spatially flipped weight whose
/// in/out channel axes are swapped per group. Negative paddings (pads
/// larger than the kernel extent, or an output_shape beyond the full
/// output) crop or extend the result.
llvm::Error importConvTranspose(ImportContext &ic) {
  auto ops = convOperands(ic);
  if (!ops)
    return ops.takeError();
  Value x = (*ops)[0], w = (*ops)[1],
        bias = ops->size() > 2 ? (*ops)[2] : Value();
  auto xs = shapeOf(x), ws = shapeOf(w);
  int64_t r = xs.size() - 2;
  int64_t group = ic.attrInt("group", 1);
  if (group <= 0 || xs[1] % group || ws[0] != xs[1])
    return ic.fail("group " + llvm::Twine(group) + " is inconsistent with " +
                   llvm::Twine(xs[1]) + " input channels and a weight of " +
                   llvm::Twine(ws[0]) + " input channels");
  int64_t filters = ws[1] * group, cg = xs[1] / group;
  if (bias && (shapeOf(bias).size() != 1 || shapeOf(bias)[0] != filters))
    return ic.fail("bias must be 1-D with one value per output channel");
  auto kernel = kernelShape(ic, r, ws.drop_front(2));
  if (!kernel)
    return kernel.takeError();
  auto strides = attrVector(ic, "strides", r, 1, 1);
  auto dilations = attrVector(ic, "dilations", r, 1, 1);
  auto outPad = attrVector(ic, "output_padding", r, 0, 0);
  if (!strides)
    return strides.takeError();
  if (!dilations)
    return dilations.takeError();
  if (!outPad)
    return outPad.takeError();
  auto pads = attrVector(ic, "pads", 2 * r, 0, 0);
  if (!pads)
    return pads.takeError();
  std::string autoPad = ic.attrString("auto_pad", "NOTSET");
  auto outputShape = ic.attrInts("output_shape");
  if (outputShape && int64_t(outputShape->size()) == r + 2)
    outputShape =
        std::vector<int64_t>(outputShape->begin() + 2, outputShape->end());
  if (outputShape && int64_t(outputShape->size()) != r)
    return ic.fail("output_shape must have " + llvm::Twine(r) + " entries");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return ic.fail("unknown auto_pad '" + autoPad + "'");
  // Padding per dim as ONNX's ConvTranspose defines it (floor division: a
  // negative total padding extends the end).
  SmallVector<int64_t> pb(r), pe(r), out(r);
  for (int64_t d = 0; d < r; ++d) {
    int64_t s = (*strides)[d], ext = (*dilations)[d] * ((*kernel)[d] - 1) + 1;
    int64_t full = s * (xs[2 + d] - 1) + (*outPad)[d] + ext;
    bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    if (outputShape || same) {
      int64_t want = outputShape ? (*outputShape)[d] : xs[2 + d] * s;
      int64_t total = full - want;
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      bool upper = autoPad == "SAME_UPPER";
      pb[d] = upper ? half : total - half;
      pe[d] = total - pb[d];
    } else if (autoPad == "NOTSET") {
      pb[d] = (*pads)[d];
      pe[d] = (*pads)[d + r];
    }
    out[d] = full - pb[d] - pe[d];
    if (out[d] <= 0)
      return ic.fail("the output would be empty");
  }
  auto y = ic.hostOp(
      *ops,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        MLIRContext *ctx = b.getContext();
        Type elem = elementOf(a[0]);
        Value zero = scalar(b, loc, elem, 0);
        // Scatter x into a zero tensor: stride-s positions after `pre` zeros.
        SmallVector<int64_t> pre(r), post(r), crop(r), shape{xs[0], xs[1]};
        for (int64_t d = 0; d < r; ++d) {
          int64_t ext = (*dilations)[d] * ((*kernel)[d] - 1) + 1;
          int64_t p0 = ext - 1 - pb[d], p1 = ext - 1 - pe[d] + (*outPad)[d];
          pre[d] = std::max<int64_t>(p0, 0);
          post[d] = std::max<int64_t>(p1, 0);
          crop[d] = pre[d] - p0;
          shape.push_back(pre[d] + (xs[2 + d] - 1) * (*strides)[d] + 1 +
                          post[d]);
        }
        SmallVector<int64_t> offsets{0, 0}, sizes(xs), steps{1, 1};
        offsets.append(pre.begin(), pre.end());
        steps.append(strides->begin(), strides->end());
        Value xd = b.create<tensor::InsertSliceOp>(
            loc, a[0], filledWith(b, loc, shape, zero),
            getAsIndexOpFoldResult(ctx, offsets),
            getAsIndexOpFoldResult(ctx, sizes),
            getAsIndexOpFoldResult(ctx, steps));
        // w'[g * F/G + f, c, k] = w[g * C/G + c, f, K - 1 - k], built as
        // [G, F/G, C/G, k...] and collapsed.
        int64_t fg = ws[1], loops = 3 + r;
        AffineExpr g = getAffineDimExpr(0, ctx), f = getAffineDimExpr(1, ctx),
                   c = getAffineDimExpr(2, ctx);
        SmallVector<AffineExpr> we{g * cg + c, f};
        SmallVector<int64_t> wshape{group, fg, cg};
        for (int64_t d = 0; d < r; ++d) {
          we.push_back(((*kernel)[d] - 1) - getAffineDimExpr(3 + d, ctx));
          wshape.push_back((*kernel)[d]);
        }
        Value wt =
            b.create<linalg::GenericOp>(
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
        win.kernel = *kernel;
        win.strides.assign(r, 1);
        win.dilations = *dilations;
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
              getAsIndexOpFoldResult(ctx, sz),
              getAsIndexOpFoldResult(ctx, one));
        }
        return a.size() > 2 ? addPerChannel(b, loc, yv, a[2]) : yv;
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

enum class PoolKind { Max, Sum, Lp };

/// Pooling of an already padded [N, C, ...] tensor: the named
/// pooling_ncw/nchw ops for max (float, signed) and sum of rank 1-2,
/// linalg.generic (loops n, c, o..., k...) otherwise. `p` is LpPool's
/// exponent: the window sums |x|^p.
Value poolWindow(OpBuilder &b, Location loc, Value x, const Window &win,
                 PoolKind kind, bool isUnsigned, double p) {
  MLIRContext *ctx = b.getContext();
  Type elem = elementOf(x);
  int64_t r = win.rank();
  SmallVector<int64_t> yshape{shapeOf(x)[0], shapeOf(x)[1]};
  yshape.append(win.out.begin(), win.out.end());
  Value start = kind == PoolKind::Max ? lowest(b, loc, elem, isUnsigned)
                                      : scalar(b, loc, elem, 0);
  Value init = filledWith(b, loc, yshape, start);
  Value window = b.create<tensor::EmptyOp>(loc, win.kernel, elem);
  ArrayRef<int64_t> s = win.strides, d = win.dilations;
  bool named = r <= 2 && kind != PoolKind::Lp && !isUnsigned;
  if (named && kind == PoolKind::Max)
    return r == 1 ? namedWindowOp<linalg::PoolingNcwMaxOp>(b, loc, x, window,
                                                           init, s, d)
                  : namedWindowOp<linalg::PoolingNchwMaxOp>(b, loc, x, window,
                                                            init, s, d);
  if (named)
    return r == 1 ? namedWindowOp<linalg::PoolingNcwSumOp>(b, loc, x, window,
                                                           init, s, d)
                  : namedWindowOp<linalg::PoolingNchwSumOp>(b, loc, x, window,
                                                            init, s, d);
  int64_t loops = 2 + 2 * r;
  SmallVector<AffineExpr> xe = dims(ctx, 0, 2);
  for (int64_t i = 0; i < r; ++i)
    xe.push_back(getAffineDimExpr(2 + i, ctx) * s[i] +
                 getAffineDimExpr(2 + r + i, ctx) * d[i]);
  SmallVector<utils::IteratorType> iters(2 + r, utils::IteratorType::parallel);
  iters.append(r, utils::IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ValueRange{x, window},
          ValueRange{init},
          SmallVector<AffineMap>{
              AffineMap::get(loops, 0, xe, ctx),
              AffineMap::get(loops, 0, dims(ctx, 2 + r, r), ctx),
              AffineMap::get(loops, 0, dims(ctx, 0, 2 + r), ctx)},
          iters,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value v = a[0], acc = a[2], res;
            if (kind == PoolKind::Max)
              res = isa<FloatType>(elem)
                        ? nb.create<arith::MaximumFOp>(l, acc, v).getResult()
                    : isUnsigned
                        ? nb.create<arith::MaxUIOp>(l, acc, v).getResult()
                        : nb.create<arith::MaxSIOp>(l, acc, v).getResult();
            else {
              if (kind == PoolKind::Lp) {
                // p is an integer attribute: |x|^p by multiplication
                // (no libm call) unless it is large.
                v = nb.create<math::AbsFOp>(l, v);
                Value power = v;
                if (p > 16)
                  power = nb.create<math::PowFOp>(l, v, scalar(nb, l, elem, p));
                for (int64_t i = 1; p <= 16 && i < int64_t(p); ++i)
                  power = nb.create<arith::MulFOp>(l, power, v);
                v = power;
              }
              res = nb.create<arith::AddFOp>(l, acc, v);
            }
            nb.create<linalg::YieldOp>(l, res);
          })
      .getResult(0);
}

/// (sum)^(1/p) of every element, LpPool's last step.
Value lpRoot(OpBuilder &b, Location loc, Value sum, double p) {
  if (p == 1.0)
    return sum;
  int64_t rank = shapeOf(sum).size();
  MLIRContext *ctx = b.getContext();
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{sum.getType()}, ValueRange{sum},
          ValueRange{
              b.create<tensor::EmptyOp>(loc, shapeOf(sum), elementOf(sum))},
          SmallVector<AffineMap>(2,
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)),
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value y =
                p == 2.0
                    ? Value(nb.create<math::SqrtOp>(l, a[0]))
                    : Value(nb.create<math::PowFOp>(
                          l, a[0], scalar(nb, l, elementOf(sum), 1.0 / p)));
            nb.create<linalg::YieldOp>(l, y);
          })
      .getResult(0);
}

/// Average pooling's divisor per output position, known at compile time:
/// the taps inside the input, or inside the input and its explicit pads
/// with count_include_pad (ORT's rule; ceil_mode's extension never
/// counts). Separable: the product of one count per spatial dim.
Value averageDivisors(OpBuilder &b, Location loc, const Window &win,
                      ArrayRef<int64_t> in, bool includePad, Type elem) {
  int64_t r = win.rank();
  SmallVector<SmallVector<int64_t>> perDim(r);
  for (int64_t d = 0; d < r; ++d) {
    int64_t lo = includePad ? -win.padBegin[d] : 0;
    int64_t hi = includePad ? in[d] + win.padEnd[d] - win.ceilExtra[d] : in[d];
    for (int64_t o = 0; o < win.out[d]; ++o) {
      int64_t n = 0;
      for (int64_t k = 0; k < win.kernel[d]; ++k) {
        int64_t pos =
            o * win.strides[d] - win.padBegin[d] + k * win.dilations[d];
        n += pos >= lo && pos < hi;
      }
      perDim[d].push_back(n);
    }
  }
  SmallVector<double> counts(1, 1.0);
  for (int64_t d = 0; d < r; ++d) {
    SmallVector<double> next;
    for (double c : counts)
      for (int64_t n : perDim[d])
        next.push_back(c * double(n));
    counts = std::move(next);
  }
  auto type = tensorType(win.out, elem);
  SmallVector<APFloat> values;
  for (double c : counts) {
    APFloat v(c);
    bool lost;
    v.convert(cast<FloatType>(elem).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    values.push_back(v);
  }
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, values));
}

/// y[n, c, o...] = sum[n, c, o...] / divisors[o...].
Value divideBy(OpBuilder &b, Location loc, Value sum, Value divisors) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = shapeOf(sum).size();
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{sum.getType()}, ValueRange{sum, divisors},
          ValueRange{
              b.create<tensor::EmptyOp>(loc, shapeOf(sum), elementOf(sum))},
          SmallVector<AffineMap>{
              AffineMap::getMultiDimIdentityMap(rank, ctx),
              AffineMap::get(rank, 0, dims(ctx, 2, rank - 2), ctx),
              AffineMap::getMultiDimIdentityMap(rank, ctx)},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [](OpBuilder &nb, Location l, ValueRange a) {
            nb.create<linalg::YieldOp>(
                l, ValueRange{nb.create<arith::DivFOp>(l, a[0], a[1])});
          })
      .getResult(0);
}

/// MaxPool's Indices: the flat index (over N x C x D1 x ... , padding not
/// counted) of each window's first maximum, row-major or, with
/// storage_order 1, column-major within each image (ORT's MaxPool).
Value maxPoolIndices(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> in,
                     const Window &win, bool isUnsigned, bool columnMajor) {
  MLIRContext *ctx = b.getContext();
  Type elem = elementOf(x), i64 = b.getI64Type();
  int64_t r = win.rank(), channels = shapeOf(x)[1];
  Value xp = padSpatial(b, loc, x, win.padBegin, win.padEnd,
                        lowest(b, loc, elem, isUnsigned));
  SmallVector<int64_t> yshape{shapeOf(x)[0], channels};
  yshape.append(win.out.begin(), win.out.end());
  Value vals = filledWith(b, loc, yshape, lowest(b, loc, elem, isUnsigned));
  Value idx = filledWith(b, loc, yshape, scalar(b, loc, i64, 0));
  Value window = b.create<tensor::EmptyOp>(loc, win.kernel, elem);
  int64_t loops = 2 + 2 * r;
  SmallVector<AffineExpr> xe = dims(ctx, 0, 2);
  for (int64_t i = 0; i < r; ++i)
    xe.push_back(getAffineDimExpr(2 + i, ctx) * win.strides[i] +
                 getAffineDimExpr(2 + r + i, ctx) * win.dilations[i]);
  AffineMap ym = AffineMap::get(loops, 0, dims(ctx, 0, 2 + r), ctx);
  SmallVector<utils::IteratorType> iters(2 + r, utils::IteratorType::parallel);
  iters.append(r, utils::IteratorType::reduction);
  // Element strides of the spatial dims within one image.
  SmallVector<int64_t> step(r);
  int64_t plane = 1;
  for (int64_t i = 0; i < r; ++i) {
    int64_t d = columnMajor ? i : r - 1 - i;
    step[d] = plane;
    plane *= in[d];
  }
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{vals.getType(), idx.getType()}, ValueRange{xp, window},
      ValueRange{vals, idx},
      SmallVector<AffineMap>{AffineMap::get(loops, 0, xe, ctx),
                             AffineMap::get(loops, 0, dims(ctx, 2 + r, r), ctx),
                             ym, ym},
      iters, [&](OpBuilder &nb, Location l, ValueRange a) {
        auto index = [&](int64_t dim) -> Value {
          return nb.create<arith::IndexCastOp>(
              l, i64, nb.create<linalg::IndexOp>(l, dim));
        };
        auto cst = [&](int64_t v) { return scalar(nb, l, i64, double(v)); };
        // ((n * C + c) * plane) + sum(pos_d * step_d), pos_d =
        // o_d * s_d + k_d * dil_d - pad_d.
        Value flat = nb.create<arith::MulIOp>(
            l,
            nb.create<arith::AddIOp>(
                l, nb.create<arith::MulIOp>(l, index(0), cst(channels)),
                index(1)),
            cst(plane));
        for (int64_t i = 0; i < r; ++i) {
          Value pos = nb.create<arith::AddIOp>(
              l, nb.create<arith::MulIOp>(l, index(2 + i), cst(win.strides[i])),
              nb.create<arith::MulIOp>(l, index(2 + r + i),
                                       cst(win.dilations[i])));
          pos = nb.create<arith::SubIOp>(l, pos, cst(win.padBegin[i]));
          flat = nb.create<arith::AddIOp>(
              l, flat, nb.create<arith::MulIOp>(l, pos, cst(step[i])));
        }
        Value greater =
            isa<FloatType>(elem)
                ? nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, a[0],
                                           a[2])
                      .getResult()
                : nb.create<arith::CmpIOp>(l,
                                           isUnsigned
                                               ? arith::CmpIPredicate::ugt
                                               : arith::CmpIPredicate::sgt,
                                           a[0], a[2])
                      .getResult();
        // The first position of each window is taken even when it is
        // padding so that an all-padding prefix still yields an index.
        nb.create<linalg::YieldOp>(
            l, ValueRange{nb.create<arith::SelectOp>(l, greater, a[0], a[2]),
                          nb.create<arith::SelectOp>(l, greater, flat, a[3])});
      });
  return generic.getResult(1);
}

llvm::Expected<Value> poolInput(ImportContext &ic, bool floatOnly) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type e = elementOf(*x);
  if (graph::isQuantized(e))
    return ic.fail("expects unquantized tensors (int8 activations come as "
                   "QDQ)");
  if (floatOnly && !isa<FloatType>(e))
    return ic.fail(ic.node->op_type() + " expects a float tensor");
  if (!isa<FloatType>(e) && e.getIntOrFloatBitWidth() != 8)
    return ic.fail(ic.node->op_type() + " of " +
                   llvm::Twine(e.getIntOrFloatBitWidth()) +
                   "-bit integers is not an ONNX type");
  if (shapeOf(*x).size() < 3)
    return ic.fail("expects an [N, C, D1, ...] input of rank 3 or more");
  return *x;
}

/// MaxPool, AveragePool and LpPool of any spatial rank.
llvm::Error importHostPool(ImportContext &ic, PoolKind kind) {
  auto x = poolInput(ic, kind != PoolKind::Max);
  if (!x)
    return x.takeError();
  auto xs = shapeOf(*x);
  int64_t r = xs.size() - 2;
  bool isUnsigned = ic.isUnsignedInput(0);
  auto kernel = kernelShape(ic, r, std::nullopt);
  if (!kernel)
    return kernel.takeError();
  auto win = resolveWindow(ic, xs.drop_front(2), *kernel,
                           ic.attrInt("ceil_mode", 0) != 0);
  if (!win)
    return win.takeError();
  double p = kind == PoolKind::Lp ? double(ic.attrInt("p", 2)) : 0.0;
  if (kind == PoolKind::Lp && p <= 0)
    return ic.fail("p must be positive");
  bool includePad = ic.attrInt("count_include_pad", 0) != 0;
  int64_t storageOrder = ic.attrInt("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return ic.fail("storage_order must be 0 or 1");
  auto y = ic.hostOp(
      *x,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        Type elem = elementOf(a[0]);
        Value pad = kind == PoolKind::Max ? lowest(b, loc, elem, isUnsigned)
                                          : scalar(b, loc, elem, 0);
        Value xp = padSpatial(b, loc, a[0], win->padBegin, win->padEnd, pad);
        Value v = poolWindow(b, loc, xp, *win, kind, isUnsigned, p);
        if (kind == PoolKind::Lp)
          return lpRoot(b, loc, v, p);
        if (kind == PoolKind::Sum)
          return divideBy(b, loc, v,
                          averageDivisors(b, loc, *win, xs.drop_front(2),
                                          includePad, elem));
        return v;
      });
  if (!y)
    return y.takeError();
  if (auto err = ic.defineOutput(0, *y))
    return err;
  if (ic.node->output_size() < 2 || ic.node->output(1).empty())
    return llvm::Error::success();
  auto idx = ic.hostOp(
      *x,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        return maxPoolIndices(b, loc, a[0], xs.drop_front(2), *win, isUnsigned,
                              storageOrder == 1);
      });
  if (!idx)
    return idx.takeError();
  return ic.defineOutput(1, *idx);
}

/// The 2-D pooling forms the NPU runs: a DequantizeLinear input (FoldQDQ
/// folds the island) or an already quantized one (QOperator models), no
/// dilation, no Indices output.
bool forNpuPool(ImportContext &ic, OpImporter graphForm) {
  auto x = ic.input(0);
  if (!x) {
    llvm::consumeError(x.takeError());
    return false;
  }
  auto dil = ic.attrInts("dilations");
  bool dilated = dil && llvm::any_of(*dil, [](int64_t v) { return v != 1; });
  bool indices = ic.node->output_size() > 1 && !ic.node->output(1).empty();
  return graphForm && shapeOf(*x).size() == 4 &&
         (fromDequantize(*x) || graph::isQuantized(elementOf(*x))) &&
         !dilated && !indices;
}

/// The graph form for QDQ pools, the host form when the graph form refuses
/// the attributes or the input is not quantized.
template <PoolKind Kind> llvm::Error importPool(ImportContext &ic) {
  OpImporter graphForm =
      Kind == PoolKind::Max ? graphMaxPool : graphAveragePool;
  if (forNpuPool(ic, graphForm)) {
    if (llvm::Error e = graphForm(ic))
      llvm::consumeError(std::move(e));
    else
      return llvm::Error::success();
  }
  return importHostPool(ic, Kind);
}

llvm::Error importLpPool(ImportContext &ic) {
  return importHostPool(ic, PoolKind::Lp);
}

/// GlobalMax/Average/LpPool of any rank: a reduction over every spatial dim
/// to [N, C, 1, ...].
template <PoolKind Kind, bool Average>
llvm::Error importGlobalPool(ImportContext &ic) {
  OpImporter graphForm = Kind == PoolKind::Max ? graphGlobalMaxPool
                         : Average             ? graphGlobalAveragePool
                                               : nullptr;
  if (forNpuPool(ic, graphForm))
    return graphForm(ic);
  auto x = poolInput(ic, Kind != PoolKind::Max);
  if (!x)
    return x.takeError();
  auto xs = shapeOf(*x);
  int64_t r = xs.size() - 2;
  bool isUnsigned = ic.isUnsignedInput(0);
  double p = Kind == PoolKind::Lp ? double(ic.attrInt("p", 2)) : 0.0;
  if (Kind == PoolKind::Lp && p <= 0)
    return ic.fail("p must be positive");
  Window win;
  win.kernel.assign(xs.begin() + 2, xs.end());
  win.strides.assign(r, 1);
  win.dilations.assign(r, 1);
  win.padBegin.assign(r, 0);
  win.padEnd.assign(r, 0);
  win.ceilExtra.assign(r, 0);
  win.out.assign(r, 1);
  auto y = ic.hostOp(
      *x,
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        Value v = poolWindow(b, loc, a[0], win, Kind, isUnsigned, p);
        if (Kind == PoolKind::Lp)
          return lpRoot(b, loc, v, p);
        if (Average)
          return divideBy(b, loc, v,
                          averageDivisors(b, loc, win, xs.drop_front(2), false,
                                          elementOf(v)));
        return v;
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

/// MaxUnpool: X's values scattered to the flat positions I names in zeros
/// of the shape the pooling attributes infer (an scf.for over X with
/// tensor.insert; out-of-range indices are skipped), then padded at the end
/// to output_shape, as ONNX's reference places the inferred tensor.
llvm::Error importMaxUnpool(ImportContext &ic) {
  auto x = ic.input(0), idx = ic.input(1);
  if (!x)
    return x.takeError();
  if (!idx)
    return idx.takeError();
  auto xs = shapeOf(*x);
  int64_t r = xs.size() - 2;
  if (xs.size() < 3)
    return ic.fail("expects an [N, C, D1, ...] input of rank 3 or more");
  if (shapeOf(*idx) != xs || !elementOf(*idx).isInteger(64))
    return ic.fail("I must be int64 with X's shape");
  auto kernel = kernelShape(ic, r, std::nullopt);
  if (!kernel)
    return kernel.takeError();
  auto strides = attrVector(ic, "strides", r, 1, 1);
  auto pads = attrVector(ic, "pads", 2 * r, 0, 0);
  if (!strides)
    return strides.takeError();
  if (!pads)
    return pads.takeError();
  SmallVector<int64_t> inferred{xs[0], xs[1]};
  for (int64_t d = 0; d < r; ++d)
    inferred.push_back((xs[2 + d] - 1) * (*strides)[d] + (*kernel)[d] -
                       (*pads)[d] - (*pads)[d + r]);
  SmallVector<int64_t> outShape(inferred);
  if (ic.hasInput(2)) {
    auto s = ic.constantInts(2);
    if (!s)
      return s.takeError();
    if (int64_t(s->size()) != r + 2)
      return ic.fail("output_shape must have " + llvm::Twine(r + 2) +
                     " entries");
    outShape.assign(s->begin(), s->end());
  }
  SmallVector<int64_t> grow;
  for (int64_t d = 0; d < r + 2; ++d) {
    if (outShape[d] < inferred[d] || (d < 2 && outShape[d] != inferred[d]))
      return ic.fail("output_shape is smaller than the shape the pooling "
                     "attributes infer");
    grow.push_back(outShape[d] - inferred[d]);
  }
  int64_t total = 1, count = 1;
  for (int64_t v : inferred)
    total *= v;
  for (int64_t v : xs)
    count *= v;
  auto y = ic.hostOp(
      ValueRange{*x, *idx},
      [&](OpBuilder &b, Location loc, ValueRange a) -> llvm::Expected<Value> {
        Type elem = elementOf(a[0]);
        auto allDims = [](int64_t rank) {
          SmallVector<ReassociationIndices> all(1);
          for (int64_t d = 0; d < rank; ++d)
            all[0].push_back(d);
          return all;
        };
        auto flat = [&](Value v) {
          return b.create<tensor::CollapseShapeOp>(
              loc, tensorType({count}, elementOf(v)), v, allDims(r + 2));
        };
        Value xf = flat(a[0]), ifl = flat(a[1]);
        Value zero = scalar(b, loc, elem, 0);
        Value zeros = filledWith(b, loc, {total}, zero);
        Value lb = b.create<arith::ConstantIndexOp>(loc, 0);
        Value ub = b.create<arith::ConstantIndexOp>(loc, count);
        Value one = b.create<arith::ConstantIndexOp>(loc, 1);
        Value size = b.create<arith::ConstantIntOp>(loc, total, 64);
        auto loop = b.create<scf::ForOp>(
            loc, lb, ub, one, ValueRange{zeros},
            [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
              Value at = nb.create<tensor::ExtractOp>(l, ifl, i);
              // 0 <= at < total as one unsigned comparison.
              Value inRange = nb.create<arith::CmpIOp>(
                  l, arith::CmpIPredicate::ult, at, size);
              auto guarded = nb.create<scf::IfOp>(
                  l, inRange,
                  [&](OpBuilder &tb, Location tl) {
                    Value v = tb.create<tensor::ExtractOp>(tl, xf, i);
                    Value pos = tb.create<arith::IndexCastOp>(
                        tl, tb.getIndexType(), at);
                    tb.create<scf::YieldOp>(
                        tl, ValueRange{tb.create<tensor::InsertOp>(
                                tl, v, acc[0], pos)});
                  },
                  [&](OpBuilder &eb, Location el) {
                    eb.create<scf::YieldOp>(el, acc[0]);
                  });
              nb.create<scf::YieldOp>(l, guarded.getResults());
            });
        Value yv = b.create<tensor::ExpandShapeOp>(
            loc, tensorType(inferred, elem), loop.getResult(0), allDims(r + 2));
        return padWith(b, loc, yv, SmallVector<int64_t>(r + 2, 0), grow, zero);
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

} // namespace

void registerHostConvImporters(llvm::StringMap<OpImporter> &table) {
  graphConv = table.lookup("Conv");
  graphConvInteger = table.lookup("ConvInteger");
  graphMaxPool = table.lookup("MaxPool");
  graphAveragePool = table.lookup("AveragePool");
  graphGlobalAveragePool = table.lookup("GlobalAveragePool");
  graphGlobalMaxPool = table.lookup("GlobalMaxPool");
  table["Conv"] = importConv;
  table["ConvInteger"] = importConvInteger;
  table["ConvTranspose"] = importConvTranspose;
  table["MaxPool"] = importPool<PoolKind::Max>;
  table["AveragePool"] = importPool<PoolKind::Sum>;
  table["LpPool"] = importLpPool;
  table["GlobalMaxPool"] = importGlobalPool<PoolKind::Max, false>;
  table["GlobalAveragePool"] = importGlobalPool<PoolKind::Sum, true>;
  table["GlobalLpPool"] = importGlobalPool<PoolKind::Lp, false>;
  table["MaxUnpool"] = importMaxUnpool;
}

} // namespace systole::frontend
