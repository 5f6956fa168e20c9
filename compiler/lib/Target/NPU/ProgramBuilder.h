//===- ProgramBuilder.h - Instruction stream and DMA pipeline ---*- C++ -*-===//
//
// Internal to the NPU target. ProgramBuilder owns the instruction stream and
// the constant pool; LayerPipeline implements the double-buffered tile
// protocol every layer uses (the DMA plan): item i's loads are fetched one
// item ahead of its compute so DMA overlaps compute, and dependency tokens
// guard the two buffer slots (see docs/compiler.md, "DMA planning").
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_TARGET_NPU_PROGRAMBUILDER_H
#define SYSTOLE_LIB_TARGET_NPU_PROGRAMBUILDER_H

#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"
#include "systole/ISA/Program.h"

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

/// Instructions of one pipeline item, per queue, in order. Every item loads
/// and computes; an item may leave `stores` empty when the next item
/// accumulates into its accumulator tile (K split), the layer's last item
/// stores.
struct Item {
  std::vector<Instruction> loads, computes, stores;
  /// Optional, one entry per load: the index of the first compute that reads
  /// what the load brings. Loads then form stages (one token each), so the
  /// item's first computes start once their own operands have arrived
  /// instead of after every load of the item; a layer's first item, which
  /// nothing overlaps, gains the most. Empty: one stage.
  std::vector<size_t> loadNeed;
  /// The item ends its output tile without stores: the tile stays in the
  /// scratchpad for the next layer (a cascade, npu-plan-cascades). A layer's
  /// items either all store or all keep.
  bool keep = false;
  /// The item's last compute is post-processor work on its own output tile
  /// (a fused residual add's VADD) whose one extra operand `loads[*tailLoad]`
  /// brings and nothing else reads. emitLayer may then issue that compute
  /// among the next item's MATMULs instead of holding the array idle while
  /// the REQUANT before it runs (a "deferred tail", see ProgramBuilder.cpp).
  std::optional<size_t> tailLoad;
};

/// Items grouped by output tile: a group is a run of items without stores
/// (they accumulate into one accumulator tile) ended by an item that stores.
struct OutputGroups {
  std::vector<int64_t> group;  ///< per item: its group's index
  std::vector<bool> starts;    ///< per item: it is its group's first
  std::vector<size_t> storing; ///< per group: the index of its storing item
};
OutputGroups outputGroups(const std::vector<Item> &items);

/// An item's loads grouped by `loadNeed`: loads [previous end, loadEnd) must
/// complete before compute `firstCompute` starts.
struct LoadStage {
  size_t loadEnd, firstCompute;
};
/// Orders `item`'s loads by need (stable) and returns its stages, at most
/// `maxStages` (later needs merge into the last stage).
std::vector<LoadStage> orderLoadStages(Item &item, size_t maxStages);

class ProgramBuilder {
public:
  explicit ProgramBuilder(const isa::HwConfig &hw) : hw(hw) {}

  const isa::HwConfig &hw;
  std::vector<Instruction> stream;

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

  /// Emits a layer as a sequence of items with the double-buffered protocol.
  /// Returns the index of its first instruction. Loads of the first item that
  /// bring constants (weights) into scratchpad bytes the previous layer of
  /// the segment never touches are hoisted into the previous layer, right
  /// after its last item's loads: they then overlap its last computes instead
  /// of waiting for its last store (the barrier). `lastHoisted` counts them;
  /// they sit at the end of the previous layer's instruction range.
  size_t emitLayer(std::vector<Item> items);
  size_t lastHoisted = 0;
  uint64_t lastHoistedBytes = 0;
  /// Whether the next layer should allocate its scratchpad slots from the
  /// top (LayerIO::spMirrored): alternating ends makes hoisting possible.
  bool spMirrored() const { return mirrorNext; }
  /// Ends the current stream with END and returns it; the next layer starts
  /// a new stream (an NPU segment after a host segment) without a barrier.
  std::vector<Instruction> finishSegment();

  /// Predicted cycles of a layer's items under the same protocol, from the
  /// ISA timing model (the cost model's estimate; the simulator is exact).
  uint64_t estimateLayerCycles(const std::vector<Item> &items) const;

  /// How many items' tokens one FIFO may hold at once: 2 (double
  /// buffering: item i+1 loads while item i computes) when
  /// queues.token_depth allows, else 1 (items run one after the other).
  size_t lookahead() const;
  /// Whether emitLayer runs each item's tail (Item::tailLoad) among the next
  /// item's MATMULs: every item stores and has one, the post-processor runs
  /// beside the array and the token FIFOs hold two tokens per item.
  bool defersTails(const std::vector<Item> &items) const;
  /// Most stages an item may use: a stage costs one load->compute token, and
  /// two items' stages can be outstanding at once.
  size_t maxStages() const;

private:
  std::vector<uint8_t> pool;
  std::vector<std::pair<uint64_t, uint64_t>> derived;
  /// Index of the last STORE of the previous layer, whose st->cmp token the
  /// next layer's barrier consumes.
  std::optional<size_t> lastStore;
  /// The previous layer kept its output on chip (no store): the barrier is
  /// a compute FENCE alone.
  bool prevKept = false;
  /// Where hoisted loads go (after the previous layer's last item's loads)
  /// and the scratchpad intervals the previous layer touches (sorted,
  /// disjoint).
  std::optional<size_t> hoistPoint;
  std::vector<std::pair<uint64_t, uint64_t>> prevSp;
  /// The previous layer's barrier FENCE when its first item loads nothing
  /// (loads hoisted into it must wait for that FENCE's token).
  std::optional<size_t> loadlessFence;
  bool mirrorNext = false;
};

} // namespace systole::npu

#endif // SYSTOLE_LIB_TARGET_NPU_PROGRAMBUILDER_H
