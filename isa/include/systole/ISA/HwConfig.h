//===- HwConfig.h - Hardware configuration of the NPU ----------*- C++ -*-===//
//
// Every parameter of the NPU. Compiler, simulator, RTL generator and runtime
// read it from here; nothing else hard-codes array size, SRAM or bandwidth.
// The JSON form is described field by field in docs/hwconfig.md, generated
// from the same table (hwConfigFields()) that drives parsing and validation.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_HWCONFIG_H
#define SYSTOLE_ISA_HWCONFIG_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace systole::isa {

struct HwConfig {
  std::string name;
  struct Array {
    uint64_t rows = 0;
    uint64_t cols = 0;
    bool ws = false; ///< weight-stationary supported
    bool os = false; ///< output-stationary supported
    /// WS MATMULs in the array at once (docs/isa.md, section 6): with more
    /// than 1 each PE holds a second weight register that the next
    /// MATMUL's preload fills while the current one streams, so consecutive
    /// WS MATMULs follow each other without draining the array. 1: every
    /// MATMUL waits for the previous one's last result.
    uint64_t matmulInflight = 1;
  } array;
  struct Sram {
    uint64_t scratchpadBytes = 0;
    uint64_t scratchpadBanks = 0;
    uint64_t accumulatorBytes = 0;
    uint64_t accumulatorBanks = 0;
  } sram;
  struct Dram {
    uint64_t bytesPerCycle = 0;
    uint64_t latencyCycles = 0;
    uint64_t burstBytes = 0;
    uint64_t capacityBytes = 0;
  } dram;
  struct Vector {
    uint64_t lanes = 0;
    uint64_t pipelineDepth = 0;
    /// 1: REQUANT runs on the post-processor beside the array, so MATMULs
    /// after it do not wait for it (docs/isa.md, section 3); 0: it occupies
    /// the compute queue like every other compute instruction.
    uint64_t requantOverlap = 0;
    /// Taps of one kernel row that each DWCONV lane multiplies per cycle
    /// (docs/isa.md, DWCONV): a kernel row of kw taps takes ceil(kw / T)
    /// cycles. 1: one tap per cycle.
    uint64_t dwconvTaps = 1;
  } vector;
  struct Queues {
    uint64_t cmdDepth = 0;
    uint64_t tokenDepth = 0;
  } queues;
  double clockMhz = 0;
  /// The host CPU that runs host segments (quantize, transposes, float ops),
  /// for their time in a run: compute at `opsPerCycle` elementary operations
  /// per NPU clock cycle, transfers through the NPU's DRAM interface (its
  /// bandwidth and latency); docs/hwconfig.md.
  struct Host {
    double opsPerCycle = 8.0;
  } host;
  /// Energy per action in picojoules. Defaults: Horowitz, "Computing's
  /// energy problem", ISSCC 2014 (45 nm); see docs/hwconfig.md.
  struct Energy {
    double macPj = 0.23;
    double spReadPjPerByte = 1.25;
    double spWritePjPerByte = 1.25;
    double accReadPjPerWord = 5.0;
    double accWritePjPerWord = 5.0;
    double dramPjPerByte = 160.0;
    double vectorOpPj = 4.6;
    double leakagePjPerCycle = 0.0;
    double hostOpPj = 9.0;
  } energy;

  uint64_t accumulatorWords() const { return sram.accumulatorBytes / 4; }
  uint64_t scratchpadBankBytes() const {
    return sram.scratchpadBanks ? sram.scratchpadBytes / sram.scratchpadBanks
                                : 0;
  }
  /// Bank of a scratchpad byte address (addresses past the end map to the
  /// last bank; only verified programs reach the timing model).
  uint64_t scratchpadBank(uint64_t addr) const;
  bool operator==(const HwConfig &o) const;
};

/// One row of the configuration schema.
struct HwConfigFieldSpec {
  enum Kind { String, UInt, Float, DataflowList };
  const char *path; ///< dotted JSON path, e.g. "sram.scratchpad_banks"
  Kind kind;
  bool required;   ///< else the default in HwConfig applies
  double min, max; ///< inclusive range for UInt/Float
  const char *unit;
  const char *summary;
};
llvm::ArrayRef<HwConfigFieldSpec> hwConfigFields();

/// Parses and validates; errors name the field ("array.rows: missing").
llvm::Expected<HwConfig> parseHwConfig(llvm::StringRef jsonText);
llvm::Expected<HwConfig> hwConfigFromJson(const llvm::json::Value &value);
llvm::Expected<HwConfig> loadHwConfigFile(llvm::StringRef path);
/// Range and cross-field checks of an in-memory config.
llvm::Error validateHwConfig(const HwConfig &config);
llvm::json::Value hwConfigToJson(const HwConfig &config);
std::string hwConfigToJsonText(const HwConfig &config);

/// The bundled presets (isa/presets/*.json) found in `directory`, sorted by
/// name. Each entry is (file path, parsed config or error).
struct PresetEntry {
  std::string path;
  std::string stem;
};
llvm::Expected<std::vector<PresetEntry>> listPresets(llvm::StringRef directory);

} // namespace systole::isa

#endif // SYSTOLE_ISA_HWCONFIG_H
