//===- Runtime.h - Load a .npu, bind tensors, run, read results -*- C++ -*-===//
//
// The host runtime (docs/runtime.md). A Model is a verified .npu (loading
// always goes through isa::readProgram, i.e. the verifier; an in-process
// program through isa::verifyProgram) checked against configurable size
// limits. A Session binds inputs by name, runs the
// segments in order (NPU segments on the chosen simulator backend, builtin
// host segments in HostKernels.cpp) over one DRAM image, and exposes the
// outputs and the statistics. The C API (systole_runtime.h) wraps this.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_RUNTIME_RUNTIME_H
#define SYSTOLE_RUNTIME_RUNTIME_H

#include "systole/ISA/Program.h"
#include "systole/Runtime/HostCode.h"
#include "systole/Simulator/Simulator.h"
#include "systole/Support/HostTensor.h"

#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace systole::rt {

/// Refuse binaries whose declared sizes exceed these (a hostile .npu must
/// not make the runtime allocate unbounded memory or loop forever).
struct Limits {
  uint64_t maxFileBytes = uint64_t(4) << 30;
  uint64_t maxDramBytes = uint64_t(4) << 30;    ///< memory_plan.dram_size
  uint64_t maxTensorBytes = uint64_t(2) << 30;  ///< any one tensor
  uint64_t maxInstructions = uint64_t(1) << 26; ///< summed over segments
  /// Scratchpad + accumulator bytes of the embedded config (a session
  /// allocates both).
  uint64_t maxSramBytes = uint64_t(1) << 30;
  /// Host segments of kind cpu_object/ptx are native code the binary
  /// supplies (dlopen'ed / launched as is). Loaders of untrusted binaries set
  /// this to false (docs/security.md).
  bool allowNativeHostCode = true;
};

struct TensorInfo {
  std::string name;
  isa::DType dtype;
  std::vector<int64_t> shape;
  std::optional<isa::QuantParams> quant;
  uint64_t sizeBytes = 0;
  /// "1x3x224x224xfloat32".
  std::string describe() const;
};

ElementType elementTypeOf(isa::DType t);
std::optional<isa::DType> dtypeOf(ElementType t);

class Model {
public:
  static llvm::Expected<std::unique_ptr<Model>>
  loadFile(llvm::StringRef path, const Limits &limits = {});
  static llvm::Expected<std::unique_ptr<Model>>
  loadBytes(llvm::ArrayRef<uint8_t> bytes, const Limits &limits = {});
  /// A program built in this process (the compiler's, an edited copy): run
  /// through isa::verifyProgram and the `limits`, exactly as a loaded one.
  static llvm::Expected<std::unique_ptr<Model>>
  fromProgram(isa::Program program, const Limits &limits = {});
  const isa::Program &program() const { return prog; }
  const isa::HwConfig &config() const { return prog.config; }
  const std::vector<TensorInfo> &inputs() const { return ins; }
  const std::vector<TensorInfo> &outputs() const { return outs; }

private:
  explicit Model(isa::Program p);
  /// The limit and host-segment checks of a verified program.
  static llvm::Expected<std::unique_ptr<Model>>
  fromVerifiedProgram(isa::Program program, const Limits &limits);
  isa::Program prog;
  std::vector<TensorInfo> ins, outs;
};

/// Statistics of one segment of a run.
struct SegmentReport {
  std::string name;
  bool npu = true;
  std::string hostKernel; ///< builtin entry for host segments
  /// Host segments: "builtin", "cpu" or "gpu" ("skipped" for the
  /// alternative not taken), and the bytes the host read from / wrote to
  /// DRAM with their transfer cost at the DRAM's bandwidth and latency.
  std::string hostDevice;
  uint64_t hostBytesIn = 0, hostBytesOut = 0, transferCycles = 0;
  /// Host segments: the compiler's operation count and its compute time at
  /// host.ops_per_cycle (isa::hostTiming); with transferCycles, the
  /// segment's cycles on the run's axis.
  uint64_t hostOps = 0, hostComputeCycles = 0;
  uint64_t startCycle = 0; ///< cycles (NPU and host) before this segment
  double wallSeconds = 0;
  std::optional<GpuPhases> gpuPhases; ///< ptx segments run on the GPU
  sim::RunStats stats;                ///< NPU segments only
};

struct RunReport {
  sim::BackendKind backend = sim::BackendKind::Functional;
  /// Summed over NPU segments, layers of all segments; totalCycles and the
  /// host action counts include the host segments.
  sim::RunStats total;
  uint64_t hostCycles = 0; ///< host segments' share of total.totalCycles
  std::vector<SegmentReport> segments;
  double wallSeconds = 0;
  std::optional<sim::Fault> fault;
  std::string faultSegment;
};

/// Records NPU segment `index` of `program`, which produced `result` after
/// `cycles` NPU cycles of the run: its layers (shifted onto the run's cycle
/// axis) and statistics go into `segment` and `report.total`, and `cycles`
/// advances by the segment's. Faults are the caller's to report.
/// Records host segment `index` that ran: its bytes, operations and time
/// (isa::hostTiming) go into `segment` and `report`, and `cycles` advances
/// by that time.
void recordHostSegment(RunReport &report, SegmentReport &segment,
                       const isa::Program &program, size_t index,
                       uint64_t &cycles);
void recordNpuSegment(RunReport &report, SegmentReport &segment,
                      sim::RunResult &result, const isa::Program &program,
                      size_t index, uint64_t &cycles);

struct SessionOptions {
  sim::BackendKind backend = sim::BackendKind::Cycle;
  sim::RunOptions sim; ///< max cycles, progress callback
};

class Session {
public:
  Session(const Model &model, SessionOptions options = {});
  /// Binds input `name`; the dtype and shape must match the binary exactly.
  llvm::Error setInput(llvm::StringRef name, const HostTensor &value);
  /// Runs every segment in order. A fault returns an error naming the segment
  /// and the fault; report() is still valid (statistics up to the fault).
  llvm::Error run();
  llvm::Expected<HostTensor> output(llvm::StringRef name) const;
  /// Any tensor of the binary as it is in DRAM after the run (intermediates
  /// may have been overwritten by later tensors sharing their buffer; compile
  /// with --no-dram-reuse to keep them all).
  llvm::Expected<HostTensor> tensor(const isa::TensorDesc &desc) const;
  const RunReport &report() const { return rep; }
  const Model &model() const { return m; }

private:
  const Model &m;
  SessionOptions opts;
  std::map<std::string, HostTensor> bound;
  std::vector<uint8_t> dramAfterRun;
  bool ran = false;
  RunReport rep;
};

} // namespace systole::rt

#endif
