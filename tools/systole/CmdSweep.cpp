//===- CmdSweep.cpp - `systole sweep`: hardware design-space sweeps -------===//
//
// Thin driver over systole/Runtime/Sweep.h. `--point I` is the worker that
// both executors start (one process per point).
//
//===----------------------------------------------------------------------===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <thread>

using namespace systole;

static int fail(const llvm::Twine &msg, int code = 1) {
  llvm::errs() << "systole sweep: " << msg << "\n";
  return code;
}

namespace {
/// A one-line progress bar on a terminal, a line per 10% otherwise.
class ProgressBar {
public:
  explicit ProgressBar(bool quiet)
      : quiet(quiet), tty(llvm::sys::Process::StandardErrIsDisplayed()),
        start(std::chrono::steady_clock::now()) {}
  void operator()(size_t done, size_t total) {
    if (quiet || !total)
      return;
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double rate = s > 0 ? done / s : 0;
    const int width = 30;
    int filled = int(width * done / total);
    std::string bar(filled, '=');
    bar += std::string(width - filled, ' ');
    std::string line = llvm::formatv(
        "[{0}] {1}/{2} points, {3:f1} s, {4:f2} points/s{5}", bar, done, total,
        s, rate,
        rate > 0 && done < total
            ? llvm::formatv(", ETA {0:f0} s", (total - done) / rate).str()
            : std::string());
    if (tty) {
      llvm::errs() << "\r" << line << (done == total ? "\n" : "");
    } else if (done == total || done * 10 / total != lastDecile) {
      lastDecile = done * 10 / total;
      llvm::errs() << line << "\n";
    }
    llvm::errs().flush();
  }

private:
  bool quiet, tty;
  size_t lastDecile = 0;
  std::chrono::steady_clock::time_point start;
};
} // namespace

static int runSweep(int argc, char **argv) {
  std::string model, arrays, srams, bws, out,
      hw = "default-32x32", mode = "estimate", executor = "local", areaTable,
      point;
  std::vector<std::string> compileArgs;
  rt::SlurmOptions slurm;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool quiet = false;
  std::string jobsArg = std::to_string(jobs);
  cli::FlagParser flags(
      "systole sweep",
      "Compiles and simulates every point of array x scratchpad x DRAM "
      "bandwidth, -j points at a time or as one Slurm job array. Each axis "
      "is optional: one not given is the base config's value (--hw), a "
      "single point on that axis. Other fields come from --hw "
      "(docs/sweep.md). Finished points are kept in DIR/points, so running "
      "the same command again resumes. Writes DIR/sweep.csv and "
      "DIR/sweep.html (Pareto front of latency, energy, area).");
  flags.value({"--model"}, model, "M.onnx", "the model (required)")
      .value({"--array"}, arrays, "RxC,...",
             "array sizes, e.g. 8x8,16x16 (default: the base's)")
      .value({"--sram"}, srams, "SIZE,...",
             "scratchpad sizes, e.g. 256K,1M (default: the base's)")
      .value({"--dram-bw"}, bws, "N,...",
             "DRAM bytes per cycle, e.g. 8,16 (default: the base's)")
      .value({"--out"}, out, "DIR", "results, and the resume state")
      .required()
      .value({"--hw"}, hw, "BASE",
             "base config file or preset (default: default-32x32)")
      .value({"--mode"}, mode, "estimate|cycle",
             "timing-only event model or SystemC (default: estimate)")
      .value({"-j", "--jobs"}, jobsArg, "N",
             "local points at a time (default: all cores)")
      .value({"--executor"}, executor, "local|slurm",
             "run points here or as a Slurm job array (default: local)")
      .value({"--slurm-partition"}, slurm.partition, "P",
             "Slurm partition (default: the cluster's)")
      .number({"--slurm-max-running"}, slurm.maxConcurrent, "N",
              "Slurm tasks at a time (default: no limit)")
      .append({"--compile-arg"}, compileArgs, "ARG",
              "extra `systole compile` option (repeatable)")
      .value({"--area-table"}, areaTable, "FILE",
             "Yosys area table (default: one found in the tree, else the "
             "area model)")
      .value({"--point"}, point, "I",
             "worker: run point I of the sweep in DIR (started by the "
             "executors)")
      .flag({"--quiet", "-q"}, quiet, "no progress or summary");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  if (llvm::StringRef(jobsArg).getAsInteger(10, jobs) || !jobs)
    return flags.usageError("-j: '" + jobsArg + "' is not a positive number");
  std::string exe =
      llvm::sys::fs::getMainExecutable(argv[0], (void *)&runSweep);
  llvm::SmallString<256> absOut(out);
  llvm::sys::fs::make_absolute(absOut);
  rt::SweepDir dir{std::string(absOut)};

  if (!point.empty()) { // worker
    size_t index;
    if (llvm::StringRef(point).getAsInteger(10, index))
      return flags.usageError("--point: '" + point + "' is not a number");
    auto spec = rt::loadSweepSpec(dir);
    if (!spec)
      return fail(llvm::toString(spec.takeError()));
    if (index >= spec->size())
      return flags.usageError(llvm::formatv(
          "--point {0}: the sweep has {1} points", index, spec->size()));
    if (auto e = rt::runSweepPoint(dir, *spec, index, exe))
      return fail(llvm::toString(std::move(e)));
    return 0;
  }

  if (model.empty())
    return flags.missing("--model");
  if (mode != "estimate" && mode != "cycle")
    return flags.usageError("--mode: '" + mode +
                            "' is not one of estimate, cycle");
  if (executor != "local" && executor != "slurm")
    return flags.usageError("--executor: '" + executor +
                            "' is not one of local, slurm");
  rt::SweepSpec spec;
  llvm::SmallString<256> absModel(model);
  llvm::sys::fs::make_absolute(absModel);
  if (!llvm::sys::fs::exists(absModel))
    return fail("--model: no such file '" + model + "'");
  spec.model = std::string(absModel);
  spec.mode = mode;
  spec.compileArgs = compileArgs;
  auto base = cli::loadHwConfigArg(hw);
  if (!base)
    return fail(llvm::toString(base.takeError()));
  spec.base = *base;
  // An axis not given is the base's value: one point on that axis.
  spec.arrays = {{base->array.rows, base->array.cols}};
  spec.scratchpadBytes = {base->sram.scratchpadBytes};
  spec.dramBytesPerCycle = {base->dram.bytesPerCycle};
  if (!arrays.empty()) {
    auto a = rt::parseArrayList(arrays);
    if (!a)
      return flags.usageError("--array: " + llvm::toString(a.takeError()));
    spec.arrays = *a;
  }
  if (!srams.empty()) {
    auto s = rt::parseSizeList(srams);
    if (!s)
      return flags.usageError("--sram: " + llvm::toString(s.takeError()));
    spec.scratchpadBytes = *s;
  }
  if (!bws.empty()) {
    auto b = rt::parseSizeList(bws);
    if (!b)
      return flags.usageError("--dram-bw: " + llvm::toString(b.takeError()));
    spec.dramBytesPerCycle = *b;
  }
  if (areaTable.empty())
    areaTable = rt::findYosysAreaTable(SYSTOLE_SOURCE_DIR);
  if (!areaTable.empty()) {
    llvm::SmallString<256> p(areaTable);
    llvm::sys::fs::make_absolute(p);
    spec.areaTable = std::string(p);
  }
  // Every point's config must be valid before anything runs.
  for (size_t i = 0; i < spec.size(); ++i)
    if (auto cfg = rt::sweepPointConfig(spec, rt::sweepPoint(spec, i)); !cfg)
      return flags.usageError(llvm::toString(cfg.takeError()));
  if (auto e = rt::prepareSweepDir(dir, spec))
    return fail(llvm::toString(std::move(e)));

  auto t0 = std::chrono::steady_clock::now();
  std::vector<size_t> pending = rt::pendingPoints(dir, spec);
  if (!quiet)
    llvm::errs() << llvm::formatv(
        "systole sweep: {0} points, {1} to run ({2} already done), {3}\n",
        spec.size(), pending.size(), spec.size() - pending.size(),
        executor == "local" ? llvm::formatv("{0} local jobs", jobs).str()
                            : std::string("Slurm job array"));
  llvm::Error err = llvm::Error::success();
  if (executor == "local") {
    ProgressBar bar(quiet);
    err = rt::runLocalExecutor(
        dir, pending, exe, jobs,
        [&](size_t done, size_t total) { bar(done, total); });
  } else {
    err = rt::runSlurmExecutor(dir, pending, exe, slurm);
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  auto results = rt::gatherSweep(dir, spec);
  if (!results)
    return fail(llvm::toString(results.takeError()));
  if (err)
    return fail(llvm::toString(std::move(err)));
  size_t ok = 0, pareto = 0;
  for (const rt::PointResult &r : *results) {
    ok += r.status == "ok";
    pareto += r.pareto;
  }
  if (results->size() != spec.size())
    return fail(llvm::formatv("only {0} of {1} points have results",
                              results->size(), spec.size()));
  if (!quiet)
    llvm::outs() << llvm::formatv(
        "{0} points ({1} mapped, {2} on the Pareto front); ran {3} in {4:f1} "
        "s ({5:f2} points/s)\n  {6}\n  {7}\n",
        spec.size(), ok, pareto, pending.size(), seconds,
        seconds > 0 ? pending.size() / seconds : 0.0, dir.csvPath(),
        dir.htmlPath());
  return 0;
}

static cli::SubcommandRegistration
    reg("sweep",
        "hardware co-design sweep (array, SRAM, bandwidth): CSV and Pareto "
        "page",
        runSweep);
