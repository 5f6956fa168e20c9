//===- AllocateDram.cpp - Activation arena with liveness-based reuse ------===//
//
// Ops execute in program order (layers are separated by barriers), so a
// buffer is free once the op of its last use has run. First-fit over a free
// list; graph inputs and outputs are pinned (the runtime reads and writes
// them around the run).
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"

#include <map>

namespace systole::npu {
#define GEN_PASS_DEF_ALLOCATEDRAM
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::npu;

namespace {

constexpr int64_t kAlign = 64;

class Arena {
public:
  int64_t allocate(int64_t bytes) {
    bytes = (bytes + kAlign - 1) / kAlign * kAlign;
    for (auto it = free.begin(); it != free.end(); ++it) {
      if (it->second < bytes)
        continue;
      int64_t offset = it->first, size = it->second;
      free.erase(it);
      if (size > bytes)
        free[offset + bytes] = size - bytes;
      return offset;
    }
    int64_t offset = top;
    top += bytes;
    return offset;
  }
  void release(int64_t offset, int64_t bytes) {
    bytes = (bytes + kAlign - 1) / kAlign * kAlign;
    auto it = free.emplace(offset, bytes).first;
    // Coalesce with neighbours.
    auto next = std::next(it);
    if (next != free.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free.erase(next);
    }
    if (it != free.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free.erase(it);
      }
    }
  }
  int64_t size() const { return top; }

private:
  std::map<int64_t, int64_t> free;
  int64_t top = 0;
};

bool isConstantValue(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto c = dyn_cast_or_null<quant::StorageCastOp>(def))
    return isConstantValue(c.getArg());
  return def && llvm::isa<arith::ConstantOp>(def);
}

struct AllocateDramPass
    : systole::npu::impl::AllocateDramBase<AllocateDramPass> {
  using AllocateDramBase::AllocateDramBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    Arena arena;
    // The buffer a value lives in: reshapes alias their input.
    llvm::DenseMap<Value, Value> root;
    llvm::DenseMap<Value, int64_t> lastUse, offsets;
    llvm::DenseSet<Value> pinned;
    int64_t index = 0;
    llvm::DenseMap<Operation *, int64_t> order;
    func.walk([&](Operation *op) { order[op] = index++; });
    auto rootOf = [&](Value v) {
      auto it = root.find(v);
      return it == root.end() ? v : it->second;
    };
    // Reshapes and storage casts of activations move no data: they alias.
    for (Operation &op : func.getBody().front()) {
      if (auto r = dyn_cast<systole::graph::ReshapeOp>(op))
        root[r.getOutput()] = rootOf(r.getInput());
      if (auto c = dyn_cast<quant::StorageCastOp>(op))
        if (!isConstantValue(c.getArg()))
          root[c.getResult()] = rootOf(c.getArg());
      // A table fused into its producer's REQUANT is written where the
      // producer's result would be (same bytes), which was allocated while
      // the producer's inputs were still live: never on top of them.
      if (auto t = dyn_cast<systole::graph::TableOp>(op))
        if (Operation *p = t.getInput().getDefiningOp();
            p && fusedTable(p) == t)
          root[t.getOutput()] = rootOf(t.getInput());
      // Likewise a residual add applied in its producer's epilogue; its
      // other operand is live until the add, so never under that buffer.
      if (auto a = dyn_cast<systole::graph::AddOp>(op))
        if (auto idx = a->getAttrOfType<IntegerAttr>(kResidualAttr))
          root[a.getOutput()] = rootOf(a->getOperand(idx.getInt()));
    }
    for (Operation &op : func.getBody().front()) {
      for (Value v : op.getOperands())
        lastUse[rootOf(v)] = std::max(lastUse[rootOf(v)], order[&op]);
      if (llvm::isa<func::ReturnOp>(op))
        for (Value v : op.getOperands())
          pinned.insert(rootOf(v));
    }
    // In-place concats (npu-concat-in-place): the concat's buffer is taken
    // when its first producer runs (they write into it), each producer's
    // result and table live at their slice's first byte, and none has a
    // buffer of its own.
    llvm::DenseMap<Value, std::pair<Value, int64_t>> sliceOf;
    for (Operation &op : func.getBody().front())
      if (auto s = concatSlice(&op)) {
        Value c = s->concat.getOutput();
        sliceOf[op.getResult(0)] = {c, s->offset};
        if (systole::graph::TableOp t = fusedTable(&op))
          sliceOf[t.getOutput()] = {c, s->offset};
      }
    for (BlockArgument arg : func.getArguments()) {
      int64_t off = arena.allocate(storedBytes(arg.getType()));
      offsets[arg] = off;
      setDramOffset(arg, off);
    }
    for (Operation &op : func.getBody().front()) {
      if (op.getNumResults() != 1 || isConstantValue(op.getResult(0)) ||
          !llvm::isa<ShapedType>(op.getResult(0).getType()))
        continue;
      Value result = op.getResult(0);
      Value r = rootOf(result);
      auto inPlace = [&](Value c) {
        if (!offsets.count(c)) {
          int64_t off = arena.allocate(storedBytes(c.getType()));
          offsets[c] = off;
          setDramOffset(c, off);
        }
        return offsets[c];
      };
      if (auto it = sliceOf.find(result); it != sliceOf.end()) {
        auto [c, channel] = it->second;
        setDramOffset(result, inPlace(c) + channel);
      } else if (isFusedIntoProducer(&op) &&
                 llvm::isa<systole::graph::ConcatOp>(op)) {
        inPlace(result);
      } else if (r != result) {
        setDramOffset(result, offsets[r]);
      } else {
        int64_t off = arena.allocate(storedBytes(result.getType()));
        offsets[result] = off;
        setDramOffset(result, off);
      }
      // Free operands whose last use is this op (their buffers may be
      // reused by later results, not by this one: it was allocated first).
      for (Value v : op.getOperands()) {
        Value rv = rootOf(v);
        if (reuse && offsets.count(rv) && lastUse[rv] == order[&op] &&
            !pinned.count(rv) && !llvm::isa<BlockArgument>(rv)) {
          arena.release(offsets[rv], storedBytes(rv.getType()));
          offsets.erase(rv);
        }
      }
    }
    func->setAttr(
        "npu.dram_size",
        IntegerAttr::get(IntegerType::get(&getContext(), 64), arena.size()));
  }
};

} // namespace
