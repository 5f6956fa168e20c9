//===- CmdRun.cpp - `systole run`: execute a .npu on a simulator backend --===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "systole/Runtime/Report.h"
#include "systole/Runtime/Runtime.h"
#include "systole/Support/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

using namespace systole;

/// Output names may contain characters that are not file-name safe.
static std::string fileNameFor(llvm::StringRef name) {
  std::string s;
  for (char c : name)
    s += (llvm::isAlnum(c) || c == '.' || c == '-' || c == '_') ? c : '_';
  return s.empty() ? "output" : s;
}

static int runRun(int argc, char **argv) {
  std::string model, outDir, tracePath, reportPath, dumpDir, wavesPath,
      backendName = "cycle";
  std::vector<cli::InputArg> inputs;
  uint64_t maxCycles = 0;
  bool quiet = false, noHostCode = false;
  cli::FlagParser flags(
      "systole run",
      "Verifies MODEL.npu, binds each input from a .npy file (dtype and shape "
      "must match the binary), runs all segments (NPU segments on the "
      "backend) and writes one DIR/<output name>.npy per output. Prints "
      "cycles, time at the configured clock, MAC utilization, DRAM and SRAM "
      "traffic and a per-layer breakdown.");
  flags.positional(model, "MODEL.npu", "more than one model file")
      .required()
      .inputs("--input", inputs, "NAME=FILE.npy",
              "bind an input (repeatable); a model with one input also "
              "accepts --input FILE.npy")
      .value({"--out-dir"}, outDir, "DIR", "write the outputs here")
      .required()
      .value({"--backend"}, backendName, "functional|cycle|rtl",
             "simulator of the NPU segments (default: cycle)")
      .value({"--waves"}, wavesPath, "OUT.fst",
             "waveforms of the RTL (--backend rtl)")
      .value({"--trace"}, tracePath, "TRACE.json",
             "Chrome/Perfetto trace events: queues, units, DRAM channel")
      .value({"--report"}, reportPath, "REPORT.json",
             "the printed figures as JSON (total_cycles, layers, actions, "
             "...)")
      .value({"--dump-tensors"}, dumpDir, "DIR",
             "every stored tensor of the binary as .npy after the run "
             "(not the transient ones, which no segment writes)")
      .number({"--max-cycles"}, maxCycles, "N",
              "stop with a fault after N simulated cycles")
      .flag({"--no-host-code"}, noHostCode,
            "refuse a binary carrying native host code (cpu_object, ptx): "
            "for .npu files you did not compile (docs/security.md)")
      .flag({"--quiet", "-q"}, quiet, "print no report or progress");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  auto backend = sim::backendByName(backendName);
  if (!backend) {
    return flags.usageError("--backend: '" + backendName +
                            "' is not one of functional, cycle, rtl");
  }

  // Native host code is as trusted as a shared library; the default runs it
  // so that host-fallback models work (docs/security.md, "Native host code").
  rt::Limits limits;
  limits.allowNativeHostCode = !noHostCode;
  auto loaded = rt::Model::loadFile(model, limits);
  if (!loaded) {
    llvm::errs() << "systole run: " << llvm::toString(loaded.takeError())
                 << "\n";
    return 1;
  }
  const rt::Model &m = **loaded;
  rt::SessionOptions opts;
  opts.backend = *backend;
  opts.sim.maxCycles = maxCycles;
  opts.sim.wavesPath = wavesPath;
  if (!wavesPath.empty() && *backend != sim::BackendKind::Rtl) {
    return flags.usageError("--waves needs --backend rtl");
  }
  if (*backend == sim::BackendKind::Rtl)
    if (auto e = sim::rtlSupports(m.config())) {
      llvm::errs() << "systole run: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
  if (!quiet)
    opts.sim.progress = [](const sim::Progress &p) {
      llvm::errs() << llvm::formatv(
          "[systole run] {0:f1} s: {1} cycles, {2}/{3} instructions "
          "retired in this segment\n",
          p.wallSeconds, p.cycles, p.instructionsRetired, p.instructionsTotal);
    };
  rt::Session session(m, opts);
  for (auto &[name, file] : inputs) {
    if (name.empty()) {
      if (m.inputs().size() != 1) {
        llvm::errs() << "systole run: --input " << file << ": the model has "
                     << m.inputs().size()
                     << " inputs; use --input NAME=FILE.npy\n";
        return 1;
      }
      name = m.inputs()[0].name;
    }
    auto t = readNpy(file);
    if (!t) {
      llvm::errs() << "systole run: " << llvm::toString(t.takeError()) << "\n";
      return 1;
    }
    if (auto e = session.setInput(name, *t)) {
      llvm::errs() << "systole run: " << file << ": "
                   << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
  }

  llvm::Error runError = session.run();
  int status = 0;
  if (runError) {
    llvm::errs() << "systole run: " << llvm::toString(std::move(runError))
                 << "\n";
    status = 1;
  }
  const rt::RunReport &rep = session.report();
  if (!rep.segments.empty() && !quiet)
    rt::printSummary(rep, m, llvm::outs());
  if (!reportPath.empty() && !rep.segments.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(reportPath, ec);
    if (ec) {
      llvm::errs() << "systole run: --report " << reportPath << ": "
                   << ec.message() << "\n";
      return 1;
    }
    os << llvm::formatv("{0:2}", rt::reportToJson(rep, m)) << "\n";
  }
  if (!tracePath.empty() && !rep.segments.empty())
    if (auto e = rt::writeTrace(rep, m, tracePath)) {
      llvm::errs() << "systole run: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
  if (status)
    return status;

  if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
    llvm::errs() << "systole run: --out-dir " << outDir << ": " << ec.message()
                 << "\n";
    return 1;
  }
  if (!dumpDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir)) {
      llvm::errs() << "systole run: --dump-tensors " << dumpDir << ": "
                   << ec.message() << "\n";
      return 1;
    }
    for (const isa::TensorDesc &d : m.program().tensors) {
      if (d.kind == isa::TensorKind::Transient)
        continue; // never stored: its bytes are not its value
      auto t = session.tensor(d);
      if (!t) {
        llvm::errs() << "systole run: " << llvm::toString(t.takeError())
                     << "\n";
        return 1;
      }
      llvm::SmallString<256> path(dumpDir);
      llvm::sys::path::append(path, fileNameFor(d.name) + ".npy");
      if (auto e = writeNpy(path, *t)) {
        llvm::errs() << "systole run: " << llvm::toString(std::move(e)) << "\n";
        return 1;
      }
    }
  }
  for (const rt::TensorInfo &o : m.outputs()) {
    auto t = session.output(o.name);
    if (!t) {
      llvm::errs() << "systole run: " << llvm::toString(t.takeError()) << "\n";
      return 1;
    }
    llvm::SmallString<256> path(outDir);
    llvm::sys::path::append(path, fileNameFor(o.name) + ".npy");
    if (auto e = writeNpy(path, *t)) {
      llvm::errs() << "systole run: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
    if (!quiet)
      llvm::outs() << "wrote " << path << " (" << t->describe() << ")\n";
  }
  return 0;
}

static cli::SubcommandRegistration
    reg("run", "run a .npu on the functional or cycle-accurate backend",
        runRun);
