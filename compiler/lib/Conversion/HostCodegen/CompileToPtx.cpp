//===- CompileToPtx.cpp - Outlined host group -> gpu -> nvvm -> PTX -------===//
#include "systole/Conversion/HostCodegen.h"

using namespace mlir;

namespace systole::host {

llvm::Expected<std::string>
compileHostGroupToPtx(ModuleOp module, llvm::StringRef sm,
                      std::vector<GpuLaunch> &launches) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "--host-target gpu is not implemented yet");
}

} // namespace systole::host
