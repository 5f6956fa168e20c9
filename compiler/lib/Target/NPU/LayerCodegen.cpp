//===- LayerCodegen.cpp - Dispatch and shared helpers of the generators ---===//
#include "LayerCodegen.h"
#include "systole/Target/NPU/Annotations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"

#include <cassert>
#include <cmath>
#include <set>

using namespace mlir;

namespace systole::npu {

std::optional<uint64_t> SramAllocator::allocate(uint64_t bytes,
                                                bool bankAligned) {
  uint64_t start = top;
  if (bankAligned && bankBytes) {
    uint64_t aligned = (top + bankBytes - 1) / bankBytes * bankBytes;
    if (aligned + bytes <= limit)
      start = aligned;
  }
  // Keep 4-byte alignment for everything (ACC words are addressed anyway).
  start = (start + 3) / 4 * 4;
  uint64_t size = mirrored ? (bytes + 3) / 4 * 4 : bytes;
  if (start + size > limit)
    return std::nullopt;
  top = start + size;
  return mirrored ? capacity - start - size : start;
}

llvm::Error loweringError(Operation *op, const llvm::Twine &msg) {
  std::string loc;
  llvm::raw_string_ostream os(loc);
  op->getLoc().print(os);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      os.str() + ": '" + op->getName().getStringRef() + "': " + msg);
}

QParams perTensorParams(Type tensorType) {
  auto q = cast<quant::UniformQuantizedType>(getElementTypeOrSelf(tensorType));
  bool u = !q.isSigned();
  return {static_cast<float>(q.getScale()), q.getZeroPoint() - (u ? 128 : 0),
          u};
}

float channelScale(Type tensorType, int64_t c) {
  Type e = getElementTypeOrSelf(tensorType);
  if (auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(e))
    return static_cast<float>(pa.getScales()[c]);
  return static_cast<float>(cast<quant::UniformQuantizedType>(e).getScale());
}

int64_t uniformZeroPoint(Type tensorType) {
  auto q = cast<quant::QuantizedType>(getElementTypeOrSelf(tensorType));
  int64_t shift = q.isSigned() ? 0 : 128;
  if (auto pa = dyn_cast<quant::UniformQuantizedPerAxisType>(q))
    return pa.getZeroPoints().front() - shift;
  return cast<quant::UniformQuantizedType>(q).getZeroPoint() - shift;
}

std::vector<char> constantInt8(Value v) {
  std::vector<char> out = constantBytes(v);
  auto q = cast<quant::QuantizedType>(getElementTypeOrSelf(v.getType()));
  if (!q.isSigned())
    for (char &c : out)
      c = static_cast<char>(c ^ 0x80);
  return out;
}

float requantScale(float xScale, float wScale, float yScale) {
  // onnxruntime QLinearConv/QGemm: output_scales[i] = X_scale * W_scale[i] /
  // Y_scale, evaluated left to right in fp32.
  volatile float product = xScale * wScale;
  return product / yScale;
}

std::pair<int64_t, int64_t> clampBounds(Operation *op) {
  auto q = cast<quant::QuantizedType>(
      getElementTypeOrSelf(op->getResult(0).getType()));
  int64_t shift = q.isSigned() ? 0 : 128;
  int64_t lo = q.getStorageTypeMin(), hi = q.getStorageTypeMax();
  if (auto a = op->getAttrOfType<IntegerAttr>("act_min"))
    lo = std::max<int64_t>(lo, a.getInt());
  if (auto a = op->getAttrOfType<IntegerAttr>("act_max"))
    hi = std::min<int64_t>(hi, a.getInt());
  return {lo - shift, hi - shift};
}

std::vector<char> constantBytes(Value v) {
  if (auto s = v.getDefiningOp<quant::StorageCastOp>())
    v = s.getArg();
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto attr = cast<DenseElementsAttr>(c.getValue());
  ArrayRef<char> raw = attr.getRawData();
  if (!attr.isSplat())
    return std::vector<char>(raw.begin(), raw.end());
  // A splat stores one element; the hardware needs all of them.
  int64_t n = attr.getNumElements();
  std::vector<char> out;
  out.reserve(raw.size() * n);
  for (int64_t i = 0; i < n; ++i)
    out.insert(out.end(), raw.begin(), raw.end());
  return out;
}

std::vector<char> tileColumns(ArrayRef<char> matrix, int64_t k, int64_t n,
                              int64_t nt) {
  std::vector<char> out;
  out.reserve(matrix.size());
  for (int64_t c0 = 0; c0 < n; c0 += nt) {
    int64_t w = std::min(nt, n - c0);
    for (int64_t r = 0; r < k; ++r)
      out.insert(out.end(), matrix.begin() + r * n + c0,
                 matrix.begin() + r * n + c0 + w);
  }
  return out;
}

Epilogue epilogueOf(Operation *op) {
  Epilogue e;
  Type out = getElementTypeOrSelf(op->getResult(0).getType());
  if (!llvm::isa<quant::QuantizedType>(out)) {
    e.int32Out = true;
    return e;
  }
  e.y = perTensorParams(op->getResult(0).getType());
  e.storeUnsigned = e.y.isUnsigned;
  std::tie(e.lo, e.hi) = clampBounds(op);
  if (graph::TableOp t = fusedTable(op)) {
    e.lut = true;
    // Index: the requantized value in the NPU's domain + 128, i.e. the
    // input code - its storage minimum (graph.table's index). Entries: the
    // output code in the NPU's domain (uint8 - 128; the store flips back).
    e.storeUnsigned = perTensorParams(t.getOutput().getType()).isUnsigned;
    for (const APInt &v : t.getTable().getValues<APInt>())
      e.table.push_back(
          static_cast<char>(v.getZExtValue() ^ (e.storeUnsigned ? 0x80 : 0)));
  }
  if (graph::AddOp add = fusedResidual(op)) {
    e.residual = true;
    e.producerIsLhs = add.getLhs() == op->getResult(0);
    e.resA = perTensorParams(add.getLhs().getType());
    e.resB = perTensorParams(add.getRhs().getType());
    e.resOut = perTensorParams(add.getOutput().getType());
    e.storeUnsigned = e.resOut.isUnsigned;
    std::tie(e.resLo, e.resHi) = clampBounds(add);
  }
  return e;
}

graph::AddOp fusedResidual(Operation *op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return {};
  auto add = dyn_cast<graph::AddOp>(*op->getResult(0).user_begin());
  if (!add)
    return {};
  auto idx = add->getAttrOfType<IntegerAttr>(kResidualAttr);
  if (!idx || idx.getInt() < 0 || idx.getInt() > 1 ||
      add->getOperand(idx.getInt()) != op->getResult(0))
    return {};
  return add;
}

bool isFusedIntoProducer(Operation *op) {
  if (auto t = dyn_cast<graph::TableOp>(op)) {
    Operation *def = t.getInput().getDefiningOp();
    return def && fusedTable(def) == t;
  }
  return (llvm::isa<graph::AddOp>(op) && op->hasAttr(kResidualAttr)) ||
         (llvm::isa<graph::ConcatOp>(op) && op->hasAttr(kInPlaceAttr));
}

std::optional<ConcatSlice> concatSlice(Operation *op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  Value v = op->getResult(0);
  if (graph::TableOp t = fusedTable(op))
    v = t.getOutput();
  if (!v.hasOneUse())
    return std::nullopt;
  auto c = dyn_cast<graph::ConcatOp>(*v.user_begin());
  if (!c || !c->hasAttr(kInPlaceAttr))
    return std::nullopt;
  ConcatSlice s;
  s.concat = c;
  s.channels = cast<ShapedType>(c.getOutput().getType()).getShape().back();
  for (Value in : c.getInputs()) {
    if (in == v)
      return s;
    s.offset += cast<ShapedType>(in.getType()).getShape().back();
  }
  return std::nullopt;
}

float mulRatio(const QParams &a, const QParams &b, const QParams &c) {
  volatile float ab = a.scale * b.scale; // rounded on its own, as MLAS
  return ab / c.scale;
}

AddConstants addConstants(const QParams &a, const QParams &b,
                          const QParams &c) {
  // MLAS writes fixed = ZpC - (ratio_a * ZpA + ratio_b * ZpB); ORT's x86
  // build contracts the sum into fma(ratio_a, ZpA, fl(ratio_b * ZpB)) (the
  // qladd kernels are compiled with -mfma). With int8's small zero points
  // the two roundings rarely differ; uint8's (around 128) showed it: 4 of
  // 960 values 1 LSB off (e2e.npu-layers.residual-uint8) until this form.
  float ratioA = a.scale / c.scale, ratioB = b.scale / c.scale;
  volatile float zb = ratioB * static_cast<float>(b.zeroPoint);
  volatile float zsum =
      std::fma(ratioA, static_cast<float>(a.zeroPoint), static_cast<float>(zb));
  float fixed = static_cast<float>(c.zeroPoint) - zsum;
  return {ratioA, ratioB, fixed};
}

graph::TableOp fusedTable(Operation *op) {
  // Producers that apply a table: a convolution's or matmul's REQUANT (one
  // table), a concat copy's VLUTs (one per input, per channel too), an
  // elementwise binary layer's VLUT on its output tile (per channel too: a
  // LayerNorm's Div before its scale and bias); not a residual add, which
  // its convolution's epilogue runs.
  bool concat = llvm::isa<graph::ConcatOp>(op) && !op->hasAttr(kInPlaceAttr);
  bool binary =
      llvm::isa<graph::AddOp, graph::MulOp, graph::SubOp, graph::DivOp>(op) &&
      !op->hasAttr(kResidualAttr) && !op->hasAttr(kTableApartAttr) &&
      !hasF32Operand(op);
  if (!(concat || binary || llvm::isa<graph::Conv2DOp, graph::MatMulOp>(op)) ||
      getPlacement(op) != Placement::Npu || op->getNumResults() != 1 ||
      !op->getResult(0).hasOneUse())
    return {};
  auto t = dyn_cast<graph::TableOp>(*op->getResult(0).user_begin());
  if (!t || getPlacement(t) != Placement::Npu)
    return {};
  // Per channel only where the concat's rows are pixels of channels (a
  // binary layer's rows always are).
  if (isPerChannel(t) && !binary &&
      !(concat && concatRows(cast<graph::ConcatOp>(op)).lastAxis))
    return {};
  return t;
}

void setDomainByte(Instruction &inst, Field field, int64_t value, bool u8) {
  if (u8)
    inst.setRaw(field, static_cast<uint64_t>(value) & 0xff);
  else
    inst.set(field, value);
}

bool isPerChannel(graph::TableOp t) {
  return cast<ShapedType>(t.getTable().getType()).getRank() == 2;
}

void materializeTable(ProgramBuilder &b, Epilogue &e) {
  if (e.lut)
    e.lutDram =
        b.constantBase + b.addConstant(e.table.data(), e.table.size(), true);
}

std::pair<uint64_t, uint64_t>
materializeEpilogueConstants(ProgramBuilder &b, Value bias, Type weightType,
                             float inputScale, float outputScale,
                             int64_t channels, bool derived) {
  std::vector<int32_t> biasWords(channels, 0);
  if (bias)
    std::memcpy(biasWords.data(), constantBytes(bias).data(), channels * 4);
  uint64_t biasAddr =
      b.constantBase + b.addConstant(biasWords.data(), channels * 4, derived);
  std::vector<float> scales(channels);
  for (int64_t c = 0; c < channels; ++c)
    scales[c] =
        requantScale(inputScale, channelScale(weightType, c), outputScale);
  uint64_t scaleAddr =
      b.constantBase + b.addConstant(scales.data(), channels * 4, derived);
  return {biasAddr, scaleAddr};
}

void appendEpilogueLoads(Item &item, const AccTile &tile, const Epilogue &e,
                         uint64_t biasDram, uint64_t scaleDram) {
  if (e.int32Out)
    return;
  DmaBox bias;
  bias.acc = true, bias.elemBytes = 4;
  bias.dram = biasDram, bias.sram = tile.bias, bias.n[0] = tile.nt;
  item.loads.push_back(makeLoad(bias));
  DmaBox sc;
  sc.acc = true, sc.elemBytes = 4;
  sc.dram = scaleDram, sc.sram = tile.scales, sc.n[0] = tile.nt;
  item.loads.push_back(makeLoad(sc));
  if (e.lut) {
    DmaBox lut;
    lut.dram = e.lutDram, lut.sram = tile.lut, lut.n[0] = 256;
    item.loads.push_back(makeLoad(lut));
  }
}

/// REQUANT of the whole accumulator tile into its output slot.
static Instruction requantOf(const AccTile &tile, const Epilogue &e) {
  Instruction rq(Opcode::Requant);
  rq.set(Field::Requant_zp, e.y.zeroPoint);
  rq.set(Field::Requant_lo, e.lo);
  rq.set(Field::Requant_hi, e.hi);
  rq.set(Field::Requant_c_addr, static_cast<int64_t>(tile.acc));
  rq.set(Field::Requant_c_stride, tile.nt);
  rq.set(Field::Requant_scale_addr, static_cast<int64_t>(tile.scales));
  rq.set(Field::Requant_bias, 1);
  rq.set(Field::Requant_bias_addr, static_cast<int64_t>(tile.bias));
  rq.set(Field::Requant_o_addr, static_cast<int64_t>(tile.out));
  rq.set(Field::Requant_o_stride, tile.nt);
  rq.set(Field::Requant_m, tile.m);
  rq.set(Field::Requant_n, tile.nt);
  if (e.lut) {
    rq.set(Field::Requant_lut, 1);
    rq.set(Field::Requant_lut_addr, static_cast<int64_t>(tile.lut));
  }
  return rq;
}

uint64_t keptAddress(const OnChipTile &t, int64_t oy, int64_t c0) {
  return t.base + ((t.padTop + oy) * t.rowPitch + t.padLeft) * t.channels + c0;
}

bool keptTileIsDense(const OnChipTile &t, int64_t ow) {
  return t.padLeft == 0 && t.rowPitch == ow;
}

void appendKeptEpilogue(Item &item, const AccTile &tile, const Epilogue &e,
                        const OnChipTile &dst, int64_t oy0, int64_t rows,
                        int64_t ow, int64_t c0) {
  assert(!e.int32Out && !e.residual && "a kept layer requantizes alone");
  // Without side padding the tile's pixels are contiguous in the consumer's
  // tile as they are in the accumulator: one REQUANT.
  bool dense = dst.rowPitch == ow;
  for (int64_t r = 0; r < (dense ? 1 : rows); ++r) {
    Instruction rq = requantOf(tile, e);
    rq.set(Field::Requant_c_addr,
           static_cast<int64_t>(tile.acc + r * ow * tile.nt));
    rq.set(Field::Requant_o_addr,
           static_cast<int64_t>(keptAddress(dst, oy0 + r, c0)));
    rq.set(Field::Requant_o_stride, dst.channels);
    rq.set(Field::Requant_m, dense ? rows * ow : ow);
    item.computes.push_back(rq);
  }
  item.keep = true;
}

std::vector<DmaBox> keptImageBorder(uint64_t base, int64_t rows, int64_t pt,
                                    int64_t h, int64_t w, int64_t pl,
                                    int64_t pr, int64_t c, int64_t padByte,
                                    const LayerIO &io, ProgramBuilder &b) {
  std::vector<DmaBox> border;
  int64_t bottom = rows - pt - h;
  if (pt + pl + pr + bottom == 0)
    return border;
  uint64_t pixel = 0;
  if (io.materializeConstants) {
    std::vector<int8_t> pad(c, static_cast<int8_t>(padByte));
    pixel = b.constantBase + b.addConstant(pad.data(), pad.size());
  }
  int64_t wp = pl + w + pr, pitch = wp * c;
  auto box = [&](int64_t row, int64_t col, int64_t nRows, int64_t nCols) {
    if (nRows <= 0 || nCols <= 0)
      return;
    DmaBox p;
    p.dram = pixel, p.sram = base + row * pitch + col * c;
    p.n[0] = c, p.n[1] = nCols, p.n[2] = nRows;
    p.t[1] = c, p.t[2] = pitch;
    border.push_back(p);
  };
  box(0, 0, pt, wp);
  box(pt + h, 0, bottom, wp);
  box(pt, 0, h, pl);
  box(pt, pl + w, h, pr);
  return border;
}

void appendEpilogue(Item &item, const AccTile &tile, const Epilogue &e,
                    uint64_t outBase, int64_t elemOffset, int64_t rowStride,
                    std::optional<uint64_t> kept, int64_t keptPixelStride,
                    bool store) {
  assert((!kept || !e.int32Out) && "a kept tile is int8");
  // The tile's final bytes: the output slot, or the kept image.
  uint64_t finalAddr = kept ? *kept : tile.out;
  int64_t finalStride = kept ? keptPixelStride : tile.nt;
  DmaBox out;
  out.n[0] = tile.nt, out.n[1] = tile.m;
  out.t[1] = tile.nt;
  if (e.int32Out) {
    out.acc = true, out.elemBytes = 4;
    out.sram = tile.acc;
    out.dram = outBase + 4 * elemOffset;
    out.s[1] = 4 * rowStride;
    item.stores.push_back(makeStore(out));
    return;
  }
  item.computes.push_back(requantOf(tile, e));
  if (!e.residual) {
    item.computes.back().set(Field::Requant_o_addr,
                             static_cast<int64_t>(finalAddr));
    item.computes.back().set(Field::Requant_o_stride, finalStride);
  }
  if (e.residual) {
    // The add's operands: the requantized tile and the shortcut's.
    uint64_t aAddr = e.producerIsLhs ? tile.out : tile.res;
    uint64_t bAddr = e.producerIsLhs ? tile.res : tile.out;
    // The other operand's tile, same pixels and channels as the output
    // tile; read first by the VADD below.
    // uint8: the shortcut is flipped into the int8 domain like every
    // loaded uint8 tensor, and VADD runs in its uint8 mode (the stored zero
    // points and bounds, the uint8 kernel's arithmetic).
    bool u8 = e.resOut.isUnsigned;
    DmaBox res;
    res.flipSign = u8;
    res.sram = tile.res;
    res.dram = e.residualDram + elemOffset;
    res.n[0] = tile.nt, res.n[1] = tile.m;
    res.s[1] = rowStride, res.t[1] = tile.nt;
    if (!item.loadNeed.empty())
      item.loadNeed.push_back(item.computes.size());
    item.tailLoad = item.loads.size();
    item.loads.push_back(makeLoad(res));
    // In place over the requantized tile (VADD allows the identical box),
    // or into the kept image.
    QParams qa = e.resA, qb = e.resB, qc = e.resOut;
    int64_t lo = e.resLo, hi = e.resHi;
    if (u8) {
      for (QParams *q : {&qa, &qb, &qc})
        q->zeroPoint += 128;
      lo += 128, hi += 128;
    }
    AddConstants k = addConstants(qa, qb, qc);
    Instruction v(Opcode::Vadd);
    v.set(Field::Vadd_mode, isa::AddMode_fma);
    v.set(Field::Vadd_u8, u8);
    setDomainByte(v, Field::Vadd_lo, lo, u8);
    setDomainByte(v, Field::Vadd_hi, hi, u8);
    v.set(Field::Vadd_a_addr, static_cast<int64_t>(aAddr));
    v.set(Field::Vadd_b_addr, static_cast<int64_t>(bAddr));
    v.set(Field::Vadd_o_addr, static_cast<int64_t>(finalAddr));
    v.set(Field::Vadd_n0, tile.nt);
    v.set(Field::Vadd_n1, tile.m);
    v.set(Field::Vadd_a_s1, tile.nt);
    v.set(Field::Vadd_b_s1, tile.nt);
    v.set(Field::Vadd_o_s1, finalStride);
    v.setF32(Field::Vadd_ratio_a, k.ratioA);
    v.setF32(Field::Vadd_ratio_b, k.ratioB);
    v.setF32(Field::Vadd_fixed, k.fixed);
    item.computes.push_back(v);
  }
  if (!store) {
    assert(kept && "an output that is not stored is kept");
    item.keep = true;
    return;
  }
  out.sram = finalAddr;
  out.t[1] = finalStride;
  out.dram = outBase + elemOffset;
  out.s[1] = rowStride;
  out.flipSign = e.storeUnsigned;
  item.stores.push_back(makeStore(out));
}

unsigned numActivationOperands(Operation *op) {
  if (llvm::isa<graph::AddOp, graph::MulOp, graph::SubOp, graph::DivOp>(op))
    return 2;
  if (auto c = dyn_cast<graph::ConcatOp>(op))
    return c.getInputs().size();
  // A matmul of two activations (attention) reads its rhs from DRAM too.
  if (auto mm = dyn_cast<graph::MatMulOp>(op))
    return isConstantTensor(mm.getRhs()) ? 1 : 2;
  return 1;
}

bool isConstantTensor(Value v) {
  if (auto s = v.getDefiningOp<quant::StorageCastOp>())
    v = s.getArg();
  return v.getDefiningOp<arith::ConstantOp>() != nullptr;
}

bool constantBroadcastByRows(Operation *op, unsigned idx) {
  auto c = dyn_cast<ShapedType>(op->getOperand(idx).getType());
  auto out = dyn_cast<ShapedType>(op->getResult(0).getType());
  return c && out && c.hasStaticShape() && out.hasStaticShape() &&
         c.getRank() > 0 && c.getRank() <= out.getRank() &&
         c.getShape().back() == out.getShape().back() &&
         isConstantTensor(op->getOperand(idx));
}

BinaryBroadcast binaryBroadcast(ShapedType lhs, ShapedType rhs) {
  if (lhs.getShape() == rhs.getShape())
    return BinaryBroadcast::Equal;
  // `small` broadcast against `full` (same rank, `full` is the result).
  auto vectorOf = [](ShapedType small, ShapedType full) {
    if (small.getRank() != full.getRank() || small.getRank() == 0)
      return false;
    for (int64_t d = 0; d + 1 < small.getRank(); ++d)
      if (small.getDimSize(d) != 1)
        return false;
    return small.getShape().back() == full.getShape().back();
  };
  auto scalarOf = [](ShapedType small, ShapedType full) {
    return small.getRank() <= full.getRank() && small.getNumElements() == 1;
  };
  if (vectorOf(rhs, lhs))
    return BinaryBroadcast::RhsVector;
  if (vectorOf(lhs, rhs))
    return BinaryBroadcast::LhsVector;
  if (scalarOf(rhs, lhs))
    return BinaryBroadcast::RhsScalar;
  if (scalarOf(lhs, rhs))
    return BinaryBroadcast::LhsScalar;
  // Every dim equal but the last, 1 on the small side (leading 1s implied).
  auto rowOf = [](ShapedType small, ShapedType full) {
    int64_t extra = full.getRank() - small.getRank();
    if (extra < 0 || full.getRank() == 0 || full.getShape().back() == 1)
      return false;
    for (int64_t d = 0; d + 1 < full.getRank(); ++d)
      if ((d < extra ? 1 : small.getDimSize(d - extra)) != full.getDimSize(d))
        return false;
    return small.getRank() > 0 && small.getShape().back() == 1;
  };
  if (rowOf(rhs, lhs))
    return BinaryBroadcast::RhsRow;
  if (rowOf(lhs, rhs))
    return BinaryBroadcast::LhsRow;
  return BinaryBroadcast::None;
}

std::vector<TilePlan> rowCandidates(int64_t outRows) {
  // Halvings of the height plus the tile heights that split it into k equal
  // tiles for small k: large tiles amortize per-tile overheads, and equal
  // tiles avoid a nearly empty last one.
  std::set<int64_t> rows;
  for (int64_t r = outRows; r >= 1; r = r > 1 ? (r + 1) / 2 : 0)
    rows.insert(r);
  for (int64_t k = 2; k <= 16 && k <= outRows; ++k)
    rows.insert((outRows + k - 1) / k);
  std::vector<TilePlan> plans;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    TilePlan p;
    p.rows = *it;
    plans.push_back(p);
  }
  return plans;
}

std::vector<TilePlan> fittingRowCandidates(int64_t rows, int64_t bytesPerRow,
                                           const isa::HwConfig &hw) {
  // Tiles up to what two slot pairs of the scratchpad hold, down to a
  // sixteenth of that: smaller tiles only add per-item costs, and pricing
  // them (thousands of items for a layer of thousands of rows) is what made
  // planning slow.
  int64_t fit = std::max<int64_t>(1, int64_t(hw.sram.scratchpadBytes) /
                                         std::max<int64_t>(bytesPerRow, 1));
  int64_t smallest = std::max<int64_t>(1, std::min(fit, rows) / 16);
  std::vector<TilePlan> plans;
  for (TilePlan p : rowCandidates(rows))
    if (*p.rows <= fit && *p.rows >= smallest)
      plans.push_back(p);
  if (plans.empty()) {
    TilePlan p;
    p.rows = std::min(fit, rows);
    plans.push_back(p);
  }
  return plans;
}

std::vector<TilePlan> candidatePlans(Operation *op, const isa::HwConfig &hw,
                                     bool kSplit) {
  if (auto conv = dyn_cast<graph::Conv2DOp>(op))
    return convCandidates(conv, hw, kSplit);
  if (auto mm = dyn_cast<graph::MatMulOp>(op))
    return matmulCandidates(mm, hw, kSplit);
  if (kSplit)
    return {};
  if (auto pool = dyn_cast<graph::PoolOp>(op))
    return rowCandidates(
        cast<ShapedType>(pool.getOutput().getType()).getDimSize(1));
  if (isFusedIntoProducer(op))
    return {}; // applied by its producer's epilogue
  if (llvm::isa<graph::AddOp, graph::MulOp, graph::SubOp, graph::DivOp>(op)) {
    auto t = cast<ShapedType>(op->getResult(0).getType());
    int64_t rows = t.getNumElements() / t.getShape().back();
    return rowCandidates(rows);
  }
  if (auto t = dyn_cast<graph::TableOp>(op))
    return tableCandidates(t, hw);
  if (auto h = dyn_cast<graph::HostOp>(op))
    return softmaxCandidates(h, hw);
  if (auto ln = dyn_cast<graph::LayerNormOp>(op))
    return layerNormCandidates(ln, hw);
  if (auto r = dyn_cast<graph::ReduceOp>(op))
    return reduceCandidates(r, hw);
  if (auto tr = dyn_cast<graph::TransposeOp>(op))
    return transposeCandidates(tr, hw);
  if (auto c = dyn_cast<graph::ConcatOp>(op))
    return concatCandidates(c);
  if (llvm::isa<graph::UpsampleOp, graph::DepthToSpaceOp>(op)) {
    auto in = cast<ShapedType>(op->getOperand(0).getType());
    return rowCandidates(in.getDimSize(0) * in.getDimSize(1));
  }
  if (auto pad = dyn_cast<graph::PadOp>(op)) {
    auto out = cast<ShapedType>(pad.getOutput().getType());
    return rowCandidates(out.getDimSize(1));
  }
  if (auto slice = dyn_cast<graph::SliceOp>(op)) {
    // Rows of the last dim, per block (sliceRows).
    auto r = sliceRows(slice);
    return r ? rowCandidates(r->rows) : std::vector<TilePlan>{};
  }
  if (auto s2d = dyn_cast<graph::SpaceToDepthOp>(op)) {
    // Units of blocksize input rows: one output row each.
    auto out = cast<ShapedType>(s2d.getOutput().getType());
    return rowCandidates(out.getDimSize(0) * out.getDimSize(1));
  }
  if (llvm::isa<graph::GlobalAvgPoolOp>(op)) {
    std::vector<TilePlan> plans;
    for (int64_t ch = 1 << 15; ch >= 1; ch /= 2) {
      TilePlan p;
      p.channels = ch;
      plans.push_back(p);
    }
    return plans;
  }
  return {};
}

llvm::Expected<std::vector<Item>> lowerLayer(Operation *op,
                                             const TilePlan &plan,
                                             const LayerIO &io,
                                             ProgramBuilder &builder) {
  if (auto conv = dyn_cast<graph::Conv2DOp>(op))
    return lowerConv(conv, plan, io, builder);
  if (auto mm = dyn_cast<graph::MatMulOp>(op))
    return lowerMatMul(mm, plan, io, builder);
  if (hasF32Operand(op))
    return lowerFloatBinary(op, plan, io, builder);
  if (auto add = dyn_cast<graph::AddOp>(op))
    return lowerAdd(add, plan, io, builder);
  if (auto mul = dyn_cast<graph::MulOp>(op))
    return lowerMul(mul, plan, io, builder);
  if (auto pool = dyn_cast<graph::PoolOp>(op))
    return lowerPool(pool, plan, io, builder);
  if (auto gap = dyn_cast<graph::GlobalAvgPoolOp>(op))
    return lowerGlobalAvgPool(gap, plan, io, builder);
  if (auto t = dyn_cast<graph::TableOp>(op))
    return lowerTable(t, plan, io, builder);
  if (auto h = dyn_cast<graph::HostOp>(op))
    return lowerSoftmax(h, plan, io, builder);
  if (auto ln = dyn_cast<graph::LayerNormOp>(op))
    return lowerLayerNorm(ln, plan, io, builder);
  if (auto r = dyn_cast<graph::ReduceOp>(op))
    return lowerReduce(r, plan, io, builder);
  if (llvm::isa<graph::SubOp, graph::DivOp>(op))
    return lowerFloatBinary(op, plan, io, builder);
  if (auto tr = dyn_cast<graph::TransposeOp>(op))
    return lowerTranspose(tr, plan, io, builder);
  if (auto c = dyn_cast<graph::ConcatOp>(op))
    return lowerConcat(c, plan, io, builder);
  if (auto u = dyn_cast<graph::UpsampleOp>(op))
    return lowerUpsample(u, plan, io, builder);
  if (auto d = dyn_cast<graph::DepthToSpaceOp>(op))
    return lowerDepthToSpace(d, plan, io, builder);
  if (auto s2d = dyn_cast<graph::SpaceToDepthOp>(op))
    return lowerSpaceToDepth(s2d, plan, io, builder);
  if (auto pad = dyn_cast<graph::PadOp>(op))
    return lowerPad(pad, plan, io, builder);
  if (auto slice = dyn_cast<graph::SliceOp>(op))
    return lowerChannelSlice(slice, plan, io, builder);
  return loweringError(op, "no NPU generator");
}

} // namespace systole::npu
