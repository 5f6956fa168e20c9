//===- CmdPresets.cpp - `systole presets`: list bundled hardware configs --===//
#include "FlagParser.h"
#include "Subcommands.h"
#include "systole/ISA/Presets.h"

#include "systole/ISA/HwConfig.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace systole;

static std::string kib(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    return llvm::formatv("{0} MiB", bytes >> 20).str();
  return llvm::formatv("{0} KiB", bytes >> 10).str();
}

static int runPresets(int argc, char **argv) {
  cli::FlagParser flags("systole presets",
                        "Lists the bundled hardware configurations "
                        "(directory: $SYSTOLE_PRESET_DIR or isa/presets).");
  if (auto exit = flags.parse(argc, argv))
    return *exit;
  std::string dir = isa::presetDirectory();
  auto presets = isa::listPresets(dir);
  if (!presets) {
    llvm::errs() << "systole presets: " << llvm::toString(presets.takeError())
                 << "\n";
    return 1;
  }
  llvm::outs() << llvm::formatv(
      "{0,-20} {1,-9} {2,-7} {3,-18} {4,-10} {5,-12} {6}\n", "preset", "array",
      "flows", "scratchpad", "acc", "dram", "clock");
  int status = 0;
  for (const isa::PresetEntry &p : *presets) {
    auto cfg = isa::loadHwConfigFile(p.path);
    if (!cfg) {
      llvm::errs() << "systole presets: " << llvm::toString(cfg.takeError())
                   << "\n";
      status = 1;
      continue;
    }
    std::string flows = std::string(cfg->array.ws ? "ws" : "") +
                        (cfg->array.ws && cfg->array.os ? "+" : "") +
                        (cfg->array.os ? "os" : "");
    llvm::outs() << llvm::formatv(
        "{0,-20} {1,-9} {2,-7} {3,-18} {4,-10} {5,-12} {6} MHz\n", p.stem,
        llvm::formatv("{0}x{1}", cfg->array.rows, cfg->array.cols).str(), flows,
        llvm::formatv("{0}/{1} banks", kib(cfg->sram.scratchpadBytes),
                      cfg->sram.scratchpadBanks)
            .str(),
        kib(cfg->sram.accumulatorBytes),
        llvm::formatv("{0} B/cycle", cfg->dram.bytesPerCycle).str(),
        cfg->clockMhz);
  }
  return status;
}

static cli::SubcommandRegistration
    reg("presets", "list the bundled hardware configurations", runPresets);
