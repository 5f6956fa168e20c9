//===- EmitProgram.cpp - Annotated graph -> .npu program ------------------===//
//
// Tensors become descriptors at their allocated DRAM offsets; runs of NPU ops
// become NPU segments (one barrier-separated layer per op), and boundary ops
// become builtin host-kernel segments. Constants the generators create are
// placed after the activation arena.
//
//===----------------------------------------------------------------------===//
#include "HostWork.h"
#include "LayerCodegen.h"

#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Emit.h"
#include "systole/Target/NPU/PlacementSummary.h"

#include "systole/Conversion/HostCodegen.h"
#include "systole/ISA/Timing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"

using namespace mlir;

namespace systole::npu {

namespace {

llvm::Expected<isa::DType> dtypeOf(Operation *where, Type t) {
  Type e = getElementTypeOrSelf(t);
  if (auto q = dyn_cast<quant::QuantizedType>(e)) {
    if (q.getStorageTypeIntegralWidth() == 8)
      return q.isSigned() ? isa::DType::Int8 : isa::DType::UInt8;
    if (q.getStorageTypeIntegralWidth() == 32)
      return isa::DType::Int32;
  }
  if (e.isF32())
    return isa::DType::Float32;
  if (e.isF64())
    return isa::DType::Float64;
  if (e.isF16())
    return isa::DType::Float16;
  if (e.isBF16())
    return isa::DType::BFloat16;
  if (auto i = dyn_cast<IntegerType>(e)) {
    switch (i.getWidth()) {
    case 1:
      return isa::DType::Bool;
    case 8:
      return i.isUnsigned() ? isa::DType::UInt8 : isa::DType::Int8;
    case 16:
      return isa::DType::Int16;
    case 32:
      return isa::DType::Int32;
    case 64:
      return isa::DType::Int64;
    }
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return loweringError(where, "tensor type " + os.str() + " has no .npu dtype");
}

std::optional<isa::QuantParams> quantOf(Type t) {
  Type e = getElementTypeOrSelf(t);
  isa::QuantParams q;
  if (auto u = dyn_cast<quant::UniformQuantizedType>(e)) {
    q.scales = {static_cast<float>(u.getScale())};
    q.zeroPoints = {static_cast<int32_t>(u.getZeroPoint())};
    return q;
  }
  if (auto a = dyn_cast<quant::UniformQuantizedPerAxisType>(e)) {
    for (double s : a.getScales())
      q.scales.push_back(static_cast<float>(s));
    for (int64_t z : a.getZeroPoints())
      q.zeroPoints.push_back(static_cast<int32_t>(z));
    q.axis = a.getQuantizedDimension();
    return q;
  }
  return std::nullopt;
}

uint64_t macsOf(Operation *op) {
  if (op->hasAttr(graph::kDataMovementAttr))
    return 0; // a channel gather: copies, not the model's MACs
  if (auto conv = dyn_cast<graph::Conv2DOp>(op)) {
    auto out = cast<ShapedType>(conv.getOutput().getType());
    auto w = cast<ShapedType>(conv.getFilter().getType());
    return out.getNumElements() * w.getDimSize(0) * w.getDimSize(1) *
           w.getDimSize(2);
  }
  if (auto mm = dyn_cast<graph::MatMulOp>(op)) {
    auto out = cast<ShapedType>(mm.getOutput().getType());
    return out.getNumElements() *
           cast<ShapedType>(mm.getLhs().getType()).getShape().back();
  }
  return 0;
}

std::string describePlan(Operation *op) {
  std::string s = op->getName().stripDialect().str();
  if (std::optional<TilePlan> plan = getTilePlan(op))
    for (auto [name, field] : TilePlan::fields())
      if (std::optional<int64_t> v = (*plan).*field)
        s += " " + name.str() + "=" + std::to_string(*v);
  return s;
}

} // namespace

/// Builtin kernels run the model boundary: quantize/dequantize, and
/// transposes of graph inputs or of non-float tensors. Every other host op
/// is compiled (and grouped with its neighbours into one function).
static bool isBuiltinHostOp(Operation &op) {
  if (llvm::isa<graph::QuantizeOp, graph::DequantizeOp>(op))
    return true;
  if (auto t = dyn_cast<graph::TransposeOp>(op))
    return !getElementTypeOrSelf(t.getInput().getType()).isF32() ||
           llvm::isa<BlockArgument>(t.getInput()) ||
           llvm::isa_and_nonnull<graph::DequantizeOp>(
               t.getInput().getDefiningOp());
  return false;
}

llvm::Expected<EmittedProgram> emitProgram(func::FuncOp func,
                                           const isa::HwConfig &hw,
                                           std::vector<LayerReport> *report,
                                           const EmitOptions &options) {
  isa::Program prog;
  prog.producer = "systole compile";
  prog.config = hw;
  // Before host code generation, which outlines the host ops' regions.
  prog.placement = summarizePlacement(func);

  // Tensors: every non-constant value with a DRAM offset.
  llvm::DenseMap<Value, uint32_t> tensorIndex;
  llvm::DenseSet<Value> returned;
  Operation *terminator = func.getBody().front().getTerminator();
  for (Value v : terminator->getOperands())
    returned.insert(v);
  unsigned unnamed = 0;
  auto addTensor = [&](Value v, std::string name,
                       isa::TensorKind kind) -> llvm::Error {
    auto offset = getDramOffset(v);
    if (!offset)
      return loweringError(func, "a tensor has no DRAM offset (run "
                                 "npu-allocate-dram)");
    auto dtype = dtypeOf(func, v.getType());
    if (!dtype)
      return dtype.takeError();
    isa::TensorDesc t;
    t.name = name.empty() ? "t" + std::to_string(unnamed++) : name;
    t.kind = kind;
    t.dtype = *dtype;
    auto shaped = cast<ShapedType>(v.getType());
    t.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    t.quant = quantOf(v.getType());
    t.dramOffset = static_cast<uint64_t>(*offset);
    t.sizeBytes = static_cast<uint64_t>(storedBytes(v.getType()));
    tensorIndex[v] = static_cast<uint32_t>(prog.tensors.size());
    prog.tensors.push_back(std::move(t));
    return llvm::Error::success();
  };
  for (BlockArgument arg : func.getArguments()) {
    auto name =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "graph.name");
    if (auto e = addTensor(arg, name ? name.str() : "", isa::TensorKind::Input))
      return std::move(e);
    // Unsigned integers are signless in the IR; the attribute keeps the
    // dtype users bind.
    if (auto d = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                   "graph.dtype"))
      if (auto t = isa::dtypeByName(d.getValue()))
        prog.tensors.back().dtype = *t;
  }
  for (Operation &op : func.getBody().front()) {
    if (op.getNumResults() != 1 || !getDramOffset(op.getResult(0)))
      continue;
    Value v = op.getResult(0);
    std::string name;
    // Further graph outputs that are the same value (CSE merged identical
    // nodes): alias tensors over the same bytes, one per ONNX name.
    std::vector<std::string> aliasNames;
    std::optional<isa::DType> resultDtype;
    isa::TensorKind kind = isa::TensorKind::Intermediate;
    for (OpOperand &use : v.getUses())
      if (use.getOwner() == terminator) {
        kind = isa::TensorKind::Output;
        if (auto n = func.getResultAttrOfType<StringAttr>(
                use.getOperandNumber(), "graph.name")) {
          if (!name.empty() && name != n.str())
            aliasNames.push_back(n.str());
          else
            name = n.str();
        }
        if (auto d = func.getResultAttrOfType<StringAttr>(
                use.getOperandNumber(), "graph.dtype"))
          resultDtype = isa::dtypeByName(d.getValue());
      }
    if (name.empty()) {
      name = onnxNodeName(op.getLoc());
      if (!name.empty())
        name += ":" + op.getName().stripDialect().str();
    }
    if (auto e = addTensor(v, name, kind))
      return std::move(e);
    if (resultDtype && isa::dtypeBytes(*resultDtype) ==
                           isa::dtypeBytes(prog.tensors.back().dtype))
      prog.tensors.back().dtype = *resultDtype;
    for (const std::string &alias : aliasNames) {
      isa::TensorDesc copy = prog.tensors.back();
      copy.name = alias;
      prog.tensors.push_back(std::move(copy));
    }
  }
  // Values no segment stores keep their entry (name, shape: `systole
  // compare` and --dump-tensors need to know them) as transient.
  auto markTransient = [&](Value v) {
    auto it = tensorIndex.find(v);
    if (it != tensorIndex.end() &&
        prog.tensors[it->second].kind == isa::TensorKind::Intermediate)
      prog.tensors[it->second].kind = isa::TensorKind::Transient;
  };
  // A producer whose epilogue applies a table or a residual add writes that
  // result where its own would be.
  for (Operation &op : func.getBody().front()) {
    if (auto t = dyn_cast<graph::TableOp>(op))
      if (Operation *p = t.getInput().getDefiningOp(); p && fusedTable(p) == t)
        markTransient(t.getInput());
    if (auto a = dyn_cast<graph::AddOp>(op))
      if (auto idx = a->getAttrOfType<IntegerAttr>(kResidualAttr))
        markTransient(a->getOperand(idx.getInt()));
  }
  // ONNX names must stay unique for the runtime's by-name binding.
  llvm::StringMap<unsigned> seen;
  for (isa::TensorDesc &t : prog.tensors)
    if (unsigned n = seen[t.name]++)
      t.name += "#" + std::to_string(n);

  int64_t arena = 0;
  if (auto a = func->getAttrOfType<IntegerAttr>("npu.dram_size"))
    arena = a.getInt();
  ProgramBuilder builder(hw, func.getContext());
  builder.constantBase = (static_cast<uint64_t>(arena) + 4095) / 4096 * 4096;

  bool npuOpen = false;
  // Builtin transposes a quantize before them did (`quantize` with params).
  llvm::DenseSet<Operation *> fusedBuiltin;
  // The layer the previous one keeps its output on chip for.
  Operation *keptFor = nullptr;
  auto closeNpu = [&] {
    keptFor = nullptr;
    if (!npuOpen)
      return;
    // Its instructions are the scheduled npu.segment's (exportProgram).
    isa::NpuSegment seg;
    builder.finishSegment();
    prog.segments.push_back(
        {"npu" + std::to_string(prog.segments.size()), std::move(seg)});
    npuOpen = false;
  };
  // Consecutive compiled host ops: one function, one segment.
  std::vector<Operation *> hostGroup;
  llvm::DenseSet<Value> groupInputs;
  unsigned hostFunctions = 0;
  // The CPU code of every group, compiled and linked once (the GPU
  // emulation keeps one shared object per segment: it replays its own
  // launch table).
  host::HostLibrary library;
  auto closeHost = [&]() -> llvm::Error {
    if (hostGroup.empty())
      return llvm::Error::success();
    // Reshapes at the end of a group have nothing to compute.
    while (!hostGroup.empty() && llvm::isa<graph::ReshapeOp>(hostGroup.back()))
      hostGroup.pop_back();
    if (hostGroup.empty())
      return llvm::Error::success();
    host::HostGroup group;
    group.ops = hostGroup;
    group.dramOffset = [](Value v) { return *getDramOffset(v); };
    group.dramBytes = std::max<int64_t>(arena, 1);
    std::string entry = "systole_host_" + std::to_string(hostFunctions++);
    auto code = host::compileHostGroup(group, entry,
                                       options.hostGpu ? host::HostTarget::Gpu
                                       : options.hostGpuEmulation
                                           ? host::HostTarget::GpuEmulation
                                           : host::HostTarget::Cpu,
                                       options.gpuArch, &library);
    if (!code)
      return loweringError(hostGroup.front(),
                           "host code generation: " +
                               llvm::toString(code.takeError()));
    std::string ops;
    for (Operation *op : hostGroup)
      if (!llvm::isa<graph::ReshapeOp>(op)) {
        std::string name = op->getName().stripDialect().str();
        if (auto u = dyn_cast<graph::UnaryOp>(op))
          name = u.getFn().str();
        if (auto h = dyn_cast<graph::HostOp>(op))
          name = h.getOnnxOp().str();
        ops += (ops.empty() ? "" : "+") + name;
      }
    isa::HostSegment seg;
    seg.kind = isa::HostCodeKind::CpuObject;
    seg.entry = entry;
    for (Operation *op : hostGroup)
      seg.ops += hostOps(op);
    seg.code = std::move(code->sharedObject);
    uint64_t in = 0, out = 0;
    for (Value v : code->inputs) {
      seg.args.push_back(tensorIndex.lookup(v));
      in += storedBytes(v.getType());
    }
    for (Value v : code->outputs) {
      seg.args.push_back(tensorIndex.lookup(v));
      out += storedBytes(v.getType());
    }
    // The group's other results live in registers and local buffers of
    // its function; a reshape aliases what it reshapes (a group output or
    // a value the group reads from DRAM).
    llvm::DenseSet<Value> stored(code->outputs.begin(), code->outputs.end());
    for (Operation *op : hostGroup)
      for (Value r : op->getResults()) {
        if (llvm::isa<graph::ReshapeOp>(op) &&
            (stored.contains(op->getOperand(0)) ||
             groupInputs.contains(op->getOperand(0))))
          stored.insert(r);
        if (!stored.contains(r))
          markTransient(r);
      }
    // params[0]: how many of args are inputs (the rest are outputs).
    seg.params = {static_cast<int64_t>(code->inputs.size())};
    if (options.hostGpu) {
      // The PTX alternative precedes its CPU code; the runtime runs one.
      isa::HostSegment gpu;
      gpu.kind = isa::HostCodeKind::Ptx;
      gpu.entry = entry;
      gpu.code.assign(code->ptx.begin(), code->ptx.end());
      gpu.args = seg.args;
      gpu.ops = seg.ops;
      // params: the launch table (host::encodePtxParams).
      gpu.params = host::encodePtxParams(*code);
      prog.segments.push_back({"host_gpu:" + ops, std::move(gpu)});
    }
    uint64_t segOps = seg.ops;
    prog.segments.push_back({"host:" + ops, std::move(seg)});
    if (report) {
      LayerReport r;
      r.name = onnxNodeName(hostGroup.front()->getLoc());
      if (r.name.empty())
        r.name = entry;
      r.op = "host";
      r.mapping = (options.hostGpu            ? "host gpu|cpu: "
                   : options.hostGpuEmulation ? "host cpu (gpu emulation): "
                                              : "host cpu: ") +
                  ops;
      r.onHost = true;
      r.hostBytesIn = in;
      r.hostBytesOut = out;
      r.dramBytes = in + out;
      // Host time on the run's cycle axis (isa::hostTiming, as the runtime
      // counts it): the transfers and the host's compute.
      isa::HostTiming t = isa::hostTiming(
          in + out, code->inputs.size() + code->outputs.size(), segOps, hw);
      r.transferCycles = t.transferCycles;
      r.predictedCycles = t.total();
      report->push_back(std::move(r));
    }
    hostGroup.clear();
    groupInputs.clear();
    return llvm::Error::success();
  };
  // A result written by the group must not overlap a buffer the group still
  // reads (DRAM reuse): such an op starts a new group.
  auto overlapsGroupInputs = [&](Operation &op) {
    for (Value r : op.getResults()) {
      auto ro = getDramOffset(r);
      if (!ro)
        continue;
      int64_t rs = *ro, re = rs + storedBytes(r.getType());
      for (Value in : groupInputs) {
        int64_t is = *getDramOffset(in), ie = is + storedBytes(in.getType());
        if (rs < ie && is < re)
          return true;
      }
    }
    return false;
  };
  for (Operation &op : func.getBody().front()) {
    auto placement = getPlacement(&op);
    if (!placement)
      continue;
    if (*placement == Placement::Host && !isBuiltinHostOp(op)) {
      closeNpu();
      if (overlapsGroupInputs(op))
        if (auto e = closeHost())
          return std::move(e);
      llvm::DenseSet<Operation *> members(hostGroup.begin(), hostGroup.end());
      for (Value v : op.getOperands()) {
        Operation *def = v.getDefiningOp();
        if (def && (members.contains(def) || llvm::isa<arith::ConstantOp>(def)))
          continue;
        groupInputs.insert(v);
      }
      hostGroup.push_back(&op);
      continue;
    }
    if (!hostGroup.empty() && llvm::isa<graph::ReshapeOp>(op) &&
        getElementTypeOrSelf(op.getResult(0).getType()).isF32()) {
      if (!llvm::is_contained(hostGroup, op.getOperand(0).getDefiningOp()))
        groupInputs.insert(op.getOperand(0));
      hostGroup.push_back(&op); // an alias; keeps the group fused
      continue;
    }
    if (auto e = closeHost())
      return std::move(e);
    if (*placement == Placement::Host) {
      if (fusedBuiltin.erase(&op))
        continue; // done by the quantize before it
      closeNpu();
      isa::HostSegment host;
      host.kind = isa::HostCodeKind::Builtin;
      Value result = op.getResult(0);
      host.ops = hostOps(&op);
      if (llvm::isa<graph::QuantizeOp>(op)) {
        host.entry = "quantize";
        // The model's float NCHW input quantized and transposed to NHWC in
        // one pass: the quantized NCHW tensor is never written (the
        // transpose's transfers were a third of the input prologue).
        // (The next op that runs: constants in between have no tensors.)
        Operation *next = op.getNextNode();
        while (next && !getPlacement(next))
          next = next->getNextNode();
        auto t = llvm::dyn_cast_or_null<graph::TransposeOp>(next);
        // The transpose's buffer may be the quantize's input's (DRAM reuse:
        // that input dies at the quantize): one pass cannot read and write
        // the same bytes.
        auto disjoint = [&](Value a, Value b) {
          int64_t as = *getDramOffset(a), bs = *getDramOffset(b);
          return as + storedBytes(a.getType()) <= bs ||
                 bs + storedBytes(b.getType()) <= as;
        };
        if (options.fuseInputTranspose && t && result.hasOneUse() &&
            *result.user_begin() == t &&
            disjoint(op.getOperand(0), t.getOutput()) &&
            getPlacement(t) == Placement::Host && isBuiltinHostOp(*t) &&
            llvm::isa<quant::UniformQuantizedType>(
                getElementTypeOrSelf(result.getType()))) {
          host.params.assign(t.getPerm().begin(), t.getPerm().end());
          host.ops += hostOps(t);
          markTransient(result);
          result = t.getOutput();
          fusedBuiltin.insert(t);
        }
      } else if (llvm::isa<graph::DequantizeOp>(op))
        host.entry = "dequantize";
      else if (auto t = dyn_cast<graph::TransposeOp>(op)) {
        host.entry = "transpose";
        host.params.assign(t.getPerm().begin(), t.getPerm().end());
      } else {
        return loweringError(&op, "no builtin host kernel");
      }
      host.args = {tensorIndex.lookup(op.getOperand(0)),
                   tensorIndex.lookup(result)};
      prog.segments.push_back(
          {host.entry + std::to_string(prog.segments.size()), std::move(host)});
      continue;
    }
    std::optional<TilePlan> tiled = getTilePlan(&op);
    if (!tiled)
      continue; // reshape: an alias, no code
    const TilePlan &plan = *tiled;
    LayerIO io;
    // A constant operand (an add's bias) has no DRAM tensor: the lowering
    // puts it in the constant pool and ignores this slot.
    for (unsigned i = 0; i < numActivationOperands(&op); ++i)
      io.inputs.push_back(
          isConstantTensor(op.getOperand(i))
              ? 0
              : static_cast<uint64_t>(*getDramOffset(op.getOperand(i))));
    // A fused activation table's or residual add's result aliases this
    // buffer (AllocateDram).
    io.output = static_cast<uint64_t>(*getDramOffset(op.getResult(0)));
    graph::AddOp residual = fusedResidual(&op);
    // A concat's slice: the output offset is the slice's (AllocateDram).
    std::optional<ConcatSlice> slice = concatSlice(&op);
    if (slice)
      io.outPixelStride = slice->channels;
    if (residual) {
      Value other = residual.getLhs() == op.getResult(0) ? residual.getRhs()
                                                         : residual.getLhs();
      io.residual = static_cast<uint64_t>(*getDramOffset(other));
    }
    io.spMirrored = builder.spMirrored();
    // Layers kept on chip (npu-plan-cascades): the producer writes into the
    // input tile of the consumer, which must be the very next layer.
    io.inputOnChip = op.hasAttr(kInputOnChipAttr);
    if (io.inputOnChip && keptFor != &op)
      return loweringError(&op, "its input is marked on chip but the layer "
                                "before it does not keep it");
    keptFor = nullptr;
    if (op.hasAttr(kKeepOutputAttr)) {
      Value kept = layerResult(&op);
      // The consumer (the reader marked on chip, which must be the very
      // next layer: keptFor); other readers load the stored copy.
      Operation *next = nullptr;
      for (Operation *user : kept.getUsers())
        if (user->hasAttr(kInputOnChipAttr) && user->getOperand(0) == kept)
          next = user;
      io.storeKept = !kept.hasOneUse();
      if (std::optional<TilePlan> nextPlan =
              next ? getTilePlan(next) : std::nullopt)
        io.keepOutput = onChipInput(next, *nextPlan, hw, !io.spMirrored);
      if (!io.keepOutput || !next->hasAttr(kInputOnChipAttr) ||
          ((io.storeKept || fusedResidual(&op)) &&
           !keptTileIsDense(*io.keepOutput,
                            cast<ShapedType>(kept.getType()).getDimSize(2))))
        return loweringError(&op, "its output is marked kept on chip but its "
                                  "consumer cannot read it there");
      keptFor = next;
    }
    auto items = lowerLayer(&op, plan, io, builder);
    if (!items)
      return items.takeError();
    uint64_t predicted = builder.estimateLayerCycles(*items);
    npuOpen = true;
    std::string layerName = onnxNodeName(op.getLoc());
    if (layerName.empty())
      layerName = op.getName().getStringRef().str();
    // The add has no layer of its own: the conv's row names it.
    if (residual) {
      std::string add = onnxNodeName(residual.getLoc());
      layerName += " + " + (add.empty() ? std::string("add") : add);
    }
    builder.emitLayer(*items, prog.segments.size(), layerName, op.getLoc());
    if (report) {
      // Its instruction count and DMA bytes once scheduled:
      // completeLayerReports.
      LayerReport r;
      r.name = layerName;
      r.op = op.getName().getStringRef().str();
      if (auto h = dyn_cast<graph::HostOp>(op))
        r.op += " " + h.getOnnxOp().str();
      r.mapping = describePlan(&op) + (residual ? " +add" : "") +
                  (slice ? " +concat" : "") + (io.inputOnChip ? " <sp" : "") +
                  (io.keepOutput ? " >sp" : "");
      r.macs = macsOf(&op);
      r.predictedCycles = predicted;
      r.computeBoundCycles = (r.macs + hw.array.rows * hw.array.cols - 1) /
                             (hw.array.rows * hw.array.cols);
      // A slice reads only the run it copies.
      if (!llvm::isa<graph::SliceOp>(op))
        for (Value v : op.getOperands())
          r.compulsoryBytes += storedBytes(v.getType());
      r.compulsoryBytes += storedBytes(op.getResult(0).getType()) *
                           (llvm::isa<graph::SliceOp>(op) ? 2 : 1);
      if (residual) // the shortcut is read once
        r.compulsoryBytes += storedBytes(residual.getOutput().getType());
      if (llvm::isa<graph::Conv2DOp, graph::MatMulOp>(op)) {
        // Bias (int32) and requantization scales (fp32) per output channel.
        int64_t channels =
            cast<ShapedType>(op.getResult(0).getType()).getShape().back();
        r.compulsoryBytes += 4 * channels;
      }
      r.memoryBoundCycles = (r.compulsoryBytes + hw.dram.bytesPerCycle - 1) /
                            hw.dram.bytesPerCycle;
      addUnitCycles(*items, hw, r);
      report->push_back(std::move(r));
    }
  }
  if (auto e = closeHost())
    return std::move(e);
  closeNpu();
  if (!library.empty()) {
    auto so = library.finish();
    if (!so)
      return loweringError(func, "host code generation: " +
                                     llvm::toString(so.takeError()));
    prog.hostLibrary = std::move(*so);
  }

  const std::vector<uint8_t> &pool = builder.constantPool();
  prog.memoryPlan.dramSize = builder.constantBase + pool.size();
  prog.memoryPlan.regions.push_back({"activations",
                                     isa::RegionKind::Activations, 0,
                                     static_cast<uint64_t>(arena)});
  if (!pool.empty()) {
    prog.memoryPlan.regions.push_back({"constants", isa::RegionKind::Constants,
                                       builder.constantBase, pool.size()});
    // One segment per run: the model's constants and the derived ones
    // (isa::kDerivedConstantsName) alternate, contiguous in DRAM.
    uint64_t at = 0;
    auto add = [&](const char *name, uint64_t end) {
      if (end > at)
        prog.constants.push_back(
            {name, builder.constantBase + at,
             std::vector<uint8_t>(pool.begin() + at, pool.begin() + end)});
      at = end;
    };
    for (auto [begin, end] : builder.derivedRanges()) {
      add("weights", begin);
      add(isa::kDerivedConstantsName, end);
    }
    add("weights", pool.size());
  }
  return EmittedProgram{std::move(prog), builder.takeModule()};
}

} // namespace systole::npu
