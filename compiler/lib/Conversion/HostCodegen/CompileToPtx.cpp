//===- CompileToPtx.cpp - Outlined host group -> gpu -> nvvm -> PTX -------===//
//
// The GPU form of a host group, from the same outlined module as the CPU
// form (graph ops over views of the DRAM image):
//
//   graph -> linalg -> one-shot bufferize   (as for the CPU, no deallocation)
//   linalg -> scf.parallel                  (reductions stay scf.for inside)
//   temporaries (memref.alloc) -> views of a scratch area placed after the
//     group's DRAM bytes in the device image (static offsets)
//   scf.parallel nested in a loop -> scf.for; top-level code that is not a
//     parallel loop -> a one-iteration scf.parallel (one thread)
//   every top-level scf.parallel collapsed to 1-D and tiled by up to 256:
//     tiles -> block x, elements -> thread x (gpu.loop_dim_map)
//   convert-parallel-loops-to-gpu, gpu-kernel-outlining, kernels merged into
//     one gpu.module and renamed <entry>_k<i> in launch order
//   lower-affine, scf -> cf, convert-gpu-to-nvvm (bare pointers), LLVM IR
//     (libdevice calls with a native intrinsic -> the intrinsic) -> NVPTX
//     backend (libLLVM) -> PTX text
//
// The host side of the GPU form is never compiled: the launches are static
// (constant grids, every kernel argument a pointer at a constant offset of
// the device image), so they are recorded as a launch table the runtime
// replays with the CUDA driver API.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/HostCodegen.h"
#include "systole/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Target/TargetMachine.h"

#include <numeric>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;

namespace systole::host {

namespace {

/// Threads per block of a launch (elements of a collapsed loop per tile).
constexpr int64_t kBlockSize = 256;
/// Alignment of scratch buffers in the device image.
constexpr int64_t kScratchAlign = 256;

llvm::Error gpuError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "GPU lowering: " + msg.str());
}

/// An scf.parallel inside another loop runs sequentially in its thread.
llvm::Error sequentializeNestedParallel(func::FuncOp f) {
  llvm::SmallVector<scf::ParallelOp> nested;
  f.walk([&](scf::ParallelOp p) {
    if (p->getParentOp() != f.getOperation())
      nested.push_back(p);
  });
  for (scf::ParallelOp p : nested) { // post-order: innermost first
    if (p.getNumResults())
      return gpuError("a nested parallel loop with reductions");
    OpBuilder b(p);
    llvm::SmallVector<Value> ivs;
    for (unsigned d = 0; d < p.getNumLoops(); ++d) {
      auto loop = b.create<scf::ForOp>(p.getLoc(), p.getLowerBound()[d],
                                       p.getUpperBound()[d], p.getStep()[d]);
      ivs.push_back(loop.getInductionVar());
      b.setInsertionPointToStart(loop.getBody());
    }
    Block &body = *p.getBody();
    for (unsigned d = 0; d < ivs.size(); ++d)
      body.getArgument(d).replaceAllUsesWith(ivs[d]);
    b.getInsertionBlock()->getOperations().splice(
        b.getInsertionPoint(), body.getOperations(), body.begin(),
        std::prev(body.end()));
    p.erase();
  }
  return llvm::Error::success();
}

void collapseTopLevelLoops(func::FuncOp f) {
  llvm::SmallVector<scf::ParallelOp> loops;
  for (Operation &op : f.getBody().front())
    if (auto p = dyn_cast<scf::ParallelOp>(op); p && p.getNumLoops() > 1)
      loops.push_back(p);
  IRRewriter rewriter(f.getContext());
  for (scf::ParallelOp p : loops) {
    std::vector<unsigned> all(p.getNumLoops());
    std::iota(all.begin(), all.end(), 0u);
    rewriter.setInsertionPoint(p);
    collapseParallelLoops(rewriter, p, {all});
  }
}

/// Temporaries of the bufferized code become views of a scratch area after
/// the group's DRAM bytes; the function's DRAM argument grows to cover it.
/// Returns the device image size.
llvm::Expected<int64_t> placeTemporaries(func::FuncOp f, int64_t dramBytes) {
  Value dram = f.getArgument(0);
  int64_t cursor = llvm::alignTo(dramBytes, kScratchAlign);
  llvm::SmallVector<Operation *> erase;
  llvm::Error err = llvm::Error::success();
  f.walk([&](Operation *op) {
    if (isa<memref::DeallocOp>(op)) {
      erase.push_back(op);
      return;
    }
    if (!isa<memref::AllocOp, memref::AllocaOp>(op))
      return;
    auto type = cast<MemRefType>(op->getResult(0).getType());
    if (op->getParentOp() != f.getOperation() || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() || type.getMemorySpace()) {
      if (!err)
        err = gpuError("a temporary buffer that is not static and top-level");
      return;
    }
    OpBuilder b(op);
    Value off = b.create<arith::ConstantIndexOp>(op->getLoc(), cursor);
    Value view =
        b.create<memref::ViewOp>(op->getLoc(), type, dram, off, ValueRange{});
    op->getResult(0).replaceAllUsesWith(view);
    erase.push_back(op);
    int64_t bytes = type.getNumElements() *
                    llvm::divideCeil(type.getElementTypeBitWidth(), int64_t(8));
    cursor = llvm::alignTo(cursor + bytes, kScratchAlign);
  });
  if (err)
    return std::move(err);
  for (Operation *op : erase)
    op->erase();
  auto dramType =
      MemRefType::get({cursor}, IntegerType::get(f.getContext(), 8));
  dram.setType(dramType);
  f.setFunctionType(FunctionType::get(f.getContext(), {dramType}, {}));
  return cursor;
}

/// Ops that stay on the (never executed) host side of the GPU form: they
/// only name memory or constants.
bool isHostSideOp(Operation *op) {
  return isa<arith::ConstantOp, memref::ViewOp, memref::SubViewOp,
             memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp,
             memref::ReinterpretCastOp, memref::GetGlobalOp, scf::ParallelOp,
             func::ReturnOp>(op);
}

/// Runs of top-level code that are not parallel loops (a reduction over all
/// dimensions, a scalar store) become one-iteration parallel loops.
llvm::Error wrapSequentialCode(func::FuncOp f) {
  llvm::SmallVector<llvm::SmallVector<Operation *>> runs(1);
  for (Operation &op : f.getBody().front()) {
    if (isHostSideOp(&op)) {
      if (!runs.back().empty())
        runs.emplace_back();
      continue;
    }
    runs.back().push_back(&op);
  }
  for (auto &run : runs) {
    if (run.empty())
      continue;
    OpBuilder b(run.front());
    Location loc = run.front()->getLoc();
    Value c0 = b.create<arith::ConstantIndexOp>(loc, 0);
    Value c1 = b.create<arith::ConstantIndexOp>(loc, 1);
    auto p = b.create<scf::ParallelOp>(loc, ValueRange{c0}, ValueRange{c1},
                                       ValueRange{c1});
    for (Operation *op : run)
      op->moveBefore(p.getBody()->getTerminator());
    for (Operation *op : run)
      for (Operation *user : op->getUsers())
        if (!p->isProperAncestor(user))
          return gpuError("a scalar computed outside the kernels is used by '" +
                          user->getName().getStringRef() + "'");
  }
  return llvm::Error::success();
}

std::optional<int64_t> constantTripCount(scf::ParallelOp p) {
  auto lb = getConstantIntValue(p.getLowerBound()[0]);
  auto ub = getConstantIntValue(p.getUpperBound()[0]);
  auto step = getConstantIntValue(p.getStep()[0]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeil(*ub - *lb, *step));
}

/// Tiles every top-level 1-D parallel loop and maps tiles to blocks and
/// elements to threads.
llvm::Error mapToGrid(func::FuncOp f) {
  llvm::SmallVector<scf::ParallelOp> loops;
  for (Operation &op : f.getBody().front())
    if (auto p = dyn_cast<scf::ParallelOp>(op))
      loops.push_back(p);
  MLIRContext *ctx = f.getContext();
  Builder b(ctx);
  auto dim = [&](gpu::Processor proc) {
    return b.getAttr<gpu::ParallelLoopDimMappingAttr>(
        proc, b.getDimIdentityMap(), b.getDimIdentityMap());
  };
  for (scf::ParallelOp p : loops) {
    if (p.getNumLoops() != 1 || p.getNumResults())
      return gpuError("a parallel loop that did not collapse to one dimension");
    auto trips = constantTripCount(p);
    if (!trips)
      return gpuError("a parallel loop without constant bounds");
    if (*trips <= kBlockSize) {
      (void)gpu::setMappingAttr(p, {dim(gpu::Processor::ThreadX)});
      continue;
    }
    auto [outer, inner] = scf::tileParallelLoop(p, {kBlockSize},
                                                /*noMinMaxBounds=*/true);
    (void)gpu::setMappingAttr(outer, {dim(gpu::Processor::BlockX)});
    (void)gpu::setMappingAttr(inner, {dim(gpu::Processor::ThreadX)});
  }
  return llvm::Error::success();
}

/// Kernels read constants (weights folded into the group) from device
/// globals: get_global and scalar constants move into the launch.
llvm::Error sinkIntoLaunches(func::FuncOp f) {
  llvm::Error err = llvm::Error::success();
  f.walk([&](gpu::LaunchOp launch) {
    if (failed(sinkOperationsIntoLaunchOp(
            launch,
            [](Operation *op) {
              return isa<arith::ConstantOp, memref::GetGlobalOp, memref::DimOp,
                         arith::SelectOp, arith::CmpIOp>(op);
            })) &&
        !err)
      err = gpuError("cannot sink constants into a kernel");
  });
  return err;
}

/// Byte offset in the device image of the aligned pointer of `v` (what a
/// bare-pointer kernel argument receives).
std::optional<int64_t> deviceOffset(Value v, Value dram) {
  if (v == dram)
    return 0;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto view = dyn_cast<memref::ViewOp>(def)) {
    auto shift = getConstantIntValue(view.getByteShift());
    auto base = deviceOffset(view.getSource(), dram);
    if (!shift || !base || !view.getSizes().empty())
      return std::nullopt;
    return *base + *shift;
  }
  // These keep the source's aligned pointer (offsets live in the type).
  if (isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
          memref::CastOp, memref::ReinterpretCastOp>(def))
    return deviceOffset(def->getOperand(0), dram);
  return std::nullopt;
}

/// Moves the outlined kernels into one gpu.module in launch order, named
/// `<entry>_k<i>`, and records the launch table.
llvm::Expected<gpu::GPUModuleOp>
collectKernels(ModuleOp module, func::FuncOp f, llvm::StringRef entry,
               std::vector<GpuLaunch> &launches) {
  MLIRContext *ctx = module.getContext();
  llvm::SmallVector<gpu::GPUModuleOp> outlined(
      module.getOps<gpu::GPUModuleOp>());
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto kernels = b.create<gpu::GPUModuleOp>(f.getLoc(), "systole_kernels");
  SymbolTable table(kernels);
  b.setInsertionPointToStart(kernels.getBody());
  for (gpu::GPUModuleOp m : outlined)
    for (auto g : m.getOps<memref::GlobalOp>())
      if (!table.lookup(g.getSymName()))
        table.insert(g->clone());

  llvm::SmallVector<gpu::LaunchFuncOp> calls(f.getOps<gpu::LaunchFuncOp>());
  for (gpu::LaunchFuncOp call : calls) {
    GpuLaunch l;
    l.kernel = (entry + "_k" + llvm::Twine(launches.size())).str();
    Value sizes[6] = {call.getGridSizeX(),  call.getGridSizeY(),
                      call.getGridSizeZ(),  call.getBlockSizeX(),
                      call.getBlockSizeY(), call.getBlockSizeZ()};
    for (int d = 0; d < 6; ++d) {
      auto c = getConstantIntValue(sizes[d]);
      if (!c || *c < 1)
        return gpuError("a kernel launch without a constant grid");
      (d < 3 ? l.grid[d] : l.block[d - 3]) = *c;
    }
    for (Value a : call.getKernelOperands()) {
      auto off = isa<MemRefType>(a.getType())
                     ? deviceOffset(a, f.getArgument(0))
                     : std::nullopt;
      if (!off)
        return gpuError(
            "kernel '" + l.kernel +
            "' takes an argument that is not a buffer at a constant "
            "offset of the DRAM image");
      l.argOffsets.push_back(*off);
    }
    auto fn = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        call, call.getKernel());
    if (!fn)
      return gpuError("launch of an unknown kernel");
    auto clone = cast<gpu::GPUFuncOp>(fn->clone());
    clone.setName(l.kernel);
    table.insert(clone);
    launches.push_back(std::move(l));
  }
  f.erase();
  for (gpu::GPUModuleOp m : outlined)
    m.erase();
  return kernels;
}

llvm::Expected<std::string> emitPtx(ModuleOp llvmModule, llvm::StringRef sm) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  llvmModule->getContext()->appendDialectRegistry(registry);

  const std::string triple = "nvptx64-nvidia-cuda";
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target)
    return gpuError("this LLVM has no NVPTX target: " + err);
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Strict; // same values as the CPU
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, sm, "", options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Default));
  if (!tm)
    return gpuError("cannot create an NVPTX target machine for " + sm);
  if (!tm->getMCSubtargetInfo()->isCPUStringValid(sm))
    return gpuError("'" + sm +
                    "' is not a GPU architecture LLVM's NVPTX "
                    "backend knows (e.g. sm_75, sm_80, sm_90)");

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> m =
      translateModuleToLLVMIR(llvmModule, llvmContext, "systole_kernels");
  if (!m)
    return gpuError("translation of the kernels to LLVM IR failed");
  m->setDataLayout(tm->createDataLayout());
  m->setTargetTriple(triple);
  // convert-gpu-to-nvvm turns math ops into libdevice calls; those with an
  // LLVM intrinsic the NVPTX backend selects natively (correctly rounded,
  // as on the CPU) become the intrinsic, so no libdevice is needed.
  static const std::pair<const char *, llvm::Intrinsic::ID> natives[] = {
      {"__nv_floorf", llvm::Intrinsic::floor},
      {"__nv_ceilf", llvm::Intrinsic::ceil},
      {"__nv_truncf", llvm::Intrinsic::trunc},
      {"__nv_rintf", llvm::Intrinsic::rint},
      {"__nv_sqrtf", llvm::Intrinsic::sqrt},
      {"__nv_fabsf", llvm::Intrinsic::fabs},
      {"__nv_fmaf", llvm::Intrinsic::fma},
      {"__nv_fminf", llvm::Intrinsic::minnum},
      {"__nv_fmaxf", llvm::Intrinsic::maxnum},
      {"__nv_copysignf", llvm::Intrinsic::copysign}};
  for (auto [name, id] : natives)
    if (llvm::Function *fn = m->getFunction(name); fn && fn->isDeclaration()) {
      llvm::Function *intr = llvm::Intrinsic::getDeclaration(
          m.get(), id, {llvm::Type::getFloatTy(llvmContext)});
      if (fn->getFunctionType() != intr->getFunctionType())
        continue;
      fn->replaceAllUsesWith(intr);
      fn->eraseFromParent();
    }
  if (auto e = makeOptimizingTransformer(2, 0, tm.get())(m.get()))
    return std::move(e);
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              llvm::CodeGenFileType::AssemblyFile))
    return gpuError("the NVPTX backend cannot emit PTX");
  pm.run(*m);
  std::string ptx(buffer.str());
  // Everything must be inside the module: no libdevice, no libc.
  if (size_t at = ptx.find(".extern .func"); at != std::string::npos) {
    size_t end = ptx.find('(', at);
    return gpuError("the PTX calls an external function (" +
                    ptx.substr(at, end == std::string::npos ? 40 : end - at) +
                    ")");
  }
  return ptx;
}

/// The GPU form for the CPU, to test it where no GPU is: every kernel
/// becomes `func @<kernel>_emu(%block_x, %thread_x, args...)` (other ids 0,
/// dims from the launch), and `@<entry>(%dram)` replays the launch table over
/// a private device image (the group's DRAM bytes copied in and out, the
/// scratch area after them), each argument a view at its table offset.
llvm::Expected<OwningOpRef<ModuleOp>>
buildEmulation(gpu::GPUModuleOp kernels, llvm::StringRef entry,
               llvm::ArrayRef<GpuLaunch> launches, int64_t dramBytes,
               int64_t deviceBytes) {
  MLIRContext *ctx = kernels.getContext();
  Location loc = kernels.getLoc();
  OwningOpRef<ModuleOp> emu = ModuleOp::create(loc);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(emu->getBody());
  for (auto g : kernels.getOps<memref::GlobalOp>())
    b.clone(*g);
  Type index = b.getIndexType();
  std::vector<func::FuncOp> emuFns;
  for (const GpuLaunch &l : launches) {
    auto k = kernels.lookupSymbol<gpu::GPUFuncOp>(l.kernel);
    if (!k || l.grid[1] != 1 || l.grid[2] != 1 || l.block[1] != 1 ||
        l.block[2] != 1)
      return gpuError("cannot emulate kernel '" + l.kernel + "'");
    llvm::SmallVector<Type> args = {index, index};
    llvm::append_range(args, k.getArgumentTypes());
    auto fn = b.create<func::FuncOp>(loc, l.kernel + "_emu",
                                     b.getFunctionType(args, {}));
    fn.setPrivate();
    IRMapping map;
    k.getBody().cloneInto(&fn.getBody(), map);
    Block &entryBlock = fn.getBody().front();
    Value bx = entryBlock.insertArgument(0u, index, loc);
    Value tx = entryBlock.insertArgument(1u, index, loc);
    llvm::Error err = llvm::Error::success();
    fn.walk([&](Operation *op) {
      OpBuilder ob(op);
      auto dim = [&](gpu::Dimension d, int64_t x) -> Value {
        return ob.create<arith::ConstantIndexOp>(
            op->getLoc(), d == gpu::Dimension::x ? x : 1);
      };
      Value v;
      if (auto o = dyn_cast<gpu::BlockIdOp>(op))
        v = o.getDimension() == gpu::Dimension::x
                ? bx
                : ob.create<arith::ConstantIndexOp>(op->getLoc(), 0);
      else if (auto o = dyn_cast<gpu::ThreadIdOp>(op))
        v = o.getDimension() == gpu::Dimension::x
                ? tx
                : ob.create<arith::ConstantIndexOp>(op->getLoc(), 0);
      else if (auto o = dyn_cast<gpu::BlockDimOp>(op))
        v = dim(o.getDimension(), l.block[0]);
      else if (auto o = dyn_cast<gpu::GridDimOp>(op))
        v = dim(o.getDimension(), l.grid[0]);
      else if (isa<gpu::ReturnOp>(op)) {
        ob.create<func::ReturnOp>(op->getLoc());
        op->erase();
        return;
      } else if (op->getDialect() && isa<gpu::GPUDialect>(op->getDialect()) &&
                 !err)
        err = gpuError("cannot emulate '" + op->getName().getStringRef() + "'");
      if (v) {
        op->getResult(0).replaceAllUsesWith(v);
        op->erase();
      }
    });
    if (err)
      return std::move(err);
    emuFns.push_back(fn);
  }
  // The driver.
  auto dramType = MemRefType::get({dramBytes}, b.getI8Type());
  auto driver =
      b.create<func::FuncOp>(loc, entry, b.getFunctionType({dramType}, {}));
  b.setInsertionPointToStart(driver.addEntryBlock());
  Value dram = driver.getArgument(0);
  Value dev = b.create<memref::AllocOp>(
      loc, MemRefType::get({deviceBytes}, b.getI8Type()));
  Value low = b.create<memref::SubViewOp>(loc, dev, llvm::ArrayRef<int64_t>{0},
                                          llvm::ArrayRef<int64_t>{dramBytes},
                                          llvm::ArrayRef<int64_t>{1});
  b.create<linalg::CopyOp>(loc, dram, low);
  Value c0 = b.create<arith::ConstantIndexOp>(loc, 0);
  Value c1 = b.create<arith::ConstantIndexOp>(loc, 1);
  for (auto [l, fn] : llvm::zip(launches, emuFns)) {
    llvm::SmallVector<Value> args = {nullptr, nullptr};
    for (auto [off, type] :
         llvm::zip(l.argOffsets, fn.getArgumentTypes().drop_front(2))) {
      auto mt = cast<MemRefType>(type);
      Value o = b.create<arith::ConstantIndexOp>(loc, off);
      if (mt.getLayout().isIdentity()) {
        args.push_back(b.create<memref::ViewOp>(loc, mt, dev, o, ValueRange{}));
        continue;
      }
      // Strided type with a static offset: the pointer is the aligned
      // base, elements at base[offset + sum(i * stride)].
      llvm::SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(getStridesAndOffset(mt, strides, offset)))
        return gpuError("cannot emulate an argument of kernel '" + l.kernel +
                        "'");
      int64_t extent = offset + 1;
      for (auto [size, stride] : llvm::zip(mt.getShape(), strides))
        extent += (size - 1) * stride;
      Value flat = b.create<memref::ViewOp>(
          loc, MemRefType::get({extent}, mt.getElementType()), dev, o,
          ValueRange{});
      args.push_back(b.create<memref::ReinterpretCastOp>(
          loc, mt, flat, offset, mt.getShape(), strides));
    }
    Value grid = b.create<arith::ConstantIndexOp>(loc, l.grid[0]);
    Value block = b.create<arith::ConstantIndexOp>(loc, l.block[0]);
    b.create<scf::ForOp>(
        loc, c0, grid, c1, ValueRange{},
        [&](OpBuilder &ob, Location, Value bx, ValueRange) {
          ob.create<scf::ForOp>(
              loc, c0, block, c1, ValueRange{},
              [&](OpBuilder &ib, Location, Value tx, ValueRange) {
                args[0] = bx;
                args[1] = tx;
                ib.create<func::CallOp>(loc, fn, args);
                ib.create<scf::YieldOp>(loc);
              });
          ob.create<scf::YieldOp>(loc);
        });
  }
  b.create<linalg::CopyOp>(loc, low, dram);
  b.create<memref::DeallocOp>(loc, dev);
  b.create<func::ReturnOp>(loc);
  return emu;
}

} // namespace

llvm::Expected<std::string>
compileHostGroupToPtx(ModuleOp module, llvm::StringRef sm,
                      std::vector<GpuLaunch> &launches, int64_t &deviceBytes,
                      OwningOpRef<ModuleOp> *emulation) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<gpu::GPUDialect, scf::SCFDialect, memref::MemRefDialect,
                   LLVM::LLVMDialect, NVVM::NVVMDialect>();
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  if (funcs.size() != 1)
    return gpuError("expected one outlined host function");
  func::FuncOp f = funcs.front();
  std::string entry = f.getName().str();
  auto dramType = cast<MemRefType>(f.getArgument(0).getType());
  int64_t dramBytes = dramType.getDimSize(0);

  {
    PassManager pm(ctx);
    populateHostBufferization(pm);
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
    pm.addPass(conversion::createApproximateMath());
    pm.addPass(createCanonicalizerPass());
    if (auto e = runHostPipeline(
            pm, module, "GPU lowering: bufferization to parallel loops"))
      return std::move(e);
  }
  if (auto e = sequentializeNestedParallel(f))
    return std::move(e);
  collapseTopLevelLoops(f);
  {
    PassManager pm(ctx);
    pm.addPass(createCanonicalizerPass());
    if (auto e = runHostPipeline(pm, module,
                                 "GPU lowering: canonicalization of the loops"))
      return std::move(e);
  }
  auto bytes = placeTemporaries(f, dramBytes);
  if (!bytes)
    return bytes.takeError();
  deviceBytes = *bytes;
  if (auto e = wrapSequentialCode(f))
    return std::move(e);
  if (auto e = mapToGrid(f))
    return std::move(e);
  {
    PassManager pm(ctx);
    pm.addPass(createParallelLoopToGpuPass());
    pm.addPass(createCanonicalizerPass());
    if (auto e = runHostPipeline(pm, module,
                                 "GPU lowering: convert-parallel-loops-to-gpu"))
      return std::move(e);
  }
  for (Operation &op : f.getBody().front())
    if (!isa<arith::ConstantOp, memref::ViewOp, memref::SubViewOp,
             memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp,
             memref::ReinterpretCastOp, memref::GetGlobalOp, gpu::LaunchOp,
             func::ReturnOp>(op))
      return gpuError("'" + op.getName().getStringRef() +
                      "' stayed outside the kernels");
  if (auto e = sinkIntoLaunches(f))
    return std::move(e);
  {
    PassManager pm(ctx);
    pm.addPass(createGpuKernelOutliningPass());
    if (auto e =
            runHostPipeline(pm, module, "GPU lowering: gpu-kernel-outlining"))
      return std::move(e);
  }
  auto kernels = collectKernels(module, f, entry, launches);
  if (!kernels)
    return kernels.takeError();
  // Globals the kernels no longer need (the host function is gone).
  for (auto g : llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
    g.erase();
  if (emulation) {
    auto emu =
        buildEmulation(*kernels, entry, launches, dramBytes, deviceBytes);
    if (!emu)
      return emu.takeError();
    *emulation = std::move(*emu);
  }
  // The polynomial approximations use math.fma, which convert-gpu-to-nvvm
  // leaves alone: the LLVM intrinsic (fma.rn.f32, as the CPU's fma).
  kernels->walk([](math::FmaOp fma) {
    OpBuilder b(fma);
    fma.replaceAllUsesWith(
        b.create<LLVM::FMAOp>(fma.getLoc(), fma.getA(), fma.getB(), fma.getC())
            .getResult());
    fma.erase();
  });
  // Likewise math.roundeven (ONNX Round, quantizing steps): the LLVM
  // intrinsic, cvt.rni in PTX.
  kernels->walk([](math::RoundEvenOp r) {
    OpBuilder b(r);
    r.replaceAllUsesWith(
        b.create<LLVM::RoundEvenOp>(r.getLoc(), r.getOperand()).getResult());
    r.erase();
  });
  {
    PassManager pm(ctx);
    OpPassManager &k = pm.nest<gpu::GPUModuleOp>();
    k.addPass(createLowerAffinePass());
    k.addPass(createConvertSCFToCFPass());
    ConvertGpuOpsToNVVMOpsOptions nvvm;
    nvvm.useBarePtrCallConv = true;
    nvvm.indexBitwidth = 64;
    k.addPass(createConvertGpuOpsToNVVMOps(nvvm));
    pm.addPass(createReconcileUnrealizedCastsPass());
    if (auto e =
            runHostPipeline(pm, module, "GPU lowering: convert-gpu-to-nvvm"))
      return std::move(e);
  }
  // The kernels' LLVM dialect, alone in a builtin module, to LLVM IR.
  OwningOpRef<ModuleOp> llvmModule = ModuleOp::create(module.getLoc());
  {
    Block *dst = llvmModule->getBody();
    for (Operation &op :
         llvm::make_early_inc_range(kernels->getBody()->getOperations()))
      if (op.getDialect() && op.getDialect()->getNamespace() ==
                                 LLVM::LLVMDialect::getDialectNamespace())
        op.moveBefore(dst, dst->end());
  }
  return emitPtx(*llvmModule, sm);
}

} // namespace systole::host
