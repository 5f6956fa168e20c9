//===- ImportHostElementwise.cpp - Elementwise ONNX ops of any type, host -===//
//
// Every elementwise ONNX operator (unary math, activations, arithmetic,
// comparisons, logic, bit ops, Where, Cast) of any element type as a
// graph.host op: this file checks the operands against the op's signature,
// folds nodes whose inputs are all constants (shape arithmetic), and records
// the node's attributes and the operands' signedness in params; the bodies
// are built by lib/Conversion/OnnxToLinalg/Elementwise.cpp. The float32
// forms the NPU partition knows (graph.add, graph.unary, ...) keep their
// importers; those delegate here for other element types.
//
// Unsigned integer tensors are held in signless integers, so signedness
// travels in params (ImportContext::isUnsigned).
//
//===----------------------------------------------------------------------===//
#include "FoldConstantElementwise.h"
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Conversion/OnnxToLinalg.h"

using namespace mlir;
using systole::conversion::ElementwiseSignature;

namespace systole::frontend {

namespace {

/// The element type ONNX's Cast `to` names.
llvm::Expected<Type> castTarget(ImportContext &ic) {
  if (Type t = onnxElementType(ic.ctx(), ic.attrInt("to", 0)))
    return t;
  return ic.fail(
      "Cast to " +
      onnx::TensorProto::DataType_Name(
          static_cast<onnx::TensorProto::DataType>(ic.attrInt("to", 0))) +
      " is not supported");
}

} // namespace

namespace {

/// The HostTensor type of an IR element type (`uns`: unsigned integer).
std::optional<ElementType> hostElementType(Type t, bool uns) {
  if (t.isF32())
    return ElementType::Float32;
  if (t.isF64())
    return ElementType::Float64;
  auto i = dyn_cast<IntegerType>(t);
  if (!i)
    return std::nullopt;
  switch (i.getWidth()) {
  case 1:
    return ElementType::Bool;
  case 8:
    return uns ? ElementType::UInt8 : ElementType::Int8;
  case 16:
    return uns ? ElementType::UInt16 : ElementType::Int16;
  case 32:
    return uns ? ElementType::UInt32 : ElementType::Int32;
  case 64:
    return uns ? ElementType::UInt64 : ElementType::Int64;
  }
  return std::nullopt;
}

/// Folds the node when all its inputs are constants (shape arithmetic).
std::optional<HostTensor> foldNode(ImportContext &ic, Type resultElem) {
  SmallVector<const HostTensor *> constants;
  for (int i = 0; i < ic.node->input_size(); ++i) {
    if (!ic.hasInput(i))
      continue;
    const HostTensor *c = ic.constantInput(i);
    if (!c)
      return std::nullopt;
    constants.push_back(c);
  }
  llvm::StringRef op = ic.node->op_type();
  if (op == "CastLike")
    constants.pop_back();
  if (op == "Mod" && ic.attrInt("fmod", 0) == 1)
    op = "FMod";
  auto type = hostElementType(resultElem, ic.isUnsigned(ic.node->output(0)));
  if (!type)
    return std::nullopt;
  return foldConstantElementwise(op, constants, *type,
                                 ic.isUnsignedInput(op == "Where" ? 1 : 0));
}

} // namespace

llvm::Error importHostElementwise(ImportContext &ic) {
  auto sig = conversion::elementwiseSignature(ic.node->op_type());
  if (!sig)
    return ic.fail("no host elementwise form of this op");
  const ElementwiseSignature &e = *sig;
  SmallVector<Value> ins;
  for (int i = 0; i < ic.node->input_size(); ++i) {
    if (!ic.hasInput(i))
      continue;
    auto v = plainInput(ic, i);
    if (!v)
      return v.takeError();
    ins.push_back(*v);
  }
  if (ins.empty() || (e.inputs >= 0 && int(ins.size()) != e.inputs))
    return ic.fail("expects " + llvm::Twine(e.inputs) + " inputs, got " +
                   llvm::Twine(ins.size()));
  Type first = elementOf(ins[0]);
  if (e.floatOnly && !isa<FloatType>(first))
    return ic.fail("expects float tensors");
  Type elem = first;
  if (e.result == ElementwiseSignature::Result::Bool) {
    elem = IntegerType::get(ic.ctx(), 1);
  } else if (ic.node->op_type() == "Cast") {
    auto t = castTarget(ic);
    if (!t)
      return t.takeError();
    elem = *t;
  } else if (ic.node->op_type() == "CastLike") {
    elem = elementOf(ins[1]);
    ins.pop_back();
  } else if (ic.node->op_type() == "Where") {
    elem = elementOf(ins[1]);
  }
  // Operands other than Pow's exponent and Where's condition share a type.
  for (size_t i = 1; i < ins.size(); ++i) {
    bool exempt = ic.node->op_type() == "Pow" ||
                  (ic.node->op_type() == "Where" && i == 1);
    Type want = ic.node->op_type() == "Where" ? elementOf(ins[1]) : first;
    if (!exempt && elementOf(ins[i]) != want)
      return ic.fail("operands have different element types");
  }
  if (auto folded = foldNode(ic, elem)) {
    ic.defineConstant(ic.node->output(0), std::move(*folded));
    return llvm::Error::success();
  }
  // Where's condition is bool; its values decide the operands' signedness.
  bool uns = ic.isUnsignedInput(ic.node->op_type() == "Where" ? 1 : 0);
  SmallVector<int64_t> shape(shapeOf(ins[0]));
  for (Value v : llvm::ArrayRef(ins).drop_front()) {
    auto s = graph::broadcastShapes(shape, shapeOf(v));
    if (failed(s))
      return ic.fail("operand shapes do not broadcast");
    shape.assign(s->begin(), s->end());
  }
  auto &b = ic.builder;
  SmallVector<NamedAttribute> params;
  for (NamedAttribute a : ic.nodeAttributes())
    if (!a.getName().getValue().starts_with("unsigned"))
      params.push_back(a);
  params.push_back(b.getNamedAttr("unsigned", b.getBoolAttr(uns)));
  params.push_back(
      b.getNamedAttr("unsigned_input1", b.getBoolAttr(ic.isUnsignedInput(1))));
  params.push_back(b.getNamedAttr(
      "unsigned_output", b.getBoolAttr(ic.isUnsigned(ic.node->output(0)))));
  // ORT squares and cubes by multiplication when a float Pow's exponent is
  // the constant 2 or 3 (x * x, x * x * x), std::pow otherwise.
  if (ic.node->op_type() == "Pow" && isa<FloatType>(first) &&
      ic.constantInput(1)) {
    auto e = ic.constantFloats(1);
    if (!e)
      llvm::consumeError(e.takeError());
    else if (!e->empty() && llvm::all_equal(*e) &&
             ((*e)[0] == 2.0f || (*e)[0] == 3.0f))
      params.push_back(
          b.getNamedAttr("exponent", b.getI64IntegerAttr(int64_t((*e)[0]))));
  }
  return ic.defineOutput(0, ic.hostOp(ins, tensorType(shape, elem), params));
}

void registerHostElementwiseImporters(llvm::StringMap<OpImporter> &t) {
  for (const std::string &op : conversion::elementwiseOps())
    t[op] = importHostElementwise;
}

} // namespace systole::frontend
