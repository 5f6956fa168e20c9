//===- ImportHelpers.cpp - Helpers shared by the ONNX op importers --------===//
#include "ImportHelpers.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"

using namespace mlir;

namespace systole::frontend {

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

llvm::Expected<int64_t> normalizeAxis(ImportContext &ic, int64_t axis,
                                      int64_t rank) {
  if (axis < -rank || axis >= rank)
    return ic.fail("axis " + llvm::Twine(axis) + " out of range for rank " +
                   llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

llvm::Expected<Value> plainInput(ImportContext &ic, int i) {
  auto v = ic.input(i);
  if (!v)
    return v.takeError();
  if (graph::isQuantized(elementOf(*v)))
    return ic.fail("expects unquantized tensors (int8 activations come as "
                   "QDQ)");
  return *v;
}

llvm::Expected<std::vector<int64_t>> shapeOfInput(ImportContext &ic, int i) {
  if (const HostTensor *c = ic.constantInput(i))
    return c->shape();
  auto x = ic.input(i);
  if (!x)
    return x.takeError();
  auto s = shapeOf(*x);
  return std::vector<int64_t>(s.begin(), s.end());
}

llvm::Error defineFolded(ImportContext &ic, HostTensor t) {
  const std::string &name = ic.node->output(0);
  bool graphOutput = llvm::any_of(
      ic.model.graph().output(),
      [&](const onnx::ValueInfoProto &o) { return o.name() == name; });
  if (!t.shape().empty() || !graphOutput) {
    ic.defineConstant(name, std::move(t));
    return llvm::Error::success();
  }
  return ic.defineOutput(0, ic.hostCopy(ic.materialize(t)));
}

void loadScf(ImportContext &ic) {
  ic.ctx()->getOrLoadDialect<scf::SCFDialect>();
  DialectRegistry registry;
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  ic.ctx()->appendDialectRegistry(registry);
}

//===----------------------------------------------------------------------===//
// ONNX data types
//===----------------------------------------------------------------------===//

Type onnxElementType(MLIRContext *ctx, int64_t dataType) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  // The unsigned types are signless like constants; ImportContext::isUnsigned
  // (and a graph argument's graph.dtype) says which are unsigned.
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8);
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16);
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32);
  // Host-only: token ids, indices, masks.
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64);
  default:
    return {};
  }
}

//===----------------------------------------------------------------------===//
// IR builders
//===----------------------------------------------------------------------===//

} // namespace systole::frontend
