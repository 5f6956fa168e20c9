//===- RowCodegen.cpp - Row-wise vector layers: softmax, norm, reduce ----===//
//
// Ops whose rows need a reduction (a sum in fp32, in the order ONNX
// Runtime's kernels sum) run on the vector unit with a lane per row:
// VSOFTMAX, VLAYERNORM and VREDUCE (docs/isa.md).
//
// A quantized Softmax (DequantizeLinear -> Softmax -> QuantizeLinear) is no
// float softmax in ONNX Runtime: its QDQ transformer fuses it into
// com.microsoft QLinearSoftmax, which the importer keeps as a graph.host of
// that name with the node's parameters (docs/host.md). Over trailing axes
// (rows contiguous in memory) the NPU runs it: VSOFTMAX computes the kernel's
// steps for each row from the same fp32 table the host body reads
// (qlinearSoftmaxTable), so both are ORT's values bit for bit.
//
// Items are tiles of whole rows: the rows are loaded (uint8 flipped into
// the int8 domain by the DMA), VSOFTMAX writes the output storage bytes to
// a slot of their own (the item protocol orders a slot's next load after
// the compute that read it, not after the store), and they are stored. The
// table (256 fp32 words) is loaded into the accumulator once, by the first
// item; nothing else in the layer writes the accumulator.
//
// A quantized LayerNormalization (DequantizeLinear -> LayerNormalization
// -> QuantizeLinear, one graph.layer_norm from codes to codes after
// graph-fold-qdq) runs as VLAYERNORM: ORT's LayerNormImpl on the
// dequantized row and MLAS's QuantizeLinear, in the int8 domain (uint8
// codes and zero points shifted by -128, which changes no value). Its scale
// and bias (fp32, one per normalized element) are loaded into the
// accumulator once, by the first item.
//
// A quantized ReduceMean or ReduceSum over trailing axes (the first and
// fourth steps of an exporter's LayerNorm at opset 13) runs as VREDUCE:
// Eigen's row sum of the dequantized row, whose packet order depends on
// where the row starts in ORT's 16-byte aligned buffer (the item's `phase`,
// its first row's element offset modulo 4), then MLAS's QuantizeLinear. A
// row's result is one byte; the items store them contiguously.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"

#include "systole/Conversion/OrtMath.h"
#include "systole/Dialect/Graph/ConstantTensors.h"
#include "systole/Dialect/Graph/QuantizedTypes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"

using namespace mlir;

namespace systole::npu {

namespace {

constexpr int64_t kMaxField = 0xffff; // VSOFTMAX n0/n1, DMA counts

/// The parameters of a QLinearSoftmax graph.host, or nullopt when `op` is
/// not one or lacks them (its reason in `why`).
struct SoftmaxParams {
  int64_t rows = 0, cols = 0;
  float xScale = 1, yScale = 1;
  int64_t yZeroPoint = 0;
  bool isSigned = true;
};

std::optional<SoftmaxParams> softmaxParams(graph::HostOp op, std::string *why) {
  auto fail = [&](const char *msg) -> std::optional<SoftmaxParams> {
    if (why)
      *why = msg;
    return std::nullopt;
  };
  if (op.getOnnxOp() != "QLinearSoftmax" || op.getInputs().size() != 1)
    return fail("no NPU lowering for this op");
  DictionaryAttr p = op.getParamsAttr();
  auto axes = p ? p.getAs<DenseI64ArrayAttr>("axes") : nullptr;
  auto xs = p ? p.getAs<FloatAttr>("x_scale") : nullptr;
  auto ys = p ? p.getAs<FloatAttr>("y_scale") : nullptr;
  auto zp = p ? p.getAs<IntegerAttr>("y_zero_point") : nullptr;
  auto sg = p ? p.getAs<BoolAttr>("signed") : nullptr;
  if (!axes || !xs || !ys || !zp || !sg)
    return fail("QLinearSoftmax without its parameters");
  auto type = cast<ShapedType>(op.getInputs()[0].getType());
  int64_t rank = type.getRank();
  ArrayRef<int64_t> a = axes.asArrayRef();
  // Trailing axes, in order: each row is contiguous.
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k] != rank - int64_t(a.size()) + int64_t(k))
      return fail("QLinearSoftmax on the NPU takes rows along the trailing "
                  "axes only");
  SoftmaxParams s;
  s.cols = 1;
  for (int64_t d = rank - int64_t(a.size()); d < rank; ++d)
    s.cols *= type.getDimSize(d);
  if (a.empty() || s.cols < 1)
    return fail("QLinearSoftmax over no elements");
  s.rows = type.getNumElements() / s.cols;
  if (s.cols > kMaxField)
    return fail("QLinearSoftmax rows exceed the vector unit's field widths");
  s.xScale = float(xs.getValueAsDouble());
  s.yScale = float(ys.getValueAsDouble());
  s.yZeroPoint = zp.getInt();
  s.isSigned = sg.getValue();
  return s;
}

/// A quantized layer_norm's rows, or nullopt with the reason in `why`.
struct LayerNormRows {
  int64_t rows = 0, cols = 0;
  QParams x, y;
  DenseElementsAttr scale, bias;
};

std::optional<LayerNormRows> layerNormRows(graph::LayerNormOp op,
                                           std::string *why) {
  auto fail = [&](const char *msg) -> std::optional<LayerNormRows> {
    if (why)
      *why = msg;
    return std::nullopt;
  };
  if (!graph::quantized8(op.getInput().getType()) ||
      !graph::quantized8(op.getOutput().getType()))
    return fail("layer norm on the NPU must be 8-bit per-tensor quantized "
                "(between a DequantizeLinear and a QuantizeLinear)");
  LayerNormRows r;
  r.scale = graph::constantBehind(op.getScale());
  if (op.getBias())
    r.bias = graph::constantBehind(op.getBias());
  if (!r.scale || !r.scale.getElementType().isF32() ||
      (op.getBias() && (!r.bias || !r.bias.getElementType().isF32())))
    return fail("layer norm on the NPU needs constant float32 scale and bias");
  auto type = cast<ShapedType>(op.getInput().getType());
  r.cols = 1;
  for (int64_t d = op.getAxis(); d < type.getRank(); ++d)
    r.cols *= type.getDimSize(d);
  r.rows = type.getNumElements() / std::max<int64_t>(r.cols, 1);
  if (r.cols < 1 || r.cols > kMaxField)
    return fail("layer norm rows exceed the vector unit's field widths");
  r.x = perTensorParams(op.getInput().getType());
  r.y = perTensorParams(op.getOutput().getType());
  return r;
}

/// A quantized mean or sum's rows, or nullopt with the reason in `why`.
struct ReduceRows {
  int64_t rows = 0, cols = 0;
  QParams x, y;
};

std::optional<ReduceRows> reduceRows(graph::ReduceOp op, std::string *why) {
  auto fail = [&](const char *msg) -> std::optional<ReduceRows> {
    if (why)
      *why = msg;
    return std::nullopt;
  };
  if (op.getKind() != "mean" && op.getKind() != "sum")
    return fail("no NPU lowering for this reduction");
  if (!graph::quantized8(op.getInput().getType()) ||
      !graph::quantized8(op.getOutput().getType()))
    return fail("a reduction on the NPU must be 8-bit per-tensor quantized "
                "(between a DequantizeLinear and a QuantizeLinear)");
  auto type = cast<ShapedType>(op.getInput().getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  for (int64_t a : op.getAxes())
    axes.push_back(a < 0 ? a + rank : a);
  llvm::sort(axes);
  // Trailing axes, each once: every row is contiguous, as ORT's
  // FastReduceKR sums it.
  for (size_t k = 0; k < axes.size(); ++k)
    if (axes[k] != rank - int64_t(axes.size()) + int64_t(k))
      return fail("a reduction on the NPU takes rows along the trailing "
                  "axes only");
  ReduceRows r;
  r.cols = 1;
  for (int64_t a : axes)
    r.cols *= type.getDimSize(a);
  if (axes.empty() || r.cols < 1 || r.cols > kMaxField)
    return fail("reduction rows are empty or exceed the vector unit's field "
                "widths");
  r.rows = type.getNumElements() / r.cols;
  r.x = perTensorParams(op.getInput().getType());
  r.y = perTensorParams(op.getOutput().getType());
  return r;
}

/// fp32 words the first item loads into the accumulator: `words` from
/// `dram` (0 while the planner prices the layer).
struct AccVector {
  uint64_t dram = 0;
  int64_t words = 0;
};

/// The items of a row layer: `total` rows of `n0` bytes in, `outN` bytes
/// out each, `tile` rows per item in double-buffered slots. The first item
/// also loads `vectors` into the accumulator from word 0 on, one after the
/// other (nothing else in the layer uses it); each item loads its rows
/// (`flipIn`: uint8 codes into the int8 domain), runs `compute(data, out,
/// first row, rows)` into a slot of its own and stores the result
/// (`flipOut`: back to uint8).
llvm::Expected<std::vector<Item>> rowTileItems(
    Operation *op, const LayerIO &io, ProgramBuilder &b, int64_t total,
    int64_t n0, int64_t outN, int64_t tile, llvm::ArrayRef<AccVector> vectors,
    bool flipIn, bool flipOut,
    llvm::function_ref<Instruction(uint64_t, uint64_t, int64_t, int64_t)>
        compute) {
  int64_t rows = std::min(tile, total);
  if (rows > kMaxField)
    return loweringError(op, "row tile exceeds the vector unit's and the "
                             "DMA's field widths");
  auto slots =
      allocateSlotPairs(op, b.hw, {rows * n0, rows * outN}, io.spMirrored);
  if (!slots)
    return slots.takeError();
  uint64_t words = 0;
  for (const AccVector &v : vectors)
    words += v.words;
  if (b.hw.accumulatorWords() < words)
    return loweringError(op, "accumulator of " +
                                 llvm::Twine(b.hw.sram.accumulatorBytes) +
                                 " bytes cannot hold the layer's " +
                                 llvm::Twine(words) + " fp32 words");
  std::vector<Item> items;
  for (int64_t r0 = 0; r0 < total; r0 += rows) {
    int64_t rt = std::min(rows, total - r0);
    size_t slot = items.size() % 2;
    uint64_t data = (*slots)[0][slot], out = (*slots)[1][slot];
    Item it;
    uint64_t at = 0;
    for (const AccVector &v : r0 ? llvm::ArrayRef<AccVector>() : vectors) {
      DmaBox t;
      t.acc = true, t.elemBytes = 4;
      t.dram = v.dram, t.sram = at, t.n[0] = v.words;
      it.loads.push_back(makeLoad(t));
      at += v.words;
    }
    DmaBox in;
    in.dram = io.inputs[0] + r0 * n0, in.sram = data;
    in.n[0] = rt * n0;
    in.flipSign = flipIn;
    // One run of rt * n0 bytes unless that exceeds the 16-bit count.
    if (rt * n0 > kMaxField) {
      in.n[0] = n0, in.n[1] = rt;
      in.s[1] = n0, in.t[1] = n0;
    }
    it.loads.push_back(makeLoad(in));
    it.computes.push_back(compute(data, out, r0, rt));
    DmaBox o;
    o.dram = io.output + r0 * outN, o.sram = out;
    o.n[0] = rt * outN;
    if (rt * outN > kMaxField) {
      o.n[0] = outN, o.n[1] = rt;
      o.s[1] = outN, o.t[1] = outN;
    }
    o.flipSign = flipOut;
    it.stores.push_back(makeStore(o));
    items.push_back(std::move(it));
  }
  return items;
}

} // namespace

bool isNpuSoftmax(Operation *op) {
  auto host = dyn_cast<graph::HostOp>(op);
  return host && softmaxParams(host, nullptr).has_value();
}

std::string softmaxRejection(graph::HostOp op) {
  std::string why;
  return softmaxParams(op, &why) ? "" : why;
}

std::vector<TilePlan> softmaxCandidates(graph::HostOp op,
                                        const isa::HwConfig &hw) {
  auto s = softmaxParams(op, nullptr);
  // Two slot pairs (input, output) of whole rows.
  return s ? fittingRowCandidates(s->rows, 4 * s->cols, hw)
           : std::vector<TilePlan>{};
}

llvm::Expected<std::vector<Item>> lowerSoftmax(graph::HostOp op,
                                               const TilePlan &plan,
                                               const LayerIO &io,
                                               ProgramBuilder &b) {
  std::string why;
  auto s = softmaxParams(op, &why);
  if (!s)
    return loweringError(op, why);
  int64_t n0 = s->cols;
  AccVector table{0, 256};
  if (io.materializeConstants) {
    // The natural order (entry k for a code k - 255 below the row's
    // maximum): the unsigned table.
    std::vector<float> t =
        conversion::qlinearSoftmaxTable(s->xScale, n0, /*isSigned=*/false);
    table.dram = b.constantBase + b.addConstant(t.data(), t.size() * 4, true);
  }
  float c = std::floor(1.0f / s->yScale);
  // VSOFTMAX writes storage bytes: nothing to flip on the way out.
  return rowTileItems(
      op, io, b, s->rows, n0, n0, plan.rows.value(), {table}, !s->isSigned,
      false, [&](uint64_t data, uint64_t out, int64_t, int64_t rt) {
        Instruction v(Opcode::Vsoftmax);
        v.set(Field::Vsoftmax_u8, !s->isSigned);
        v.set(Field::Vsoftmax_zp,
              s->isSigned ? s->yZeroPoint
                          : int64_t(int8_t(uint8_t(s->yZeroPoint))));
        v.set(Field::Vsoftmax_a_addr, static_cast<int64_t>(data));
        v.set(Field::Vsoftmax_table_addr, 0);
        v.set(Field::Vsoftmax_o_addr, static_cast<int64_t>(out));
        v.set(Field::Vsoftmax_n0, n0);
        v.set(Field::Vsoftmax_n1, rt);
        v.set(Field::Vsoftmax_a_s1, n0);
        v.set(Field::Vsoftmax_o_s1, n0);
        v.setF32(Field::Vsoftmax_c, c);
        return v;
      });
}

std::string layerNormRejection(graph::LayerNormOp op) {
  std::string why;
  return layerNormRows(op, &why) ? "" : why;
}

std::vector<TilePlan> layerNormCandidates(graph::LayerNormOp op,
                                          const isa::HwConfig &hw) {
  auto r = layerNormRows(op, nullptr);
  return r ? fittingRowCandidates(r->rows, 4 * r->cols, hw)
           : std::vector<TilePlan>{};
}

llvm::Expected<std::vector<Item>> lowerLayerNorm(graph::LayerNormOp op,
                                                 const TilePlan &plan,
                                                 const LayerIO &io,
                                                 ProgramBuilder &b) {
  std::string why;
  auto r = layerNormRows(op, &why);
  if (!r)
    return loweringError(op, why);
  int64_t n0 = r->cols;
  bool bias = static_cast<bool>(r->bias);
  // Scale at accumulator word 0, bias after it.
  std::vector<AccVector> vectors = {{0, n0}};
  if (bias)
    vectors.push_back({0, n0});
  if (io.materializeConstants)
    for (size_t i = 0; i < vectors.size(); ++i) {
      DenseElementsAttr attr = i ? r->bias : r->scale;
      std::vector<float> f(attr.getValues<float>().begin(),
                           attr.getValues<float>().end());
      vectors[i].dram = b.constantBase + b.addConstant(f.data(), f.size() * 4);
    }
  return rowTileItems(
      op, io, b, r->rows, n0, n0, plan.rows.value(), vectors, r->x.isUnsigned,
      r->y.isUnsigned, [&](uint64_t data, uint64_t out, int64_t, int64_t rt) {
        Instruction v(Opcode::Vlayernorm);
        v.set(Field::Vlayernorm_bias, bias);
        v.set(Field::Vlayernorm_x_zp, r->x.zeroPoint);
        v.set(Field::Vlayernorm_y_zp, r->y.zeroPoint);
        v.set(Field::Vlayernorm_a_addr, static_cast<int64_t>(data));
        v.set(Field::Vlayernorm_gamma_addr, 0);
        v.set(Field::Vlayernorm_beta_addr, bias ? n0 : 0);
        v.set(Field::Vlayernorm_o_addr, static_cast<int64_t>(out));
        v.set(Field::Vlayernorm_n0, n0);
        v.set(Field::Vlayernorm_n1, rt);
        v.set(Field::Vlayernorm_a_s1, n0);
        v.set(Field::Vlayernorm_o_s1, n0);
        v.setF32(Field::Vlayernorm_eps,
                 float(op.getEpsilon().convertToDouble()));
        v.setF32(Field::Vlayernorm_x_scale, r->x.scale);
        v.setF32(Field::Vlayernorm_y_scale, r->y.scale);
        return v;
      });
}

std::string reduceRejection(graph::ReduceOp op) {
  std::string why;
  return reduceRows(op, &why) ? "" : why;
}

std::vector<TilePlan> reduceCandidates(graph::ReduceOp op,
                                       const isa::HwConfig &hw) {
  auto r = reduceRows(op, nullptr);
  // Two input slots of whole rows, two of one byte per row.
  return r ? fittingRowCandidates(r->rows, 2 * r->cols + 2, hw)
           : std::vector<TilePlan>{};
}

llvm::Expected<std::vector<Item>> lowerReduce(graph::ReduceOp op,
                                              const TilePlan &plan,
                                              const LayerIO &io,
                                              ProgramBuilder &b) {
  std::string why;
  auto r = reduceRows(op, &why);
  if (!r)
    return loweringError(op, why);
  int64_t n0 = r->cols;
  return rowTileItems(op, io, b, r->rows, n0, 1, plan.rows.value(), {},
                      r->x.isUnsigned, r->y.isUnsigned,
                      [&](uint64_t data, uint64_t out, int64_t r0, int64_t rt) {
                        Instruction v(Opcode::Vreduce);
                        // ORT's rows lie r0 * n0 elements into the tensor,
                        // whose buffer starts 16-byte aligned: Eigen's packets
                        // start where that offset reaches a multiple of 4.
                        v.set(Field::Vreduce_phase, (r0 * n0) % 4);
                        v.set(Field::Vreduce_mean, op.getKind() == "mean");
                        v.set(Field::Vreduce_x_zp, r->x.zeroPoint);
                        v.set(Field::Vreduce_y_zp, r->y.zeroPoint);
                        v.set(Field::Vreduce_a_addr,
                              static_cast<int64_t>(data));
                        v.set(Field::Vreduce_o_addr, static_cast<int64_t>(out));
                        v.set(Field::Vreduce_n0, n0);
                        v.set(Field::Vreduce_n1, rt);
                        v.set(Field::Vreduce_a_s1, n0);
                        v.set(Field::Vreduce_o_s1, 1);
                        v.setF32(Field::Vreduce_x_scale, r->x.scale);
                        v.setF32(Field::Vreduce_y_scale, r->y.scale);
                        return v;
                      });
}

} // namespace systole::npu
