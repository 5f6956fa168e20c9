//===- ModelBound.h - The physical lower bound on a model's cycles -*- C++
//-*-===//
//
// One bound, defined once (docs/energy.md, "The bound"): for a program on its
// config, max(MACs / PEs, compulsory DRAM bytes / bandwidth), where the
// compulsory bytes are the model's inputs, constants (weights, biases,
// requantization tables) and outputs, each moved once. It needs nothing but
// the .npu, so the compile report, `systole report`, `systole run --report`,
// the sweep CSV and the benches print the same figure.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_RUNTIME_MODELBOUND_H
#define SYSTOLE_RUNTIME_MODELBOUND_H

#include "systole/ISA/Program.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

namespace systole::rt {

struct ModelBound {
  /// MACs the NPU must do: the placement's NPU ops (the model's MACs as
  /// counted from the ONNX graph), or for a format 1.0 binary without a
  /// placement the MACs of its MATMUL and DWCONV instructions.
  uint64_t macs = 0;
  uint64_t pes = 0;           ///< array.rows x array.cols
  uint64_t inputBytes = 0;    ///< tensors of kind Input, as bound by the user
  uint64_t constantBytes = 0; ///< every constant segment of the .npu
  uint64_t outputBytes = 0;   ///< tensors of kind Output
  uint64_t bytesPerCycle = 0; ///< dram.bytes_per_cycle
  double computeCycles = 0;   ///< macs / pes
  double memoryCycles = 0;    ///< compulsoryBytes() / bytesPerCycle
  double cycles = 0;          ///< max(computeCycles, memoryCycles)
  bool computeBound = false;  ///< computeCycles >= memoryCycles

  uint64_t compulsoryBytes() const {
    return inputBytes + constantBytes + outputBytes;
  }
  /// cycles / bound (0 when the bound is 0).
  double ratio(uint64_t runCycles) const {
    return cycles > 0 ? double(runCycles) / cycles : 0;
  }
};

ModelBound modelBound(const isa::Program &program);

/// {"cycles", "compute_cycles", "memory_cycles", "limited_by", "macs",
///  "pes", "compulsory_bytes", "input_bytes", "constant_bytes",
///  "output_bytes", "dram_bytes_per_cycle"} and, given the run's cycles,
/// "run_cycles" and "cycles_over_bound".
llvm::json::Object modelBoundToJson(const ModelBound &b,
                                    std::optional<uint64_t> runCycles = {});

/// "bound: B cycles = max(M MACs / P PEs, C compulsory bytes / W B/cycle),
/// compute-bound; C cycles / bound = R" (one line).
void printModelBound(const ModelBound &b, uint64_t runCycles,
                     llvm::raw_ostream &os);

} // namespace systole::rt

#endif // SYSTOLE_RUNTIME_MODELBOUND_H
