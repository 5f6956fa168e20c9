//===- FuzzHwConfig.cpp - libFuzzer target: hardware-config JSON parser ---===//
//
// parseHwConfig must return a config or an error for any bytes. A config it
// accepts must survive hwConfigToJsonText -> parseHwConfig unchanged.
//
//===----------------------------------------------------------------------===//
#include "FuzzOptions.h"
#include "systole/ISA/HwConfig.h"

#include <cstdio>
#include <cstdlib>

using namespace systole::isa;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto cfg = parseHwConfig(text);
  if (!cfg) {
    llvm::consumeError(cfg.takeError());
    return 0;
  }
  auto again = parseHwConfig(hwConfigToJsonText(*cfg));
  if (!again) {
    fprintf(stderr, "accepted config does not re-parse: %s\n",
            llvm::toString(again.takeError()).c_str());
    abort();
  }
  if (!(*again == *cfg)) {
    fprintf(stderr, "config changed across print/parse\n");
    abort();
  }
  return 0;
}
