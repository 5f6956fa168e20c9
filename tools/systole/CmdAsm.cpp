//===- CmdAsm.cpp - `systole asm`: assemble text into a .npu --------------===//
#include "FlagParser.h"
#include "Subcommands.h"

#include "systole/ISA/Assembly.h"
#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace systole;

static void usage(llvm::raw_ostream &os) {
  os << "usage: systole asm IN.s -o OUT.npu --hw CONFIG.json|PRESET "
        "[--no-verify]\n"
        "       systole asm --emit-isa-table=md|sv\n\n"
        "Assembles NPU assembly text (see docs/isa.md) for a hardware config\n"
        "(a JSON file or the name of a bundled preset), verifies it and "
        "writes\n"
        "the .npu binary. --no-verify skips the verifier: it writes hostile\n"
        "binaries for testing loaders (docs/security.md).\n";
}

static int runAsm(int argc, char **argv) {
  std::string in, out, hw;
  bool verify = true;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    auto value = [&](std::string &dst) {
      if (i + 1 >= argc)
        return false;
      dst = argv[++i];
      return true;
    };
    if (a == "-h" || a == "--help") {
      usage(llvm::outs());
      return 0;
    } else if (a == "--emit-isa-table=md") {
      llvm::outs() << isa::emitInstructionTableMarkdown();
      return 0;
    } else if (a == "--emit-isa-table=sv") {
      llvm::outs() << isa::emitSystemVerilogPackage();
      return 0;
    } else if (a == "-o") {
      if (!value(out)) {
        usage(llvm::errs());
        return 2;
      }
    } else if (a == "--hw") {
      if (!value(hw)) {
        usage(llvm::errs());
        return 2;
      }
    } else if (a.consume_front("--hw=")) {
      hw = a.str();
    } else if (a == "--no-verify") {
      verify = false;
    } else if (a.starts_with("-") && a != "-") {
      llvm::errs() << "systole asm: unknown option '" << a << "'\n";
      usage(llvm::errs());
      return 2;
    } else if (in.empty()) {
      in = a.str();
    } else {
      llvm::errs() << "systole asm: more than one input file\n";
      return 2;
    }
  }
  if (in.empty() || out.empty() || hw.empty()) {
    usage(llvm::errs());
    return 2;
  }
  auto cfg = cli::loadHwConfigArg(hw);
  if (!cfg) {
    llvm::errs() << "systole asm: " << llvm::toString(cfg.takeError()) << "\n";
    return 1;
  }
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(in);
  if (!buf) {
    llvm::errs() << "systole asm: cannot read '" << in
                 << "': " << buf.getError().message() << "\n";
    return 1;
  }
  auto prog = isa::parseProgramAsm((*buf)->getBuffer(), *cfg, in);
  if (!prog) {
    llvm::errs() << llvm::toString(prog.takeError()) << "\n";
    return 1;
  }
  if (prog->producer.empty())
    prog->producer = "systole asm";
  if (auto e = verify ? isa::verifyProgram(*prog) : llvm::Error::success()) {
    llvm::errs() << in << ": error: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  if (auto e = isa::writeProgramFile(*prog, out)) {
    llvm::errs() << "systole asm: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  return 0;
}

static cli::SubcommandRegistration
    reg("asm", "assemble NPU assembly into a .npu binary", runAsm);
