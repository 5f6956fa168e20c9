//===- EmitObject.cpp - LLVM dialect -> object file -> shared object ------===//
//
// Ahead-of-time compilation with libLLVM's TargetMachine for the host
// triple. The CPU is the triple's baseline ("x86-64" on x86), not the
// compiling machine's, because the .npu may run elsewhere. FP contraction is
// off so the code computes what the IR says. The object is linked into a
// shared object by the system linker (binutils `ld -shared`): dlopen needs a
// shared object, and a linker is the robust way to make one.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/HostCodegen.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace systole::host {

namespace {
llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}
} // namespace

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(unsigned optLevel) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string triple = llvm::sys::getDefaultTargetTriple();
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target)
    return error("no LLVM target for " + triple + ": " + err);
  llvm::Triple t(triple);
  std::string cpu = t.getArch() == llvm::Triple::x86_64 ? "x86-64" : "generic";
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, "", options, llvm::Reloc::PIC_, std::nullopt,
      optLevel == 0 ? llvm::CodeGenOptLevel::None
                    : llvm::CodeGenOptLevel::Default));
  if (!tm)
    return error("cannot create a target machine for " + triple);
  return std::move(tm);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
translateHostModule(ModuleOp module, llvm::LLVMContext &llvmContext) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "systole_host");
  if (!llvmModule)
    return error("translation of the host code to LLVM IR failed");
  return std::move(llvmModule);
}

llvm::Expected<std::vector<uint8_t>> emitObject(llvm::Module &llvmModule,
                                                unsigned optLevel) {
  auto tm = createHostTargetMachine(optLevel);
  if (!tm)
    return tm.takeError();
  llvmModule.setDataLayout((*tm)->createDataLayout());
  llvmModule.setTargetTriple((*tm)->getTargetTriple().str());
  if (auto e = makeOptimizingTransformer(optLevel, 0, tm->get())(&llvmModule))
    return std::move(e);

  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr,
                                 llvm::CodeGenFileType::ObjectFile))
    return error("the target cannot emit object files");
  pm.run(llvmModule);
  return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

llvm::Expected<std::vector<uint8_t>> emitHostObject(ModuleOp module,
                                                    unsigned optLevel) {
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateHostModule(module, llvmContext);
  if (!llvmModule)
    return llvmModule.takeError();
  return emitObject(**llvmModule, optLevel);
}

llvm::Expected<std::vector<uint8_t>>
linkSharedObject(llvm::ArrayRef<uint8_t> object) {
  auto ld = llvm::sys::findProgramByName("ld");
  if (!ld)
    return error("the system linker 'ld' was not found (install binutils); "
                 "host code is linked into a shared object with it");
  llvm::SmallString<128> obj, so;
  int fd;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("systole-host", "o", fd, obj))
    return error("cannot create a temporary file: " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(object.data()), object.size());
  }
  if (auto ec = llvm::sys::fs::createTemporaryFile("systole-host", "so", so))
    return error("cannot create a temporary file: " + ec.message());
  std::string message;
  llvm::SmallVector<llvm::StringRef> args = {
      *ld, "-shared", "-z", "noexecstack", "--hash-style=both", "-o", so, obj};
  int rc =
      llvm::sys::ExecuteAndWait(*ld, args, std::nullopt, {}, 0, 0, &message);
  llvm::sys::fs::remove(obj);
  if (rc != 0) {
    llvm::sys::fs::remove(so);
    return error("ld -shared failed (exit " + llvm::Twine(rc) + ") " + message);
  }
  auto buf = llvm::MemoryBuffer::getFile(so, false, false);
  llvm::sys::fs::remove(so);
  if (!buf)
    return error("cannot read the linked shared object");
  return std::vector<uint8_t>((*buf)->getBufferStart(), (*buf)->getBufferEnd());
}

llvm::Expected<std::vector<uint8_t>> compileToSharedObject(ModuleOp module,
                                                           unsigned optLevel) {
  auto object = emitHostObject(module, optLevel);
  if (!object)
    return object.takeError();
  return linkSharedObject(*object);
}

} // namespace systole::host
