//===- Api.cpp - The Python module's calls into the libraries -------------===//
//
// Each function here is what the matching `systole` subcommand does between
// parsing its flags and printing, over the same library calls; results cross
// to Python as JSON text (turned into dicts there) and HostTensors.
//
//===----------------------------------------------------------------------===//
#include "Api.h"

#include "systole/Driver/CompileDriver.h"
#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Presets.h"
#include "systole/ISA/Program.h"
#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/Report.h"
#include "systole/Runtime/Runtime.h"
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <stdexcept>

using namespace systole;
using namespace systole::pyapi;
namespace json = llvm::json;

[[noreturn]] static void raise(const llvm::Twine &msg) {
  throw std::runtime_error(msg.str());
}

template <typename T> static T unwrap(llvm::Expected<T> value) {
  if (!value)
    raise(llvm::toString(value.takeError()));
  return std::move(*value);
}

static void check(llvm::Error err) {
  if (err)
    raise(llvm::toString(std::move(err)));
}

static std::string text(const json::Value &v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << v;
  return s;
}

/// A config given as JSON is validated and written to a temporary file,
/// because the pipeline takes a config by name or path (--hw).
namespace {
class HwArg {
public:
  HwArg(const std::string &nameOrPath, const std::string &jsonText) {
    if (jsonText.empty()) {
      arg = nameOrPath;
      return;
    }
    isa::HwConfig cfg = unwrap(isa::parseHwConfig(jsonText));
    llvm::SmallString<128> path;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("systole-hw", "json", path))
      raise("cannot create a temporary hardware config: " + ec.message());
    remover.setFile(path);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      raise("cannot write " + path + ": " + ec.message());
    os << isa::hwConfigToJsonText(cfg);
    arg = std::string(path);
  }
  std::string arg;

private:
  llvm::FileRemover remover;
};
} // namespace

struct Program::Impl {
  std::unique_ptr<rt::Model> model;
  std::string name; ///< model file name, for report titles
  std::string report = "null";
  double seconds = 0;
};

Program::Program(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Program::~Program() = default;

std::shared_ptr<Program> Program::compile(const CompileArgs &args) {
  if (args.hostTarget != "cpu" && args.hostTarget != "gpu" &&
      args.hostTarget != "gpu-emulation")
    raise("host_target must be cpu, gpu or gpu-emulation, not '" +
          args.hostTarget + "'");
  HwArg hw(args.hw, args.hwJson);
  driver::CompileOptions options;
  options.hw = hw.arg;
  options.inputShapes = args.inputShapes;
  options.reuseDram = args.reuseDram;
  options.emit.hostGpu = args.hostTarget == "gpu";
  options.emit.hostGpuEmulation = args.hostTarget == "gpu-emulation";
  options.emit.gpuArch = args.gpuArch;
  options.printDiagnostics = false;
  driver::CompileResult compiled =
      unwrap(driver::compileOnnxFile(args.model, options));
  // Verified and checked against the limits exactly as a saved one would be.
  auto impl = std::make_unique<Impl>();
  impl->model = unwrap(rt::Model::fromProgram(compiled.program));
  impl->name = llvm::sys::path::filename(args.model).str();
  json::Value report = driver::compileReportToJson(
      compiled.layers, compiled.config, &compiled.program.placement);
  rt::addCompileBound(compiled.program, *report.getAsObject());
  json::Array notes;
  for (const std::string &n : compiled.notes)
    notes.push_back(n);
  report.getAsObject()->insert({"notes", std::move(notes)});
  impl->report = text(report);
  impl->seconds = compiled.seconds;
  return std::shared_ptr<Program>(new Program(std::move(impl)));
}

std::shared_ptr<Program> Program::load(const std::string &path) {
  auto impl = std::make_unique<Impl>();
  impl->model = unwrap(rt::Model::loadFile(path));
  impl->name = llvm::sys::path::filename(path).str();
  return std::shared_ptr<Program>(new Program(std::move(impl)));
}

std::shared_ptr<Program> Program::fromBytes(const std::string &bytes) {
  auto impl = std::make_unique<Impl>();
  impl->model = unwrap(rt::Model::loadBytes(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size())));
  impl->name = "program.npu";
  return std::shared_ptr<Program>(new Program(std::move(impl)));
}

void Program::save(const std::string &path) const {
  check(isa::writeProgramFile(impl->model->program(), path));
}

std::string Program::bytes() const {
  std::vector<uint8_t> b = isa::writeProgram(impl->model->program());
  return std::string(b.begin(), b.end());
}

std::string Program::reportJson() const { return impl->report; }
double Program::compileSeconds() const { return impl->seconds; }

std::string Program::hwJson() const {
  return isa::hwConfigToJsonText(impl->model->config());
}

static json::Value tensorJson(const isa::TensorDesc &d) {
  json::Object o{{"name", d.name},
                 {"kind", isa::tensorKindName(d.kind)},
                 {"dtype", isa::dtypeName(d.dtype)},
                 {"shape", json::Array(d.shape)},
                 {"dram_offset", int64_t(d.dramOffset)},
                 {"size_bytes", int64_t(d.sizeBytes)}};
  if (d.quant) {
    json::Array scales, zps;
    for (float s : d.quant->scales)
      scales.push_back(double(s));
    for (int32_t z : d.quant->zeroPoints)
      zps.push_back(int64_t(z));
    o["quant"] = json::Object{{"scales", std::move(scales)},
                              {"zero_points", std::move(zps)},
                              {"axis", int64_t(d.quant->axis)}};
  } else {
    o["quant"] = nullptr;
  }
  return o;
}

std::string Program::tensorsJson(const std::string &which) const {
  json::Array out;
  for (const isa::TensorDesc &d : impl->model->program().tensors) {
    bool wanted = which == "all" ||
                  (which == "inputs" && d.kind == isa::TensorKind::Input) ||
                  (which == "outputs" && d.kind == isa::TensorKind::Output);
    if (wanted)
      out.push_back(tensorJson(d));
  }
  // Inputs and outputs in the model's order (the runtime's), not the table's.
  if (which == "inputs" || which == "outputs") {
    const auto &infos =
        which == "inputs" ? impl->model->inputs() : impl->model->outputs();
    json::Array ordered;
    for (const rt::TensorInfo &info : infos)
      for (const json::Value &v : out)
        if (v.getAsObject()->getString("name") == info.name)
          ordered.push_back(v);
    return text(json::Value(std::move(ordered)));
  }
  return text(json::Value(std::move(out)));
}

std::string Program::layersJson() const {
  json::Array out;
  const isa::Program &p = impl->model->program();
  for (const isa::LayerDebugInfo &l : p.layers)
    out.push_back(json::Object{
        {"name", l.name},
        {"segment", int64_t(l.segment)},
        {"segment_name",
         l.segment < p.segments.size() ? p.segments[l.segment].name : ""},
        {"first_instruction", int64_t(l.firstInstruction)},
        {"instruction_count", int64_t(l.instructionCount)}});
  return text(json::Value(std::move(out)));
}

RunOutput Program::run(const RunArgs &args) const {
  const rt::Model &m = *impl->model;
  auto backend = sim::backendByName(args.backend);
  if (!backend)
    raise("backend '" + args.backend +
          "' is not one of functional, cycle, rtl");
  if (*backend == sim::BackendKind::Rtl)
    check(sim::rtlSupports(m.config()));
  rt::SessionOptions opts;
  opts.backend = *backend;
  opts.sim.maxCycles = args.maxCycles;
  rt::Session session(m, opts);
  for (const auto &[name, value] : args.inputs)
    if (auto e = session.setInput(name, value))
      raise(llvm::toString(std::move(e)));
  for (const rt::TensorInfo &in : m.inputs())
    if (!args.inputs.count(in.name))
      raise("input '" + in.name + "' (" + in.describe() + ") is not given");
  check(session.run());
  RunOutput out;
  for (const rt::TensorInfo &o : m.outputs())
    out.outputs[o.name] = unwrap(session.output(o.name));
  if (args.dumpTensors)
    for (const isa::TensorDesc &d : m.program().tensors)
      if (d.kind != isa::TensorKind::Constant &&
          d.kind != isa::TensorKind::Transient)
        out.tensors[d.name] = unwrap(session.tensor(d));
  const rt::RunReport &rep = session.report();
  out.statsJson = text(rt::reportToJson(rep, m));
  out.analysisJson = text(rt::analysisToJson(
      rt::analyzeRun(rep, m, impl->name, sim::backendName(*backend))));
  return out;
}

std::string
Program::analyze(const std::string &mode,
                 const std::map<std::string, HostTensor> &inputs) const {
  auto kind = rt::analysisModeByName(mode);
  if (!kind)
    raise("mode '" + mode + "' is not one of estimate, cycle, functional");
  return text(rt::analysisToJson(
      unwrap(rt::runAndAnalyze(*impl->model, *kind, inputs, impl->name))));
}

std::vector<std::pair<std::string, std::string>> pyapi::presets() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const isa::PresetEntry &p :
       unwrap(isa::listPresets(isa::presetDirectory())))
    out.emplace_back(
        p.stem, isa::hwConfigToJsonText(unwrap(isa::loadHwConfigFile(p.path))));
  return out;
}

std::string pyapi::parseHwConfig(const std::string &jsonText) {
  return isa::hwConfigToJsonText(unwrap(isa::parseHwConfig(jsonText)));
}

std::string pyapi::resolveHwConfig(const std::string &nameOrPath) {
  return isa::hwConfigToJsonText(unwrap(isa::resolveHwConfig(nameOrPath)));
}

/// The sweep workers are `systole sweep --point I` processes (the library's
/// executors isolate each point's compile and simulation in a process).
static std::string systoleExecutable() {
  if (const char *env = std::getenv("SYSTOLE_EXE"))
    return env;
  return SYSTOLE_EXE_PATH;
}

std::string pyapi::sweep(const SweepArgs &args) {
  rt::SweepSpec spec;
  llvm::SmallString<256> model(args.model);
  llvm::sys::fs::make_absolute(model);
  if (!llvm::sys::fs::exists(model))
    raise("model: no such file '" + args.model + "'");
  spec.model = std::string(model);
  if (args.mode != "estimate" && args.mode != "cycle")
    raise("mode '" + args.mode + "' is not one of estimate, cycle");
  spec.mode = args.mode;
  spec.compileArgs = args.compileArgs;
  spec.base = args.hwJson.empty() ? unwrap(isa::resolveHwConfig(args.hw))
                                  : unwrap(isa::parseHwConfig(args.hwJson));
  auto context = [](const char *what, llvm::Error e) {
    raise(llvm::Twine(what) + ": " + llvm::toString(std::move(e)));
  };
  auto arrays = rt::parseArrayList(args.arrays);
  if (!arrays)
    context("arrays", arrays.takeError());
  auto srams = rt::parseSizeList(args.srams);
  if (!srams)
    context("srams", srams.takeError());
  auto bws = rt::parseSizeList(args.dramBandwidths);
  if (!bws)
    context("dram_bw", bws.takeError());
  spec.arrays = *arrays;
  spec.scratchpadBytes = *srams;
  spec.dramBytesPerCycle = *bws;
  std::string areaTable = args.areaTable.empty()
                              ? rt::findYosysAreaTable(SYSTOLE_SOURCE_DIR)
                              : args.areaTable;
  if (!areaTable.empty()) {
    llvm::SmallString<256> p(areaTable);
    llvm::sys::fs::make_absolute(p);
    spec.areaTable = std::string(p);
  }
  // As `systole sweep`: every point's config is valid before anything runs.
  for (size_t i = 0; i < spec.size(); ++i)
    unwrap(rt::sweepPointConfig(spec, rt::sweepPoint(spec, i)));
  llvm::SmallString<256> out(args.out);
  llvm::sys::fs::make_absolute(out);
  rt::SweepDir dir{std::string(out)};
  check(rt::prepareSweepDir(dir, spec));
  std::vector<size_t> pending = rt::pendingPoints(dir, spec);
  llvm::Error err = rt::runLocalExecutor(dir, pending, systoleExecutable(),
                                         args.jobs, nullptr);
  auto results = rt::gatherSweep(dir, spec);
  if (!results) {
    llvm::consumeError(std::move(err));
    raise(llvm::toString(results.takeError()));
  }
  check(std::move(err));
  if (results->size() != spec.size())
    raise(llvm::formatv("only {0} of {1} points have results", results->size(),
                        spec.size()));
  json::Array rows;
  for (const rt::PointResult &r : *results) {
    json::Value row = rt::pointResultToJson(r);
    row.getAsObject()->insert({"pareto", r.pareto});
    rows.push_back(std::move(row));
  }
  return text(json::Value(std::move(rows)));
}
