//===- OutlineHostGroup.cpp - A run of host ops -> func over DRAM views ---===//
//
// Values produced and consumed inside the group stay SSA tensors (so the
// group is one fused function); values from outside are read from their
// DRAM views and results used outside are written back to theirs. The DRAM
// image is the only interface, which keeps the ABI `void entry(uint8_t *)`
// for the CPU and a device copy of the same image for the GPU.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/HostCodegen.h"
#include "systole/Dialect/Graph/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace systole::host {

llvm::Expected<OwningOpRef<ModuleOp>>
outlineHostGroup(const HostGroup &group, llvm::StringRef entry,
                 std::vector<Value> &inputs, std::vector<Value> &outputs) {
  assert(!group.ops.empty() && "empty host group");
  MLIRContext *ctx = group.ops.front()->getContext();
  ctx->loadDialect<memref::MemRefDialect, bufferization::BufferizationDialect,
                   func::FuncDialect, arith::ArithDialect>();
  Location loc = group.ops.front()->getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module->getBody());
  auto dramType = MemRefType::get({group.dramBytes}, b.getI8Type());
  auto func =
      b.create<func::FuncOp>(loc, entry, b.getFunctionType({dramType}, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value dram = body->getArgument(0);

  llvm::DenseSet<Operation *> inGroup(group.ops.begin(), group.ops.end());
  // A quantized value's DRAM bytes are its storage codes.
  auto viewOf = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(graph::storageForm(v.getType()));
    Value off = b.create<arith::ConstantIndexOp>(loc, group.dramOffset(v));
    auto mt = MemRefType::get(t.getShape(), t.getElementType());
    return b.create<memref::ViewOp>(loc, mt, dram, off, ValueRange{});
  };
  // Only a graph.host's region computes on codes (its arguments are their
  // storage form); any other op reads quantized values as they are.
  auto readByHostOpsOnly = [&](Value v) {
    return llvm::all_of(v.getUsers(), [&](Operation *user) {
      return !inGroup.contains(user) || llvm::isa<graph::HostOp>(user);
    });
  };
  IRMapping map;
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands()) {
      if (map.contains(operand))
        continue;
      Operation *def = operand.getDefiningOp();
      if (def && inGroup.contains(def))
        continue;
      if (def && llvm::isa<arith::ConstantOp>(def)) {
        b.clone(*def, map);
        continue;
      }
      // Plain tensors of any element type (float, integer indices, bool
      // masks) are DRAM views; quantized ones cross the host boundary only
      // through the builtin quantize/dequantize.
      if (!isa<RankedTensorType>(operand.getType()) ||
          (graph::isQuantized(operand.getType()) &&
           !readByHostOpsOnly(operand)))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "host code reads a quantized tensor (quantized values cross "
            "the host boundary through quantize/dequantize)");
      Value t = b.create<bufferization::ToTensorOp>(
          loc, graph::storageForm(operand.getType()), viewOf(operand),
          /*restrict=*/true, /*writable=*/false);
      map.map(operand, t);
      inputs.push_back(operand);
    }
    if (auto host = dyn_cast<graph::HostOp>(op)) {
      if (!host.hasBody())
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "graph.host '" + host.getOnnxOp().str() +
                "' has no body yet (convert-onnx-to-linalg builds it)");
      // Its region is already upstream IR: inline it.
      Block &body = host.getBody().front();
      for (auto [arg, in] : llvm::zip(body.getArguments(), host.getInputs()))
        map.map(arg, map.lookup(in));
      for (Operation &inner : body.without_terminator())
        b.clone(inner, map);
      auto yield = cast<graph::YieldOp>(body.getTerminator());
      map.map(host.getOutput(), map.lookup(yield.getValues().front()));
    } else {
      Operation *clone = b.clone(*op, map);
      for (NamedAttribute a : op->getAttrs())
        if (a.getName().strref().starts_with("npu."))
          clone->removeAttr(a.getName());
    }
    for (Value r : op->getResults()) {
      bool usedOutside = false;
      for (Operation *user : r.getUsers())
        usedOutside |= !inGroup.contains(user);
      if (!usedOutside)
        continue;
      auto m = b.create<bufferization::MaterializeInDestinationOp>(
          loc, map.lookup(r), viewOf(r));
      m.setRestrict(true);
      m.setWritable(true);
      outputs.push_back(r);
    }
  }
  b.create<func::ReturnOp>(loc);
  return module;
}

} // namespace systole::host
