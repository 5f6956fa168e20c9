//===- ImportReduce.cpp - Reductions, arg-reductions, softmax family -----===//
//
// ONNX's Reduce* operators, ArgMax/ArgMin and Softmax/LogSoftmax/Hardmax as
// graph.host ops, for every element type ONNX allows: this file reads the
// axes (attribute or input, per opset), normalizes them into params and
// gives the result type; the bodies (ORT's numerics) are built by
// lib/Conversion/OnnxToLinalg/Reduce.cpp.
//
// The float32 forms the rest of the compiler knows (graph.reduce for
// ReduceMean/Sum/Max, graph.softmax) keep their importers (ImportFloat.cpp)
// for the cases they express; this file registers over them and delegates.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Frontend/OnnxModel.h"

using namespace mlir;

namespace systole::frontend {

namespace {

/// Sorted, deduplicated, in-range axes (negative ones count from the end).
llvm::Expected<std::vector<int64_t>>
normalizeAxes(ImportContext &ic, std::vector<int64_t> axes, int64_t rank) {
  for (int64_t &a : axes) {
    if (a < -rank || a >= rank)
      return ic.fail("axis " + llvm::Twine(a) + " is out of range for rank " +
                     llvm::Twine(rank));
    if (a < 0)
      a += rank;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// `shape` with `axes` removed, or set to 1 with `keep`.
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes, bool keep) {
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (!llvm::is_contained(axes, d))
      out.push_back(shape[d]);
    else if (keep)
      out.push_back(1);
  }
  return out;
}

llvm::Expected<Value> dataInput(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  if (graph::isQuantized(elementOf(*x)))
    return ic.fail("expects unquantized tensors (int8 activations come as "
                   "QDQ)");
  return *x;
}

//===----------------------------------------------------------------------===//
// Reduce*
//===----------------------------------------------------------------------===//

llvm::Error importReduce(ImportContext &ic) {
  StringRef op = ic.node->op_type();
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type elem = elementOf(*x);
  OpImporter f32Form = graphFormOf(op);
  if (graph::isQuantized(elem)) {
    if (f32Form)
      return f32Form(ic); // says why it cannot
    return ic.fail("expects unquantized tensors (int8 activations come as "
                   "QDQ)");
  }
  // Axes: an attribute before opset 13 (ReduceSum) / 18 (the others), an
  // optional input after; none (or an empty input) means all, unless
  // noop_with_empty_axes makes it the identity reduction.
  std::vector<int64_t> axes;
  if (auto a = ic.attrInts("axes")) {
    axes = *a;
  } else if (ic.hasInput(1)) {
    auto c = ic.constantInts(1);
    if (!c)
      return c.takeError();
    axes = *c;
  }
  int64_t rank = shapeOf(*x).size();
  bool noop = axes.empty() && ic.attrInt("noop_with_empty_axes", 0) != 0;
  if (axes.empty() && !noop)
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  auto norm = normalizeAxes(ic, axes, rank);
  if (!norm)
    return norm.takeError();
  axes = *norm;
  if (f32Form && elem.isF32() && !noop)
    return f32Form(ic);

  bool isBool = elem.isInteger(1);
  if (isBool && op != "ReduceMax" && op != "ReduceMin")
    return ic.fail("bool tensors are only reduced by ReduceMax/ReduceMin");
  bool uns = isBool || ic.isUnsignedInput(0);
  bool keep = ic.attrInt("keepdims", 1) != 0;
  SmallVector<int64_t> outShape = reducedShape(shapeOf(*x), axes, keep);
  auto &b = ic.builder;
  Value y = ic.hostOp(*x, tensorType(outShape, elem),
                      {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
                       b.getNamedAttr("unsigned", b.getBoolAttr(uns))});
  return ic.defineOutput(0, y);
}

//===----------------------------------------------------------------------===//
// ArgMax / ArgMin
//===----------------------------------------------------------------------===//

llvm::Error importArgReduce(ImportContext &ic) {
  auto x = dataInput(ic);
  if (!x)
    return x.takeError();
  int64_t rank = shapeOf(*x).size();
  auto axes = normalizeAxes(ic, {ic.attrInt("axis", 0)}, rank);
  if (!axes)
    return axes.takeError();
  bool greater = ic.node->op_type() == "ArgMax";
  bool last = ic.attrInt("select_last_index", 0) != 0;
  bool uns = elementOf(*x).isInteger(1) || ic.isUnsignedInput(0);
  SmallVector<int64_t> outShape =
      reducedShape(shapeOf(*x), *axes, ic.attrInt("keepdims", 1) != 0);
  auto &b = ic.builder;
  Value y = ic.hostOp(*x, tensorType(outShape, b.getI64Type()),
                      {b.getNamedAttr("axis", b.getI64IntegerAttr((*axes)[0])),
                       b.getNamedAttr("select_last_index", b.getBoolAttr(last)),
                       b.getNamedAttr("unsigned", b.getBoolAttr(uns))});
  return ic.defineOutput(0, y);
}

//===----------------------------------------------------------------------===//
// Softmax / LogSoftmax / Hardmax
//===----------------------------------------------------------------------===//

llvm::Error importSoftmaxFamily(ImportContext &ic) {
  StringRef op = ic.node->op_type();
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type elem = elementOf(*x);
  OpImporter f32Form = graphFormOf(op);
  if (graph::isQuantized(elem) && f32Form)
    return f32Form(ic); // says why it cannot
  if (!isa<FloatType>(elem))
    return ic.fail("expects float tensors (int8 activations come as QDQ)");
  int64_t rank = shapeOf(*x).size();
  // Opset 13 normalizes along one axis (default -1); before, the input is
  // coerced to 2-D at `axis` (default 1) and dims [axis, rank) are one row.
  bool perAxis = opsetVersion(ic.model, "") >= 13;
  int64_t axis = ic.attrInt("axis", perAxis ? -1 : 1);
  auto norm = normalizeAxes(ic, {axis}, rank);
  if (!norm)
    return norm.takeError();
  axis = (*norm)[0];
  std::vector<int64_t> axes = {axis};
  if (!perAxis)
    for (int64_t d = axis + 1; d < rank; ++d)
      axes.push_back(d);
  // graph.softmax normalizes along one axis, read with default -1.
  auto f32Axis = normalizeAxes(ic, {ic.attrInt("axis", -1)}, rank);
  if (!f32Axis)
    return f32Axis.takeError();
  if (f32Form && elem.isF32() && axes.size() == 1 && (*f32Axis)[0] == axis)
    return f32Form(ic);
  Value y = ic.hostOp(
      *x, x->getType(),
      {ic.builder.getNamedAttr("axes", ic.builder.getDenseI64ArrayAttr(axes))});
  return ic.defineOutput(0, y);
}

/// com.microsoft QLinearSoftmax (from ORT's QDQ fusion, OrtFusions.cpp, or
/// a QOperator model): host code over the codes, ORT's kernel step for step
/// (OnnxToLinalg QLinearSoftmax body).
llvm::Error importQLinearSoftmax(ImportContext &ic) {
  int64_t opset = ic.attrInt("opset", -1);
  if (opset < 1)
    return ic.fail("the 'opset' attribute is required");
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type i8 = IntegerType::get(ic.ctx(), 8);
  auto xt = ic.quantElementType(1, 2, 0, i8);
  if (!xt)
    return xt.takeError();
  auto yt = ic.quantElementType(3, 4, 0, i8);
  if (!yt)
    return yt.takeError();
  auto xq = dyn_cast<quant::UniformQuantizedType>(*xt);
  auto yq = dyn_cast<quant::UniformQuantizedType>(*yt);
  if (!xq || !yq || xq.getStorageTypeIntegralWidth() != 8 ||
      yq.getStorageTypeIntegralWidth() != 8)
    return ic.fail("expects 8-bit per-tensor quantized input and output");
  if (xq.isSigned() != yq.isSigned())
    return ic.fail("input and output must both be int8 or both uint8");
  auto qx = ic.asQuantized(*x, *xt);
  if (!qx)
    return qx.takeError();
  ArrayRef<int64_t> shape = shapeOf(*qx);
  int64_t rank = shape.size();
  auto norm =
      normalizeAxes(ic, {ic.attrInt("axis", opset < 13 ? 1 : -1)}, rank);
  if (!norm)
    return norm.takeError();
  // Before opset 13 a row is dims [axis, rank); since, the one axis.
  std::vector<int64_t> axes = {(*norm)[0]};
  if (opset < 13)
    for (int64_t d = axes[0] + 1; d < rank; ++d)
      axes.push_back(d);
  OpBuilder &b = ic.builder;
  Value y = ic.hostOp(
      *qx, RankedTensorType::get(shape, *yt),
      {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
       b.getNamedAttr("x_scale", b.getF32FloatAttr(float(xq.getScale()))),
       b.getNamedAttr("y_scale", b.getF32FloatAttr(float(yq.getScale()))),
       b.getNamedAttr("y_zero_point", b.getI64IntegerAttr(yq.getZeroPoint())),
       b.getNamedAttr("signed", b.getBoolAttr(xq.isSigned()))});
  return ic.defineOutput(0, y);
}

} // namespace

void registerReduceImporters(llvm::StringMap<OpImporter> &table) {
  for (const char *op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                         "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare"}) {
    table[op] = importReduce;
  }
  for (const char *op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    table[op] = importSoftmaxFamily;
  }
  table["ArgMax"] = importArgReduce;
  table["ArgMin"] = importArgReduce;
  table["com.microsoft::QLinearSoftmax"] = importQLinearSoftmax;
}

} // namespace systole::frontend
