//===- TilePlan.h - A layer's tiling choices --------------------*- C++ -*-===//
//
// What a layer's generator proposes (candidatePlans), the cost model prices
// and npu-plan-tiles records on the op as `npu.tile = #npu.tile<...>`. Each
// generator reads the fields it uses; the others stay absent.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TARGET_NPU_TILEPLAN_H
#define SYSTOLE_TARGET_NPU_TILEPLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>

namespace systole::npu {

struct TilePlan {
  /// Channels per item (table, vector and concat layers).
  std::optional<int64_t> channels;
  /// Reduction chunk of a K split (absent: the whole reduction per item).
  std::optional<int64_t> k;
  /// Output channels per tile (convolutions, matmuls); a grouped
  /// convolution's n above its groups' width spans whole groups.
  std::optional<int64_t> n;
  /// 1: channel tiles outer, weights streamed slice by slice; in a grouped
  /// convolution: groups outer, each loading its slice of the input
  /// channels (0: the groups of a row tile share one tile of all channels).
  std::optional<int64_t> order;
  /// 1: output-stationary dataflow, 0: weight-stationary.
  std::optional<int64_t> os;
  /// 1: every weight stays in the scratchpad for the whole layer
  /// (convolutions); a K-split matmul's lhs rows stay for all column tiles.
  std::optional<int64_t> resident;
  /// Output rows per item.
  std::optional<int64_t> rows;

  using Field = std::optional<int64_t> TilePlan::*;
  /// The fields by name, in alphabetical order (the report's and the tune
  /// cache's spelling, `--force-plan rows=4,n=8`).
  static llvm::ArrayRef<std::pair<llvm::StringLiteral, Field>> fields();
  /// The field named `name`, or null.
  static Field field(llvm::StringRef name);

  bool operator==(const TilePlan &o) const {
    return std::tie(channels, k, n, order, os, resident, rows) ==
           std::tie(o.channels, o.k, o.n, o.order, o.os, o.resident, o.rows);
  }
  bool operator<(const TilePlan &o) const {
    return std::tie(channels, k, n, order, os, resident, rows) <
           std::tie(o.channels, o.k, o.n, o.order, o.os, o.resident, o.rows);
  }
};

} // namespace systole::npu

#endif // SYSTOLE_TARGET_NPU_TILEPLAN_H
