//===- Sweep.h - Hardware design-space sweeps -------------------*- C++ -*-===//
//
// A sweep is the cross product of array shapes, scratchpad sizes and DRAM
// bandwidths derived from a base config (docs/sweep.md). Every point is
// compiled and simulated by one worker process (`systole sweep --point I`)
// that writes points/I.json atomically; executors (local process pool or a
// Slurm job array) only decide where workers run, and the gather step turns
// whatever points exist into sweep.csv and sweep.html. So an interrupted
// sweep resumes by running the missing points, and local and Slurm sweeps
// produce the same CSV.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_RUNTIME_SWEEP_H
#define SYSTOLE_RUNTIME_SWEEP_H

#include "systole/ISA/HwConfig.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace systole::rt {

struct SweepSpec {
  std::string model; ///< absolute path of the ONNX model
  std::string mode = "estimate";
  isa::HwConfig base;
  std::vector<std::pair<uint64_t, uint64_t>> arrays; ///< rows x cols
  std::vector<uint64_t> scratchpadBytes;
  std::vector<uint64_t> dramBytesPerCycle;
  std::vector<std::string> compileArgs; ///< extra `systole compile` flags
  std::string areaTable; ///< Yosys area table, "" for the area model

  size_t size() const {
    return arrays.size() * scratchpadBytes.size() * dramBytesPerCycle.size();
  }
};

/// "8x8,16x16" / "256K,1M,524288" / "8,16,32".
llvm::Expected<std::vector<std::pair<uint64_t, uint64_t>>>
parseArrayList(llvm::StringRef text);
llvm::Expected<std::vector<uint64_t>> parseSizeList(llvm::StringRef text);

llvm::json::Value sweepSpecToJson(const SweepSpec &spec);
llvm::Expected<SweepSpec> sweepSpecFromJson(const llvm::json::Value &v);

/// Point i: array = i / (|sram| |bw|), sram = i / |bw| % |sram|, bw = i % |bw|.
struct SweepPoint {
  size_t index = 0;
  uint64_t rows = 0, cols = 0, scratchpadBytes = 0, dramBytesPerCycle = 0;
};
SweepPoint sweepPoint(const SweepSpec &spec, size_t index);
/// The config of a point: the base with the swept fields replaced and the
/// dependent ones derived (docs/sweep.md): vector lanes = cols, accumulator
/// = scratchpad / 2, burst >= bandwidth, SRAM energies by capacity.
llvm::Expected<isa::HwConfig> sweepPointConfig(const SweepSpec &spec,
                                               const SweepPoint &point);

/// Silicon area of a config in mm^2 and where the figure comes from
/// ("model" or the Yosys area table's path).
struct AreaEstimate {
  double totalMm2 = 0, arrayMm2 = 0, sramMm2 = 0, vectorMm2 = 0, otherMm2 = 0;
  std::string source;
};
/// `yosysTable`: a JSON area table from the RTL synthesis (docs/sweep.md);
/// empty to use the documented analytic model.
llvm::Expected<AreaEstimate> estimateArea(const isa::HwConfig &cfg,
                                          llvm::StringRef yosysTable = "");
/// The area table of the RTL synthesis if the tree has one, else "": an area
/// table under the names of docs/sweep.md, else the synthesized PE arrays of
/// rtl/synth/pe_array_area.json (a JSON array, read by estimateArea too).
std::string findYosysAreaTable(llvm::StringRef sourceDir);
/// findYosysAreaTable of the source tree this library was built from: what
/// every command uses unless told otherwise (--area-table).
std::string defaultAreaTable();

/// What a worker writes for one point. status: "ok", "infeasible" (the
/// compiler cannot map the model onto the config) or "error".
struct PointResult {
  SweepPoint point;
  std::string status, message, configName, areaSource;
  uint64_t cycles = 0, macs = 0, dramBytes = 0;
  double timeUs = 0, energyPj = 0, areaMm2 = 0, macUtilization = 0;
  double energyDramPj = 0, energySramPj = 0, energyComputePj = 0;
  double boundCycles = 0;
  double compileSeconds = 0, simulateSeconds = 0; ///< JSON only, not CSV
  bool pareto = false;
};
llvm::json::Value pointResultToJson(const PointResult &r);
llvm::Expected<PointResult> pointResultFromJson(const llvm::json::Value &v);

/// Marks the points on the Pareto front of (time, energy, area), all
/// minimized, among the "ok" points.
void markParetoFront(std::vector<PointResult> &results);
void writeSweepCsv(llvm::ArrayRef<PointResult> results, llvm::raw_ostream &os);
void writeSweepHtml(const SweepSpec &spec, llvm::ArrayRef<PointResult> results,
                    llvm::raw_ostream &os);

/// Directory layout of a sweep.
struct SweepDir {
  std::string root;
  std::string specPath() const { return root + "/sweep.json"; }
  std::string pointsDir() const { return root + "/points"; }
  std::string resultPath(size_t i) const;
  std::string configPath(size_t i) const;
  std::string binaryPath(size_t i) const;
  std::string logPath(size_t i) const;
  std::string csvPath() const { return root + "/sweep.csv"; }
  std::string htmlPath() const { return root + "/sweep.html"; }
};

/// Writes the spec, or checks that an existing sweep.json describes the same
/// sweep (resuming); a different sweep in `dir` is an error.
llvm::Error prepareSweepDir(const SweepDir &dir, const SweepSpec &spec);
llvm::Expected<SweepSpec> loadSweepSpec(const SweepDir &dir);
/// Indices whose result file does not exist yet.
std::vector<size_t> pendingPoints(const SweepDir &dir, const SweepSpec &spec);

/// The worker: compile (by running `systoleExe compile`), simulate in the
/// spec's mode, analyze, write the result file. An infeasible point is a
/// result, not an error; errors are I/O problems.
llvm::Error runSweepPoint(const SweepDir &dir, const SweepSpec &spec,
                          size_t index, llvm::StringRef systoleExe);

/// Reads every existing result, marks the Pareto front, writes CSV and HTML.
llvm::Expected<std::vector<PointResult>> gatherSweep(const SweepDir &dir,
                                                     const SweepSpec &spec);

/// Progress of an executor: finished points so far, of `total`.
using SweepProgress = std::function<void(size_t done, size_t total)>;

/// Runs `points` as `systoleExe sweep --out DIR --point I` processes, at
/// most `jobs` at a time. Failed workers are reported after all finished.
llvm::Error runLocalExecutor(const SweepDir &dir, llvm::ArrayRef<size_t> points,
                             llvm::StringRef systoleExe, unsigned jobs,
                             const SweepProgress &progress);

struct SlurmOptions {
  std::string partition;        ///< empty: the cluster default
  unsigned maxConcurrent = 0;   ///< the %N of --array (0: no limit)
  std::string timeLimit = "60"; ///< minutes per task
};
/// Submits `points` as one job array (sbatch --wait) and waits for it.
llvm::Error runSlurmExecutor(const SweepDir &dir, llvm::ArrayRef<size_t> points,
                             llvm::StringRef systoleExe,
                             const SlurmOptions &options);

} // namespace systole::rt

#endif // SYSTOLE_RUNTIME_SWEEP_H
