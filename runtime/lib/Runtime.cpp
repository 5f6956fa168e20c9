//===- Runtime.cpp - Models, sessions, segment execution ------------------===//
#include "systole/Runtime/Runtime.h"
#include "systole/ISA/Timing.h"
#include "systole/Runtime/HostCode.h"
#include "systole/Runtime/HostKernels.h"

#include "systole/ISA/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace systole;
using namespace systole::rt;
using llvm::formatv;

namespace {
llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s;
}

bool isQuantized(isa::DType t) {
  return t == isa::DType::Int8 || t == isa::DType::UInt8 ||
         t == isa::DType::Int32;
}

// Builtin host segments: the verifier checked names, arity and indices; the
// dtypes and shapes the kernels need are checked here, at load time.
llvm::Error checkBuiltin(const isa::Program &p, size_t s) {
  const isa::HostSegment &h = p.segments[s].host();
  auto where = formatv("segments[{0}] '{1}' (builtin {2})", s,
                       p.segments[s].name, h.entry)
                   .str();
  const isa::TensorDesc &in = p.tensors[h.args[0]], &out = p.tensors[h.args[1]];
  if (h.entry == "quantize" || h.entry == "dequantize") {
    bool q = h.entry == "quantize";
    const isa::TensorDesc &f = q ? in : out, &i = q ? out : in;
    if (f.dtype != isa::DType::Float32)
      return error(formatv("{0}: tensor '{1}' must be float32, is {2}", where,
                           f.name, isa::dtypeName(f.dtype)));
    if (!isQuantized(i.dtype) || (q && i.dtype == isa::DType::Int32))
      return error(formatv("{0}: tensor '{1}' must be {2}, is {3}", where,
                           i.name, q ? "int8 or uint8" : "int8, uint8 or int32",
                           isa::dtypeName(i.dtype)));
    if (!i.quant)
      return error(formatv("{0}: tensor '{1}' has no quantization parameters",
                           where, i.name));
    if (!h.params.empty() && !q)
      return error(formatv("{0}: only quantize takes a permutation", where));
    if (h.params.empty() && in.shape != out.shape)
      return error(formatv("{0}: shapes differ ({1} vs {2})", where,
                           shapeText(in.shape), shapeText(out.shape)));
    if (h.params.empty())
      return llvm::Error::success();
  }
  // transpose, or quantize with a permutation (params)
  if (h.entry == "transpose" && in.dtype != out.dtype)
    return error(formatv("{0}: dtypes differ ({1} vs {2})", where,
                         isa::dtypeName(in.dtype), isa::dtypeName(out.dtype)));
  if (h.params.size() != in.shape.size() || out.shape.size() != in.shape.size())
    return error(formatv("{0}: permutation of {1} axes for rank-{2} tensors",
                         where, h.params.size(), in.shape.size()));
  std::vector<bool> seen(in.shape.size());
  for (size_t d = 0; d < h.params.size(); ++d) {
    int64_t a = h.params[d];
    if (a < 0 || size_t(a) >= in.shape.size() || seen[a])
      return error(formatv("{0}: params is not a permutation", where));
    seen[a] = true;
    if (out.shape[d] != in.shape[a])
      return error(
          formatv("{0}: output shape[{1}] = {2} but input shape[{3}] = {4}",
                  where, d, out.shape[d], a, in.shape[a]));
  }
  return llvm::Error::success();
}
} // namespace

std::string TensorInfo::describe() const {
  return shapeText(shape) + isa::dtypeName(dtype).str();
}

ElementType rt::elementTypeOf(isa::DType t) {
  switch (t) {
  case isa::DType::Int8:
    return ElementType::Int8;
  case isa::DType::UInt8:
    return ElementType::UInt8;
  case isa::DType::Int32:
    return ElementType::Int32;
  case isa::DType::Float32:
    return ElementType::Float32;
  case isa::DType::Int64:
    return ElementType::Int64;
  case isa::DType::Bool:
    return ElementType::Bool;
  case isa::DType::Float64:
    return ElementType::Float64;
  case isa::DType::Int16:
    return ElementType::Int16;
  case isa::DType::Float16:
    return ElementType::Float16;
  case isa::DType::UInt16:
    return ElementType::UInt16;
  case isa::DType::UInt32:
    return ElementType::UInt32;
  case isa::DType::UInt64:
    return ElementType::UInt64;
  case isa::DType::BFloat16:
    return ElementType::BFloat16;
  }
  return ElementType::Int8;
}

std::optional<isa::DType> rt::dtypeOf(ElementType t) {
  switch (t) {
  case ElementType::Int8:
    return isa::DType::Int8;
  case ElementType::UInt8:
    return isa::DType::UInt8;
  case ElementType::Int32:
    return isa::DType::Int32;
  case ElementType::Float32:
    return isa::DType::Float32;
  case ElementType::Int64:
    return isa::DType::Int64;
  case ElementType::Bool:
    return isa::DType::Bool;
  case ElementType::Float64:
    return isa::DType::Float64;
  case ElementType::Int16:
    return isa::DType::Int16;
  case ElementType::Float16:
    return isa::DType::Float16;
  case ElementType::UInt16:
    return isa::DType::UInt16;
  case ElementType::UInt32:
    return isa::DType::UInt32;
  case ElementType::UInt64:
    return isa::DType::UInt64;
  case ElementType::BFloat16:
    return isa::DType::BFloat16;
  default:
    return std::nullopt;
  }
}

Model::Model(isa::Program p) : prog(std::move(p)) {
  for (const isa::TensorDesc &t : prog.tensors) {
    if (t.kind != isa::TensorKind::Input && t.kind != isa::TensorKind::Output)
      continue;
    TensorInfo info{t.name, t.dtype, t.shape, t.quant, t.sizeBytes};
    (t.kind == isa::TensorKind::Input ? ins : outs).push_back(std::move(info));
  }
}

llvm::Expected<std::unique_ptr<Model>> Model::loadFile(llvm::StringRef path,
                                                       const Limits &limits) {
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, size))
    return error(formatv("{0}: {1}", path, ec.message()));
  if (size > limits.maxFileBytes)
    return error(
        formatv("{0}: {1} bytes exceeds the runtime's file limit of {2} bytes",
                path, size, limits.maxFileBytes));
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return error(formatv("{0}: {1}", path, buf.getError().message()));
  auto bytes = llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
      (*buf)->getBufferSize());
  auto model = loadBytes(bytes, limits);
  if (!model)
    return error(formatv("{0}: {1}", path, llvm::toString(model.takeError())));
  return model;
}

llvm::Expected<std::unique_ptr<Model>>
Model::loadBytes(llvm::ArrayRef<uint8_t> bytes, const Limits &limits) {
  if (bytes.size() > limits.maxFileBytes)
    return error(
        formatv("{0} bytes exceeds the runtime's file limit of {1} bytes",
                bytes.size(), limits.maxFileBytes));
  // readProgram runs the FlatBuffers verifier and isa::verifyProgram.
  auto prog = isa::readProgram(bytes);
  if (!prog)
    return error("invalid .npu: " + llvm::toString(prog.takeError()));
  return fromVerifiedProgram(std::move(*prog), limits);
}

llvm::Expected<std::unique_ptr<Model>>
Model::fromProgram(isa::Program program, const Limits &limits) {
  // What readProgram checks after decoding the bytes.
  if (auto e = isa::verifyProgram(program))
    return error("invalid .npu: " + llvm::toString(std::move(e)));
  return fromVerifiedProgram(std::move(program), limits);
}

llvm::Expected<std::unique_ptr<Model>>
Model::fromVerifiedProgram(isa::Program prog, const Limits &limits) {
  const isa::Program &p = prog;
  if (p.memoryPlan.dramSize > limits.maxDramBytes)
    return error(formatv(
        "memory_plan.dram_size {0} exceeds the runtime limit of {1} bytes",
        p.memoryPlan.dramSize, limits.maxDramBytes));
  // The verifier bounds SRAM only by the config's own ranges (up to 20 GiB);
  // a session allocates what the config declares.
  uint64_t sram =
      p.config.sram.scratchpadBytes + p.config.sram.accumulatorBytes;
  if (sram > limits.maxSramBytes)
    return error(formatv("hardware config '{0}': scratchpad + accumulator {1} "
                         "bytes exceed the runtime limit of {2} bytes",
                         p.config.name, sram, limits.maxSramBytes));
  for (const isa::TensorDesc &t : p.tensors)
    if (t.sizeBytes > limits.maxTensorBytes)
      return error(formatv(
          "tensor '{0}': {1} bytes exceeds the runtime limit of {2} bytes",
          t.name, t.sizeBytes, limits.maxTensorBytes));
  uint64_t instructions = 0;
  for (size_t s = 0; s < p.segments.size(); ++s) {
    if (p.segments[s].isNpu()) {
      instructions += p.segments[s].npu().instructions.size();
      continue;
    }
    const isa::HostSegment &h = p.segments[s].host();
    if (h.kind != isa::HostCodeKind::Builtin) {
      if (!limits.allowNativeHostCode)
        return error(formatv("segments[{0}] '{1}': native host code ({2}) is "
                             "not allowed by the runtime limits",
                             s, p.segments[s].name,
                             isa::hostCodeKindName(h.kind)));
      if (auto e = checkHostCode(p, s))
        return std::move(e);
      continue;
    }
    if (auto e = checkBuiltin(p, s))
      return std::move(e);
  }
  if (instructions > limits.maxInstructions)
    return error(formatv("{0} NPU instructions exceed the runtime limit of {1}",
                         instructions, limits.maxInstructions));
  return std::unique_ptr<Model>(new Model(std::move(prog)));
}

Session::Session(const Model &model, SessionOptions options)
    : m(model), opts(std::move(options)) {}

llvm::Error Session::setInput(llvm::StringRef name, const HostTensor &value) {
  const TensorInfo *info = nullptr;
  std::string names;
  for (const TensorInfo &t : m.inputs()) {
    names += (names.empty() ? "" : ", ") + t.name;
    if (t.name == name)
      info = &t;
  }
  if (!info)
    return error(formatv("no input named '{0}' (inputs: {1})", name,
                         names.empty() ? "none" : names));
  auto dt = dtypeOf(value.type());
  if (!dt || *dt != info->dtype || value.shape() != info->shape)
    return error(formatv("input '{0}': expected {1}, got {2}", name,
                         info->describe(), value.describe()));
  bound[name.str()] = value;
  return llvm::Error::success();
}

llvm::Error Session::run() {
  using Clock = std::chrono::steady_clock;
  const isa::Program &p = m.program();
  const isa::HwConfig &cfg = p.config;
  for (const TensorInfo &t : m.inputs())
    if (!bound.count(t.name))
      return error(
          formatv("input '{0}' ({1}) is not bound", t.name, t.describe()));
  rep = RunReport();
  rep.backend = opts.backend;
  rep.total.cycleAccurate = opts.backend != sim::BackendKind::Functional;
  auto t0 = Clock::now();

  sim::MachineState state =
      sim::MachineState::create(cfg, p.memoryPlan.dramSize);
  for (const isa::ConstantSegment &c : p.constants)
    std::memcpy(state.dram.data() + c.dramOffset, c.data.data(), c.data.size());
  for (const isa::TensorDesc &t : p.tensors)
    if (t.kind == isa::TensorKind::Input)
      std::memcpy(state.dram.data() + t.dramOffset, bound[t.name].data(),
                  t.sizeBytes);

  llvm::Error result = llvm::Error::success();
  uint64_t cycles = 0;
  bool skipNextHost = false;
  for (size_t s = 0; s < p.segments.size(); ++s) {
    const isa::Segment &seg = p.segments[s];
    SegmentReport sr;
    sr.name = seg.name;
    sr.npu = seg.isNpu();
    sr.startCycle = cycles;
    auto ts = Clock::now();
    if (seg.isNpu()) {
      const auto &stream = seg.npu().instructions;
      sim::RunResult r =
          sim::runSegment(opts.backend, stream, cfg, state, opts.sim);
      recordNpuSegment(rep, sr, r, p, s, cycles);
      if (r.fault) {
        rep.fault = r.fault;
        rep.faultSegment = seg.name;
        result =
            error(formatv("segment '{0}': {1}", seg.name, r.fault->message()));
      }
    } else if (seg.host().kind != isa::HostCodeKind::Builtin) {
      const isa::HostSegment &h = seg.host();
      sr.hostKernel = h.entry;
      llvm::Error e = llvm::Error::success();
      if (h.kind == isa::HostCodeKind::Ptx) {
        // Run on the GPU when there is one and skip the CPU copy; else
        // skip this segment and run the CPU copy.
        if (gpuAvailable()) {
          sr.hostDevice = "gpu";
          sr.gpuPhases.emplace();
          e = runGpuHostCode(p, h, state.dram.data(), state.dram.size(),
                             &*sr.gpuPhases);
          skipNextHost = true;
          recordHostSegment(rep, sr, p, s, cycles);
        } else if (const char *req = getenv("SYSTOLE_REQUIRE_GPU");
                   req && *req && *req != '0') {
          // A GPU check must not pass on the CPU fallback.
          std::string why;
          gpuAvailable(&why);
          e = error(formatv("SYSTOLE_REQUIRE_GPU is set but the ptx segment "
                            "cannot run on a GPU: {0}",
                            why)
                        .str());
        } else {
          sr.hostDevice = "skipped";
        }
      } else if (skipNextHost) {
        sr.hostDevice = "skipped";
        skipNextHost = false;
      } else {
        sr.hostDevice = "cpu";
        e = runCpuHostCode(p, h, state.dram.data());
        recordHostSegment(rep, sr, p, s, cycles);
      }
      if (e)
        result = error(formatv("segment '{0}': {1}", seg.name,
                               llvm::toString(std::move(e))));
    } else {
      const isa::HostSegment &h = seg.host();
      sr.hostKernel = h.entry;
      sr.hostDevice = "builtin";
      recordHostSegment(rep, sr, p, s, cycles);
      const isa::TensorDesc &in = p.tensors[h.args[0]],
                            &out = p.tensors[h.args[1]];
      if (auto e = runBuiltin(h, {&in, state.dram.data() + in.dramOffset},
                              {&out, state.dram.data() + out.dramOffset}))
        result = error(formatv("segment '{0}': {1}", seg.name,
                               llvm::toString(std::move(e))));
    }
    sr.wallSeconds = std::chrono::duration<double>(Clock::now() - ts).count();
    rep.segments.push_back(std::move(sr));
    if (result)
      break;
  }
  rep.total.totalCycles = cycles;
  rep.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  dramAfterRun = std::move(state.dram);
  ran = !result;
  return result;
}

llvm::Expected<HostTensor> Session::tensor(const isa::TensorDesc &t) const {
  if (!ran)
    return error("no tensors: the session has not run successfully");
  if (t.dramOffset + t.sizeBytes > dramAfterRun.size())
    return error(formatv("tensor '{0}' lies outside DRAM", t.name));
  HostTensor out(elementTypeOf(t.dtype), t.shape);
  if (out.byteSize() != t.sizeBytes)
    return error(
        formatv("tensor '{0}': size does not match its shape", t.name));
  std::memcpy(out.data(), dramAfterRun.data() + t.dramOffset, t.sizeBytes);
  return out;
}

llvm::Expected<HostTensor> Session::output(llvm::StringRef name) const {
  if (!ran)
    return error("no outputs: the session has not run successfully");
  for (const isa::TensorDesc &t : m.program().tensors) {
    if (t.name != name || t.kind != isa::TensorKind::Output)
      continue;
    HostTensor out(elementTypeOf(t.dtype), t.shape);
    std::memcpy(out.data(), dramAfterRun.data() + t.dramOffset, t.sizeBytes);
    return out;
  }
  return error(formatv("no output named '{0}'", name));
}

void rt::recordHostSegment(RunReport &report, SegmentReport &segment,
                           const isa::Program &program, size_t index,
                           uint64_t &cycles) {
  const isa::HostSegment &h = program.segments[index].host();
  // Compiled code: params[0] of the args are inputs; builtins: (in, out).
  size_t inputs = h.kind == isa::HostCodeKind::Builtin
                      ? 1
                      : size_t(h.params.empty() ? 0 : h.params[0]);
  for (size_t a = 0; a < h.args.size(); ++a)
    (a < inputs ? segment.hostBytesIn : segment.hostBytesOut) +=
        program.tensors[h.args[a]].sizeBytes;
  isa::HostTiming t =
      isa::hostTiming(segment.hostBytesIn + segment.hostBytesOut, h.args.size(),
                      h.ops, program.config);
  segment.transferCycles = t.transferCycles;
  segment.hostComputeCycles = t.computeCycles;
  segment.hostOps = h.ops;
  report.total.actions.hostOps += h.ops;
  report.total.actions.hostBytes += segment.hostBytesIn + segment.hostBytesOut;
  report.hostCycles += t.total();
  cycles += t.total();
}

void rt::recordNpuSegment(RunReport &report, SegmentReport &segment,
                          sim::RunResult &result, const isa::Program &program,
                          size_t index, uint64_t &cycles) {
  sim::aggregateLayers(result.stats, program.layers, uint32_t(index),
                       program.segments[index].npu().instructions,
                       program.config);
  for (sim::LayerStats &l : result.stats.layers) {
    l.startCycle += cycles;
    l.endCycle += cycles;
  }
  cycles += result.stats.totalCycles;
  report.total.accumulate(result.stats);
  segment.stats = std::move(result.stats);
}
