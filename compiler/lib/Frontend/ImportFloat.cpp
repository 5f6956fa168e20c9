//===- ImportFloat.cpp - Float-only ops the host runs (Softmax, LayerNorm) ===//
//
// Activations, normalizations, reductions and slices that only exist in
// float in quantized models (ORT keeps them float too); the partitioner
// sends them to the host's compiled code.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "systole/Frontend/OnnxModel.h"

using namespace mlir;

namespace systole::frontend {

namespace {

llvm::Expected<Value> floatInput(ImportContext &ic, int i) {
  auto x = ic.input(i);
  if (!x)
    return x.takeError();
  if (!isa<FloatType>(elementOf(*x)))
    return ic.fail("expects float tensors (int8 activations come as QDQ)");
  return *x;
}

/// Whether input 0 is float32 (or quantized, which fails later with a
/// message); other types go to the host's elementwise form.
bool isF32OrQuantized(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x) {
    llvm::consumeError(x.takeError());
    return true;
  }
  Type e = elementOf(*x);
  return e.isF32() || graph::isQuantized(e);
}

llvm::Error buildUnary(ImportContext &ic, StringRef fn) {
  if (!isF32OrQuantized(ic))
    return importHostElementwise(ic);
  auto x = floatInput(ic, 0);
  if (!x)
    return x.takeError();
  Value y = ic.builder.create<graph::UnaryOp>(ic.loc(), x->getType(), *x,
                                              ic.builder.getStringAttr(fn));
  return ic.defineOutput(0, y);
}

template <const char *Fn> llvm::Error importUnary(ImportContext &ic) {
  return buildUnary(ic, Fn);
}

const char kExp[] = "exp", kSigmoid[] = "sigmoid", kTanh[] = "tanh",
           kErf[] = "erf", kSqrt[] = "sqrt", kNeg[] = "neg", kAbs[] = "abs",
           kReciprocal[] = "reciprocal", kHardSwish[] = "hardswish",
           kGelu[] = "gelu";

template <typename OpT> llvm::Error importBinary(ImportContext &ic) {
  if (!isF32OrQuantized(ic))
    return importHostElementwise(ic);
  auto a = floatInput(ic, 0), b = floatInput(ic, 1);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  auto shape = graph::broadcastShapes(shapeOf(*a), shapeOf(*b));
  if (failed(shape))
    return ic.fail("operand shapes do not broadcast");
  Value y = ic.builder.create<OpT>(ic.loc(), tensorType(*shape, elementOf(*a)),
                                   *a, *b, IntegerAttr(), IntegerAttr());
  return ic.defineOutput(0, y);
}

/// `axis` counted from the end when negative, unchecked: the callers check
/// the range with their own messages (unlike normalizeAxis, ImportHelpers.h).
int64_t wrapAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

llvm::Error importSoftmax(ImportContext &ic) {
  auto x = floatInput(ic, 0);
  if (!x)
    return x.takeError();
  int64_t rank = shapeOf(*x).size();
  int64_t axis = wrapAxis(ic.attrInt("axis", -1), rank);
  if (axis < 0 || axis >= rank)
    return ic.fail("Softmax axis out of range");
  // Before opset 13 Softmax flattens the dims from `axis` on into one: the
  // same as a one-axis softmax only for the last axis.
  if (opsetVersion(ic.model, "") < 13 && axis != rank - 1)
    return ic.fail("Softmax before opset 13 normalizes over dims [axis, "
                   "rank); only axis = rank - 1 is supported for it");
  Value y = ic.builder.create<graph::SoftmaxOp>(
      ic.loc(), x->getType(), *x, ic.builder.getI64IntegerAttr(axis));
  return ic.defineOutput(0, y);
}

llvm::Error importGraphReduce(ImportContext &ic) {
  auto x = floatInput(ic, 0);
  if (!x)
    return x.takeError();
  StringRef op = ic.node->op_type();
  StringRef kind = op == "ReduceMean"  ? "mean"
                   : op == "ReduceSum" ? "sum"
                                       : "max";
  int64_t rank = shapeOf(*x).size();
  std::vector<int64_t> axes;
  if (auto a = ic.attrInts("axes"))
    axes = *a;
  else if (ic.hasInput(1)) { // ReduceSum (13) and all reductions from 18
    auto c = ic.constantInts(1);
    if (!c)
      return c.takeError();
    axes = *c;
  }
  if (axes.empty()) {
    if (ic.attrInt("noop_with_empty_axes", 0))
      return ic.fail("noop_with_empty_axes is not supported");
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t &a : axes) {
    a = wrapAxis(a, rank);
    if (a < 0 || a >= rank)
      return ic.fail("reduction axis out of range");
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  bool keep = ic.attrInt("keepdims", 1) != 0;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(shapeOf(*x)[d]);
    else if (keep)
      shape.push_back(1);
  }
  auto &b = ic.builder;
  Value y = b.create<graph::ReduceOp>(
      ic.loc(), tensorType(shape, elementOf(*x)), *x, b.getStringAttr(kind),
      b.getDenseI64ArrayAttr(axes), b.getBoolAttr(keep));
  return ic.defineOutput(0, y);
}

} // namespace

void registerFloatImporters(llvm::StringMap<OpImporter> &table) {
  table["Exp"] = importUnary<kExp>;
  table["Sigmoid"] = importUnary<kSigmoid>;
  table["Tanh"] = importUnary<kTanh>;
  table["Erf"] = importUnary<kErf>;
  table["Sqrt"] = importUnary<kSqrt>;
  table["Neg"] = importUnary<kNeg>;
  table["Abs"] = importUnary<kAbs>;
  table["Reciprocal"] = importUnary<kReciprocal>;
  table["HardSwish"] = importUnary<kHardSwish>;
  table["Gelu"] = importUnary<kGelu>;
  table["Sub"] = importBinary<graph::SubOp>;
  table["Div"] = importBinary<graph::DivOp>;
  table["Softmax"] = importSoftmax;
  table["ReduceMean"] = importGraphReduce;
  table["ReduceSum"] = importGraphReduce;
  table["ReduceMax"] = importGraphReduce;
}

} // namespace systole::frontend
