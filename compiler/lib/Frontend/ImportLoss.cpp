//===- ImportLoss.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ===//
//
// The two ONNX loss ops as graph.host ops over inputs [N, C, D1, ..., Dk]
// and integer targets [N, D1, ..., Dk]: this file checks the operands and
// records `reduction`, `ignore_index` and which output (the loss, or SCE's
// log_prob) in params; lib/Conversion/OnnxToLinalg/Loss.cpp builds them.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

using namespace mlir;

namespace systole::frontend {

namespace {

/// Checks what lib/Conversion/OnnxToLinalg/Loss.cpp assumes: ONNX's
/// reduction, float scores, integer targets [N, D...] for scores
/// [N, C, D...], a [C] weight of the scores' type.
llvm::Error checkLoss(ImportContext &ic, Value x, Value target, Value weight) {
  std::string r = ic.attrString("reduction", "mean");
  if (r != "none" && r != "sum" && r != "mean")
    return ic.fail("reduction '" + r + "' is not supported");
  Type e = elementOf(x);
  if (!isa<FloatType>(e) || graph::isQuantized(e))
    return ic.fail("expects float scores");
  auto lt = dyn_cast<IntegerType>(elementOf(target));
  if (!lt || lt.getWidth() < 8)
    return ic.fail("expects integer targets");
  ArrayRef<int64_t> xs = shapeOf(x), ts = shapeOf(target);
  if (xs.size() < 2 || ts.size() != xs.size() - 1 || ts[0] != xs[0] ||
      !std::equal(ts.begin() + 1, ts.end(), xs.begin() + 2))
    return ic.fail("expects input [N, C, D...] and target [N, D...]");
  if (weight) {
    ArrayRef<int64_t> ws = shapeOf(weight);
    if (ws.size() != 1 || ws[0] != xs[1] || elementOf(weight) != e)
      return ic.fail("expects a weight of shape [C] and the input's type");
  }
  return llvm::Error::success();
}

llvm::Error importLoss(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  auto target = ic.input(1);
  if (!target)
    return target.takeError();
  Value weight;
  if (ic.hasInput(2)) {
    auto w = ic.input(2);
    if (!w)
      return w.takeError();
    weight = *w;
  }
  if (auto err = checkLoss(ic, *x, *target, weight))
    return err;
  Type elem = elementOf(*x);
  auto &b = ic.builder;
  SmallVector<NamedAttribute> params;
  for (const char *name : {"reduction", "ignore_index"})
    if (ic.attr(name))
      params.push_back(
          name == llvm::StringRef("reduction")
              ? b.getNamedAttr(name, b.getStringAttr(ic.attrString(name, "")))
              : b.getNamedAttr(name, b.getI64IntegerAttr(ic.attrInt(name, 0))));
  SmallVector<Value> ins = {*x, *target};
  if (weight)
    ins.push_back(weight);
  bool none = ic.attrString("reduction", "mean") == "none";
  SmallVector<NamedAttribute> p0(params);
  p0.push_back(b.getNamedAttr("output", b.getI64IntegerAttr(0)));
  Value loss = ic.hostOp(
      ins, none ? tensorType(shapeOf(*target), elem) : tensorType({}, elem),
      p0);
  if (auto err = ic.defineOutput(0, loss))
    return err;

  if (ic.node->op_type() != "SoftmaxCrossEntropyLoss" ||
      ic.node->output_size() < 2 || ic.node->output(1).empty())
    return llvm::Error::success();
  SmallVector<NamedAttribute> p1(params);
  p1.push_back(b.getNamedAttr("output", b.getI64IntegerAttr(1)));
  return ic.defineOutput(1, ic.hostOp(*x, x->getType(), p1));
}

} // namespace

void registerLossImporters(llvm::StringMap<OpImporter> &table) {
  table["NegativeLogLikelihoodLoss"] = importLoss;
  table["SoftmaxCrossEntropyLoss"] = importLoss;
}

} // namespace systole::frontend
