//===- CompileHostGroup.cpp - Outline, lower and compile one host group ---===//
#include "systole/Conversion/HostCodegen.h"

#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace systole::host {

namespace {

void registerBufferization(MLIRContext *ctx) {
  DialectRegistry registry;
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // Loops with tensor iter_args (scans, scatters, recurrences, TopK).
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  ctx->appendDialectRegistry(registry);
}

} // namespace

llvm::Expected<CompiledHostCode>
compileHostGroup(const HostGroup &group, llvm::StringRef entry,
                 HostTarget target, llvm::StringRef sm, HostLibrary *library) {
  CompiledHostCode out;
  out.entry = entry.str();
  auto module = outlineHostGroup(group, entry, out.inputs, out.outputs);
  if (!module)
    return module.takeError();
  MLIRContext *ctx = (*module)->getContext();
  registerBufferization(ctx);

  if (target == HostTarget::GpuEmulation) {
    // The GPU form on the CPU: the shared object replays the launch table.
    OwningOpRef<ModuleOp> emulation;
    auto ptx = compileHostGroupToPtx(**module, sm, out.launches,
                                     out.deviceBytes, &emulation);
    if (!ptx)
      return ptx.takeError();
    PassManager pm(ctx);
    populateHostLoweringToLLVM(pm);
    if (auto e = runHostPipeline(pm, *emulation, "GPU emulation lowering"))
      return std::move(e);
    auto so = compileToSharedObject(*emulation);
    if (!so)
      return so.takeError();
    out.sharedObject = std::move(*so);
    return out;
  }

  OwningOpRef<ModuleOp> gpuModule;
  if (target == HostTarget::Gpu)
    gpuModule = cast<ModuleOp>((**module)->clone());

  {
    PassManager pm(ctx);
    populateHostCpuPipeline(pm);
    if (auto e = runHostPipeline(pm, **module, "host CPU lowering"))
      return std::move(e);
  }
  if (library) {
    if (auto e = library->add(**module, entry))
      return std::move(e);
  } else {
    auto so = compileToSharedObject(**module, group.optLevel);
    if (!so)
      return so.takeError();
    out.sharedObject = std::move(*so);
  }

  if (target == HostTarget::Gpu) {
    auto ptx =
        compileHostGroupToPtx(*gpuModule, sm, out.launches, out.deviceBytes);
    if (!ptx)
      return ptx.takeError();
    out.ptx = std::move(*ptx);
  }
  return out;
}

std::vector<int64_t> encodePtxParams(const CompiledHostCode &code) {
  std::vector<int64_t> p = {static_cast<int64_t>(code.inputs.size()),
                            code.deviceBytes,
                            static_cast<int64_t>(code.launches.size())};
  for (const GpuLaunch &l : code.launches) {
    p.insert(p.end(), l.grid, l.grid + 3);
    p.insert(p.end(), l.block, l.block + 3);
    p.push_back(static_cast<int64_t>(l.argOffsets.size()));
    p.insert(p.end(), l.argOffsets.begin(), l.argOffsets.end());
  }
  return p;
}

} // namespace systole::host
