//===- HostCodeCuda.cpp - Run PTX host segments through the CUDA driver ---===//
//
// libcuda.so.1 is dlopen'ed on first use, so the runtime has no link-time
// CUDA dependency and runs unchanged on machines without a GPU (the CPU code
// of the segment is used then). Each run allocates a device image for the
// segment (the group's DRAM bytes and a scratch area for its temporaries):
// kernel arguments are `base + offset` pointers.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/HostCode.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace systole;

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;

struct CudaDriver {
  bool ok = false;
  std::string why;
  CUcontext ctx = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, void *, void **,
                             void **);
  CUresult (*cuCtxSynchronize)();
};

template <typename F> bool bind(void *lib, F &fn, const char *name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

CudaDriver &driver() {
  static CudaDriver d;
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char *off = getenv("SYSTOLE_NO_GPU");
        off && *off && *off != '0') {
      d.why = "GPU disabled by SYSTOLE_NO_GPU";
      return;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      d.why = "no GPU present: the CUDA driver libcuda.so.1 is not installed";
      return;
    }
    bool all =
        bind(lib, d.cuInit, "cuInit") &&
        bind(lib, d.cuDeviceGetCount, "cuDeviceGetCount") &&
        bind(lib, d.cuDeviceGet, "cuDeviceGet") &&
        bind(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
        bind(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent") &&
        bind(lib, d.cuModuleLoadData, "cuModuleLoadData") &&
        bind(lib, d.cuModuleGetFunction, "cuModuleGetFunction") &&
        bind(lib, d.cuMemAlloc, "cuMemAlloc_v2") &&
        bind(lib, d.cuMemFree, "cuMemFree_v2") &&
        bind(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
        bind(lib, d.cuMemcpyDtoH, "cuMemcpyDtoH_v2") &&
        bind(lib, d.cuLaunchKernel, "cuLaunchKernel") &&
        bind(lib, d.cuCtxSynchronize, "cuCtxSynchronize");
    if (!all) {
      d.why = "no GPU present: libcuda.so.1 lacks driver API symbols";
      return;
    }
    int count = 0;
    CUresult r = d.cuInit(0);
    if (r == 0)
      r = d.cuDeviceGetCount(&count);
    if (r != 0 || count == 0) {
      d.why = llvm::formatv("no GPU present: cuInit/cuDeviceGetCount "
                            "returned {0}, {1} device(s)",
                            r, count)
                  .str();
      return;
    }
    CUdevice dev;
    if (d.cuDeviceGet(&dev, 0) != 0 ||
        d.cuDevicePrimaryCtxRetain(&d.ctx, dev) != 0) {
      d.why = "no GPU present: cannot create a context on device 0";
      return;
    }
    d.ok = true;
  });
  return d;
}

llvm::Error cuError(const char *what, CUresult r) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv("{0} failed: {1}", what, r));
}
} // namespace

bool rt::gpuAvailable(std::string *why) {
  CudaDriver &d = driver();
  if (!d.ok && why)
    *why = d.why;
  return d.ok;
}

llvm::Error rt::runGpuHostCode(const isa::Program &p, const isa::HostSegment &h,
                               uint8_t *dram, uint64_t dramSize,
                               GpuPhases *phases) {
  GpuPhases unused;
  GpuPhases &ph = phases ? *phases : unused;
  using Clock = std::chrono::steady_clock;
  auto mark = Clock::now();
  // Adds the time since the last mark to `phase`.
  auto lap = [&](double &phase) {
    auto now = Clock::now();
    phase += std::chrono::duration<double>(now - mark).count();
    mark = now;
  };
  CudaDriver &d = driver();
  if (!d.ok)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), d.why);
  if (CUresult r = d.cuCtxSetCurrent(d.ctx))
    return cuError("cuCtxSetCurrent", r);
  // One module per distinct PTX text per process.
  static std::mutex mutex;
  static std::map<std::string, CUmodule> modules;
  CUmodule mod;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::string ptx(h.code.begin(), h.code.end());
    auto it = modules.find(ptx);
    if (it == modules.end()) {
      if (CUresult r = d.cuModuleLoadData(&mod, ptx.c_str()))
        return cuError("cuModuleLoadData", r);
      it = modules.emplace(std::move(ptx), mod).first;
    }
    mod = it->second;
  }
  lap(ph.loadModule);
  // Launch table (checked at load time by checkHostCode): [#inputs, device
  // image bytes, #launches, per launch: grid xyz, block xyz, #args, offsets].
  size_t numInputs = h.params[0];
  uint64_t deviceBytes = h.params[1];
  CUdeviceptr base;
  if (CUresult r = d.cuMemAlloc(&base, deviceBytes))
    return cuError("cuMemAlloc", r);
  auto fail = [&](const char *what, CUresult r) {
    d.cuMemFree(base);
    return cuError(what, r);
  };
  lap(ph.allocate);
  for (size_t a = 0; a < numInputs; ++a) {
    const isa::TensorDesc &t = p.tensors[h.args[a]];
    if (t.dramOffset + t.sizeBytes > dramSize)
      return fail("input outside DRAM", -1);
    if (CUresult r = d.cuMemcpyHtoD(base + t.dramOffset, dram + t.dramOffset,
                                    t.sizeBytes))
      return fail("cuMemcpyHtoD", r);
  }
  lap(ph.copyIn);
  size_t i = 3;
  int64_t launches = h.params[2];
  for (int64_t l = 0; l < launches; ++l) {
    const int64_t *g = &h.params[i];
    int64_t n = h.params[i + 6];
    std::vector<CUdeviceptr> ptrs;
    for (int64_t k = 0; k < n; ++k)
      ptrs.push_back(base + h.params[i + 7 + k]);
    std::vector<void *> args;
    for (CUdeviceptr &ptr : ptrs)
      args.push_back(&ptr);
    i += 7 + n;
    std::string name = h.entry + "_k" + std::to_string(l);
    CUfunction fn;
    if (CUresult r = d.cuModuleGetFunction(&fn, mod, name.c_str()))
      return fail("cuModuleGetFunction", r);
    if (CUresult r = d.cuLaunchKernel(fn, g[0], g[1], g[2], g[3], g[4], g[5], 0,
                                      nullptr, args.data(), nullptr))
      return fail("cuLaunchKernel", r);
  }
  if (CUresult r = d.cuCtxSynchronize())
    return fail("cuCtxSynchronize", r);
  lap(ph.kernels);
  for (size_t a = numInputs; a < h.args.size(); ++a) {
    const isa::TensorDesc &t = p.tensors[h.args[a]];
    if (t.dramOffset + t.sizeBytes > dramSize)
      return fail("output outside DRAM", -1);
    if (CUresult r = d.cuMemcpyDtoH(dram + t.dramOffset, base + t.dramOffset,
                                    t.sizeBytes))
      return fail("cuMemcpyDtoH", r);
  }
  d.cuMemFree(base);
  lap(ph.copyOut);
  return llvm::Error::success();
}
