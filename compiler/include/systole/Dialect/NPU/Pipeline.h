//===- Pipeline.h - The double-buffered tile protocol -----------*- C++ -*-===//
//
// A layer is a sequence of items (one output tile's loads, computes and
// stores); the protocol that overlaps their DMA with compute (double
// buffering, load stages, deferred tails, the barrier between layers,
// weight loads hoisted into the layer before) is defined here once. The
// scheduler (npu-schedule-pipeline) orders the items and adds the
// dependency tokens; the code generators' cost model prices items under the
// same rules (ProgramBuilder::estimateLayerCycles).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DIALECT_NPU_PIPELINE_H
#define SYSTOLE_DIALECT_NPU_PIPELINE_H

#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace systole::npu {

/// Instructions of one pipeline item, per queue, in order. Every item loads
/// and computes; an item may leave `stores` empty when the next item
/// accumulates into its accumulator tile (K split), the layer's last item
/// stores.
struct Item {
  std::vector<isa::Instruction> loads, computes, stores;
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
  /// brings and nothing else reads. The scheduler may then issue that
  /// compute among the next item's MATMULs instead of holding the array idle
  /// while the REQUANT before it runs (a "deferred tail", Pipeline.cpp).
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

/// How many items' tokens one FIFO may hold at once: 2 (double buffering:
/// item i+1 loads while item i computes) when queues.token_depth allows,
/// else 1 (items run one after the other).
size_t pipelineLookahead(const isa::HwConfig &hw);
/// Most stages an item may use: a stage costs one load->compute token, and
/// two items' stages can be outstanding at once.
size_t maxLoadStages(const isa::HwConfig &hw);
/// Whether the scheduler runs each item's tail (Item::tailLoad) among the
/// next item's MATMULs: every item stores and has one, the post-processor
/// runs beside the array and the token FIFOs hold two tokens per item.
bool defersTails(const std::vector<Item> &items, const isa::HwConfig &hw);

/// Moves each item's tail operand load to the end of its loads.
void tailLoadsLast(std::vector<Item> &items);
/// Takes each item's tail compute out of its computes (deferred tails) and
/// gives its operand load a stage of its own; returns the tails, one per
/// item.
std::vector<isa::Instruction> takeTails(std::vector<Item> &items);
/// Where item i's computes take item i-1's deferred tail.
size_t tailSlot(const Item &item);

/// Where one layer landed in its segment's stream.
struct ScheduledLayer {
  /// Index of its first instruction (the barrier FENCE, if any).
  size_t first = 0;
  /// Loads of its first item moved into the previous layer (and their DMA
  /// bytes): they sit in the previous layer's instruction range.
  size_t hoisted = 0;
  uint64_t hoistedBytes = 0;
};

/// Orders the items of one segment's layers into an instruction stream with
/// dependency tokens (the protocol in Pipeline.cpp). Layers are scheduled in
/// program order; the state carried from one to the next is the barrier
/// (its last store's token) and where its loads end, for hoisting.
class PipelineScheduler {
public:
  /// `constants`: the DRAM range [begin, end) of the constant pool; only
  /// loads of constants are hoisted into the previous layer.
  PipelineScheduler(const isa::HwConfig &hw,
                    std::pair<uint64_t, uint64_t> constants)
      : hw(hw), constants(constants) {}

  /// Appends a layer; items are consumed.
  ScheduledLayer scheduleLayer(std::vector<Item> items);
  /// Ends the stream with END and returns it; the scheduler starts a new
  /// stream (an NPU segment after a host segment) without a barrier.
  std::vector<isa::Instruction> finishSegment();

private:
  const isa::HwConfig &hw;
  std::pair<uint64_t, uint64_t> constants;
  std::vector<isa::Instruction> stream;
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
};

} // namespace systole::npu

#endif // SYSTOLE_DIALECT_NPU_PIPELINE_H
