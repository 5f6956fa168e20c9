//===- SweepPoint.cpp - Compile, simulate and analyze one sweep point -----===//
//
// The compiler runs as a `systole compile` child process: the runtime does
// not link the compiler, a compile failure (a config too small for the
// model) cannot take the worker down, and its diagnostics land in the
// point's log.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>

using namespace systole;
using namespace systole::rt;
using Clock = std::chrono::steady_clock;

static double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// The first diagnostic of a log (the compiler's reason), else its last
/// line.
static std::string compileError(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return "";
  llvm::StringRef text = (*buf)->getBuffer().rtrim();
  size_t at = text.find("error: ");
  if (at == llvm::StringRef::npos)
    return text.substr(text.rfind('\n') + 1).str();
  return text.substr(at).split('\n').first.str();
}

static llvm::Error writeAtomically(llvm::StringRef path,
                                   const llvm::json::Value &v) {
  std::string tmp = (path + ".tmp").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec)
      return llvm::createStringError(ec, "cannot write %s", tmp.c_str());
    os << llvm::formatv("{0:2}", v) << "\n";
  }
  if (auto ec = llvm::sys::fs::rename(tmp, path))
    return llvm::createStringError(ec, "cannot write %s", path.str().c_str());
  return llvm::Error::success();
}

llvm::Error rt::runSweepPoint(const SweepDir &dir, const SweepSpec &spec,
                              size_t index, llvm::StringRef systoleExe) {
  PointResult r;
  r.point = sweepPoint(spec, index);
  auto cfg = sweepPointConfig(spec, r.point);
  if (!cfg) {
    r.status = "error";
    r.message = llvm::toString(cfg.takeError());
    return writeAtomically(dir.resultPath(index), pointResultToJson(r));
  }
  r.configName = cfg->name;
  auto area = estimateArea(*cfg, spec.areaTable);
  if (!area)
    return area.takeError();
  r.areaMm2 = area->totalMm2;
  r.areaSource = area->source;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(dir.configPath(index), ec);
    if (ec)
      return llvm::createStringError(ec, "cannot write %s",
                                     dir.configPath(index).c_str());
    os << isa::hwConfigToJsonText(*cfg) << "\n";
  }

  auto t0 = Clock::now();
  std::string npu = dir.binaryPath(index), hw = dir.configPath(index),
              log = dir.logPath(index);
  std::vector<llvm::StringRef> args = {systoleExe, "compile", spec.model, "-o",
                                       npu,        "--hw",    hw,         "-q"};
  for (const std::string &a : spec.compileArgs)
    args.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(log), llvm::StringRef(log)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(systoleExe, args, std::nullopt, redirects,
                                     0, 0, &execError);
  r.compileSeconds = secondsSince(t0);
  if (rc != 0) {
    r.status = rc < 0 ? "error" : "infeasible";
    r.message = rc < 0 ? execError : compileError(log);
    llvm::sys::fs::remove(npu);
    return writeAtomically(dir.resultPath(index), pointResultToJson(r));
  }

  auto t1 = Clock::now();
  auto model = Model::loadFile(npu);
  if (!model) {
    r.status = "error";
    r.message = llvm::toString(model.takeError());
  } else {
    auto mode = analysisModeByName(spec.mode);
    auto a = runAndAnalyze(**model, mode ? *mode : AnalysisMode::Estimate, {},
                           llvm::sys::path::filename(spec.model));
    if (!a) {
      r.status = "error";
      r.message = llvm::toString(a.takeError());
    } else {
      r.status = "ok";
      r.cycles = a->totalCycles;
      r.timeUs = a->timeUs();
      r.macs = a->actions.macs;
      r.macUtilization =
          a->totalCycles
              ? double(a->actions.macs) /
                    double(a->totalCycles * cfg->array.rows * cfg->array.cols)
              : 0;
      r.dramBytes = a->actions.dramReadBytes + a->actions.dramWriteBytes;
      r.boundCycles = a->roof.boundCycles;
      r.energyPj = a->energy.total();
      r.energyComputePj = a->energy.array + a->energy.vector;
      r.energySramPj = a->energy.scratchpad + a->energy.accumulator;
      r.energyDramPj = a->energy.dram;
    }
  }
  r.simulateSeconds = secondsSince(t1);
  llvm::sys::fs::remove(npu); // tens of MB per point; the config is kept
  return writeAtomically(dir.resultPath(index), pointResultToJson(r));
}
