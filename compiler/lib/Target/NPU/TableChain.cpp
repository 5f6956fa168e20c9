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
#include "LayerCodegen.h"

#include "systole/Conversion/HostCodegen.h"
#include "systole/Support/QuantizeLinear.h"
#include "systole/Support/SharedObject.h"
#include "systole/Target/NPU/Annotations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <mutex>

using namespace mlir;
using namespace systole::graph;
namespace rt = systole::rt;
namespace host = systole::host;
namespace npu = systole::npu;
using NpuPlacement = systole::npu::Placement;

namespace systole::npu::tables {

namespace {

/// ONNX ops whose graph.host body is elementwise in their first input (the
/// others, e.g. Max(x, 0.0)'s bound, must be one-element constants: checked
/// by chainAfter).
bool isElementwiseHostOp(HostOp op) {
  static const llvm::StringSet<> ops = {"HardSigmoid", "HardSwish",
                                        "LeakyRelu",   "Elu",
                                        "Selu",        "Celu",
                                        "Softplus",    "Softsign",
                                        "Mish",        "ThresholdedRelu",
                                        "Relu",        "Sigmoid",
                                        "Tanh",        "Erf",
                                        "Exp",         "Log",
                                        "Sin",         "Cos",
                                        "Abs",         "Neg",
                                        "Sqrt",        "Reciprocal",
                                        "Floor",       "Ceil",
                                        "Round",       "Sign",
                                        "Gelu",        "Shrink",
                                        "Clip",        "Identity",
                                        "Max",         "Min",
                                        "Pow",         "BatchNormalization"};
  if (!ops.contains(op.getOnnxOp()))
    return false;
  // The body must be elementwise too: no reduction (BatchNormalization in
  // training mode computes its statistics from x), no tensor op but
  // parallel generics.
  WalkResult r = op.getBody().walk([](Operation *inner) {
    if (auto g = dyn_cast<linalg::GenericOp>(inner))
      return g.getNumReductionLoops() ? WalkResult::interrupt()
                                      : WalkResult::advance();
    bool tensors = llvm::any_of(inner->getResultTypes(), [](Type t) {
      return llvm::isa<ShapedType>(t);
    });
    return tensors && !llvm::isa<tensor::EmptyOp, arith::ConstantOp>(inner)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return !r.wasInterrupted();
}

bool isOneElementConstant(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto t = dyn_cast<ShapedType>(v.getType());
  return c && t && t.hasStaticShape() && t.getNumElements() == 1;
}

/// Operand `idx` of `user` is a constant with one value per channel (the
/// last of `rank` dims, `channels` of them) that `user` reads along that
/// dim only: a graph binary op broadcasts a [..., 1, C] operand so
/// (NumPy); a host op says so in its linalg.generic maps.
bool isPerChannelConstant(Operation *user, unsigned idx, int64_t rank,
                          int64_t channels) {
  Value v = user->getOperand(idx);
  auto t = dyn_cast<ShapedType>(v.getType());
  if (!v.getDefiningOp<arith::ConstantOp>() || !t || !t.hasStaticShape() ||
      t.getNumElements() != channels || t.getRank() > rank ||
      t.getShape().back() != channels)
    return false;
  if (llvm::isa<AddOp, SubOp, MulOp, DivOp>(user))
    return true;
  auto host = dyn_cast<HostOp>(user);
  if (!host)
    return false;
  Value arg = host.getBody().getArgument(idx);
  for (OpOperand &use : arg.getUses()) {
    auto g = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!g || g.getNumLoops() != rank)
      return false;
    AffineMap m = g.getMatchingIndexingMap(&use);
    for (AffineExpr e : m.getResults()) {
      auto d = dyn_cast<AffineDimExpr>(e);
      auto c = dyn_cast<AffineConstantExpr>(e);
      if (!(c && c.getValue() == 0) &&
          !(d && d.getPosition() == static_cast<unsigned>(rank - 1)))
        return false;
    }
  }
  return true;
}

} // namespace

std::optional<Chain> chainAfter(DequantizeOp dq, bool allowTranspose,
                                bool allowPerChannel) {
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
  // An empty chain (DequantizeLinear -> QuantizeLinear: a requantization,
  // e.g. a one-input concat's) is a table too; only the standalone caller
  // asks for it.
  if (!sink || (members.empty() && !allowPerChannel) ||
      !values.contains(sink.getInput()))
    return std::nullopt;
  // Every operand comes from the chain or is a one-element constant (or,
  // allowed, a per-channel one).
  auto dqType = cast<ShapedType>(dq.getOutput().getType());
  bool perChannel = false;
  for (Operation *op : members)
    for (OpOperand &o : op->getOpOperands()) {
      if (values.contains(o.get()) || isOneElementConstant(o.get()))
        continue;
      if (!allowPerChannel || dqType.getRank() == 0 ||
          llvm::isa<TransposeOp, ReshapeOp>(op) ||
          !isPerChannelConstant(op, o.getOperandNumber(), dqType.getRank(),
                                dqType.getShape().back()))
        return std::nullopt;
      perChannel = true;
    }
  // Per channel, every op must keep the channel dimension: a reshape that
  // keeps the last dim (a [T, 1, C] <-> [1, T, C] view) leaves every
  // element's channel, its linear position modulo C, as it was.
  if (perChannel && llvm::any_of(members, [&](Operation *op) {
        auto t = cast<ShapedType>(op->getResult(0).getType());
        return t.getRank() == 0 ||
               t.getShape().back() != dqType.getShape().back();
      }))
    return std::nullopt;
  Chain chain;
  chain.perChannel = perChannel;
  chain.ops.assign(members.begin(), members.end());
  llvm::sort(chain.ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  chain.quantize = sink;
  return chain;
}

/// The chain's compiled host code. Models repeat their chains (a GELU per
/// transformer block, a SiLU per stage) with the same ops and shapes: the
/// outlined function's text is the key, the dequantize and quantize
/// parameters are applied outside it.
static llvm::Expected<rt::HostEntryFn> chainCode(const host::HostGroup &group,
                                                 Value input, Value result) {
  static std::mutex mutex;
  static llvm::StringMap<rt::HostEntryFn> cache;
  std::string key;
  {
    std::vector<Value> ins, outs;
    auto outlined = host::outlineHostGroup(group, "systole_table", ins, outs);
    if (!outlined)
      return outlined.takeError();
    llvm::raw_string_ostream os(key);
    (*outlined)->print(os, OpPrintingFlags().printGenericOpForm());
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
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
  cache[key] = *entry;
  return *entry;
}

/// A copy of `chain` over a tensor of [1, ..., 1, 256] (or [1, ..., 256, C]
/// per channel) elements, in front of the chain's quantize: the codes fill
/// it in one run, where the chain itself (a transformer MLP's 1.2 M
/// elements) would run its code over every element of the activation.
/// Only for chains of elementwise graph ops, whose element values do not
/// depend on the tensor's size; the caller erases the copy.
struct SmallChain {
  /// The copy's input, and a reader of its result (the host group's output
  /// is a value read outside it); neither runs.
  Operation *placeholder = nullptr, *sink = nullptr;
  SmallVector<Operation *> ops;
  Value input, result;
};
static std::optional<SmallChain> smallCopy(DequantizeOp dq,
                                           const Chain &chain) {
  auto type = cast<RankedTensorType>(dq.getOutput().getType());
  int64_t rank = type.getRank();
  if (rank == 0 || (chain.perChannel && rank < 2) ||
      llvm::any_of(chain.ops, [](Operation *op) {
        return !llvm::isa<AddOp, SubOp, MulOp, DivOp, UnaryOp>(op) ||
               op->getNumResults() != 1 ||
               cast<ShapedType>(op->getResult(0).getType()).getShape() !=
                   cast<ShapedType>(op->getOperand(0).getType()).getShape();
      }))
    return std::nullopt;
  SmallVector<int64_t> shape(rank, 1);
  if (chain.perChannel)
    shape[rank - 2] = 256, shape[rank - 1] = type.getShape().back();
  else
    shape[rank - 1] = 256;
  if (ShapedType(type).getNumElements() <=
      RankedTensorType::get(shape, type.getElementType()).getNumElements())
    return std::nullopt;
  OpBuilder b(chain.quantize);
  SmallChain small;
  small.placeholder = b.create<ReshapeOp>(
      dq.getLoc(), RankedTensorType::get(shape, type.getElementType()),
      dq.getOutput());
  IRMapping map;
  map.map(dq.getOutput(), small.placeholder->getResult(0));
  for (Operation *op : chain.ops) {
    Operation *copy = b.clone(*op, map);
    copy->getResult(0).setType(RankedTensorType::get(
        shape, getElementTypeOrSelf(op->getResult(0).getType())));
    small.ops.push_back(copy);
  }
  small.input = small.placeholder->getResult(0);
  small.result = map.lookup(chain.quantize->getOperand(0));
  small.sink =
      b.create<ReshapeOp>(dq.getLoc(), small.result.getType(), small.result);
  return small;
}

/// Runs the chain's host code on every input code; returns the 256 output
/// storage bytes, indexed by input code - storage minimum.
llvm::Expected<std::vector<int8_t>> evaluate(DequantizeOp dq,
                                             const Chain &chain) {
  auto in = quantized8(dq.getInput().getType());
  QuantizeOp quantize = chain.quantize;
  auto out = quantized8(quantize.getOutput().getType());
  if (chain.ops.empty())
    return requantTable(in, out);
  std::optional<SmallChain> small = smallCopy(dq, chain);
  auto eraseSmall = llvm::make_scope_exit([&] {
    if (!small)
      return;
    small->sink->erase();
    for (Operation *op : llvm::reverse(small->ops))
      op->erase();
    small->placeholder->erase();
  });
  Value input = small ? small->input : dq.getOutput();
  Value result = small ? small->result : quantize.getInput();
  int64_t elements = cast<ShapedType>(input.getType()).getNumElements();
  int64_t bytes = 4 * elements, outOffset = (bytes + 63) / 64 * 64;
  host::HostGroup group;
  if (small)
    group.ops.assign(small->ops.begin(), small->ops.end());
  else
    group.ops.assign(chain.ops.begin(), chain.ops.end());
  group.dramOffset = [&](Value v) -> int64_t {
    return v == input ? 0 : outOffset;
  };
  group.dramBytes = outOffset + bytes;
  group.optLevel = 0; // run once per table
  auto entry = chainCode(group, input, result);
  if (!entry)
    return entry.takeError();
  int64_t qmin = in.getStorageTypeMin();
  std::vector<uint8_t> dram(group.dramBytes);
  auto quantizeOut = [&](float y) {
    return static_cast<int8_t>(rt::quantizeLinear(
        y, float(out.getScale()), int32_t(out.getZeroPoint()),
        int32_t(out.getStorageTypeMin()), int32_t(out.getStorageTypeMax())));
  };
  if (chain.perChannel) {
    // Pixel p of a run holds code first + p in every channel: channel c's
    // result at p is row c's entry first + p.
    int64_t channels = cast<ShapedType>(input.getType()).getShape().back();
    int64_t pixels = elements / channels;
    std::vector<int8_t> rows(channels * 256);
    for (int64_t first = 0; first < 256; first += pixels) {
      int64_t n = std::min<int64_t>(pixels, 256 - first);
      auto *x = reinterpret_cast<float *>(dram.data());
      for (int64_t p = 0; p < pixels; ++p) {
        float v = rt::dequantizeLinear(
            int32_t(qmin + first + std::min(p, n - 1)), float(in.getScale()),
            int32_t(in.getZeroPoint()));
        for (int64_t c = 0; c < channels; ++c)
          x[p * channels + c] = v;
      }
      (*entry)(dram.data());
      const float *y = reinterpret_cast<const float *>(dram.data() + outOffset);
      for (int64_t p = 0; p < n; ++p)
        for (int64_t c = 0; c < channels; ++c)
          rows[c * 256 + first + p] = quantizeOut(y[p * channels + c]);
    }
    return rows;
  }
  std::vector<int8_t> table(256);
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
      table[first + i] = quantizeOut(y[i]);
  }
  return table;
}

DenseIntElementsAttr tableAttr(Builder &b, llvm::ArrayRef<int8_t> table) {
  // Rows that are all equal (a bias of zeros, or one too small to move any
  // code) are one table, which a producer's REQUANT can apply.
  size_t rows = table.size() / 256;
  bool uniform = true;
  for (size_t r = 1; r < rows && uniform; ++r)
    uniform =
        std::equal(table.begin(), table.begin() + 256, table.begin() + r * 256);
  SmallVector<int64_t> shape = {256};
  if (!uniform)
    shape = {static_cast<int64_t>(rows), 256};
  return DenseIntElementsAttr::get(
      RankedTensorType::get(shape, b.getIntegerType(8)),
      uniform ? table.take_front(256) : table);
}

TableOp createTable(OpBuilder &b, Location loc, Value input,
                    QuantizeOp quantize, llvm::ArrayRef<int8_t> table) {
  DenseIntElementsAttr attr = tableAttr(b, table);
  auto inType = cast<RankedTensorType>(input.getType());
  auto t = b.create<TableOp>(
      loc, inType.clone(getElementTypeOrSelf(quantize.getOutput().getType())),
      input, attr);
  npu::setPlacement(t, NpuPlacement::Npu);
  return t;
}

std::vector<int8_t> requantTable(quant::UniformQuantizedType in,
                                 quant::UniformQuantizedType out) {
  std::vector<int8_t> table(256);
  for (int k = 0; k < 256; ++k) {
    float f =
        rt::dequantizeLinear(int32_t(in.getStorageTypeMin() + k),
                             float(in.getScale()), int32_t(in.getZeroPoint()));
    table[k] = static_cast<int8_t>(rt::quantizeLinear(
        f, float(out.getScale()), int32_t(out.getZeroPoint()),
        int32_t(out.getStorageTypeMin()), int32_t(out.getStorageTypeMax())));
  }
  return table;
}

int32_t codeOf(quant::UniformQuantizedType q, int8_t byte) {
  return q.isSigned() ? int32_t(byte) : int32_t(uint8_t(byte));
}

std::vector<int8_t> composeAfter(TableOp first, llvm::ArrayRef<int8_t> table) {
  auto mid = quantized8(first.getOutput().getType());
  std::vector<int8_t> head;
  for (const APInt &v : first.getTable().getValues<APInt>())
    head.push_back(static_cast<int8_t>(v.getZExtValue()));
  // Rows: one, or one per channel in either table.
  size_t rows = std::max(head.size(), table.size()) / 256;
  std::vector<int8_t> composed(rows * 256);
  for (size_t r = 0; r < rows; ++r)
    for (size_t k = 0; k < 256; ++k) {
      int8_t m = head[(head.size() == 256 ? 0 : r * 256) + k];
      composed[r * 256 + k] = table[(table.size() == 256 ? 0 : r * 256) +
                                    codeOf(mid, m) - mid.getStorageTypeMin()];
    }
  return composed;
}

TableOp replaceChain(DequantizeOp dq, const Chain &chain, Value input,
                     llvm::ArrayRef<int8_t> table, TableOp first) {
  QuantizeOp q = chain.quantize;
  OpBuilder b(q);
  Location loc = chain.ops.empty() ? q.getLoc() : chain.ops.back()->getLoc();
  TableOp t = createTable(b, loc, input, q, table);
  Value result = t.getOutput();
  if (result.getType() != q.getOutput().getType()) {
    auto r = b.create<ReshapeOp>(t.getLoc(), q.getOutput().getType(), result);
    npu::setPlacement(r, NpuPlacement::Npu); // an alias
    result = r;
  }
  q.getOutput().replaceAllUsesWith(result);
  eraseChain(dq, chain);
  if (first)
    first.erase();
  return t;
}

void eraseChain(DequantizeOp dq, const Chain &chain) {
  QuantizeOp quantize = chain.quantize;
  quantize.erase();
  for (Operation *op : llvm::reverse(chain.ops))
    op->erase();
  dq.erase();
}

} // namespace systole::npu::tables
