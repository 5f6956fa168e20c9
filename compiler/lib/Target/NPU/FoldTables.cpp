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
// graph.table the producer's REQUANT applies (LayerCodegen's epilogue).
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"
#include "TableChain.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

namespace systole::npu {
#define GEN_PASS_DEF_FOLDTABLES
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::graph;
using namespace systole::npu::tables;
namespace npu = systole::npu;
using NpuPlacement = systole::npu::Placement;

namespace {

struct FoldTablesPass : systole::npu::impl::FoldTablesBase<FoldTablesPass> {
  using FoldTablesBase::FoldTablesBase;
  void runOnOperation() override {
    // A table's result read by another chain (a gate's "/ 6", an
    // activation quantized in several steps) composes with it: producers
    // include the tables made here (a worklist).
    SmallVector<Operation *> producers;
    getOperation().walk([&](Operation *op) {
      if (llvm::isa<Conv2DOp, MatMulOp, TableOp>(op) &&
          npu::getPlacement(op) == NpuPlacement::Npu &&
          quantized8(op->getResult(0).getType()))
        producers.push_back(op);
    });
    while (!producers.empty()) {
      Operation *producer = producers.pop_back_val();
      if (!producer->getResult(0).hasOneUse())
        continue;
      auto dq = dyn_cast<DequantizeOp>(*producer->getResult(0).user_begin());
      if (!dq)
        continue;
      std::optional<Chain> chain = chainAfter(dq);
      if (!chain)
        continue;
      std::optional<std::vector<int8_t>> table = tableOf(dq, *chain);
      if (!table)
        return signalPassFailure();
      // After a table: one table of the table's input, the chain's entries
      // read at the table's codes.
      Value input = dq.getInput();
      auto first = dyn_cast<TableOp>(producer);
      if (first) {
        *table = composeAfter(first, *table);
        input = first.getInput();
      }
      producers.push_back(replaceChain(dq, *chain, input, *table, first));
    }
    if (standalone)
      foldStandalone();
  }

  /// The chain's table, or an error at `dq` (the caller fails the pass).
  static std::optional<std::vector<int8_t>> tableOf(DequantizeOp dq,
                                                    const Chain &chain) {
    auto table = evaluate(dq, chain);
    if (table)
      return std::move(*table);
    dq.emitError() << "cannot compute the activation table: "
                   << llvm::toString(table.takeError());
    return std::nullopt;
  }

  /// The chains no producer's REQUANT can apply (after an add, a pool, a
  /// concat, a conv whose result has other readers, or with one table per
  /// channel, as a pre-activation BatchNormalization + ReLU) become VLUT
  /// layers of their own (docs/isa.md, VLUT). After a standalone table
  /// whose only reader the chain is, the two compose into one.
  void foldStandalone() {
    SmallVector<DequantizeOp> dqs;
    getOperation().walk([&](DequantizeOp dq) {
      Operation *def = dq.getInput().getDefiningOp();
      if (def && npu::getPlacement(def) == NpuPlacement::Npu &&
          quantized8(dq.getInput().getType()))
        dqs.push_back(dq);
    });
    while (!dqs.empty()) {
      DequantizeOp dq = dqs.pop_back_val();
      std::optional<Chain> chain =
          chainAfter(dq, /*allowTranspose=*/false, /*allowPerChannel=*/true);
      if (!chain)
        continue;
      std::optional<std::vector<int8_t>> table = tableOf(dq, *chain);
      if (!table)
        return signalPassFailure();
      Value input = dq.getInput();
      // A table whose only reader is this chain (applied by its producer
      // or not) takes the chain in: one lookup. A per-channel result
      // cannot stay in a REQUANT; it then runs as a VLUT layer
      // (fusedTable).
      auto first = input.getDefiningOp<TableOp>();
      if (first && !first->hasOneUse())
        first = nullptr;
      if (first) {
        *table = composeAfter(first, *table);
        input = first.getInput();
      }
      TableOp t = replaceChain(dq, *chain, input, *table, first);
      // The next chain may read this table's result (behind its reshape).
      SmallVector<Operation *> readers(t->getUsers());
      for (size_t i = 0; i < readers.size(); ++i) {
        if (auto next = dyn_cast<DequantizeOp>(readers[i]))
          dqs.push_back(next);
        else if (isa<ReshapeOp>(readers[i]))
          readers.append(readers[i]->getUsers().begin(),
                         readers[i]->getUsers().end());
      }
    }
  }
};

} // namespace
