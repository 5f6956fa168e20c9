//===- FoldTables.cpp - int8 activations as the REQUANT table -------------===//
//
// A QDQ model computes an activation of a convolution or matmul as
// DequantizeLinear -> f -> QuantizeLinear (HardSwish and HardSigmoid in
// MobileNetV3, SiLU's x * sigmoid(x) in EfficientNet and YOLO, GELU and
// Tanh in transformers); f runs on the host in float. Its input has 256
// possible codes, so the whole chain is a 256-entry table over them, and
// the NPU's REQUANT maps its result through such a table (docs/isa.md).
//
// The table is computed by the chain's own host code: the ops between the
// dequantize and the quantize are compiled exactly as the host fallback
// would compile them (outlineHostGroup + compileHostGroup), loaded, and run
// on the 256 dequantized codes; the dequantize and quantize are the
// runtime's builtin arithmetic (rt::dequantizeLinear / quantizeLinear).
// The table is therefore what the host fallback computes, element for
// element (f is elementwise, so an element's value does not depend on its
// position), and as exact against ONNX Runtime as the host fallback is.
//
// Only chains whose every op is elementwise in the one dequantized value
// (other operands are one-element constants) and whose intermediate values
// nothing else reads are folded, and only after an NPU convolution or
// matmul whose int8 result only the chain reads: the table becomes a
// graph.table the producer's REQUANT applies (LayerLowering's epilogue).
//
//===----------------------------------------------------------------------===//
#include "LayerLowering.h"
#include "systole/Conversion/HostCodegen.h"
#include "systole/Runtime/QuantizeLinear.h"
#include "systole/Runtime/SharedObject.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

#include <cstring>

namespace systole::npu {
#define GEN_PASS_DEF_FOLDTABLES
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::graph;
namespace rt = systole::rt;
namespace host = systole::host;
namespace npu = systole::npu;
using NpuPlacement = systole::npu::Placement;

namespace {

quant::UniformQuantizedType quantized8(Type t) {
  auto q = dyn_cast<quant::UniformQuantizedType>(getElementTypeOrSelf(t));
  return q && q.getStorageTypeIntegralWidth() == 8 ? q : nullptr;
}

/// ONNX ops of one input whose graph.host body is elementwise.
bool isElementwiseHostOp(HostOp op) {
  static const llvm::StringSet<> ops = {
      "HardSigmoid", "HardSwish",  "LeakyRelu", "Elu",  "Selu",
      "Celu",        "Softplus",   "Softsign",  "Mish", "ThresholdedRelu",
      "Relu",        "Sigmoid",    "Tanh",      "Erf",  "Exp",
      "Log",         "Sin",        "Cos",       "Abs",  "Neg",
      "Sqrt",        "Reciprocal", "Floor",     "Ceil", "Round",
      "Sign",        "Gelu",       "Shrink",    "Clip", "Identity"};
  return ops.contains(op.getOnnxOp());
}

bool isOneElementConstant(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto t = dyn_cast<ShapedType>(v.getType());
  return c && t && t.hasStaticShape() && t.getNumElements() == 1;
}

/// The float ops between `dq` and the one quantize reading their result,
/// in program order, or failure.
struct Chain {
  SmallVector<Operation *> ops;
  QuantizeOp quantize;
};
std::optional<Chain> chainAfter(DequantizeOp dq) {
  int64_t elements =
      cast<ShapedType>(dq.getOutput().getType()).getNumElements();
  llvm::SetVector<Operation *> members;
  SmallVector<Value> work = {dq.getOutput()};
  QuantizeOp sink;
  llvm::DenseSet<Value> values = {dq.getOutput()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto q = dyn_cast<QuantizeOp>(user)) {
        if ((sink && sink != q) || !quantized8(q.getOutput().getType()))
          return std::nullopt;
        sink = q;
        continue;
      }
      if (members.contains(user))
        continue;
      // A reshape keeps every element's linear position (squeeze-
      // excitation's [1, 1, 1, C] <-> [1, C, 1, 1] around a HardSigmoid).
      bool elementwise =
          llvm::isa<UnaryOp, ClipOp, AddOp, SubOp, MulOp, DivOp, ReshapeOp>(
              user) ||
          (llvm::isa<HostOp>(user) &&
           isElementwiseHostOp(llvm::cast<HostOp>(user)));
      if (!elementwise || user->getNumResults() != 1 ||
          (npu::getPlacement(user) != NpuPlacement::Host &&
           !llvm::isa<ReshapeOp>(user)) || // float reshapes are "npu" aliases
          cast<ShapedType>(user->getResult(0).getType()).getNumElements() !=
              elements ||
          !getElementTypeOrSelf(user->getResult(0).getType()).isF32())
        return std::nullopt;
      members.insert(user);
      values.insert(user->getResult(0));
      work.push_back(user->getResult(0));
    }
  }
  if (!sink || members.empty() || !values.contains(sink.getInput()))
    return std::nullopt;
  // Every operand comes from the chain or is a one-element constant.
  for (Operation *op : members)
    for (Value o : op->getOperands())
      if (!values.contains(o) && !isOneElementConstant(o))
        return std::nullopt;
  Chain chain;
  chain.ops.assign(members.begin(), members.end());
  llvm::sort(chain.ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  chain.quantize = sink;
  return chain;
}

/// Runs the chain's host code on every input code; returns the 256 output
/// storage bytes, indexed by input code - storage minimum.
llvm::Expected<std::vector<int8_t>> evaluate(DequantizeOp dq, Chain chain) {
  auto in = quantized8(dq.getInput().getType());
  auto out = quantized8(chain.quantize.getOutput().getType());
  int64_t elements =
      cast<ShapedType>(dq.getOutput().getType()).getNumElements();
  int64_t bytes = 4 * elements, outOffset = (bytes + 63) / 64 * 64;
  host::HostGroup group;
  group.ops.assign(chain.ops.begin(), chain.ops.end());
  Value input = dq.getOutput(), result = chain.quantize.getInput();
  group.dramOffset = [&](Value v) -> int64_t {
    return v == input ? 0 : outOffset;
  };
  group.dramBytes = outOffset + bytes;
  auto code =
      host::compileHostGroup(group, "systole_table", host::HostTarget::Cpu);
  if (!code)
    return code.takeError();
  if (code->inputs.size() != 1 || code->inputs[0] != input ||
      code->outputs.size() != 1 || code->outputs[0] != result)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the chain's host code has other inputs "
                                   "or outputs than the dequantized value");
  auto entry = rt::loadSharedObjectEntry(code->sharedObject, code->entry);
  if (!entry)
    return entry.takeError();
  int64_t qmin = in.getStorageTypeMin();
  std::vector<int8_t> table(256);
  std::vector<uint8_t> dram(group.dramBytes);
  // Up to `elements` codes per run: f is elementwise.
  for (int64_t first = 0; first < 256; first += elements) {
    int64_t n = std::min<int64_t>(elements, 256 - first);
    auto *x = reinterpret_cast<float *>(dram.data());
    for (int64_t i = 0; i < elements; ++i)
      x[i] = rt::dequantizeLinear(int32_t(qmin + first + std::min(i, n - 1)),
                                  float(in.getScale()),
                                  int32_t(in.getZeroPoint()));
    (*entry)(dram.data());
    const float *y = reinterpret_cast<const float *>(dram.data() + outOffset);
    for (int64_t i = 0; i < n; ++i)
      table[first + i] = static_cast<int8_t>(rt::quantizeLinear(
          y[i], float(out.getScale()), int32_t(out.getZeroPoint()),
          int32_t(out.getStorageTypeMin()), int32_t(out.getStorageTypeMax())));
  }
  return table;
}

struct FoldTablesPass : systole::npu::impl::FoldTablesBase<FoldTablesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> producers;
    getOperation().walk([&](Operation *op) {
      if (llvm::isa<Conv2DOp, MatMulOp>(op) &&
          npu::getPlacement(op) == NpuPlacement::Npu &&
          quantized8(op->getResult(0).getType()) &&
          op->getResult(0).hasOneUse())
        producers.push_back(op);
    });
    for (Operation *producer : producers) {
      auto dq = dyn_cast<DequantizeOp>(*producer->getResult(0).user_begin());
      if (!dq)
        continue;
      std::optional<Chain> chain = chainAfter(dq);
      if (!chain)
        continue;
      auto table = evaluate(dq, *chain);
      if (!table) {
        dq.emitError() << "cannot compute the activation table: "
                       << llvm::toString(table.takeError());
        return signalPassFailure();
      }
      QuantizeOp q = chain->quantize;
      // Named after the activation (the last float op): the report lists
      // it as an NPU op of that ONNX node.
      OpBuilder b(q);
      auto attr = DenseIntElementsAttr::get(
          RankedTensorType::get({256}, b.getIntegerType(8)),
          llvm::ArrayRef(*table));
      auto inType = cast<RankedTensorType>(dq.getInput().getType());
      auto t = b.create<TableOp>(
          chain->ops.back()->getLoc(),
          inType.clone(getElementTypeOrSelf(q.getOutput().getType())),
          dq.getInput(), attr);
      npu::setPlacement(t, NpuPlacement::Npu);
      Value result = t.getOutput();
      if (result.getType() != q.getOutput().getType()) {
        auto r =
            b.create<ReshapeOp>(t.getLoc(), q.getOutput().getType(), result);
        npu::setPlacement(r, NpuPlacement::Npu); // an alias
        result = r;
      }
      q.getOutput().replaceAllUsesWith(result);
      q.erase();
      for (Operation *op : llvm::reverse(chain->ops))
        op->erase();
      dq.erase();
    }
  }
};

} // namespace
