//===- ImportElementwise.cpp - Add, Mul, Relu, Clip and their int8 forms --===//
#include "ImportContext.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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

/// Clip of an integer tensor on the host: max(x, min) then min(., max), the
/// bounds as tensors (constants or run-time values) of x's type.
llvm::Error importIntegerClip(ImportContext &ic, Value x) {
  SmallVector<Value> ins{x};
  bool hasLo = ic.hasInput(1), hasHi = ic.hasInput(2);
  for (int i : {1, 2}) {
    if (!ic.hasInput(i))
      continue;
    auto v = ic.input(i);
    if (!v)
      return v.takeError();
    if (elementOf(*v) != elementOf(x) || !shapeOf(*v).empty())
      return ic.fail("Clip bounds must be scalars of the input's type");
    ins.push_back(*v);
  }
  auto &b = ic.builder;
  Value y = ic.hostOp(
      ins, x.getType(),
      {b.getNamedAttr("unsigned", b.getBoolAttr(ic.isUnsignedInput(0))),
       b.getNamedAttr("has_min", b.getBoolAttr(hasLo)),
       b.getNamedAttr("has_max", b.getBoolAttr(hasHi))});
  return ic.defineOutput(0, y);
}

llvm::Error importClip(ImportContext &ic) {
  {
    auto x = ic.input(0);
    if (!x)
      return x.takeError();
    if (isa<IntegerType>(elementOf(*x)))
      return importIntegerClip(ic, *x);
  }
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

/// Identity and inference-mode Dropout forward their input; Dropout's mask
/// is then all true.
llvm::Error importIdentity(ImportContext &ic) {
  if (ic.node->op_type() == "Dropout" && ic.hasInput(2)) {
    // training_mode (opset 12+): training drops at random unless ratio is 0.
    {
      const HostTensor *t = ic.constantInput(2);
      if (!t)
        return ic.notConstant(2, "training_mode");
      bool on = t->numElements() && t->data()[0] != 0;
      double ratio = 0.5;
      if (ic.hasInput(1)) {
        auto r = ic.constantFloats(1);
        if (!r)
          return r.takeError();
        ratio = r->empty() ? 0.5 : (*r)[0];
      }
      if (on && ratio != 0.0)
        return ic.fail("Dropout in training mode (ratio " +
                       std::to_string(ratio) +
                       ") draws random numbers; only inference is supported");
    }
  }
  if (ic.node->op_type() == "Dropout" && ic.node->output_size() > 1 &&
      !ic.node->output(1).empty()) {
    auto x = ic.input(0);
    if (!x)
      return x.takeError();
    HostTensor mask(ElementType::Bool, std::vector<int64_t>(shapeOf(*x).begin(),
                                                            shapeOf(*x).end()));
    std::fill(mask.data(), mask.data() + mask.byteSize(), 1);
    ic.defineConstant(ic.node->output(1), std::move(mask));
  }
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
