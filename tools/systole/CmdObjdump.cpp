//===- CmdObjdump.cpp - `systole objdump`: inspect a .npu -----------------===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "systole/ISA/Assembly.h"
#include "systole/ISA/Program.h"
#include "systole/ISA/Timing.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace systole;

static int runObjdump(int argc, char **argv) {
  std::string file, extractDir;
  bool asmOnly = false;
  cli::FlagParser flags(
      "systole objdump",
      "Verifies FILE.npu and prints its header, hardware config, tensors, "
      "memory plan, segments and the disassembly with instruction indices "
      "and predicted cycles (isolated latency of each instruction).");
  flags.positional(file, "FILE.npu", "more than one input file")
      .required()
      .flag({"-d", "--disassemble"}, asmOnly,
            "print only the assembly text; `systole asm` of it reproduces "
            "the binary")
      .value({"--extract-host-code"}, extractDir, "DIR",
             "also write the compiled host code: the program's host library "
             "to DIR/host_library.so, a segment's own code to "
             "DIR/<index>.<entry>.{so,ptx}");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  auto prog = isa::readProgramFile(file);
  if (!prog) {
    llvm::errs() << "systole objdump: " << llvm::toString(prog.takeError())
                 << "\n";
    return 1;
  }
  const isa::Program &p = *prog;
  llvm::raw_ostream &os = llvm::outs();
  if (!extractDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(extractDir)) {
      llvm::errs() << "systole objdump: " << extractDir << ": " << ec.message()
                   << "\n";
      return 1;
    }
    auto write = [&](const std::string &path, llvm::ArrayRef<uint8_t> code) {
      std::error_code ec;
      llvm::raw_fd_ostream out(path, ec);
      if (ec) {
        llvm::errs() << "systole objdump: " << path << ": " << ec.message()
                     << "\n";
        return false;
      }
      out.write(reinterpret_cast<const char *>(code.data()), code.size());
      return true;
    };
    if (!p.hostLibrary.empty() &&
        !write(extractDir + "/host_library.so", p.hostLibrary))
      return 1;
    for (size_t s = 0; s < p.segments.size(); ++s) {
      const auto &seg = p.segments[s];
      // Entries in the host library are in host_library.so.
      if (seg.isNpu() || seg.host().kind == isa::HostCodeKind::Builtin ||
          seg.host().code.empty())
        continue;
      std::string path = llvm::formatv(
          "{0}/{1}.{2}.{3}", extractDir, s, seg.host().entry,
          seg.host().kind == isa::HostCodeKind::Ptx ? "ptx" : "so");
      if (!write(path, seg.host().code))
        return 1;
    }
  }
  if (asmOnly) {
    os << isa::printProgramAsm(p);
    return 0;
  }
  os << file << ": Systole NPU binary, format " << p.versionMajor << "."
     << p.versionMinor << ", producer \"" << p.producer << "\"\n\n";
  os << "hardware config '" << p.config.name << "':\n"
     << isa::hwConfigToJsonText(p.config) << "\n\n";
  os << "memory plan: dram_size " << p.memoryPlan.dramSize << " bytes\n";
  for (const auto &r : p.memoryPlan.regions)
    os << llvm::formatv("  region {0,-16} {1,-11} [{2:x}, {3:x})\n", r.name,
                        isa::regionKindName(r.kind), r.offset,
                        r.offset + r.size);
  os << "\ntensors (" << p.tensors.size() << "):\n";
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    const auto &t = p.tensors[i];
    std::string shape = "[";
    for (size_t d = 0; d < t.shape.size(); ++d)
      shape += (d ? "," : "") + std::to_string(t.shape[d]);
    shape += "]";
    os << llvm::formatv(
        "  [{0}] {1,-16} {2,-12} {3,-7} {4,-16} dram {5:x} size {6}", i, t.name,
        isa::tensorKindName(t.kind), isa::dtypeName(t.dtype), shape,
        t.dramOffset, t.sizeBytes);
    if (t.quant) {
      os << " scale";
      for (size_t k = 0; k < t.quant->scales.size() && k < 4; ++k)
        os << (k ? "," : "=") << llvm::format("%g", t.quant->scales[k]);
      if (t.quant->scales.size() > 4)
        os << ",...(" << t.quant->scales.size() << ")";
      if (!t.quant->zeroPoints.empty())
        os << " zp=" << t.quant->zeroPoints[0]
           << (t.quant->zeroPoints.size() > 1 ? ",..." : "");
      if (t.quant->axis >= 0)
        os << " axis=" << t.quant->axis;
    }
    os << "\n";
  }
  os << "\nconstants (" << p.constants.size() << "):\n";
  for (const auto &c : p.constants)
    os << llvm::formatv("  {0,-20} dram [{1:x}, {2:x}) {3} bytes\n", c.name,
                        c.dramOffset, c.dramOffset + c.data.size(),
                        c.data.size());
  if (!p.hostLibrary.empty())
    os << "\nhost library: " << p.hostLibrary.size()
       << " bytes (shared object of the cpu_object entries below)\n";
  os << "\nsegments (" << p.segments.size() << "):\n";
  for (size_t s = 0; s < p.segments.size(); ++s) {
    const auto &seg = p.segments[s];
    if (seg.isNpu())
      os << llvm::formatv("  [{0}] npu  '{1}' {2} instructions\n", s, seg.name,
                          seg.npu().instructions.size());
    else if (seg.host().kind == isa::HostCodeKind::CpuObject &&
             seg.host().code.empty())
      os << llvm::formatv(
          "  [{0}] host '{1}' {2} entry '{3}' in the host library, {4} args\n",
          s, seg.name, isa::hostCodeKindName(seg.host().kind), seg.host().entry,
          seg.host().args.size());
    else
      os << llvm::formatv(
          "  [{0}] host '{1}' {2} entry '{3}', {4} bytes, {5} args\n", s,
          seg.name, isa::hostCodeKindName(seg.host().kind), seg.host().entry,
          seg.host().code.size(), seg.host().args.size());
  }
  for (size_t s = 0; s < p.segments.size(); ++s) {
    const auto &seg = p.segments[s];
    if (!seg.isNpu())
      continue;
    os << "\ndisassembly of segment [" << s << "] '" << seg.name
       << "' (cycles: isolated latency of each instruction):\n";
    uint64_t total = 0;
    const auto &ins = seg.npu().instructions;
    for (size_t i = 0; i < ins.size(); ++i) {
      uint64_t c = isa::predictedCycles(ins[i], p.config);
      total += c;
      for (const auto &l : p.layers)
        if (l.segment == s && l.firstInstruction == i)
          os << "; layer '" << l.name << "'\n";
      os << llvm::formatv("  {0,-100} ; #{1,-5} {2} cycles\n",
                          isa::printInstruction(ins[i]), i, c);
    }
    os << "; sum of isolated latencies: " << total << " cycles\n";
  }
  return 0;
}

static cli::SubcommandRegistration
    reg("objdump", "print a .npu binary: header, config, tensors, disassembly",
        runObjdump);
