//===- OnnxToLinalg.cpp - Building graph.host bodies from params ----------===//
//
// The registry of the family files' body builders, the `params` reader and
// the convert-onnx-to-linalg pass. A body is built exactly as the importer
// built it when it still did so inline: one block with the operands' types
// as arguments, the builder's ops, and a graph.yield, all at the op's
// location.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/OnnxToLinalg.h"

#include "HostBody.h"

#include "systole/Conversion/Passes.h"

#include "llvm/Support/FormatVariadic.h"

namespace systole::conversion {

#define GEN_PASS_DEF_CONVERTONNXTOLINALG
#include "systole/Conversion/Passes.h.inc"

using namespace mlir;

namespace onnx {

Attribute Params::get(llvm::StringRef name) const {
  return dict ? dict.get(name) : Attribute();
}

llvm::Error Params::fail(const llvm::Twine &msg) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "graph.host '" + onnxOp + "': " + msg);
}

llvm::Error Params::wrong(llvm::StringRef name, llvm::StringRef what) const {
  if (!get(name))
    return fail("parameter '" + name + "' is missing");
  return fail("parameter '" + name + "' is not " + what);
}

llvm::Expected<int64_t> Params::i64(llvm::StringRef name) const {
  if (auto a = llvm::dyn_cast_or_null<IntegerAttr>(get(name)))
    return a.getInt();
  return wrong(name, "an integer");
}

llvm::Expected<double> Params::f64(llvm::StringRef name) const {
  if (auto a = llvm::dyn_cast_or_null<FloatAttr>(get(name)))
    return a.getValueAsDouble();
  return wrong(name, "a float");
}

llvm::Expected<bool> Params::flag(llvm::StringRef name) const {
  if (auto a = llvm::dyn_cast_or_null<BoolAttr>(get(name)))
    return a.getValue();
  return wrong(name, "a bool");
}

llvm::Expected<Type> Params::type(llvm::StringRef name) const {
  if (auto a = llvm::dyn_cast_or_null<TypeAttr>(get(name)))
    return a.getValue();
  return wrong(name, "a type");
}

llvm::Expected<llvm::SmallVector<int64_t>>
Params::i64s(llvm::StringRef name) const {
  if (auto a = llvm::dyn_cast_or_null<DenseI64ArrayAttr>(get(name)))
    return llvm::SmallVector<int64_t>(a.asArrayRef());
  return wrong(name, "an array<i64>");
}

llvm::Expected<llvm::SmallVector<float>>
Params::f32s(llvm::StringRef name) const {
  if (auto a = llvm::dyn_cast_or_null<DenseF32ArrayAttr>(get(name)))
    return llvm::SmallVector<float>(a.asArrayRef());
  return wrong(name, "an array<f32>");
}

llvm::Expected<llvm::StringRef> Params::str(llvm::StringRef name) const {
  if (auto a = llvm::dyn_cast_or_null<StringAttr>(get(name)))
    return a.getValue();
  return wrong(name, "a string");
}

int64_t Params::attrInt(llvm::StringRef name, int64_t dflt) const {
  Attribute a = get(name);
  if (!a)
    return dflt;
  auto i = llvm::dyn_cast<IntegerAttr>(a);
  return i ? i.getInt() : 0;
}

float Params::attrFloat(llvm::StringRef name, float dflt) const {
  Attribute a = get(name);
  if (!a)
    return dflt;
  auto f = llvm::dyn_cast<FloatAttr>(a);
  return f ? static_cast<float>(f.getValueAsDouble()) : 0.0f;
}

std::string Params::attrString(llvm::StringRef name,
                               llvm::StringRef dflt) const {
  Attribute a = get(name);
  if (!a)
    return dflt.str();
  auto s = llvm::dyn_cast<StringAttr>(a);
  return s ? s.getValue().str() : std::string();
}

} // namespace onnx

namespace {

const llvm::StringMap<onnx::HostBodyFn> &bodies() {
  static const llvm::StringMap<onnx::HostBodyFn> table = [] {
    llvm::StringMap<onnx::HostBodyFn> t;
    onnx::registerNormBodies(t);
    onnx::registerElementwiseBodies(t);
    onnx::registerReduceBodies(t);
    onnx::registerScanBodies(t);
    onnx::registerIndexBodies(t);
    onnx::registerTensorOpBodies(t);
    onnx::registerLossBodies(t);
    onnx::registerLinearBodies(t);
    onnx::registerPadSliceBodies(t);
    onnx::registerDynamicQuantBodies(t);
    onnx::registerConvBodies(t);
    onnx::registerPoolBodies(t);
    onnx::registerResizeBodies(t);
    onnx::registerRecurrentBodies(t);
    return t;
  }();
  return table;
}

} // namespace

llvm::Error buildHostBody(graph::HostOp host) {
  onnx::Params params(host.getOnnxOp(), host.getParamsAttr());
  if (host.hasBody())
    return params.fail("already has a body");
  // `body` names a builder other than the ONNX op's own (the importer's
  // copies keep the name of the node they stand for).
  llvm::StringRef builder = host.getOnnxOp();
  if (params.has("body")) {
    auto name = params.str("body");
    if (!name)
      return name.takeError();
    builder = *name;
  }
  auto it = bodies().find(builder);
  if (it == bodies().end())
    return params.fail("no body builder for '" + builder +
                       "' (lib/Conversion/OnnxToLinalg)");
  Location loc = host.getLoc();
  auto block = std::make_unique<Block>();
  // Quantized operands and results are their storage codes inside.
  for (Value v : host.getInputs())
    block->addArgument(graph::storageForm(v.getType()), loc);
  OpBuilder inner(host.getContext());
  inner.setInsertionPointToEnd(block.get());
  Type resultType = graph::storageForm(host.getOutput().getType());
  auto result =
      it->second(inner, loc, block->getArguments(), resultType, params);
  if (!result)
    return result.takeError();
  if (result->getType() != resultType) {
    std::string got, want;
    llvm::raw_string_ostream(got) << result->getType();
    llvm::raw_string_ostream(want) << resultType;
    return params.fail("the body yields " + got + ", the op's result is " +
                       want);
  }
  inner.create<graph::YieldOp>(loc, ValueRange{*result});
  host.getBody().push_back(block.release());
  // `params` stay: the node's attributes, which an NPU lowering of the op
  // reads when the NPU runs it instead (QLinearSoftmax, VSOFTMAX).
  return llvm::Error::success();
}

llvm::Error buildHostBodies(Operation *root) {
  llvm::Error err = llvm::Error::success();
  root->walk([&](graph::HostOp host) {
    if (host.hasBody())
      return WalkResult::advance();
    if (auto e = buildHostBody(host)) {
      err = std::move(e);
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return err;
}

namespace {

struct ConvertOnnxToLinalgPass
    : impl::ConvertOnnxToLinalgBase<ConvertOnnxToLinalgPass> {
  void runOnOperation() override {
    getOperation()->walk([&](graph::HostOp host) {
      if (host.hasBody())
        return;
      if (auto e = buildHostBody(host)) {
        host.emitError(llvm::toString(std::move(e)));
        signalPassFailure();
      }
    });
  }
};

} // namespace

} // namespace systole::conversion
