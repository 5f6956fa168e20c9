//===- Partition.cpp - Assign ops to the NPU or the host ------------------===//
//
// The NPU runs quantized compute; the host runs the model boundary (float <->
// int8 and layout changes of inputs/outputs) as builtin runtime kernels and
// every float op the NPU cannot run (softmax, layer norm, gelu, float
// matmul/conv, ...) as code compiled through upstream MLIR (docs/host.md).
// A quantized op neither can run as is (an average pool with a window, an
// int8 activation x activation matmul, ...) runs on the host in float
// between a dequantize and a quantize. An op neither can run is an error
// that names both reasons.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"
#include "systole/Dialect/Graph/QuantizedTypes.h"

#include "systole/Target/NPU/Annotations.h"
#include "systole/Target/NPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"

namespace systole::npu {
#define GEN_PASS_DEF_PARTITION
#include "systole/Target/NPU/Passes.h.inc"
} // namespace systole::npu

using namespace mlir;
using namespace systole::graph;
using namespace systole::npu;

namespace {

/// 8-bit (int8 or uint8) per-tensor quantized.
bool isQuantized8(Type t) { return static_cast<bool>(quantized8(t)); }

/// uint8 runs sign-flipped on the NPU; exact for the integer units, but the
/// vector unit's fp32 formulas need their uint8 mode, not wired up yet.
bool isUnsigned8(Type t) {
  auto q = dyn_cast<quant::UniformQuantizedType>(getElementTypeOrSelf(t));
  return q && !q.isSigned();
}

/// int8 (requantized) or int32 (ConvInteger/MatMulInteger: raw accumulator).
bool isNpuResult(Type t) {
  Type e = getElementTypeOrSelf(t);
  if (auto i = dyn_cast<IntegerType>(e))
    return i.getWidth() == 32;
  return isQuantized8(t);
}

/// Weights may be per-axis, but the array subtracts one zero point from B.
bool hasUniformZeroPoint(Type t) {
  Type e = getElementTypeOrSelf(t);
  if (auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(e)) {
    for (int64_t z : pa.getZeroPoints())
      if (z != pa.getZeroPoints().front())
        return false;
    return pa.getStorageTypeIntegralWidth() == 8;
  }
  return isQuantized8(e);
}

/// Why the NPU cannot run `op`, or an empty string if it can.
std::string npuRejection(Operation *op) {
  if (auto host = dyn_cast<HostOp>(op))
    return softmaxRejection(host);
  if (auto ln = dyn_cast<LayerNormOp>(op))
    return layerNormRejection(ln);
  if (auto r = dyn_cast<ReduceOp>(op))
    return reduceRejection(r);
  if (isa<AddOp, SubOp, MulOp, DivOp>(op) &&
      getElementTypeOrSelf(op->getOperand(1).getType()).isF32()) {
    // graph-fold-qdq's Q(op(DQ(a), c)) with an fp32 constant c: VBINARY
    // with an fp32 B in ACC (b_f32), c broadcast by rows of the output.
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    auto out = cast<ShapedType>(op->getResult(0).getType());
    auto c = cast<ShapedType>(rhs.getType());
    if (!isQuantized8(lhs.getType()) || !isQuantized8(out) ||
        !isConstantTensor(rhs))
      return "an op with an fp32 operand runs on the NPU only as "
             "DequantizeLinear -> op(constant) -> QuantizeLinear";
    if (!out.hasStaticShape() || out.getRank() == 0 || c.getRank() == 0 ||
        c.getRank() > out.getRank() ||
        (c.getShape().back() != 1 &&
         c.getShape().back() != out.getShape().back()))
      return "the fp32 operand does not broadcast by rows of the output";
    return "";
  }
  if (llvm::isa<SubOp, DivOp>(op)) {
    // graph-fold-qdq's fold of DequantizeLinear -> Sub/Div ->
    // QuantizeLinear: VBINARY (int8 and uint8 operands alike, each in the
    // int8 domain).
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    if (!isQuantized8(lhs.getType()) || !isQuantized8(rhs.getType()) ||
        !isQuantized8(op->getResult(0).getType()))
      return "sub/div on the NPU must be 8-bit per-tensor quantized "
             "(between DequantizeLinears and a QuantizeLinear)";
    if (isConstantTensor(lhs) && isConstantTensor(rhs))
      return "sub/div of two constants (folded, not computed)";
    if (binaryBroadcast(cast<ShapedType>(lhs.getType()),
                        cast<ShapedType>(rhs.getType())) ==
        BinaryBroadcast::None)
      return "broadcasting sub/div is supported on the NPU for a per-row, "
             "per-channel or scalar operand only";
    return "";
  }
  if (llvm::isa<TransposeOp>(op)) // the NPU's kind (isHostBoundaryOp)
    return "";
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    if (conv.getLayout() != Layout::NHWC)
      return "convolution is not in NHWC (run graph-to-nhwc first)";
    if (!isQuantized8(conv.getInput().getType()) ||
        !isNpuResult(conv.getOutput().getType()))
      return "convolution input must be int8 per-tensor quantized and its "
             "output int8 or int32";
    if (!isConstantTensor(conv.getFilter()) ||
        !hasUniformZeroPoint(conv.getFilter().getType()))
      return "convolution weights must be constant int8 with one zero point";
    if (conv.getBias() && !isConstantTensor(conv.getBias()))
      return "convolution bias must be constant";
    // Grouped convolutions run on the array group by group, depthwise ones
    // on the vector unit (ConvCodegen.cpp); dilation is an addressing
    // pattern of both (MATMUL's A strides, DWCONV's tap stride). On the
    // array, a dilated kernel wider than the input (DeepLab's ASPP:
    // dilation 36 on a 6x6 map) mostly reads padding, and its input tile
    // (extent rows of the padded width, all channels) would not fit; it
    // stays on the host. (DWCONV walks taps, not whole padded rows.)
    auto in = cast<ShapedType>(conv.getInput().getType()); // NHWC
    auto w = cast<ShapedType>(conv.getFilter().getType()); // HWIO
    bool depthwise =
        conv.isDepthwise() &&
        cast<ShapedType>(conv.getOutput().getType()).getShape().back() ==
            conv.getGroup();
    // Undilated kernels larger than a small padded input ran on the array
    // before dilation did (tools/fuzz-models: a 2x3 kernel on a 1x1 map).
    for (int d = 0; d < 2 && !depthwise; ++d)
      if (conv.getDilations()[d] > 1 &&
          (w.getDimSize(d) - 1) * conv.getDilations()[d] + 1 >
              in.getDimSize(1 + d))
        return "dilated kernel extends beyond the input (it would read "
               "mostly padding)";
    return "";
  }
  if (auto mm = dyn_cast<MatMulOp>(op)) {
    if (!isQuantized8(mm.getLhs().getType()) ||
        !isNpuResult(mm.getOutput().getType()))
      return "matmul input must be int8 per-tensor quantized and its output "
             "int8 or int32";
    auto lhsT = cast<ShapedType>(mm.getLhs().getType());
    auto rhsT = cast<ShapedType>(mm.getRhs().getType());
    // An activation rhs (attention: Q x K^T, scores x V) is read from DRAM
    // like the lhs, so it must be int8/uint8 per tensor as well.
    if (isConstantTensor(mm.getRhs()) ? !hasUniformZeroPoint(rhsT)
                                      : !isQuantized8(rhsT))
      return "matmul right-hand side must be an int8 matrix with one zero "
             "point";
    // A batched rhs needs the same batch dims on the lhs (no broadcast).
    if (rhsT.getRank() > 2 &&
        (lhsT.getRank() != rhsT.getRank() ||
         lhsT.getShape().drop_back(2) != rhsT.getShape().drop_back(2)))
      return "batched matmul needs equal batch dimensions on both sides";
    if (mm.getBias() && !isConstantTensor(mm.getBias()))
      return "matmul bias must be constant";
    return "";
  }
  if (llvm::isa<AddOp, MulOp>(op)) {
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Type out = op->getResult(0).getType();
    if (!isQuantized8(lhs.getType()) || !isQuantized8(rhs.getType()) ||
        !isQuantized8(out))
      return "add/mul operands must be int8 per-tensor quantized";
    // uint8 runs in the vector unit's uint8 mode (the uint8 kernel's
    // arithmetic); a mix of int8 and uint8 has no such kernel in ORT.
    bool u = isUnsigned8(out);
    if (isUnsigned8(lhs.getType()) != u || isUnsigned8(rhs.getType()) != u)
      return "add/mul of int8 and uint8 tensors (runs in float, as ORT does)";
    if (isConstantTensor(lhs) && isConstantTensor(rhs))
      return "add/mul of two constants (folded, not computed)";
    // Measured (e2e.npu-layers.constant-operand): every constant operand
    // matches ORT bit for bit except a per-channel constant as the first
    // operand of an add, where ORT's QLinearAdd evaluates in an order the
    // VADD modes do not reproduce (up to 6 of 576 values 1 LSB off).
    if (isa<AddOp>(op) && isConstantTensor(lhs) &&
        binaryBroadcast(cast<ShapedType>(lhs.getType()),
                        cast<ShapedType>(rhs.getType())) ==
            BinaryBroadcast::LhsVector)
      return "add with a per-channel constant as its first operand (ORT's "
             "evaluation order for it is not reproduced yet)";
    // Equal shapes, or one operand broadcast as a per-channel vector (all
    // dims 1 but the last, equal to the output's: NHWC squeeze-excitation)
    // or a scalar (vector unit strides of 0, ISA VADD/VMUL).
    // (A per-row operand is not one of them: which kernel ORT's broadcast
    // loop calls for it has not been matched.)
    auto shape = [](Value v) { return cast<ShapedType>(v.getType()); };
    BinaryBroadcast bc = binaryBroadcast(shape(lhs), shape(rhs));
    // A constant broadcast along other dims than the last is read by rows
    // (Swin's window mask): ORT's broadcast loop runs its vector-vector
    // kernel on each span, which VADD/VMUL's element rule is.
    bool byRows =
        bc == BinaryBroadcast::None &&
        (constantBroadcastByRows(op, 0) || constantBroadcastByRows(op, 1));
    if (shape(lhs).getShape() != shape(rhs).getShape() && !byRows &&
        (bc == BinaryBroadcast::None || bc == BinaryBroadcast::LhsRow ||
         bc == BinaryBroadcast::RhsRow))
      return "broadcasting add/mul is supported on the NPU for a per-channel "
             "vector or a scalar operand only";
    return "";
  }
  if (auto pool = dyn_cast<PoolOp>(op)) {
    if (pool.getLayout() != Layout::NHWC ||
        !isQuantized8(pool.getInput().getType()))
      return "pooling must be int8 NHWC";
    if (pool.getKind() != PoolKind::Max) {
      // POOL's avg_float is QLinearAveragePool: the output is quantized
      // per tensor too; its divisor with count_include_pad is kh * kw,
      // which is ORT's only when no window reaches past the ONNX pads, and
      // ceil_mode is folded into the bottom/right pads at import: those
      // must mirror top/left.
      if (!isQuantized8(pool.getOutput().getType()))
        return "average pooling's result must be 8-bit per-tensor quantized";
      auto pads = pool.getPads();
      if (pool.getCountIncludePad() &&
          (pads[0] != pads[2] || pads[1] != pads[3]))
        return "average pooling with count_include_pad and asymmetric (or "
               "ceil_mode) padding is not supported on the NPU";
    }
    return "";
  }
  if (auto up = dyn_cast<UpsampleOp>(op)) {
    // A quantized upsample has no host kernel: the NPU copies it (strided
    // stores), whatever its size; a float one is host code.
    if (up.getLayout() != Layout::NHWC ||
        !isQuantized8(up.getInput().getType()))
      return "upsampling must be 8-bit per-tensor quantized NHWC";
    return "";
  }
  if (auto d2s = dyn_cast<DepthToSpaceOp>(op)) {
    // Like upsampling: quantized, the NPU copies it; float, host code.
    if (d2s.getLayout() != Layout::NHWC ||
        !isQuantized8(d2s.getInput().getType()))
      return "DepthToSpace must be 8-bit per-tensor quantized NHWC";
    if (d2s.getCrd())
      return "a CRD DepthToSpace runs as a channel gather and a DCR one "
             "(graph-to-nhwc did not rewrite this one)";
    return "";
  }
  if (auto pad = dyn_cast<PadOp>(op)) {
    // A quantized constant Pad no convolution absorbs (before a pool, a
    // concat, ...): the DMA writes the value around each row tile.
    auto in = cast<ShapedType>(pad.getInput().getType());
    ArrayRef<int64_t> p = pad.getPads();
    if (in.getRank() != 4 || !isQuantized8(pad.getInput().getType()) ||
        pad.getInput().getType() !=
            pad.getOutput().getType().clone(in.getShape()))
      return "Pad must be 8-bit per-tensor quantized, rank 4, its result "
             "quantized as its input";
    if (p[0] || p[3] || p[4] || p[7])
      return "Pad on the NPU pads the two middle dimensions (H and W) only";
    if ((in.getDimSize(2) + p[2] + p[6]) * in.getDimSize(3) > 0xffff)
      return "Pad's output rows exceed the vector unit's field widths";
    return "";
  }
  if (auto s2d = dyn_cast<SpaceToDepthOp>(op)) {
    if (s2d.getLayout() != Layout::NHWC ||
        !isQuantized8(s2d.getInput().getType()))
      return "SpaceToDepth must be 8-bit per-tensor quantized NHWC";
    return "";
  }
  if (auto gap = dyn_cast<GlobalAvgPoolOp>(op)) {
    if (gap.getLayout() != Layout::NHWC ||
        !isQuantized8(gap.getInput().getType()) ||
        !isQuantized8(gap.getOutput().getType()))
      return "global average pooling must be int8 NHWC";
    if (isUnsigned8(gap.getInput().getType()) ||
        isUnsigned8(gap.getOutput().getType()))
      return "uint8 global average pooling is not wired up yet";
    return "";
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // One dim cut (sliceRows): the DMA reads rows of the last dim, or a
    // run of each (a quantized slice has no host kernel; a float one is
    // host code).
    auto in = cast<ShapedType>(slice.getInput().getType());
    auto out = cast<ShapedType>(slice.getOutput().getType());
    if (!isQuantized8(in) ||
        slice.getOutput().getType() !=
            slice.getInput().getType().clone(out.getShape()) ||
        in.getRank() < 1)
      return "Slice on the NPU must be 8-bit per-tensor quantized, its "
             "result quantized as its input";
    if (!sliceRows(slice))
      return "Slice on the NPU cuts one dimension (a stride only on a dim "
             "of whole rows)";
    if (in.getShape().back() > 0xffff)
      return "Slice's rows exceed the vector unit's field widths";
    return "";
  }
  if (llvm::isa<ReshapeOp>(op))
    return "";
  return "no NPU lowering for this op";
}

/// Boundary ops the runtime's builtin host kernels implement. An 8-bit
/// transpose that keeps the innermost dim (attention's head split and
/// merge, Swin's window partition) is a strided DMA copy on the NPU instead.
bool isHostBoundaryOp(Operation *op) {
  if (auto t = dyn_cast<TransposeOp>(op))
    return !(isQuantized8(t.getInput().getType()) &&
             getElementTypeOrSelf(t.getInput().getType()) ==
                 getElementTypeOrSelf(t.getOutput().getType()) &&
             transposeBoxes(t));
  return llvm::isa<QuantizeOp, DequantizeOp>(op);
}

bool isF32(Type t) { return getElementTypeOrSelf(t).isF32(); }

/// Why the host's compiled code (graph -> linalg -> LLVM) cannot run `op`,
/// or an empty string if it can: float32 tensors only (quantized values
/// reach the host through dequantize), and the ops convert-graph-to-linalg
/// lowers.
std::string hostRejection(Operation *op) {
  // Written in upstream dialects for the host at import, any element type.
  if (llvm::isa<HostOp>(op))
    return "";
  for (Type t : op->getOperandTypes())
    if (!isF32(t))
      return "the host runs float32 ops only";
  for (Type t : op->getResultTypes())
    if (!isF32(t))
      return "the host runs float32 ops only";
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return conv.getGroup() == 1 ? "" : "grouped float convolution";
  if (llvm::isa<AddOp, SubOp, MulOp, DivOp, UnaryOp, ClipOp, SoftmaxOp,
                LayerNormOp, ReduceOp, MatMulOp, PoolOp, GlobalAvgPoolOp,
                TransposeOp, SliceOp, ConcatOp, PadOp, UpsampleOp,
                DepthToSpaceOp, SpaceToDepthOp>(op))
    return "";
  return "no host lowering for this op";
}

/// A constant quantized operand, dequantized at compile time as ONNX's
/// DequantizeLinear computes it: float(q - zero_point) * scale in float32,
/// with the scale and zero point of the element's channel when per-axis.
Value dequantizedConstant(OpBuilder &b, Value v) {
  auto storage = v.getDefiningOp<quant::StorageCastOp>();
  Type e = getElementTypeOrSelf(v);
  auto q = dyn_cast<quant::UniformQuantizedType>(e);
  auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(e);
  if (!storage || (!q && !pa))
    return {};
  auto c = storage.getArg().getDefiningOp<arith::ConstantOp>();
  auto values = c ? dyn_cast<DenseIntElementsAttr>(c.getValue()) : nullptr;
  if (!values)
    return {};
  auto type = cast<RankedTensorType>(v.getType());
  // Elements per step of the quantized axis: the product of later dims.
  int64_t inner = 1, channels = 1;
  if (pa) {
    int32_t axis = pa.getQuantizedDimension();
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
    channels = type.getDimSize(axis);
  }
  bool isSigned = q ? q.isSigned() : pa.isSigned();
  llvm::SmallVector<float> f;
  int64_t k = 0;
  for (const APInt &x : values.getValues<APInt>()) {
    int64_t i = isSigned ? x.getSExtValue() : int64_t(x.getZExtValue());
    float scale;
    int64_t zp;
    if (q) {
      scale = static_cast<float>(q.getScale());
      zp = q.getZeroPoint();
    } else {
      int64_t ch = (k / inner) % channels;
      scale = static_cast<float>(pa.getScales()[ch]);
      zp = pa.getZeroPoints()[ch];
    }
    f.push_back(static_cast<float>(i - zp) * scale);
    ++k;
  }
  return b.create<arith::ConstantOp>(
      v.getLoc(),
      DenseElementsAttr::get(type.clone(Float32Type::get(v.getContext())),
                             llvm::ArrayRef(f)));
}

/// A quantized op neither the NPU nor the host can run as is runs on the
/// host in float: dequantize (builtin) -> the float op (compiled) ->
/// quantize (builtin), ONNX's QDQ semantics. Only for per-tensor int8/uint8
/// operands and results and without a fused activation clamp. Returns the
/// float op, or nullptr (nothing changed) if the rewrite does not apply.
Operation *runQuantizedOpInFloat(Operation *op) {
  if (op->getNumResults() == 0)
    return nullptr;
  // A fused activation clamp is on the quantized result: it becomes a float
  // clip at the real values of its bounds before the quantize.
  auto actMin = op->getAttrOfType<IntegerAttr>("act_min");
  auto actMax = op->getAttrOfType<IntegerAttr>("act_max");
  if ((actMin || actMax) &&
      (op->getNumResults() != 1 ||
       !isa<quant::UniformQuantizedType>(
           getElementTypeOrSelf(op->getResult(0).getType()))))
    return nullptr;
  bool anyQuantized = false;
  llvm::SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type t : op->getResultTypes())
    if (!isa<RankedTensorType>(t) || (!isQuantized8(t) && !isF32(t)))
      return nullptr;
  // Operands: float, 8-bit per-tensor activations, and quantized constants
  // of any width and granularity (per-channel weights, int32 biases).
  for (Value v : op->getOperands()) {
    Type t = v.getType();
    bool constQuant = isConstantTensor(v) &&
                      isa<quant::QuantizedType>(getElementTypeOrSelf(t));
    if (!isa<RankedTensorType>(t) ||
        (!isQuantized8(t) && !constQuant && !isF32(t)))
      return nullptr;
  }
  for (Type t : types)
    anyQuantized |=
        isQuantized8(t) || isa<quant::QuantizedType>(getElementTypeOrSelf(t));
  if (!anyQuantized)
    return nullptr;
  auto floatType = [](Type t) {
    return cast<RankedTensorType>(t).clone(Float32Type::get(t.getContext()));
  };
  OpBuilder b(op);
  Operation *f = b.clone(*op);
  f->removeAttr("act_min");
  f->removeAttr("act_max");
  // A quantized pad's value is the stored integer (graph-fold-qdq); in float
  // it is the real value that integer stands for (the pad's output has the
  // input's parameters, so the quantize after it gives the integer back).
  if (auto pad = dyn_cast<PadOp>(f))
    if (auto q = dyn_cast<quant::UniformQuantizedType>(
            getElementTypeOrSelf(op->getOperand(0).getType())))
      pad.setValueAttr(b.getF64FloatAttr(
          double(static_cast<float>(pad.getValue().convertToDouble() -
                                    q.getZeroPoint()) *
                 static_cast<float>(q.getScale()))));
  for (OpResult r : f->getResults())
    r.setType(floatType(r.getType()));
  llvm::SmallVector<Operation *> dequantizes;
  b.setInsertionPoint(f);
  for (OpOperand &o : f->getOpOperands()) {
    if (isa<quant::QuantizedType>(getElementTypeOrSelf(o.get().getType())) &&
        !isQuantized8(o.get().getType())) {
      // Per-channel weights, int32 biases: constants (checked above).
      Value c = dequantizedConstant(b, o.get());
      if (!c) {
        f->erase();
        for (Operation *dq : dequantizes)
          dq->erase();
        return nullptr;
      }
      dequantizes.push_back(c.getDefiningOp());
      o.set(c);
      continue;
    }
    if (isQuantized8(o.get().getType())) {
      if (Value c = dequantizedConstant(b, o.get())) {
        dequantizes.push_back(c.getDefiningOp());
        o.set(c);
        continue;
      }
      auto dq = b.create<DequantizeOp>(op->getLoc(),
                                       floatType(o.get().getType()), o.get());
      dequantizes.push_back(dq);
      o.set(dq);
    }
  }
  if (!hostRejection(f).empty()) {
    f->erase();
    for (Operation *dq : dequantizes)
      dq->erase();
    return nullptr;
  }
  for (Operation *dq : dequantizes)
    if (isa<DequantizeOp>(dq))
      setPlacement(dq, systole::npu::Placement::Host);
  b.setInsertionPointAfter(f);
  for (auto [r, fr] : llvm::zip(op->getResults(), f->getResults())) {
    Value v = fr;
    if (actMin || actMax) {
      auto q =
          cast<quant::UniformQuantizedType>(getElementTypeOrSelf(r.getType()));
      auto real = [&](IntegerAttr a) -> FloatAttr {
        if (!a)
          return {};
        return b.getF64FloatAttr(double(a.getInt() - q.getZeroPoint()) *
                                 q.getScale());
      };
      auto clip = b.create<ClipOp>(op->getLoc(), fr.getType(), fr, real(actMin),
                                   real(actMax));
      setPlacement(clip, systole::npu::Placement::Host);
      v = clip;
    }
    if (isQuantized8(r.getType())) {
      auto q = b.create<QuantizeOp>(op->getLoc(), r.getType(), v);
      setPlacement(q, systole::npu::Placement::Host);
      v = q;
    }
    r.replaceAllUsesWith(v);
  }
  op->erase();
  setPlacement(f, systole::npu::Placement::Host);
  return f;
}

/// Q(DQ(x)) with different parameters is ONNX's (and ORT's) float round
/// trip: the builtin dequantize and quantize compute exactly that.
LogicalResult splitRequantize(RequantizeOp op) {
  if (isConstantTensor(op.getInput()))
    return op.emitError("requantization of a constant was not folded");
  OpBuilder b(op);
  auto floatType =
      cast<RankedTensorType>(op.getInput().getType()).clone(b.getF32Type());
  auto dq = b.create<DequantizeOp>(op.getLoc(), floatType, op.getInput());
  auto q = b.create<QuantizeOp>(op.getLoc(), op.getOutput().getType(), dq);
  setPlacement(dq, systole::npu::Placement::Host);
  setPlacement(q, systole::npu::Placement::Host);
  op.getOutput().replaceAllUsesWith(q.getOutput());
  op.erase();
  return success();
}

struct PartitionPass : systole::npu::impl::PartitionBase<PartitionPass> {
  void runOnOperation() override {
    bool failed = false;
    llvm::SmallVector<RequantizeOp> requantizes;
    getOperation().walk([&](RequantizeOp op) { requantizes.push_back(op); });
    for (RequantizeOp op : requantizes)
      failed |= mlir::failed(splitRequantize(op));
    llvm::SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      if (op->getDialect() !=
              getOperation()->getContext()->getLoadedDialect<GraphDialect>() ||
          op->getParentOfType<HostOp>())
        continue;
      if (isHostBoundaryOp(op)) {
        setPlacement(op, systole::npu::Placement::Host);
        continue;
      }
      std::string why = npuRejection(op);
      if (why.empty()) {
        setPlacement(op, systole::npu::Placement::Npu);
        continue;
      }
      std::string hostWhy = hostRejection(op);
      if (hostWhy.empty()) {
        setPlacement(op, systole::npu::Placement::Host);
        op->setAttr(kHostReasonAttr, StringAttr::get(op->getContext(), why));
        continue;
      }
      if (Operation *f = runQuantizedOpInFloat(op)) {
        f->setAttr(kHostReasonAttr,
                   StringAttr::get(f->getContext(), why + " (runs in float)"));
        continue;
      }
      op->emitError() << "'" << op->getName() << "' cannot run on the NPU ("
                      << why << ") nor on the host (" << hostWhy << ")";
      failed = true;
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
