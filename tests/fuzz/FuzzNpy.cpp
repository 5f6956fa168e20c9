//===- FuzzNpy.cpp - libFuzzer target: the .npy reader --------------------===//
//
// parseNpy must return a tensor or an error for any bytes, and an accepted
// tensor must survive serializeNpy -> parseNpy.
//
//===----------------------------------------------------------------------===//
#include "FuzzOptions.h"
#include "systole/Support/Npy.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace systole;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto t = parseNpy(bytes, "fuzz.npy");
  if (!t) {
    llvm::consumeError(t.takeError());
    return 0;
  }
  auto again = parseNpy(serializeNpy(*t), "roundtrip.npy");
  if (!again) {
    fprintf(stderr, "accepted tensor does not re-parse: %s\n",
            llvm::toString(again.takeError()).c_str());
    abort();
  }
  // Zero-element tensors (a 0 in the shape) are valid and have no data.
  if (again->byteSize() != t->byteSize() ||
      (t->byteSize() &&
       std::memcmp(again->data(), t->data(), t->byteSize()) != 0)) {
    fprintf(stderr, "tensor changed across serialize/parse\n");
    abort();
  }
  return 0;
}
