//===- ImportScan.cpp - CumSum and TopK ----------------------------------===//
//
// Both carry state along one axis; this file checks the axis and k and
// records them in params, and lib/Conversion/OnnxToLinalg/Scan.cpp builds
// the loops. TopK's values and indices are two graph.host ops (`output`).
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

using namespace mlir;

namespace systole::frontend {

namespace {

llvm::Expected<Value> scanInput(ImportContext &ic) {
  auto x = plainInput(ic, 0);
  if (!x)
    return x.takeError();
  Type e = elementOf(*x);
  if (e.isInteger(1))
    return ic.fail("expects numeric tensors, not bool");
  if (shapeOf(*x).empty())
    return ic.fail("expects a tensor of rank 1 or more");
  return *x;
}

/// normalizeAxis (ImportHelpers.h) with this file's own message ("axis A is
/// out of range for rank R"), kept so that CumSum and TopK errors stay as
/// they are.
llvm::Expected<int64_t> axisIn(ImportContext &ic, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return ic.fail("axis " + llvm::Twine(axis) + " is out of range for rank " +
                   llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

llvm::Error importCumSum(ImportContext &ic) {
  auto x = scanInput(ic);
  if (!x)
    return x.takeError();
  auto a = ic.constantInts(1);
  if (!a)
    return a.takeError();
  if (a->size() != 1)
    return ic.fail("CumSum axis must have one element");
  auto axis = axisIn(ic, (*a)[0], shapeOf(*x).size());
  if (!axis)
    return axis.takeError();
  bool exclusive = ic.attrInt("exclusive", 0) != 0;
  bool reverse = ic.attrInt("reverse", 0) != 0;
  loadScf(ic);
  auto &b = ic.builder;
  Value y = ic.hostOp(*x, x->getType(),
                      {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis)),
                       b.getNamedAttr("exclusive", b.getBoolAttr(exclusive)),
                       b.getNamedAttr("reverse", b.getBoolAttr(reverse))});
  return ic.defineOutput(0, y);
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

llvm::Error importTopK(ImportContext &ic) {
  auto x = scanInput(ic);
  if (!x)
    return x.takeError();
  ArrayRef<int64_t> shape = shapeOf(*x);
  auto axis = axisIn(ic, ic.attrInt("axis", -1), shape.size());
  if (!axis)
    return axis.takeError();
  // k: an attribute in TopK-1, an input since opset 10.
  int64_t k;
  if (ic.attr("k")) {
    k = ic.attrInt("k", 0);
  } else {
    auto ks = ic.constantInts(1);
    if (!ks)
      return ks.takeError();
    if (ks->size() != 1)
      return ic.fail("TopK k must have one element");
    k = (*ks)[0];
  }
  if (k < 1 || k > shape[*axis])
    return ic.fail("TopK k = " + llvm::Twine(k) + " must be in [1, " +
                   llvm::Twine(shape[*axis]) + "] (the axis size)");
  bool largest = ic.attrInt("largest", 1) != 0;
  bool uns = ic.isUnsignedInput(0);
  // sorted = 0 allows any order; the sorted one is among them.
  loadScf(ic);
  for (int out = 0; out < 2; ++out) {
    if (ic.node->output_size() <= out || ic.node->output(out).empty())
      continue;
    auto &b = ic.builder;
    SmallVector<int64_t> outShape(shape);
    outShape[*axis] = k;
    Value y = ic.hostOp(
        *x, tensorType(outShape, out == 1 ? b.getI64Type() : elementOf(*x)),
        {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis)),
         b.getNamedAttr("k", b.getI64IntegerAttr(k)),
         b.getNamedAttr("largest", b.getBoolAttr(largest)),
         b.getNamedAttr("unsigned", b.getBoolAttr(uns)),
         b.getNamedAttr("output", b.getI64IntegerAttr(out))});
    if (auto err = ic.defineOutput(out, y))
      return err;
  }
  return llvm::Error::success();
}

} // namespace

void registerScanImporters(llvm::StringMap<OpImporter> &table) {
  table["CumSum"] = importCumSum;
  table["TopK"] = importTopK;
}

} // namespace systole::frontend
