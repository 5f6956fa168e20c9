//===- HostCodegen.h - Host ops -> native code / PTX ------------*- C++ -*-===//
//
// A host group is a run of consecutive graph ops placed on the host. It is
// outlined into `func.func @<entry>(%dram: memref<N x i8>)` whose operands
// and results are views of the NPU's DRAM image at their allocated offsets
// (the host and the NPU share one DRAM image, so a transfer is the host
// reading/writing those bytes), lowered through upstream MLIR and compiled
// ahead of time: a shared object for the CPU (ABI: `void entry(uint8_t
// *dram)`), optionally PTX kernels for a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_HOSTCODEGEN_H
#define SYSTOLE_CONVERSION_HOSTCODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace systole::host {

/// GpuEmulation: the GPU form (same kernels and launch table as the PTX)
/// compiled for the CPU, the kernels called once per block and thread; the
/// segment is a cpu_object. It tests the GPU lowering where no GPU is.
enum class HostTarget { Cpu, Gpu, GpuEmulation };

struct HostGroup {
  std::vector<mlir::Operation *> ops;
  /// DRAM offset of a value (op result or function argument).
  std::function<int64_t(mlir::Value)> dramOffset;
  /// Size of the DRAM view the function receives.
  int64_t dramBytes = 0;
  /// LLVM optimization level of the CPU code. Compile-time evaluation
  /// (tables, constant subgraphs) runs its code once and asks for 0: without
  /// fast-math flags or FP contraction every level computes the same values,
  /// the code is only slower.
  unsigned optLevel = 2;
};

/// A kernel launch of the GPU form: `entry` in the PTX module, a 3-D grid and
/// block, and the kernel's pointer arguments as DRAM byte offsets (each
/// parameter is `dram_base + offset`).
struct GpuLaunch {
  std::string kernel;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  std::vector<int64_t> argOffsets;
};

struct CompiledHostCode {
  std::string entry;
  std::vector<mlir::Value> inputs;   ///< read from DRAM, in order
  std::vector<mlir::Value> outputs;  ///< written to DRAM, in order
  std::vector<uint8_t> sharedObject; ///< empty when added to a HostLibrary
  std::string ptx;                   ///< empty unless HostTarget::Gpu
  std::vector<GpuLaunch> launches;
  /// Bytes of the device image the kernels use: the group's DRAM bytes, then
  /// the scratch area of its temporaries.
  int64_t deviceBytes = 0;
};

/// `params` of the ptx segment: [#inputs, device image bytes, #launches,
/// then per launch: grid x y z, block x y z, #args, the args' byte offsets in
/// the device image]; kernel i of the PTX module is "<entry>_k<i>".
std::vector<int64_t> encodePtxParams(const CompiledHostCode &code);

/// Builds the outlined module (graph ops still unconverted) for `group`.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
outlineHostGroup(const HostGroup &group, llvm::StringRef entry,
                 std::vector<mlir::Value> &inputs,
                 std::vector<mlir::Value> &outputs);

/// graph -> linalg -> bufferized loops -> LLVM dialect (bare-pointer ABI).
void populateHostCpuPipeline(mlir::OpPassManager &pm);
/// graph -> linalg (elementwise ops fused) -> one-shot bufferization to
/// identity-layout buffers: the common head of the CPU and GPU pipelines.
void populateHostBufferization(mlir::OpPassManager &pm);
/// Runs `pm` on `module`; a failure names `what` and the first diagnostic.
llvm::Error runHostPipeline(mlir::PassManager &pm, mlir::ModuleOp module,
                            llvm::StringRef what);
/// Bufferized code (linalg on buffers, scf, memref) -> LLVM dialect with the
/// bare-pointer ABI: the tail of the CPU pipeline.
void populateHostLoweringToLLVM(mlir::OpPassManager &pm);
void registerHostPipelines();

/// The target machine host code is compiled for: the host triple's baseline
/// CPU (generic x86-64), PIC, no FP contraction.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(unsigned optLevel = 2);
/// LLVM-dialect module -> LLVM IR in `llvmContext`.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateHostModule(mlir::ModuleOp module, llvm::LLVMContext &llvmContext);
/// Optimizes (O2 unless told) and compiles an LLVM module to a relocatable
/// object for the host target machine.
llvm::Expected<std::vector<uint8_t>> emitObject(llvm::Module &llvmModule,
                                                unsigned optLevel = 2);
/// LLVM-dialect module -> relocatable object for the host CPU (generic
/// x86-64 / the host triple, PIC, no FP contraction).
llvm::Expected<std::vector<uint8_t>> emitHostObject(mlir::ModuleOp module,
                                                    unsigned optLevel = 2);
/// Links an object into a shared object with the system linker (`ld
/// -shared`, binutils).
llvm::Expected<std::vector<uint8_t>>
linkSharedObject(llvm::ArrayRef<uint8_t> object);
/// emitHostObject, then linkSharedObject.
llvm::Expected<std::vector<uint8_t>>
compileToSharedObject(mlir::ModuleOp module, unsigned optLevel = 2);

/// GPU form of an outlined module: parallel loops mapped to blocks/threads,
/// kernels outlined and lowered to NVVM, serialized to PTX for `sm`; fills
/// the launch table the runtime replays with the CUDA driver API and the
/// device image size (DRAM bytes + scratch for temporaries).
llvm::Expected<std::string>
compileHostGroupToPtx(mlir::ModuleOp module, llvm::StringRef sm,
                      std::vector<GpuLaunch> &launches, int64_t &deviceBytes,
                      mlir::OwningOpRef<mlir::ModuleOp> *emulation = nullptr);

/// The host code of a whole model as one shared object: each group's CPU
/// form is added as it is lowered and all are optimized, compiled and linked
/// once at the end. Per group, the fixed costs of a compilation (target
/// machine, pass pipelines, an object file, a run of the system linker)
/// dominated the compile time of models with hundreds of small host groups.
class HostLibrary {
public:
  HostLibrary();
  ~HostLibrary();
  /// Adds a lowered (LLVM dialect) module whose only public symbol is
  /// `entry`; its other definitions become internal to it.
  llvm::Error add(mlir::ModuleOp module, llvm::StringRef entry);
  bool empty() const { return entries == 0; }
  /// Compiles and links everything added into one shared object.
  llvm::Expected<std::vector<uint8_t>> finish();

private:
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> linked;
  unsigned entries = 0;
};

/// Lowers and compiles one group: the CPU shared object (into `library`
/// when one is given and the target is not GpuEmulation, else into
/// `sharedObject`); with HostTarget::Gpu also PTX for `sm` (e.g. "sm_75")
/// and the launch table.
llvm::Expected<CompiledHostCode>
compileHostGroup(const HostGroup &group, llvm::StringRef entry,
                 HostTarget target, llvm::StringRef sm = "sm_75",
                 HostLibrary *library = nullptr);

} // namespace systole::host

#endif // SYSTOLE_CONVERSION_HOSTCODEGEN_H
