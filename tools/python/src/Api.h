//===- Api.h - What the Python module calls, in plain C++ types -*- C++ -*-===//
//
// The pybind11 module (Module.cpp) needs RTTI; the compiler and runtime
// libraries are built without it like LLVM/MLIR. This header is the seam:
// only std types and HostTensor cross it, and Api.cpp (no RTTI) is the one
// file that calls the libraries, the same functions `systole compile`,
// `run`, `report`, `presets` and `sweep` call. Errors are std::runtime_error
// carrying the library's message; the module turns them into systole.Error.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_PYTHON_API_H
#define SYSTOLE_PYTHON_API_H

#include "systole/Support/HostTensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace systole::pyapi {

struct CompileArgs {
  std::string model;
  /// A preset name or config file; ignored when hwJson is set.
  std::string hw = "default-32x32";
  /// A config given as JSON text (HwConfig objects).
  std::string hwJson;
  std::map<std::string, std::vector<int64_t>> inputShapes;
  bool reuseDram = true;
  std::string hostTarget = "cpu"; ///< cpu, gpu or gpu-emulation
  std::string gpuArch = "sm_75";
};

struct RunArgs {
  std::map<std::string, HostTensor> inputs;
  std::string backend = "cycle"; ///< functional, cycle or rtl
  uint64_t maxCycles = 0;
  /// Also return every non-constant tensor of the binary after the run.
  bool dumpTensors = false;
};

struct RunOutput {
  std::map<std::string, HostTensor> outputs;
  std::map<std::string, HostTensor> tensors; ///< with dumpTensors
  std::string statsJson;    ///< the `systole run --report` JSON
  std::string analysisJson; ///< the `systole report --json` JSON
};

/// A verified .npu, loaded into the runtime, with its compile report when it
/// was compiled in this process.
class Program {
public:
  static std::shared_ptr<Program> compile(const CompileArgs &args);
  static std::shared_ptr<Program> load(const std::string &path);
  static std::shared_ptr<Program> fromBytes(const std::string &bytes);
  ~Program();

  void save(const std::string &path) const;
  std::string bytes() const;
  /// The `systole compile --report` JSON, "null" for a loaded binary.
  std::string reportJson() const;
  /// [{name, kind, dtype, shape, quant, dram_offset, size_bytes}, ...] for
  /// inputs, outputs or every tensor ("all").
  std::string tensorsJson(const std::string &which) const;
  std::string layersJson() const;
  std::string hwJson() const;
  double compileSeconds() const;

  RunOutput run(const RunArgs &args) const;
  /// runAndAnalyze: mode estimate, functional or cycle; missing inputs are
  /// zeros.
  std::string analyze(const std::string &mode,
                      const std::map<std::string, HostTensor> &inputs) const;

private:
  struct Impl;
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Bundled presets: (name, canonical config JSON), sorted by name.
std::vector<std::pair<std::string, std::string>> presets();
/// Parses and validates a config; returns its canonical JSON.
std::string parseHwConfig(const std::string &jsonText);
/// A preset name or file -> canonical JSON.
std::string resolveHwConfig(const std::string &nameOrPath);

struct SweepArgs {
  std::string model;
  std::string hw = "default-32x32";
  std::string hwJson;
  std::string arrays, srams,
      dramBandwidths; ///< "8x8,16x16" / "256K,1M" / "8,16"
  std::string mode = "estimate";
  std::string out; ///< the sweep directory (resumable)
  unsigned jobs = 1;
  std::vector<std::string> compileArgs;
  std::string areaTable;
};
/// Runs the sweep locally (the library's local executor) and returns the
/// gathered rows as a JSON array, one object per point.
std::string sweep(const SweepArgs &args);

} // namespace systole::pyapi

#endif // SYSTOLE_PYTHON_API_H
