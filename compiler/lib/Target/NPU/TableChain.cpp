//===- TableChain.cpp - int8 -> f -> int8 chains as 256-entry tables -----===//
//
// The table is exact by construction: the chain's float ops are compiled as
// the host fallback compiles them (compileHostGroup), loaded and run on the
// dequantized codes with the runtime's own dequantize/quantize arithmetic,
// so every entry is what the host fallback computes for that code (f is
// elementwise: an element's value does not depend on its position).
//
//===----------------------------------------------------------------------===//
#include "TableChain.h"
#include "LayerLowering.h"

#include "systole/Conversion/HostCodegen.h"
#include "systole/Runtime/QuantizeLinear.h"
#include "systole/Runtime/SharedObject.h"
#include "systole/Target/NPU/Annotations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace systole::graph;
namespace rt = systole::rt;
namespace host = systole::host;
namespace npu = systole::npu;
using NpuPlacement = systole::npu::Placement;

namespace systole::npu::tables {

quant::UniformQuantizedType quantized8(Type t) {
  auto q = dyn_cast<quant::UniformQuantizedType>(getElementTypeOrSelf(t));
  return q && q.getStorageTypeIntegralWidth() == 8 ? q : nullptr;
}

namespace {

/// ONNX ops whose graph.host body is elementwise in their first input (the
/// others, e.g. Max(x, 0.0)'s bound, must be one-element constants: checked
/// by chainAfter).
bool isElementwiseHostOp(HostOp op) {
  static const llvm::StringSet<> ops = {
      "HardSigmoid", "HardSwish",  "LeakyRelu", "Elu",  "Selu",
      "Celu",        "Softplus",   "Softsign",  "Mish", "ThresholdedRelu",
      "Relu",        "Sigmoid",    "Tanh",      "Erf",  "Exp",
      "Log",         "Sin",        "Cos",       "Abs",  "Neg",
      "Sqrt",        "Reciprocal", "Floor",     "Ceil", "Round",
      "Sign",        "Gelu",       "Shrink",    "Clip", "Identity",
      "Max",         "Min",        "Pow"};
  return ops.contains(op.getOnnxOp());
}

bool isOneElementConstant(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto t = dyn_cast<ShapedType>(v.getType());
  return c && t && t.hasStaticShape() && t.getNumElements() == 1;
}

} // namespace

std::optional<Chain> chainAfter(DequantizeOp dq, bool allowTranspose) {
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
      // A transpose moves values, it does not change them: allowed where
      // the caller handles the layout (one, reading the dequantize).
      bool transpose =
          allowTranspose && llvm::isa<TransposeOp>(user) && v == dq.getOutput();
      bool elementwise =
          transpose ||
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
llvm::Expected<std::vector<int8_t>> evaluate(DequantizeOp dq,
                                             const Chain &chain) {
  auto in = quantized8(dq.getInput().getType());
  QuantizeOp quantize = chain.quantize;
  auto out = quantized8(quantize.getOutput().getType());
  int64_t elements =
      cast<ShapedType>(dq.getOutput().getType()).getNumElements();
  int64_t bytes = 4 * elements, outOffset = (bytes + 63) / 64 * 64;
  host::HostGroup group;
  group.ops.assign(chain.ops.begin(), chain.ops.end());
  Value input = dq.getOutput(), result = quantize.getInput();
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
  // Up to `elements` codes per run: f is elementwise. A transpose in the
  // chain moves the codes to other positions: then one code per run, in
  // every element.
  bool moves = llvm::any_of(
      chain.ops, [](Operation *op) { return llvm::isa<TransposeOp>(op); });
  int64_t perRun = moves ? 1 : elements;
  for (int64_t first = 0; first < 256; first += perRun) {
    int64_t n = std::min<int64_t>(perRun, 256 - first);
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

TableOp createTable(OpBuilder &b, Location loc, Value input,
                    QuantizeOp quantize, llvm::ArrayRef<int8_t> table) {
  auto attr = DenseIntElementsAttr::get(
      RankedTensorType::get({256}, b.getIntegerType(8)), table);
  auto inType = cast<RankedTensorType>(input.getType());
  auto t = b.create<TableOp>(
      loc, inType.clone(getElementTypeOrSelf(quantize.getOutput().getType())),
      input, attr);
  npu::setPlacement(t, NpuPlacement::Npu);
  return t;
}

int32_t codeOf(quant::UniformQuantizedType q, int8_t byte) {
  return q.isSigned() ? int32_t(byte) : int32_t(uint8_t(byte));
}

std::vector<int8_t> composeAfter(TableOp first, llvm::ArrayRef<int8_t> table) {
  auto mid = quantized8(first.getOutput().getType());
  std::vector<int8_t> composed;
  for (const APInt &v : first.getTable().getValues<APInt>())
    composed.push_back(
        table[codeOf(mid, static_cast<int8_t>(v.getZExtValue())) -
              mid.getStorageTypeMin()]);
  return composed;
}

void eraseChain(DequantizeOp dq, const Chain &chain) {
  QuantizeOp quantize = chain.quantize;
  quantize.erase();
  for (Operation *op : llvm::reverse(chain.ops))
    op->erase();
  dq.erase();
}

} // namespace systole::npu::tables
