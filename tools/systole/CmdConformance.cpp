//===- CmdConformance.cpp - `systole conformance`: ONNX node tests --------===//
//
// Runs the ONNX backend node tests (Debian's libonnx-testdata: model.onnx +
// test_data_set_*/input_*.pb, output_*.pb) through import, compile and
// simulation, and reports per test: unsupported (with the reason), pass, or
// fail. Node tests feed weights and quantization parameters as graph inputs;
// since each data set fixes them, every input but the first is frozen into an
// initializer before compiling, as a deployment would.
//
//===----------------------------------------------------------------------===//
#include "Subcommands.h"

#include "systole/Frontend/OnnxImporter.h"
#include "systole/Frontend/OnnxModel.h"
#include "systole/ISA/Program.h"
#include "systole/Runtime/Runtime.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Emit.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <cstring>

namespace cl = llvm::cl;
using namespace systole;

namespace {

struct Outcome {
  enum Kind { Unsupported, Pass, Fail } kind;
  std::string detail;
};

/// Every op of the model must have an importer.
std::string unsupportedOps(const onnx::ModelProto &m) {
  std::string missing;
  for (const auto &n : m.graph().node())
    if (!frontend::isOpImportable(n.domain(), n.op_type()))
      missing += (missing.empty() ? "" : ", ") + n.op_type();
  return missing;
}

bool sameValues(const HostTensor &a, const HostTensor &b, std::string &why) {
  if (a.shape() != b.shape() || a.type() != b.type()) {
    why = "got " + a.describe() + ", expected " + b.describe();
    return false;
  }
  if (a.type() == ElementType::Float32) {
    // ONNX's own backend-test tolerance.
    for (int64_t i = 0; i < a.numElements(); ++i) {
      float x = a.dataAs<float>()[i], y = b.dataAs<float>()[i];
      if (std::fabs(x - y) > 1e-3f + 1e-3f * std::fabs(y)) {
        why = "element " + std::to_string(i) + ": " + std::to_string(x) +
              " vs " + std::to_string(y);
        return false;
      }
    }
    return true;
  }
  if (std::memcmp(a.data(), b.data(), a.byteSize()) != 0) {
    why = "integer outputs differ";
    return false;
  }
  return true;
}

struct TestOptions {
  std::string hw;
  npu::EmitOptions emit; ///< host target (cpu, or gpu with its CPU fallback)
  std::string saveDir;   ///< write each compiled .npu here when not empty
};

Outcome runTest(const std::string &dir, const TestOptions &opts) {
  const std::string &hw = opts.hw;
  auto model = frontend::loadOnnxModel(dir + "/model.onnx");
  if (!model)
    return {Outcome::Unsupported, llvm::toString(model.takeError())};
  std::string missing = unsupportedOps(**model);
  if (!missing.empty())
    return {Outcome::Unsupported, "ops: " + missing};
  std::error_code ec;
  int sets = 0, failed = 0;
  std::string firstFailure;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef set = llvm::sys::path::filename(it->path());
    if (!set.starts_with("test_data_set_"))
      continue;
    ++sets;
    // Freeze inputs 1..n-1 of this data set into initializers.
    onnx::ModelProto frozen = **model;
    auto *graph = frozen.mutable_graph();
    std::vector<HostTensor> inputs;
    for (int i = 0; i < graph->input_size(); ++i) {
      auto t = frontend::loadTensorProtoFile(it->path() + "/input_" +
                                             std::to_string(i) + ".pb");
      if (!t)
        return {Outcome::Fail, llvm::toString(t.takeError())};
      inputs.push_back(std::move(*t));
    }
    for (int i = graph->input_size() - 1; i >= 1; --i) {
      onnx::TensorProto proto;
      std::string path = it->path() + "/input_" + std::to_string(i) + ".pb";
      auto buf = llvm::MemoryBuffer::getFile(path);
      if (!buf || !proto.ParseFromArray((*buf)->getBufferStart(),
                                        (*buf)->getBufferSize()))
        return {Outcome::Fail, "cannot read " + path};
      proto.set_name(graph->input(i).name());
      *graph->add_initializer() = proto;
      graph->mutable_input()->DeleteSubrange(i, 1);
    }
    mlir::MLIRContext context;
    auto module =
        frontend::importOnnxModel(frozen, dir + "/model.onnx", context);
    if (!module)
      return {Outcome::Unsupported, llvm::toString(module.takeError())};
    mlir::PassManager pm(&context);
    npu::PipelineOptions options;
    options.hw = hw;
    npu::populateSystolePipeline(pm, options);
    std::string diag;
    {
      mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
        if (diag.empty())
          diag = d.str();
        return mlir::success();
      });
      if (mlir::failed(pm.run(**module)))
        return {Outcome::Unsupported, "compile: " + diag};
    }
    auto config = npu::resolveHwConfig(hw);
    if (!config)
      return {Outcome::Fail, llvm::toString(config.takeError())};
    auto func = (*module)->lookupSymbol<mlir::func::FuncOp>("main");
    auto program = npu::emitProgram(func, *config, nullptr, opts.emit);
    if (!program)
      return {Outcome::Unsupported, llvm::toString(program.takeError())};
    if (!opts.saveDir.empty())
      if (auto e = isa::writeProgramFile(
              *program, opts.saveDir + "/" +
                            llvm::sys::path::filename(dir).str() + "." +
                            set.str() + ".npu"))
        return {Outcome::Fail, llvm::toString(std::move(e))};
    auto loaded = rt::Model::loadBytes(isa::writeProgram(*program));
    if (!loaded)
      return {Outcome::Fail, llvm::toString(loaded.takeError())};
    rt::SessionOptions so;
    so.backend = sim::BackendKind::Functional;
    rt::Session session(**loaded, so);
    if (auto e = session.setInput(graph->input(0).name(), inputs[0]))
      return {Outcome::Fail, llvm::toString(std::move(e))};
    if (auto e = session.run())
      return {Outcome::Fail, llvm::toString(std::move(e))};
    for (int o = 0; o < graph->output_size(); ++o) {
      auto want = frontend::loadTensorProtoFile(it->path() + "/output_" +
                                                std::to_string(o) + ".pb");
      auto got = session.output(graph->output(o).name());
      if (!want || !got) {
        if (!want)
          llvm::consumeError(want.takeError());
        if (!got)
          llvm::consumeError(got.takeError());
        ++failed;
        firstFailure = "missing output " + graph->output(o).name();
        continue;
      }
      std::string why;
      if (!sameValues(*got, *want, why)) {
        ++failed;
        if (firstFailure.empty())
          firstFailure = set.str() + ": " + why;
      }
    }
  }
  if (!sets)
    return {Outcome::Fail, "no test_data_set_* folders"};
  if (failed)
    return {Outcome::Fail, firstFailure};
  return {Outcome::Pass, std::to_string(sets) + " data set(s)"};
}

int runConformance(int argc, char **argv) {
  cl::OptionCategory cat("systole conformance");
  cl::opt<std::string> dataDir(
      "data", cl::desc("node test folder"),
      cl::init("/usr/share/libonnx-testdata/data/node"), cl::cat(cat));
  cl::opt<std::string> filter("filter", cl::desc("regex over test names"),
                              cl::init(".*"), cl::cat(cat));
  cl::opt<std::string> hw("hw", cl::desc("hardware config or preset"),
                          cl::init("default-32x32"), cl::cat(cat));
  cl::opt<bool> failOnFail("strict",
                           cl::desc("exit non-zero if a supported test fails"),
                           cl::cat(cat));
  cl::opt<std::string> hostTarget(
      "host-target",
      cl::desc("compiled host code: cpu, or gpu (PTX beside the CPU code; "
               "the run uses a GPU if present, else the CPU code), or "
               "gpu-emulation (the GPU form run on the CPU)"),
      cl::init("cpu"), cl::cat(cat));
  cl::opt<std::string> gpuArch("gpu-arch",
                               cl::desc("PTX target for --host-target gpu"),
                               cl::init("sm_75"), cl::cat(cat));
  cl::opt<std::string> saveDir(
      "save-npu",
      cl::desc("write every compiled binary to this folder "
               "(<test>.<data set>.npu)"),
      cl::value_desc("dir"), cl::cat(cat));
  cl::HideUnrelatedOptions(cat);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "Run the ONNX node tests through the "
                                   "toolchain\n",
                                   &llvm::errs()))
    return 2;
  llvm::Regex re(filter);
  std::string reError;
  if (!re.isValid(reError)) {
    llvm::errs() << "error: --filter: " << reError << "\n";
    return 2;
  }
  if (hostTarget != "cpu" && hostTarget != "gpu" &&
      hostTarget != "gpu-emulation") {
    llvm::errs() << "error: --host-target must be cpu, gpu or gpu-emulation\n";
    return 2;
  }
  TestOptions opts;
  opts.hw = hw;
  opts.emit.hostGpu = hostTarget == "gpu";
  opts.emit.hostGpuEmulation = hostTarget == "gpu-emulation";
  opts.emit.gpuArch = gpuArch;
  opts.saveDir = saveDir;
  if (!saveDir.empty())
    if (std::error_code e = llvm::sys::fs::create_directories(saveDir)) {
      llvm::errs() << "error: --save-npu " << saveDir << ": " << e.message()
                   << "\n";
      return 1;
    }
  std::vector<std::string> tests;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dataDir, ec), end; it != end && !ec;
       it.increment(ec)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    if (re.match(name))
      tests.push_back(name);
  }
  if (ec) {
    llvm::errs() << "error: " << dataDir << ": " << ec.message()
                 << " (install the Debian package libonnx-testdata)\n";
    return 1;
  }
  std::sort(tests.begin(), tests.end());
  int pass = 0, fail = 0, unsupported = 0;
  for (const std::string &t : tests) {
    Outcome o = runTest(dataDir + "/" + t, opts);
    const char *tag = o.kind == Outcome::Pass   ? "PASS"
                      : o.kind == Outcome::Fail ? "FAIL"
                                                : "UNSUPPORTED";
    (o.kind == Outcome::Pass   ? pass
     : o.kind == Outcome::Fail ? fail
                               : unsupported)++;
    std::string detail = o.detail.substr(0, 160);
    std::replace(detail.begin(), detail.end(), '\n', ' ');
    llvm::outs() << llvm::formatv("{0,-12} {1,-52} {2}\n", tag, t, detail);
  }
  llvm::outs() << "conformance: " << pass << " passed, " << fail << " failed, "
               << unsupported << " unsupported of " << tests.size() << "\n";
  return failOnFail && fail ? 1 : 0;
}

} // namespace

static cli::SubcommandRegistration
    reg("conformance", "run the ONNX node tests through compile + simulate",
        runConformance);
