//===- FuzzAssembly.cpp - libFuzzer target: the NPU assembly parser -------===//
//
// parseProgramAsm must return a program or an error for any text. A program
// that also passes verifyProgram must serialize to a binary that readProgram
// (the loader every consumer uses) accepts.
//
//===----------------------------------------------------------------------===//
#include "FuzzOptions.h"
#include "systole/ISA/Assembly.h"
#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Program.h"
#include "systole/ISA/Verifier.h"

#include <cstdio>
#include <cstdlib>

using namespace systole::isa;

static const HwConfig &tinyConfig() {
  static HwConfig cfg = [] {
    auto c = loadHwConfigFile(SYSTOLE_PRESET_DIR "/tiny-4x4.json");
    if (!c) {
      fprintf(stderr, "%s\n", llvm::toString(c.takeError()).c_str());
      abort();
    }
    return *c;
  }();
  return cfg;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto prog = parseProgramAsm(text, tinyConfig(), "fuzz.s");
  if (!prog) {
    llvm::consumeError(prog.takeError());
    return 0;
  }
  if (auto e = verifyProgram(*prog)) {
    llvm::consumeError(std::move(e));
    return 0;
  }
  auto loaded = readProgram(writeProgram(*prog));
  if (!loaded) {
    fprintf(stderr, "verified program rejected by readProgram: %s\n",
            llvm::toString(loaded.takeError()).c_str());
    abort();
  }
  return 0;
}
