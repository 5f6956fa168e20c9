//===- HostCode.cpp - Load and call compiled host code (CPU) --------------===//
//
// The shared object is written to a private temporary file and dlopen'ed
// (RTLD_LOCAL: two models' entries never collide), once per distinct code
// blob per process.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/HostCode.h"
#include "systole/Support/SharedObject.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <mutex>

using namespace systole;
using llvm::formatv;

namespace {
llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

} // namespace

llvm::Error rt::checkHostCode(const isa::Program &p, size_t s) {
  const isa::HostSegment &h = p.segments[s].host();
  auto where = formatv("segments[{0}] '{1}'", s, p.segments[s].name).str();
  if (h.params.empty() || h.params[0] < 0 ||
      uint64_t(h.params[0]) > h.args.size())
    return error(where + ": params[0] must be the number of input arguments");
  // Compiled host code takes tensors of every dtype (ONNX ops on int64
  // indices, bool masks, quantized codes); the verifier bounded their bytes.
  if (h.kind == isa::HostCodeKind::Ptx) {
    // The CPU fallback must follow.
    if (s + 1 >= p.segments.size() || p.segments[s + 1].isNpu() ||
        p.segments[s + 1].host().kind != isa::HostCodeKind::CpuObject ||
        p.segments[s + 1].host().entry != h.entry)
      return error(where + ": a ptx segment must be followed by the "
                           "cpu_object segment of the same entry");
    // Launch table (host::encodePtxParams): [#inputs, device image bytes,
    // #launches, per launch: grid xyz, block xyz, #args, arg offsets].
    if (h.params.size() < 3)
      return error(where + ": missing launch table");
    int64_t deviceBytes = h.params[1], launches = h.params[2];
    if (deviceBytes < 1 ||
        uint64_t(deviceBytes) > p.memoryPlan.dramSize + (uint64_t(1) << 32))
      return error(where + ": device image size out of range");
    for (uint32_t a : h.args)
      if (p.tensors[a].dramOffset + p.tensors[a].sizeBytes >
          uint64_t(deviceBytes))
        return error(formatv("{0}: argument '{1}' lies outside the device "
                             "image",
                             where, p.tensors[a].name));
    if (launches < 0)
      return error(where + ": negative launch count");
    size_t i = 3;
    for (int64_t l = 0; l < launches; ++l) {
      if (i + 7 > h.params.size())
        return error(where + ": truncated launch table");
      for (int d = 0; d < 6; ++d)
        if (h.params[i + d] < 1 || h.params[i + d] > (int64_t(1) << 31) - 1)
          return error(where + ": grid/block sizes must be positive");
      int64_t n = h.params[i + 6];
      i += 7;
      if (n < 0 || uint64_t(n) > h.params.size() - i)
        return error(where + ": truncated launch table");
      for (int64_t k = 0; k < n; ++k)
        if (h.params[i + k] < 0 || h.params[i + k] >= deviceBytes)
          return error(where + ": kernel argument outside the device image");
      i += n;
    }
    if (i != h.params.size())
      return error(where + ": trailing values after the launch table");
  }
  return llvm::Error::success();
}

llvm::Error rt::runCpuHostCode(const isa::Program &p, const isa::HostSegment &h,
                               uint8_t *dram) {
  auto fn = rt::loadSharedObjectEntry(isa::cpuObjectCode(p, h), h.entry);
  if (!fn)
    return fn.takeError();
  (*fn)(dram);
  return llvm::Error::success();
}
