//===- HostCode.h - Compiled host code segments (CPU .so, PTX) --*- C++ -*-===//
//
// Host segments of kind cpu_object carry a shared object whose entry is
// `void entry(uint8_t *dram)`; ptx segments carry PTX kernels plus a launch
// table and precede the cpu_object segment with the same entry, which is the
// fallback. Neither needs MLIR or LLVM at run time: the shared object is
// dlopen'ed, the CUDA driver (libcuda.so.1) is dlopen'ed when present.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_RUNTIME_HOSTCODE_H
#define SYSTOLE_RUNTIME_HOSTCODE_H

#include "systole/ISA/Program.h"

#include "llvm/Support/Error.h"

#include <string>

namespace systole::rt {

/// Checks a cpu_object/ptx segment's arguments and parameters (load time).
llvm::Error checkHostCode(const isa::Program &p, size_t segment);

/// Runs a cpu_object segment of `p` over the DRAM image (loads its shared
/// object, the segment's own or the program's host library, on first use;
/// cached per process).
llvm::Error runCpuHostCode(const isa::Program &p, const isa::HostSegment &h,
                           uint8_t *dram);

/// Whether a CUDA device is usable; `why` says why not ("no GPU present:
/// ...") when it is not.
bool gpuAvailable(std::string *why = nullptr);

/// Wall seconds of a ptx segment's phases on the GPU (the run report's
/// `gpu_phase_seconds`): loading its PTX (the driver compiles it, once per
/// module and process), the device image's allocation, the copies in, the
/// launches up to their completion, and the copies out.
struct GpuPhases {
  double loadModule = 0, allocate = 0, copyIn = 0, kernels = 0, copyOut = 0;
};

/// Runs a ptx segment on the GPU: copies its argument tensors to a device
/// image, replays the launch table, copies the outputs back.
llvm::Error runGpuHostCode(const isa::Program &p, const isa::HostSegment &h,
                           uint8_t *dram, uint64_t dramSize,
                           GpuPhases *phases = nullptr);

} // namespace systole::rt

#endif // SYSTOLE_RUNTIME_HOSTCODE_H
