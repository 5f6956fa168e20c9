//===- HostLibrary.cpp - A model's host groups -> one shared object -------===//
//
// Each group is translated to LLVM IR as it is added and linked into one
// module (llvm::Linker); its helpers and constants are made internal first,
// so two groups' private names never collide and only the entries stay
// visible to dlopen/dlsym. The optimizer, the code generator and the system
// linker then run once per model.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/HostCodegen.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"

using namespace mlir;

namespace systole::host {

HostLibrary::HostLibrary() : context(std::make_unique<llvm::LLVMContext>()) {}
HostLibrary::~HostLibrary() = default;

llvm::Error HostLibrary::add(ModuleOp module, llvm::StringRef entry) {
  auto llvmModule = translateHostModule(module, *context);
  if (!llvmModule)
    return llvmModule.takeError();
  if (!(*llvmModule)->getFunction(entry))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "host code has no entry '" + entry + "'");
  for (llvm::GlobalValue &g : (*llvmModule)->global_values())
    if (!g.isDeclaration() && g.getName() != entry)
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
  ++entries;
  if (!linked) {
    linked = std::move(*llvmModule);
    return llvm::Error::success();
  }
  if (llvm::Linker::linkModules(*linked, std::move(*llvmModule)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "linking host entry '" + entry +
                                       "' into the model's host library "
                                       "failed");
  return llvm::Error::success();
}

llvm::Expected<std::vector<uint8_t>> HostLibrary::finish() {
  if (!linked)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the host library has no entries");
  auto object = emitObject(*linked);
  linked.reset();
  if (!object)
    return object.takeError();
  return linkSharedObject(*object);
}

} // namespace systole::host
