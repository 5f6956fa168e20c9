//===- FoldConstantSubgraphs.cpp - Evaluate what depends only on constants ===//
//
// Exporters leave whole subgraphs that depend on no input: Swin's shifted
// window mask is ConstantOfShape -> QuantizeLinear -> DequantizeLinear ->
// Expand -> ScatterND -> ... -> Where, rebuilt in every block; position ids
// are Range -> Expand. Run as written they are hundreds of host ops, a host
// segment each, compiled and run on every inference.
//
// This pass computes them once, at compile time, with the code that would
// otherwise run them: the ops are compiled as one host group
// (compileHostGroup, as the host fallback compiles them) and run on their
// constant operands, and quantize/dequantize of constants use the runtime's
// own arithmetic (rt::quantizeLinear, graph-fold-constants). A folded value
// is therefore bit for bit what the binary would have computed.
//
// Rounds alternate the two until nothing changes. Values over a size limit
// stay computed at run time (a broadcast would otherwise inflate the
// binary), and so do the model's outputs; an op whose group does not
// compile is left to the host fallback, which reports it with its own
// error.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/HostCodegen.h"
#include "systole/Dialect/Graph/ConstantTensors.h"
#include "systole/Dialect/Graph/GraphOps.h"
#include "systole/Dialect/Graph/Passes.h"
#include "systole/Support/QuantizeLinear.h"
#include "systole/Support/SharedObject.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"

#include <cstring>

namespace systole::npu {
#define GEN_PASS_DEF_FOLDCONSTANTSUBGRAPHS
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
namespace rt = systole::rt;
namespace npu = systole::npu;
namespace host = systole::host;
using namespace systole::graph;

namespace {

/// A folded value larger than this stays computed at run time.
constexpr int64_t kMaxFoldedBytes = 16 << 20;

/// Element types whose DRAM bytes are the storage the host code reads and
/// writes (one byte per i1).
bool plainStorage(Type t) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  if (!ranked || !ranked.hasStaticShape())
    return false;
  Type e = ranked.getElementType();
  if (auto i = dyn_cast<IntegerType>(e))
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, i.getWidth());
  return e.isF32() || e.isF64() || e.isF16() || e.isBF16();
}

/// The storage bytes of a constant as DRAM holds them.
std::vector<uint8_t> storageBytes(DenseElementsAttr data) {
  auto type = cast<ShapedType>(data.getType());
  int64_t n = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    std::vector<uint8_t> out;
    out.reserve(n);
    for (bool b : data.getValues<bool>())
      out.push_back(b);
    return out;
  }
  ArrayRef<char> raw = data.getRawData();
  size_t elem = type.getElementTypeBitWidth() / 8;
  std::vector<uint8_t> out(n * elem);
  for (int64_t i = 0; i < n; ++i) // a splat holds one element
    std::memcpy(&out[i * elem], &raw[data.isSplat() ? 0 : i * elem], elem);
  return out;
}

DenseElementsAttr fromStorage(RankedTensorType type, const uint8_t *bytes) {
  int64_t n = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> bits(n);
    for (int64_t i = 0; i < n; ++i)
      bits[i] = bytes[i] != 0;
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  size_t size = n * (type.getElementTypeBitWidth() / 8);
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(bytes), size));
}

/// QuantizeLinear of a float constant, per tensor, 8-bit: the builtin
/// host kernel's arithmetic.
struct FoldQuantizeOfConstant : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr data = constantBehind(op.getInput());
    auto outType = dyn_cast<RankedTensorType>(op.getOutput().getType());
    if (!data || !outType || !data.getElementType().isF32())
      return failure();
    auto q = dyn_cast<quant::UniformQuantizedType>(outType.getElementType());
    if (!q || q.getStorageTypeIntegralWidth() != 8)
      return failure();
    auto storage = RankedTensorType::get(outType.getShape(),
                                         IntegerType::get(getContext(), 8));
    SmallVector<int8_t> codes;
    codes.reserve(outType.getNumElements());
    for (float x : data.getValues<float>())
      codes.push_back(static_cast<int8_t>(
          rt::quantizeLinear(x, static_cast<float>(q.getScale()),
                             static_cast<int32_t>(q.getZeroPoint()),
                             static_cast<int32_t>(q.getStorageTypeMin()),
                             static_cast<int32_t>(q.getStorageTypeMax()))));
    if (codes.size() == 1 && outType.getNumElements() != 1)
      codes.resize(outType.getNumElements(), codes.front()); // a splat
    rewriter.replaceOp(
        op,
        materializeConstant(
            rewriter, op.getLoc(),
            DenseElementsAttr::get(storage, ArrayRef<int8_t>(codes)), outType));
    return success();
  }
};

struct FoldConstantSubgraphsPass
    : systole::npu::impl::FoldConstantSubgraphsBase<FoldConstantSubgraphsPass> {
  /// Ops that did not compile or whose results are too large: left alone.
  llvm::DenseSet<Operation *> skipped;

  void runOnOperation() override {
    RewritePatternSet set(&getContext());
    systole::graph::populateFoldConstantsPatterns(set);
    set.add<FoldQuantizeOfConstant>(&getContext());
    FrozenRewritePatternSet patterns(std::move(set));
    for (;;) {
      bool changed = false;
      if (failed(applyPatternsAndFoldGreedily(getOperation(), patterns,
                                              GreedyRewriteConfig(), &changed)))
        return signalPassFailure();
      changed |= evaluateRound();
      if (!changed)
        break;
    }
  }

  /// An op the host code computes from tensors of plain storage.
  bool evaluable(Operation *op) {
    if (skipped.contains(op) || op->getNumOperands() == 0 ||
        op->getNumResults() == 0 ||
        op->getDialect() != op->getContext()->getLoadedDialect("graph") ||
        isa<QuantizeOp, DequantizeOp, YieldOp, ReshapeOp>(op))
      return false;
    if (auto host = dyn_cast<HostOp>(op); host && !host.hasBody())
      return false;
    if (!llvm::all_of(op->getResultTypes(), plainStorage))
      return false;
    // A graph.host reads quantized operands as their storage codes; other
    // ops compute on plain values only.
    return llvm::all_of(op->getOperandTypes(), [&](Type t) {
      return plainStorage(t) ||
             (isa<HostOp>(op) && isa<RankedTensorType>(t) &&
              cast<RankedTensorType>(t).hasStaticShape() && isQuantized(t));
    });
  }

  /// Compiles and runs the ops whose operands are all constants (or
  /// results of such ops); replaces their results read elsewhere with
  /// constants. Returns whether anything was replaced.
  bool evaluateRound() {
    llvm::DenseSet<Value> known;
    SmallVector<Operation *> ops;
    for (Operation &op : getOperation().getBody().front()) {
      if (!evaluable(&op))
        continue;
      bool ready = llvm::all_of(op.getOperands(), [&](Value v) {
        return known.contains(v) || constantBehind(v);
      });
      if (!ready)
        continue;
      ops.push_back(&op);
      known.insert(op.getResults().begin(), op.getResults().end());
    }
    if (ops.empty())
      return false;
    if (!evaluate(ops)) {
      // One op the host code cannot compile spoils the group: retry each
      // op on its own, skipping those that fail.
      bool any = false;
      for (Operation *op : ops)
        if (llvm::all_of(op->getOperands(),
                         [](Value v) { return bool(constantBehind(v)); }))
          any |= evaluate({op}, /*skipOnFailure=*/true);
      return any;
    }
    return true;
  }

  /// Evaluates `ops` (program order) as one host group. Returns false when
  /// it does not compile or nothing could be replaced.
  bool evaluate(ArrayRef<Operation *> ops, bool skipOnFailure = false) {
    llvm::DenseSet<Operation *> inGroup(ops.begin(), ops.end());
    llvm::DenseMap<Value, int64_t> offsets;
    int64_t bytes = 0;
    auto place = [&](Value v) {
      if (offsets.count(v))
        return;
      offsets[v] = bytes;
      bytes += (npu::storedBytes(v.getType()) + 63) / 64 * 64;
    };
    for (Operation *op : ops) {
      for (Value v : op->getOperands())
        if (!v.getDefiningOp<arith::ConstantOp>() &&
            !inGroup.contains(v.getDefiningOp()))
          place(v); // a quantized constant: its codes in the image
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *user) {
              return !inGroup.contains(user);
            }))
          place(r);
    }
    host::HostGroup group;
    group.ops.assign(ops.begin(), ops.end());
    group.dramOffset = [&](Value v) { return offsets.lookup(v); };
    group.dramBytes = std::max<int64_t>(bytes, 1);
    group.optLevel = 0; // run once
    auto fail = [&](llvm::Error e) {
      llvm::consumeError(std::move(e));
      if (skipOnFailure)
        skipped.insert(ops.begin(), ops.end());
      return false;
    };
    auto code =
        host::compileHostGroup(group, "systole_fold", host::HostTarget::Cpu);
    if (!code)
      return fail(code.takeError());
    auto entry = rt::loadSharedObjectEntry(code->sharedObject, code->entry);
    if (!entry)
      return fail(entry.takeError());
    // 64-byte aligned, as DRAM views are.
    std::vector<uint64_t> words((group.dramBytes + 7) / 8 + 8, 0);
    auto *base = reinterpret_cast<uint8_t *>(words.data());
    base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
    for (Value v : code->inputs) {
      std::vector<uint8_t> data = storageBytes(constantBehind(v));
      std::memcpy(base + offsets.lookup(v), data.data(), data.size());
    }
    (*entry)(base);
    bool replaced = false;
    for (Value v : code->outputs) {
      auto type = cast<RankedTensorType>(v.getType());
      // A model output stays computed: a program needs a segment that
      // writes it (a model may compute nothing but constants).
      bool output = llvm::any_of(v.getUsers(), [](Operation *user) {
        return user->hasTrait<OpTrait::ReturnLike>();
      });
      if (output || npu::storedBytes(type) > kMaxFoldedBytes) {
        skipped.insert(v.getDefiningOp());
        continue;
      }
      OpBuilder b(v.getDefiningOp());
      auto c = b.create<arith::ConstantOp>(
          v.getLoc(), type, fromStorage(type, base + offsets.lookup(v)));
      v.replaceAllUsesWith(c.getResult());
      replaced = true;
    }
    // What only the folded values read is dead now.
    for (Operation *op : llvm::reverse(ops))
      if (op->use_empty()) {
        skipped.erase(op);
        op->erase();
      }
    return replaced;
  }
};

} // namespace
