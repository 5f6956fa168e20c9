//===- CmdConformance.cpp - `systole conformance`: ONNX node tests --------===//
//
// Runs the ONNX backend node tests (Debian's libonnx-testdata: model.onnx +
// test_data_set_*/input_*.pb, output_*.pb) through import, compile and
// simulation, and reports per test: unsupported (with the reason), pass, or
// fail. Every graph input is bound at run time, as a user's inputs are; only
// an input an op needs at compile time (a Reshape's shape, a quantization
// scale: the importer says which with a NotConstantError) is frozen into an
// initializer from the data set, as a deployment that knows it would.
//
// A test is UNSUPPORTED only for a reason outside the compiler's claim: an
// op type without a translator, non-tensor (sequence, optional, map) or
// string values, random and training-only ops. A claimed op that fails to
// import, compile or run, or runs and differs, is a FAIL; so is a crash or a
// hang: every test runs in a child process of its own (-j of them at once).
//
//===----------------------------------------------------------------------===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "systole/Driver/CompileDriver.h"
#include "systole/Frontend/OnnxImporter.h"
#include "systole/Frontend/OnnxModel.h"
#include "systole/ISA/Presets.h"
#include "systole/ISA/Program.h"
#include "systole/Runtime/Runtime.h"
#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Emit.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

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
  if (a.type() == ElementType::Float32 || a.type() == ElementType::Float64) {
    // ONNX's own backend-test tolerance; NaN matches NaN.
    for (int64_t i = 0; i < a.numElements(); ++i) {
      double x = a.type() == ElementType::Float32 ? a.dataAs<float>()[i]
                                                  : a.dataAs<double>()[i];
      double y = b.type() == ElementType::Float32 ? b.dataAs<float>()[i]
                                                  : b.dataAs<double>()[i];
      if (std::isnan(x) && std::isnan(y))
        continue;
      if (x == y)
        continue; // also equal infinities
      if (!(std::fabs(x - y) <= 1e-3 + 1e-3 * std::fabs(y))) {
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

/// Why a model is outside what the toolchain claims, or "".
std::string outsideClaim(const onnx::ModelProto &m) {
  auto nonTensor = [](const onnx::ValueInfoProto &v) {
    return !v.type().has_tensor_type() ||
           v.type().tensor_type().elem_type() == onnx::TensorProto::STRING;
  };
  for (const auto &v : m.graph().input())
    if (nonTensor(v))
      return "input '" + v.name() + "' is a sequence, optional, map or string";
  for (const auto &v : m.graph().output())
    if (nonTensor(v))
      return "output '" + v.name() + "' is a sequence, optional, map or string";
  static const char *random[] = {"RandomNormal",  "RandomNormalLike",
                                 "RandomUniform", "RandomUniformLike",
                                 "Bernoulli",     "Multinomial"};
  for (const auto &n : m.graph().node()) {
    if (n.domain() == "ai.onnx.preview.training")
      return "training-only op " + n.op_type();
    for (const char *r : random)
      if (n.op_type() == r)
        return "random op " + n.op_type();
  }
  std::string missing = unsupportedOps(m);
  if (!missing.empty())
    return "ops: " + missing;
  return "";
}

/// ONNX 1.12's test data stores bfloat16 tensors as uint16 (the same 16
/// bits): read them as the bfloat16 the model declares.
HostTensor asDeclared(HostTensor t, const onnx::ValueInfoProto &info) {
  if (t.type() != ElementType::UInt16 ||
      info.type().tensor_type().elem_type() != onnx::TensorProto::BFLOAT16)
    return t;
  HostTensor b(ElementType::BFloat16, t.shape());
  std::memcpy(b.data(), t.data(), t.byteSize());
  return b;
}

/// The graph inputs `value` is computed from (itself if it is one).
std::vector<std::string> graphInputsFeeding(const onnx::ModelProto &model,
                                            const std::string &value) {
  const onnx::GraphProto &g = model.graph();
  std::map<std::string, const onnx::NodeProto *> producer;
  for (const auto &n : g.node())
    for (const auto &o : n.output())
      producer[o] = &n;
  std::set<std::string> inputs, seen;
  for (const auto &i : g.input())
    inputs.insert(i.name());
  std::vector<std::string> work{value}, out;
  while (!work.empty()) {
    std::string v = work.back();
    work.pop_back();
    if (v.empty() || !seen.insert(v).second)
      continue;
    if (inputs.count(v))
      out.push_back(v);
    auto it = producer.find(v);
    if (it != producer.end())
      for (const auto &in : it->second->input())
        work.push_back(in);
  }
  return out;
}

/// Moves graph input `name` of `model` into an initializer holding `value`.
bool freezeInput(onnx::ModelProto &model, const std::string &name,
                 const std::string &file) {
  auto *graph = model.mutable_graph();
  for (int i = 0; i < graph->input_size(); ++i) {
    if (graph->input(i).name() != name)
      continue;
    onnx::TensorProto proto;
    auto buf = llvm::MemoryBuffer::getFile(file);
    if (!buf || !proto.ParseFromArray((*buf)->getBufferStart(),
                                      (*buf)->getBufferSize()))
      return false;
    proto.set_name(name);
    *graph->add_initializer() = proto;
    graph->mutable_input()->DeleteSubrange(i, 1);
    return true;
  }
  return false;
}

Outcome runTest(const std::string &dir, const TestOptions &opts) {
  const std::string &hw = opts.hw;
  auto model = frontend::loadOnnxModel(dir + "/model.onnx");
  if (!model)
    return {Outcome::Fail, llvm::toString(model.takeError())};
  std::string outside = outsideClaim(**model);
  if (!outside.empty())
    return {Outcome::Unsupported, outside};
  const onnx::GraphProto &declared = (*model)->graph();
  std::error_code ec;
  int sets = 0, failed = 0;
  std::string firstFailure;
  std::vector<std::string> setDirs;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("test_data_set_"))
      setDirs.push_back(it->path());
  std::sort(setDirs.begin(), setDirs.end());
  for (const std::string &setDir : setDirs) {
    std::string set = llvm::sys::path::filename(setDir).str();
    ++sets;
    // Inputs by declared name; input_<i>.pb belongs to graph input i.
    std::map<std::string, std::string> inputFile;
    for (int i = 0; i < declared.input_size(); ++i)
      inputFile[declared.input(i).name()] =
          setDir + "/input_" + std::to_string(i) + ".pb";
    onnx::ModelProto frozen = **model;
    mlir::MLIRContext context;
    llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
        frontend::importOnnxModel(frozen, dir + "/model.onnx", context);
    // Freeze what the importer needs at compile time, one input at a time.
    for (int tries = 0; !module && tries <= declared.input_size(); ++tries) {
      std::string wanted;
      std::string message;
      llvm::handleAllErrors(
          module.takeError(),
          [&](const frontend::NotConstantError &e) {
            wanted = e.valueName;
            message = e.message;
          },
          [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
      // The value may be computed from graph inputs (Range(0, Cast(size)));
      // freeze the inputs it depends on.
      std::vector<std::string> roots = graphInputsFeeding(frozen, wanted);
      bool froze = false;
      for (const std::string &r : roots)
        froze |= inputFile.count(r) && freezeInput(frozen, r, inputFile[r]);
      if (!froze)
        return {Outcome::Fail, "import: " + message};
      module = frontend::importOnnxModel(frozen, dir + "/model.onnx", context);
    }
    if (!module)
      return {Outcome::Fail, "import: " + llvm::toString(module.takeError())};
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
        return {Outcome::Fail, "compile: " + diag};
    }
    auto config = isa::resolveHwConfig(hw);
    if (!config)
      return {Outcome::Fail, llvm::toString(config.takeError())};
    auto func = (*module)->lookupSymbol<mlir::func::FuncOp>("main");
    auto emitted = npu::emitProgram(func, *config, nullptr, opts.emit);
    if (!emitted)
      return {Outcome::Fail, "emit: " + llvm::toString(emitted.takeError())};
    auto program = driver::finishProgram(std::move(*emitted), *config, nullptr);
    if (!program)
      return {Outcome::Fail, "emit: " + llvm::toString(program.takeError())};
    if (!opts.saveDir.empty())
      if (auto e = isa::writeProgramFile(
              *program, opts.saveDir + "/" +
                            llvm::sys::path::filename(dir).str() + "." + set +
                            ".npu"))
        return {Outcome::Fail, llvm::toString(std::move(e))};
    auto loaded = rt::Model::loadBytes(isa::writeProgram(*program));
    if (!loaded)
      return {Outcome::Fail, llvm::toString(loaded.takeError())};
    rt::SessionOptions so;
    so.backend = sim::BackendKind::Functional;
    rt::Session session(**loaded, so);
    // Every input still a graph input is bound now, at run time.
    const onnx::GraphProto &graph = frozen.graph();
    for (int i = 0; i < graph.input_size(); ++i) {
      auto t = frontend::loadTensorProtoFile(inputFile[graph.input(i).name()]);
      if (!t)
        return {Outcome::Fail, llvm::toString(t.takeError())};
      if (auto e = session.setInput(graph.input(i).name(),
                                    asDeclared(std::move(*t), graph.input(i))))
        return {Outcome::Fail, llvm::toString(std::move(e))};
    }
    if (auto e = session.run())
      return {Outcome::Fail, llvm::toString(std::move(e))};
    for (int o = 0; o < graph.output_size(); ++o) {
      auto want = frontend::loadTensorProtoFile(setDir + "/output_" +
                                                std::to_string(o) + ".pb");
      auto got = session.output(graph.output(o).name());
      if (!want || !got) {
        std::string why;
        if (!want)
          why = llvm::toString(want.takeError());
        if (!got)
          why += (why.empty() ? "" : "; ") + llvm::toString(got.takeError());
        ++failed;
        if (firstFailure.empty())
          firstFailure =
              set + ": output " + graph.output(o).name() + ": " + why;
        continue;
      }
      std::string why;
      if (!sameValues(*got, asDeclared(std::move(*want), graph.output(o)),
                      why)) {
        ++failed;
        if (firstFailure.empty())
          firstFailure = set + ": " + why;
      }
    }
  }
  if (!sets)
    return {Outcome::Fail, "no test_data_set_* folders"};
  if (failed)
    return {Outcome::Fail, firstFailure};
  return {Outcome::Pass, std::to_string(sets) + " data set(s)"};
}

/// Runs `count` tests, each in a child process of its own (at most `jobs` at
/// once), so that a crash or a hang of the compiler on one node test is that
/// test's FAIL and not the end of the run; `done` receives each outcome.
void runIsolated(size_t count, unsigned jobs, unsigned timeoutSeconds,
                 const std::function<Outcome(size_t)> &run,
                 const std::function<void(size_t, Outcome)> &done) {
  struct Child {
    pid_t pid;
    int fd;
    size_t index;
    std::chrono::steady_clock::time_point start;
    std::string data;
  };
  std::vector<Child> running;
  size_t next = 0;
  jobs = std::max(1u, jobs);
  llvm::outs().flush();
  while (next < count || !running.empty()) {
    while (next < count && running.size() < jobs) {
      int fds[2];
      if (pipe(fds) != 0) {
        done(next, {Outcome::Fail, "pipe() failed"});
        ++next;
        continue;
      }
      pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        Outcome o = run(next);
        std::string msg =
            std::to_string(int(o.kind)) + o.detail.substr(0, 4000);
        for (size_t off = 0; off < msg.size();) {
          ssize_t n = write(fds[1], msg.data() + off, msg.size() - off);
          if (n <= 0)
            break;
          off += size_t(n);
        }
        _exit(0);
      }
      close(fds[1]);
      if (pid < 0) {
        close(fds[0]);
        done(next, {Outcome::Fail, "fork() failed"});
        ++next;
        continue;
      }
      fcntl(fds[0], F_SETFL, O_NONBLOCK);
      running.push_back(
          {pid, fds[0], next++, std::chrono::steady_clock::now(), ""});
    }
    usleep(2000);
    for (size_t c = 0; c < running.size();) {
      Child &ch = running[c];
      char buf[4096];
      ssize_t n;
      while ((n = read(ch.fd, buf, sizeof buf)) > 0)
        ch.data.append(buf, size_t(n));
      int status = 0;
      pid_t r = waitpid(ch.pid, &status, WNOHANG);
      bool late = std::chrono::steady_clock::now() - ch.start >
                  std::chrono::seconds(timeoutSeconds);
      if (r == 0 && !late) {
        ++c;
        continue;
      }
      Outcome o{Outcome::Fail, ""};
      if (r == 0) {
        kill(ch.pid, SIGKILL);
        waitpid(ch.pid, &status, 0);
        o.detail = "timed out after " + std::to_string(timeoutSeconds) + " s";
      } else {
        while ((n = read(ch.fd, buf, sizeof buf)) > 0)
          ch.data.append(buf, size_t(n));
        if (WIFSIGNALED(status))
          o.detail = std::string("the compiler or runtime crashed (") +
                     strsignal(WTERMSIG(status)) + ")";
        else if (ch.data.empty())
          o.detail = "the test process exited without a result";
        else {
          o.kind = static_cast<Outcome::Kind>(ch.data[0] - '0');
          o.detail = ch.data.substr(1);
        }
      }
      close(ch.fd);
      size_t index = ch.index;
      running.erase(running.begin() + c);
      done(index, std::move(o));
    }
  }
}

int runConformance(int argc, char **argv) {
  std::string dataDir = "/usr/share/libonnx-testdata/data/node", filter = ".*",
              hw = "default-32x32", hostTarget = "cpu", gpuArch = "sm_75",
              saveDir;
  bool failOnFail = false;
  unsigned jobs = 1, timeout = 300;
  cli::FlagParser flags(
      "systole conformance",
      "Runs the ONNX node tests (Debian's libonnx-testdata) through import, "
      "compile and simulation, each in a process of its own, and prints per "
      "test PASS, FAIL or UNSUPPORTED (with the reason).");
  flags
      .value({"--data"}, dataDir, "DIR",
             "node test folder (default: "
             "/usr/share/libonnx-testdata/data/node)")
      .value({"--filter"}, filter, "REGEX",
             "run the tests whose name matches (default: all)")
      .value({"--hw"}, hw, "CONFIG",
             "hardware config file or preset (default: default-32x32)")
      .flag({"--strict"}, failOnFail, "exit non-zero if a supported test fails")
      .value({"--host-target"}, hostTarget, "cpu|gpu|gpu-emulation",
             "compiled host code: cpu, or gpu (PTX beside the CPU code; the "
             "run uses a GPU if present, else the CPU code), or "
             "gpu-emulation (the GPU form run on the CPU) (default: cpu)")
      .value({"--gpu-arch"}, gpuArch, "SM",
             "PTX target for --host-target gpu (default: sm_75)")
      .value({"--save-npu"}, saveDir, "DIR",
             "write every compiled binary to this folder "
             "(<test>.<data set>.npu)")
      .number({"-j", "--jobs"}, jobs, "N",
              "tests run in parallel, processes (default: 1)")
      .number({"--timeout"}, timeout, "SECONDS",
              "seconds one test may take before it fails (default: 300)");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  llvm::Regex re(filter);
  std::string reError;
  if (!re.isValid(reError)) {
    return flags.usageError("--filter: " + reError);
  }
  if (hostTarget != "cpu" && hostTarget != "gpu" &&
      hostTarget != "gpu-emulation") {
    return flags.usageError("--host-target: '" + hostTarget +
                            "' is not one of cpu, gpu, gpu-emulation");
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
  std::vector<std::optional<Outcome>> outcomes(tests.size());
  size_t printed = 0;
  auto flush = [&] {
    for (; printed < tests.size() && outcomes[printed]; ++printed) {
      const Outcome &o = *outcomes[printed];
      const char *tag = o.kind == Outcome::Pass   ? "PASS"
                        : o.kind == Outcome::Fail ? "FAIL"
                                                  : "UNSUPPORTED";
      (o.kind == Outcome::Pass   ? pass
       : o.kind == Outcome::Fail ? fail
                                 : unsupported)++;
      std::string detail = o.detail.substr(0, 160);
      std::replace(detail.begin(), detail.end(), '\n', ' ');
      llvm::outs() << llvm::formatv("{0,-12} {1,-52} {2}\n", tag,
                                    tests[printed], detail);
      llvm::outs().flush();
    }
  };
  runIsolated(
      tests.size(), jobs, timeout,
      [&](size_t i) { return runTest(dataDir + "/" + tests[i], opts); },
      [&](size_t i, Outcome o) {
        outcomes[i] = std::move(o);
        flush();
      });
  llvm::outs() << "conformance: " << pass << " passed, " << fail << " failed, "
               << unsupported << " unsupported of " << tests.size() << "\n";
  return failOnFail && fail ? 1 : 0;
}

} // namespace

static cli::SubcommandRegistration
    reg("conformance", "run the ONNX node tests through compile + simulate",
        runConformance);
