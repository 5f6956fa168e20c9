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

static int runAsm(int argc, char **argv) {
  std::string in, out, hw, table;
  bool noVerify = false;
  cli::FlagParser flags(
      "systole asm",
      "Assembles NPU assembly text (docs/isa.md; IN.s, or - for stdin) for "
      "a hardware config, verifies it and writes the .npu binary. "
      "--emit-isa-table prints the instruction table instead and needs no "
      "other option.");
  flags.positional(in, "IN.s", "more than one input file")
      .value({"-o"}, out, "OUT.npu", "the binary to write (required)")
      .value({"--hw"}, hw, "CONFIG.json|PRESET",
             "hardware config file or bundled preset (required)")
      .flag({"--no-verify"}, noVerify,
            "skip the verifier: writes hostile binaries for testing loaders "
            "(docs/security.md)")
      .value({"--emit-isa-table"}, table, "md|sv",
             "print the instruction table as Markdown or a SystemVerilog "
             "package");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  if (table == "md") {
    llvm::outs() << isa::emitInstructionTableMarkdown();
    return 0;
  }
  if (table == "sv") {
    llvm::outs() << isa::emitSystemVerilogPackage();
    return 0;
  }
  if (!table.empty())
    return flags.usageError("--emit-isa-table: '" + table +
                            "' is not one of md, sv");
  if (in.empty())
    return flags.usageError("missing required argument IN.s");
  if (out.empty())
    return flags.missing("-o");
  if (hw.empty())
    return flags.missing("--hw");
  bool verify = !noVerify;
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
