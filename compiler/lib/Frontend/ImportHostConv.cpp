//===- ImportHostConv.cpp - Conv, ConvInteger, ConvTranspose on the host --===//
//
// The convolutions of any spatial rank as graph.host ops: the linalg named
// convolution ops where one has the layout and element semantics
// (conv_{1,2,3}d_nc*_fc*, depthwise_conv_*_nc*_c*, conv_2d_ngchw_gfchw),
// linalg.generic over the same window indexing otherwise. Padding is a
// tensor.pad with zeros; every window attribute (pads, auto_pad, strides,
// dilations, group, output_padding/output_shape) becomes that padding and
// the ops' strides/dilations.
//
// The graph.conv2d form (ImportConv.cpp) stays for 2-D convolutions whose
// input comes from a DequantizeLinear: FoldQDQ turns those into the NPU's
// int8 ops. Everything else runs here. Pooling: ImportHostPool.cpp.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"
#include "ImportHostWindow.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace systole::frontend {

namespace {

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

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
  llvm::Error err = graphFormOf("Conv")(ic);
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
  if (xs.size() == 4 && fromDequantize(x) && npuGroup)
    return graphFormOf("Conv")(ic);
  if (xs.size() == 3 && ws.size() == 3 && fromDequantize(x) &&
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
/// the quantized graph.conv2d of ImportConv.cpp (the NPU's form).
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
  if (constant && xs.size() == 4)
    return graphFormOf("ConvInteger")(ic);
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

} // namespace

void registerHostConvImporters(llvm::StringMap<OpImporter> &table) {
  table["Conv"] = importConv;
  table["ConvInteger"] = importConvInteger;
  table["ConvTranspose"] = importConvTranspose;
}

} // namespace systole::frontend
