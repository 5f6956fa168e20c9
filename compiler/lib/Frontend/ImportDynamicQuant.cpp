//===- ImportDynamicQuant.cpp - Quantization with run-time parameters -----===//
//
// DynamicQuantizeLinear, and QuantizeLinear/DequantizeLinear whose scale is a
// run-time value (they cannot carry `!quant.uniform` types): host ops in
// float with ONNX Runtime's arithmetic, built by
// lib/Conversion/OnnxToLinalg/DynamicQuant.cpp; this file checks the types.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

using namespace mlir;

namespace systole::frontend {

namespace {

llvm::Error importDynamicQuantizeLinear(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  if (!elementOf(*x).isF32())
    return ic.fail("DynamicQuantizeLinear input must be float32");
  Type f32 = Float32Type::get(ic.ctx()), i8 = IntegerType::get(ic.ctx(), 8);
  // One host op per output: each recomputes the range (a reduction).
  for (int out = 0; out < ic.node->output_size(); ++out) {
    if (ic.node->output(out).empty())
      continue;
    Type type = out == 0   ? Type(tensorType(shapeOf(*x), i8))
                : out == 1 ? Type(tensorType({}, f32))
                           : Type(tensorType({}, i8));
    Value y = ic.hostOp(
        *x, type,
        {ic.builder.getNamedAttr("output", ic.builder.getI64IntegerAttr(out))});
    if (auto e = ic.defineOutput(out, y))
      return e;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error importHostQuantizeLinear(ImportContext &ic) {
  auto x = ic.input(0), scale = ic.input(1);
  if (!x)
    return x.takeError();
  if (!scale)
    return scale.takeError();
  if (!elementOf(*x).isF32() || !elementOf(*scale).isF32())
    return ic.fail("QuantizeLinear with a run-time scale needs float32 data "
                   "and scale");
  if (shapeOf(*scale).size() > 1 ||
      (shapeOf(*scale).size() == 1 && shapeOf(*scale)[0] != 1))
    return ic.notConstant(ic.constantInput(1) ? 2 : 1,
                          "per-axis quantization parameters");
  SmallVector<Value> ins{*x, *scale};
  bool unsignedOut = true; // ONNX's default without a zero point
  if (ic.hasInput(2)) {
    auto zp = ic.input(2);
    if (!zp)
      return zp.takeError();
    if (elementOf(*zp) != IntegerType::get(ic.ctx(), 8))
      return ic.fail("QuantizeLinear zero point must be int8 or uint8");
    unsignedOut = ic.isUnsignedInput(2);
    ins.push_back(*zp);
  }
  Value y =
      ic.hostOp(ins, tensorType(shapeOf(*x), IntegerType::get(ic.ctx(), 8)),
                {ic.builder.getNamedAttr("unsigned",
                                         ic.builder.getBoolAttr(unsignedOut))});
  return ic.defineOutput(0, y);
}

llvm::Error importHostDequantizeLinear(ImportContext &ic) {
  auto x = ic.input(0), scale = ic.input(1);
  if (!x)
    return x.takeError();
  if (!scale)
    return scale.takeError();
  if (!isa<IntegerType>(elementOf(*x)) || !elementOf(*scale).isF32())
    return ic.fail("DequantizeLinear with a run-time scale needs integer "
                   "data and a float32 scale");
  if (shapeOf(*scale).size() > 1 ||
      (shapeOf(*scale).size() == 1 && shapeOf(*scale)[0] != 1))
    return ic.notConstant(ic.constantInput(1) ? 2 : 1,
                          "per-axis quantization parameters");
  SmallVector<Value> ins{*x, *scale};
  if (ic.hasInput(2)) {
    auto zp = ic.input(2);
    if (!zp)
      return zp.takeError();
    if (elementOf(*zp) != elementOf(*x))
      return ic.fail("DequantizeLinear zero point type differs from data");
    ins.push_back(*zp);
  }
  bool uns = ic.isUnsignedInput(0);
  Value y = ic.hostOp(
      ins, tensorType(shapeOf(*x), Float32Type::get(ic.ctx())),
      {ic.builder.getNamedAttr("unsigned", ic.builder.getBoolAttr(uns))});
  return ic.defineOutput(0, y);
}

void registerDynamicQuantImporters(llvm::StringMap<OpImporter> &table) {
  table["DynamicQuantizeLinear"] = importDynamicQuantizeLinear;
}

} // namespace systole::frontend
