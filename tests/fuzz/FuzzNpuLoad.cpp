//===- FuzzNpuLoad.cpp - libFuzzer target: the .npu loader and verifier ---===//
//
// rt::Model::loadBytes = isa::readProgram (FlatBuffers Verifier, identifier,
// version, decoding, isa::verifyProgram) + the runtime's Limits and host
// segment checks: the path every untrusted binary takes. Small limits keep a
// hostile header from asking for gigabytes inside the fuzzer.
//
//===----------------------------------------------------------------------===//
#include "FuzzOptions.h"
#include "systole/Runtime/Runtime.h"

using namespace systole;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt::Limits limits;
  limits.maxFileBytes = 1 << 20;
  limits.maxDramBytes = 16 << 20;
  limits.maxTensorBytes = 16 << 20;
  limits.maxInstructions = 1 << 16;
  auto model =
      rt::Model::loadBytes(llvm::ArrayRef<uint8_t>(data, size), limits);
  if (!model) {
    llvm::consumeError(model.takeError());
    return 0;
  }
  // Exercise the accessors a caller uses next.
  for (const auto &in : (*model)->inputs())
    (void)in.describe();
  for (const auto &out : (*model)->outputs())
    (void)out.describe();
  return 0;
}
