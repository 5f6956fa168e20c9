//===- ImportElementwise.cpp - Add, Mul, Relu, Clip and their int8 forms --===//
#include "ImportContext.h"

using namespace mlir;

namespace systole::frontend {

namespace {

template <typename OpT>
llvm::Error buildBinary(ImportContext &ic, Value a, Value b, Type element) {
  auto shape = graph::broadcastShapes(shapeOf(a), shapeOf(b));
  if (failed(shape))
    return ic.fail("operand shapes do not broadcast");
  Value y = ic.builder.create<OpT>(ic.loc(), tensorType(*shape, element), a, b,
                                   IntegerAttr(), IntegerAttr());
  return ic.defineOutput(0, y);
}

template <typename OpT> llvm::Error importFloatBinary(ImportContext &ic) {
  auto a = ic.input(0), b = ic.input(1);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  if (!elementOf(*a).isF32() && !graph::isQuantized(elementOf(*a)))
    return importHostElementwise(ic);
  if (!isa<FloatType>(elementOf(*a)) || elementOf(*a) != elementOf(*b))
    return ic.fail("expects two float tensors of the same type");
  return buildBinary<OpT>(ic, *a, *b, elementOf(*a));
}

/// com.microsoft QLinearAdd/QLinearMul: (A, A_scale, A_zp, B, B_scale, B_zp,
/// C_scale, C_zp).
template <typename OpT> llvm::Error importQLinearBinary(ImportContext &ic) {
  auto a = ic.input(0), b = ic.input(3);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  Type i8 = IntegerType::get(ic.ctx(), 8);
  auto at = ic.quantElementType(1, 2, 0, i8);
  auto bt = ic.quantElementType(4, 5, 0, i8);
  auto ct = ic.quantElementType(6, 7, 0, i8);
  if (!at)
    return at.takeError();
  if (!bt)
    return bt.takeError();
  if (!ct)
    return ct.takeError();
  auto qa = ic.asQuantized(*a, *at), qb = ic.asQuantized(*b, *bt);
  if (!qa)
    return qa.takeError();
  if (!qb)
    return qb.takeError();
  return buildBinary<OpT>(ic, *qa, *qb, *ct);
}

llvm::Error buildClip(ImportContext &ic, std::optional<double> lo,
                      std::optional<double> hi) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  if (!isa<FloatType>(elementOf(*x)))
    return ic.fail("expects a float tensor (int8 activations come as QDQ)");
  auto b = ic.builder;
  Value y = b.create<graph::ClipOp>(ic.loc(), x->getType(), *x,
                                    lo ? b.getF64FloatAttr(*lo) : FloatAttr(),
                                    hi ? b.getF64FloatAttr(*hi) : FloatAttr());
  return ic.defineOutput(0, y);
}

llvm::Error importRelu(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  if (!elementOf(*x).isF32() && !graph::isQuantized(elementOf(*x)))
    return importHostElementwise(ic);
  return buildClip(ic, 0.0, {});
}

llvm::Error importClip(ImportContext &ic) {
  std::optional<double> lo, hi;
  // Opset < 11 spells the bounds as attributes.
  if (const auto *a = ic.attr("min"))
    lo = a->f();
  if (const auto *a = ic.attr("max"))
    hi = a->f();
  for (int i : {1, 2}) {
    if (!ic.hasInput(i))
      continue;
    auto v = ic.constantFloats(i);
    if (!v)
      return v.takeError();
    if (v->size() != 1)
      return ic.fail("Clip bounds must be scalars");
    (i == 1 ? lo : hi) = (*v)[0];
  }
  return buildClip(ic, lo, hi);
}

/// Identity and inference-mode Dropout forward their input.
llvm::Error importIdentity(ImportContext &ic) {
  if (ic.node->op_type() == "Dropout" && ic.node->output_size() > 1 &&
      !ic.node->output(1).empty())
    return ic.fail("Dropout's mask output is not supported in inference");
  if (const HostTensor *c = ic.constantInput(0)) {
    ic.defineConstant(ic.node->output(0), *c);
    return llvm::Error::success();
  }
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  return ic.defineOutput(0, *x);
}

} // namespace

void registerElementwiseImporters(llvm::StringMap<OpImporter> &table) {
  table["Add"] = importFloatBinary<graph::AddOp>;
  table["Mul"] = importFloatBinary<graph::MulOp>;
  table["com.microsoft::QLinearAdd"] = importQLinearBinary<graph::AddOp>;
  table["com.microsoft::QLinearMul"] = importQLinearBinary<graph::MulOp>;
  table["Relu"] = importRelu;
  table["Clip"] = importClip;
  table["Identity"] = importIdentity;
  table["Dropout"] = importIdentity;
}

} // namespace systole::frontend
