//===- Tuner.h - Tile-plan search space and result cache --------*- C++ -*-===//
//
// Internal to the NPU target. `systole compile --tune` widens the planner's
// search: more tile heights, item widths and K splits than the default
// candidates, every one priced by the same estimate (the ISA timing model
// under the double-buffered pipeline), best kept. Results are cached per
// layer signature and hardware config, so a model (or a network of
// repeated blocks) is tuned once.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_TARGET_NPU_TUNER_H
#define SYSTOLE_LIB_TARGET_NPU_TUNER_H

#include "LayerCodegen.h"

#include <map>
#include <string>

namespace systole::npu {

/// Plans beyond the default candidates of `op` (which the tuner prices
/// first): every tile height giving a distinct tile count, item widths up
/// to the layer's channels, K splits where a layer fits unsplit too.
std::vector<TilePlan> tuningCandidates(mlir::Operation *op,
                                       const isa::HwConfig &hw);

/// Tuned plans by key (hardware config and layer signature), in a JSON file.
class TuneCache {
public:
  struct Entry {
    TilePlan plan;
    uint64_t cycles = 0;
    /// The budget it was searched with: a larger one searches again.
    int64_t budget = 0;
  };
  /// Loads `path` if it exists; a missing file is an empty cache, an
  /// unreadable or malformed one an error naming it.
  static llvm::Expected<TuneCache> open(std::string path);
  std::optional<Entry> lookup(const std::string &key) const;
  void store(const std::string &key, Entry e);
  /// Writes the cache back (atomically, via a temporary file).
  llvm::Error save() const;
  /// The key prefix of a hardware config: its canonical JSON's hash.
  static std::string configKey(const isa::HwConfig &hw);

private:
  std::string path;
  std::map<std::string, Entry> entries;
  bool dirty = false;
};

} // namespace systole::npu

#endif // SYSTOLE_LIB_TARGET_NPU_TUNER_H
