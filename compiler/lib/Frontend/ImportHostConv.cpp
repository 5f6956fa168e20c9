//===- ImportHostConv.cpp - Conv, ConvInteger, ConvTranspose on the host --===//
//
// The convolutions of any spatial rank as graph.host ops: the operands are
// checked and every window attribute (pads, auto_pad, strides, dilations,
// group, output_padding/output_shape) is resolved into the op's params;
// the bodies are built by Conversion/OnnxToLinalg/Conv.cpp.
//
// The graph.conv2d form (ImportConv.cpp) stays for 2-D convolutions whose
// input comes from a DequantizeLinear: FoldQDQ turns those into the NPU's
// int8 ops. Everything else runs here. Pooling: ImportHostPool.cpp.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"
#include "ImportHostWindow.h"

using namespace mlir;

namespace systole::frontend {

namespace {

/// [N, F, out...] of `elem`.
Type convResult(int64_t n, int64_t filters, const Window &win, Type elem) {
  SmallVector<int64_t> shape{n, filters};
  shape.append(win.out.begin(), win.out.end());
  return tensorType(shape, elem);
}

/// The window and the group.
SmallVector<NamedAttribute> convParams(ImportContext &ic, const Window &win,
                                       int64_t group) {
  auto params = conversion::windowParams(ic.builder, win);
  params.push_back(
      ic.builder.getNamedAttr("group", ic.builder.getI64IntegerAttr(group)));
  return params;
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
  return ic.defineOutput(
      0, ic.hostOp(*ops, convResult(xs[0], ws[0], *win, elementOf(x)),
                   convParams(ic, *win, group)));
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
  auto params = convParams(ic, *win, group);
  OpBuilder &b = ic.builder;
  params.push_back(b.getNamedAttr("x_zero_point", b.getI64IntegerAttr(xzp)));
  params.push_back(b.getNamedAttr("w_zero_point", b.getI64IntegerAttr(wzp)));
  params.push_back(b.getNamedAttr("unsigned_x", b.getBoolAttr(xUnsigned)));
  params.push_back(b.getNamedAttr("unsigned_w", b.getBoolAttr(wUnsigned)));
  return ic.defineOutput(
      0,
      ic.hostOp(ins, convResult(xs[0], ws[0], *win, b.getI32Type()), params));
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
  OpBuilder &b = ic.builder;
  SmallVector<int64_t> shape{xs[0], filters};
  shape.append(out.begin(), out.end());
  return ic.defineOutput(
      0, ic.hostOp(
             *ops, tensorType(shape, elementOf(x)),
             {b.getNamedAttr("group", b.getI64IntegerAttr(group)),
              b.getNamedAttr("kernel", b.getDenseI64ArrayAttr(*kernel)),
              b.getNamedAttr("strides", b.getDenseI64ArrayAttr(*strides)),
              b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(*dilations)),
              b.getNamedAttr("output_padding", b.getDenseI64ArrayAttr(*outPad)),
              b.getNamedAttr("pad_begin", b.getDenseI64ArrayAttr(pb)),
              b.getNamedAttr("pad_end", b.getDenseI64ArrayAttr(pe)),
              b.getNamedAttr("out", b.getDenseI64ArrayAttr(out))}));
}

} // namespace

void registerHostConvImporters(llvm::StringMap<OpImporter> &table) {
  table["Conv"] = importConv;
  table["ConvInteger"] = importConvInteger;
  table["ConvTranspose"] = importConvTranspose;
}

} // namespace systole::frontend
