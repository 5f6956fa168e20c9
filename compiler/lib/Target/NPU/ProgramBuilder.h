//===- ProgramBuilder.h - Constant pool, layer ops, cost model --*- C++ -*-===//
//
// Internal to the NPU target. ProgramBuilder owns the constant pool and
// writes each layer the code generators lower as an `npu.layer` op of items
// into the npu.program it builds; npu-schedule-pipeline (Dialect/NPU/
// Pipeline.h) later orders the items into the instruction stream. The cost
// model prices items under that same protocol (estimateLayerCycles).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_TARGET_NPU_PROGRAMBUILDER_H
#define SYSTOLE_LIB_TARGET_NPU_PROGRAMBUILDER_H

#include "systole/Dialect/NPU/Pipeline.h"
#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"
#include "systole/ISA/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace systole::npu {

using isa::Field;
using isa::Instruction;
using isa::Opcode;

/// A strided box in DRAM and SRAM for LOAD/STORE (see docs/isa.md).
struct DmaBox {
  uint64_t dram = 0;
  bool acc = false;  ///< SRAM side is the accumulator (int32 words)
  uint64_t sram = 0; ///< SP byte / ACC word address
  int64_t elemBytes = 1;
  int64_t n[4] = {1, 1, 1, 1}; ///< n0 innermost (contiguous elements)
  int64_t s[4] = {0, 0, 0, 0}; ///< DRAM strides in bytes (s[0] unused)
  int64_t t[4] = {0, 0, 0, 0}; ///< SRAM strides (s[0] unused)
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int64_t padValue = 0;
  /// XOR 0x80 on the way (uint8 tensors live as int8 inside the NPU: the
  /// shift is exact for integer arithmetic, zero points move by -128).
  bool flipSign = false;
};

/// Boxes covering `bytes` contiguous bytes on both sides, as few and as long
/// runs as the 16-bit size fields allow (full bursts, no per-run waste).
std::vector<DmaBox> contiguousBoxes(uint64_t dram, uint64_t sram,
                                    int64_t bytes);

Instruction makeLoad(const DmaBox &box);
Instruction makeStore(const DmaBox &box);

class ProgramBuilder {
public:
  /// Builds into a new module holding one npu.program for `hw` (`context`
  /// null: a scratch builder for the cost model, which emits no layers).
  explicit ProgramBuilder(const isa::HwConfig &hw,
                          mlir::MLIRContext *context = nullptr);

  const isa::HwConfig &hw;

  /// Appends bytes to the constant pool; returns their offset in the pool
  /// (relative: the emitter places the pool in DRAM). 64-byte aligned so
  /// weight rows start on DRAM bursts.
  /// `derived`: bytes the compiler made (tables, gather matrices), not the
  /// model's (weights, biases, scales); kept apart in the binary
  /// (isa::kDerivedConstantsName) so the model bound leaves them out.
  uint64_t addConstant(const void *data, size_t bytes, bool derived = false);
  const std::vector<uint8_t> &constantPool() const { return pool; }
  /// [begin, end) offsets of derived constants in the pool, in order.
  const std::vector<std::pair<uint64_t, uint64_t>> &derivedRanges() const {
    return derived;
  }
  /// DRAM address of the constant pool (set once activations are placed).
  uint64_t constantBase = 0;

  /// Appends a layer's items, unscheduled, as an npu.layer op named `name`
  /// to NPU segment `segmentIndex` (the first layer opens it).
  void emitLayer(const std::vector<Item> &items, size_t segmentIndex,
                 llvm::StringRef name, mlir::Location loc);
  /// Whether the next layer should allocate its scratchpad slots from the
  /// top (LayerIO::spMirrored): layers of a segment alternate ends, so a
  /// layer's weight loads can be hoisted into the one before it.
  bool spMirrored() const { return layersInSegment % 2 == 1; }
  /// Closes the open segment; the next layer opens a new one.
  void finishSegment();
  /// The npu.program built so far, with the constant pool's DRAM range;
  /// the builder is done with it.
  mlir::OwningOpRef<mlir::ModuleOp> takeModule();

  /// Predicted cycles of a layer's items under the scheduler's protocol,
  /// from the ISA timing model (the cost model's estimate; the simulator is
  /// exact).
  uint64_t estimateLayerCycles(const std::vector<Item> &items) const;

  /// The protocol's limits for this config (Dialect/NPU/Pipeline.h).
  size_t lookahead() const { return pipelineLookahead(hw); }
  bool defersTails(const std::vector<Item> &items) const {
    return npu::defersTails(items, hw);
  }
  size_t maxStages() const { return maxLoadStages(hw); }

private:
  std::vector<uint8_t> pool;
  std::vector<std::pair<uint64_t, uint64_t>> derived;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::Operation *program = nullptr; ///< npu.program
  mlir::Operation *segment = nullptr; ///< the open npu.segment
  size_t layersInSegment = 0;
};

} // namespace systole::npu

#endif // SYSTOLE_LIB_TARGET_NPU_PROGRAMBUILDER_H
