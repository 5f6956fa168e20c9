//===- CmdReport.cpp - `systole report`: roofline, energy, cycle charts ---===//
//
// Thin driver over rt::runAndAnalyze and the writers of Analysis.h.
//
//===----------------------------------------------------------------------===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "systole/ISA/PlacementReport.h"
#include "systole/Runtime/Analysis.h"
#include "systole/Support/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>

using namespace systole;

static llvm::Error writeFile(llvm::StringRef path,
                             llvm::function_ref<void(llvm::raw_ostream &)> fn) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write '%s': %s",
                                   path.str().c_str(), ec.message().c_str());
  fn(os);
  return llvm::Error::success();
}

static int runReport(int argc, char **argv) {
  std::string model, jsonPath, csvPath, htmlPath, modeName = "estimate";
  std::vector<cli::InputArg> inputFiles;
  bool quiet = false;
  cli::FlagParser flags(
      "systole report",
      "Runs MODEL.npu and reports per layer and for the model: roofline "
      "(operational intensity, attainable vs achieved ops/cycle, compute or "
      "memory bound), cycles split into compute / DMA / stall, and energy "
      "per component from the config's per-action table (docs/energy.md). "
      "Inputs not given are zeros (timing does not depend on values).");
  flags.positional(model, "MODEL.npu", "more than one model file")
      .required()
      .value({"--mode"}, modeName, "estimate|cycle|functional",
             "estimate: timing only, no values; cycle: the SystemC model "
             "(default: estimate)")
      .inputs("--input", inputFiles, "NAME=FILE.npy",
              "bind an input (repeatable); a model with one input also "
              "accepts --input FILE.npy")
      .value({"--json"}, jsonPath, "FILE", "machine-readable report")
      .value({"--csv"}, csvPath, "FILE", "one row per layer")
      .value({"--html"}, htmlPath, "FILE",
             "self-contained page with SVG charts (roofline, cycles, "
             "energy)")
      .flag({"--quiet", "-q"}, quiet, "print no summary");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  auto mode = rt::analysisModeByName(modeName);
  if (!mode) {
    return flags.usageError("--mode: '" + modeName +
                            "' is not one of estimate, cycle, functional");
  }
  auto loaded = rt::Model::loadFile(model);
  if (!loaded) {
    llvm::errs() << "systole report: " << llvm::toString(loaded.takeError())
                 << "\n";
    return 1;
  }
  const rt::Model &m = **loaded;
  std::map<std::string, HostTensor> inputs;
  for (auto &[name, file] : inputFiles) {
    std::string key = name;
    if (key.empty()) {
      if (m.inputs().size() != 1) {
        return flags.usageError(
            "--input FILE needs NAME=FILE for a model with several inputs");
      }
      key = m.inputs()[0].name;
    }
    auto t = readNpy(file);
    if (!t) {
      llvm::errs() << "systole report: " << file << ": "
                   << llvm::toString(t.takeError()) << "\n";
      return 1;
    }
    inputs[key] = std::move(*t);
  }
  auto analysis =
      rt::runAndAnalyze(m, *mode, inputs, llvm::sys::path::filename(model));
  if (!analysis) {
    llvm::errs() << "systole report: " << llvm::toString(analysis.takeError())
                 << "\n";
    return 1;
  }
  const rt::ModelAnalysis &a = *analysis;
  const std::vector<isa::OpPlacement> &placement = m.program().placement;
  if (!jsonPath.empty())
    if (auto e = writeFile(jsonPath, [&](llvm::raw_ostream &os) {
          llvm::json::Value json = rt::analysisToJson(a);
          if (auto *o = json.getAsObject(); o && !placement.empty())
            (*o)["placement"] = isa::placementToJson(placement);
          os << llvm::formatv("{0:2}", json) << "\n";
        })) {
      llvm::errs() << "systole report: " << llvm::toString(std::move(e))
                   << "\n";
      return 1;
    }
  if (!csvPath.empty())
    if (auto e = writeFile(csvPath, [&](llvm::raw_ostream &os) {
          rt::writeAnalysisCsv(a, os);
        })) {
      llvm::errs() << "systole report: " << llvm::toString(std::move(e))
                   << "\n";
      return 1;
    }
  if (!htmlPath.empty())
    if (auto e = writeFile(htmlPath, [&](llvm::raw_ostream &os) {
          rt::writeAnalysisHtml(a, os);
        })) {
      llvm::errs() << "systole report: " << llvm::toString(std::move(e))
                   << "\n";
      return 1;
    }
  if (!quiet) {
    llvm::outs() << llvm::formatv(
        "{0} on {1} ({2}): {3} cycles ({4:f1} us), roofline bound {5:f0} "
        "cycles ({6}-bound, cycles/bound {7:f2}), energy {8:f1} uJ "
        "(DRAM {9:f0}%), cycles compute/DMA/stall {10}/{11}/{12}\n",
        a.model, a.config.name, a.backend, a.totalCycles, a.timeUs(),
        a.roof.boundCycles, a.roof.computeBound ? "compute" : "memory",
        a.roof.boundCycles > 0 ? double(a.totalCycles) / a.roof.boundCycles
                               : 0.0,
        a.energy.total() / 1e6,
        a.energy.total() > 0 ? 100 * a.energy.dram / a.energy.total() : 0.0,
        a.breakdown.compute, a.breakdown.dma, a.breakdown.stall);
    isa::printPlacement(placement, llvm::outs());
  }
  return 0;
}

static cli::SubcommandRegistration
    reg("report",
        "roofline, cycle breakdown and energy of a .npu (JSON, CSV, HTML)",
        runReport);
