//===- VectorCodegen.cpp - Elementwise ops and pooling on the vector unit -===//
//
// Elementwise add and mul (QLinearAdd/QLinearMul semantics, with a
// per-channel or scalar operand broadcast), sub and div between dequantizes
// and a quantize (VBINARY, also with a per-row operand), max pooling and
// global average pooling. Items are row tiles of the NHWC tensor (all
// channels at once).
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"

#include "systole/Dialect/Graph/ConstantTensors.h"
#include "systole/ISA/Footprint.h"

using namespace mlir;

namespace systole::npu {

llvm::Expected<std::vector<std::array<uint64_t, 2>>>
allocateSlotPairs(Operation *op, const isa::HwConfig &hw,
                  llvm::ArrayRef<int64_t> bytes, bool mirrored) {
  SramAllocator sp(hw.sram.scratchpadBytes, hw.scratchpadBankBytes(), mirrored);
  std::vector<std::array<uint64_t, 2>> slots;
  int64_t total = 0;
  for (int64_t b : bytes) {
    total += 2 * b;
    std::array<uint64_t, 2> pair;
    for (int s = 0; s < 2; ++s) {
      auto a = sp.allocate(b);
      if (!a)
        return loweringError(op, "scratchpad of " +
                                     llvm::Twine(hw.sram.scratchpadBytes) +
                                     " bytes cannot hold this tiling (needs " +
                                     llvm::Twine(total) + " bytes)");
      pair[s] = *a;
    }
    slots.push_back(pair);
  }
  return slots;
}

namespace {
/// The elementwise instruction a binary layer runs: QLinearAdd (VADD),
/// QLinearMul (VMUL), or an fp32 op between dequantizes and a quantize
/// (VBINARY, `floatOp` an isa::BinaryOp).
struct BinaryKind {
  Opcode opcode;
  int64_t floatOp = 0;
};
} // namespace

/// The addressing VADD, VMUL and VBINARY share (isa::elementwiseFields):
/// A, B and the output at `addr`, `n1` rows of `n0`, outer strides `aS1`,
/// `bS1` and `n0` (dense output rows).
static void setElementwiseAddressing(Instruction &v, const uint64_t addr[3],
                                     int64_t n0, int64_t n1, int64_t aS1,
                                     int64_t bS1) {
  isa::ElementwiseFields f = *isa::elementwiseFields(v.opcode());
  v.set(f.aAddr, addr[0]);
  v.set(f.bAddr, addr[1]);
  v.set(f.oAddr, addr[2]);
  v.set(f.n0, n0);
  v.set(f.n1, n1);
  v.set(f.aS1, aS1);
  v.set(f.bS1, bS1);
  v.set(f.oS1, n0);
}

/// Rows of the output that read consecutive rows of a broadcast constant
/// (`step` 1) or one row of it (`step` 0): one vector instruction each.
struct ConstantRun {
  int64_t row = 0, rows = 0, cRow = 0, step = 0;
};

/// A constant broadcast against an output by rows (NumPy rules, its last
/// dim the output's or 1): which of its rows each output row reads.
struct BroadcastRows {
  BroadcastRows(ShapedType out, ShapedType c)
      : out(out), cShape(out.getRank() - c.getRank(), 1) {
    llvm::append_range(cShape, c.getShape());
  }
  int64_t cInner() const { return cShape.back(); }
  /// The constant's row that output row r reads (broadcast dims: index 0).
  int64_t rowOf(int64_t r) const {
    int64_t c = 0, stride = 1;
    for (int64_t d = out.getRank() - 2; d >= 0; --d) {
      int64_t i = r % out.getDimSize(d);
      r /= out.getDimSize(d);
      if (cShape[d] != 1)
        c += i * stride;
      stride *= cShape[d];
    }
    return c;
  }
  /// Output rows [r0, r0 + rt) as runs.
  std::vector<ConstantRun> runs(int64_t r0, int64_t rt) const {
    std::vector<ConstantRun> runs;
    for (int64_t r = r0; r < r0 + rt; ++r) {
      int64_t c = rowOf(r);
      if (!runs.empty()) {
        ConstantRun &last = runs.back();
        if (last.rows == 1 && (c == last.cRow || c == last.cRow + 1)) {
          last.step = c - last.cRow;
          ++last.rows;
          continue;
        }
        if (last.rows > 1 && c == last.cRow + last.rows * last.step) {
          ++last.rows;
          continue;
        }
      }
      runs.push_back({r, 1, c, 1});
    }
    return runs;
  }
  ShapedType out;
  SmallVector<int64_t> cShape;
};

/// Elementwise binary layers over row tiles of the tensor (rows: every dim
/// but the last). A broadcast operand is loaded once per item and read with
/// an outer stride of 0 (a per-channel vector; a scalar also with an inner
/// stride of 0, the `*_bcast` flag), or as one element per row (the row's
/// bytes of the small tensor, `*_bcast` with an outer stride of 1).
static llvm::Expected<std::vector<Item>>
lowerBinary(Operation *op, BinaryKind kind, const TilePlan &plan,
            const LayerIO &io, ProgramBuilder &b) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  auto type = cast<ShapedType>(op->getResult(0).getType());
  BinaryBroadcast bc = binaryBroadcast(cast<ShapedType>(lhs.getType()),
                                       cast<ShapedType>(rhs.getType()));
  // A constant broadcast along other dims (Swin's window mask, one per
  // window for every head) is read by rows (BroadcastRows): its rows that
  // an item's tile reads are loaded once each, one instruction per run.
  int general = -1;
  if (bc == BinaryBroadcast::None && kind.opcode != Opcode::Vbinary)
    for (int i = 0; i < 2; ++i)
      if (isConstantTensor(op->getOperand(i)) &&
          !isConstantTensor(op->getOperand(1 - i)) &&
          constantBroadcastByRows(op, i))
        general = i;
  if ((bc == BinaryBroadcast::None && general < 0) ||
      (kind.opcode != Opcode::Vbinary &&
       (bc == BinaryBroadcast::LhsRow || bc == BinaryBroadcast::RhsRow)))
    return loweringError(op, "unsupported broadcast");
  std::optional<BroadcastRows> rowsOfConstant;
  if (general >= 0)
    rowsOfConstant.emplace(type,
                           cast<ShapedType>(op->getOperand(general).getType()));
  int64_t inner = type.getShape().back();
  int64_t outer = type.getNumElements() / inner;
  int64_t rows = plan.rows.value();
  if (inner > 0xffff || rows > 0xffff)
    return loweringError(op, "tensor dimensions exceed the field widths");
  // How operand i is broadcast: not at all (full row tiles), or it is the
  // small side of `bc`.
  auto bcastOf = [&](int i) {
    if (bc == BinaryBroadcast::Equal || general >= 0)
      return false;
    bool lhsSmall = bc == BinaryBroadcast::LhsVector ||
                    bc == BinaryBroadcast::LhsScalar ||
                    bc == BinaryBroadcast::LhsRow;
    return i == 0 ? lhsSmall : !lhsSmall;
  };
  bool scalar =
      bc == BinaryBroadcast::LhsScalar || bc == BinaryBroadcast::RhsScalar;
  bool perRow = bc == BinaryBroadcast::LhsRow || bc == BinaryBroadcast::RhsRow;
  int64_t small = scalar ? 1 : perRow ? rows : inner;
  // A table that only this layer's result feeds (fusedTable) maps the
  // output tile through VLUT in place before the store, so the unmapped
  // result never goes to DRAM. (In place is safe here: only computes write
  // the output slot, and the next one to do so waits for this item's
  // store.)
  graph::TableOp after = fusedTable(op);
  bool perColumn = after && isPerChannel(after);
  int64_t lutBytes = after ? (perColumn ? inner * 256 : 256) : 0;
  std::vector<int64_t> slotBytes = {bcastOf(0) ? small : rows * inner,
                                    bcastOf(1) ? small : rows * inner,
                                    rows * inner};
  if (after)
    slotBytes.push_back(lutBytes);
  auto slots = allocateSlotPairs(op, b.hw, slotBytes, io.spMirrored);
  if (!slots)
    return slots.takeError();
  uint64_t lutDram = 0;
  if (after && io.materializeConstants) {
    std::vector<int8_t> t = tableRows(after);
    lutDram = b.constantBase + b.addConstant(t.data(), t.size(), true);
  }
  QParams qa = perTensorParams(lhs.getType());
  QParams qb = perTensorParams(rhs.getType());
  QParams qc = perTensorParams(type);
  auto [lo, hi] = clampBounds(op);
  // uint8 (all three, npu-partition): the vector unit's uint8 mode reads
  // bytes as x ^ 0x80 and its zero points and bounds as unsigned bytes, so
  // the arithmetic is ORT's uint8 kernel's (docs/isa.md, "The uint8
  // domain"); the DMA flips bytes to the int8 domain and back as usual.
  // VBINARY has no uint8 mode: its fp32 arithmetic is the same on codes
  // and zero points shifted into the int8 domain, operand by operand.
  bool vbinary = kind.opcode == Opcode::Vbinary;
  bool u8 = qc.isUnsigned && !vbinary;
  if (u8) {
    for (QParams *q : {&qa, &qb, &qc})
      q->zeroPoint += 128;
    lo += 128, hi += 128;
  }

  // A constant operand (QLinearAdd/QLinearMul of a bias or scale
  // initializer) is read from the constant pool like weights.
  uint64_t src[2] = {io.inputs[0], io.inputs[1]};
  for (int i = 0; i < 2; ++i)
    if (io.materializeConstants && isConstantTensor(op->getOperand(i))) {
      std::vector<char> bytes = constantInt8(op->getOperand(i));
      src[i] = b.constantBase + b.addConstant(bytes.data(), bytes.size());
    }
  bool flips[2] = {vbinary ? qa.isUnsigned : u8, vbinary ? qb.isUnsigned : u8};

  std::vector<Item> items;
  for (int64_t r0 = 0; r0 < outer; r0 += rows) {
    int64_t rt = std::min(rows, outer - r0);
    size_t s = items.size() % 2;
    Item it;
    // The broadcast constant's runs: where each reads its rows in the slot.
    std::vector<ConstantRun> runs = {{r0, rt, 0, 1}};
    std::vector<uint64_t> runAddr;
    if (general >= 0) {
      runs = rowsOfConstant->runs(r0, rt);
      std::map<std::pair<int64_t, int64_t>, uint64_t> loaded;
      uint64_t used = 0;
      for (const ConstantRun &run : runs) {
        int64_t cRows = run.step ? run.rows : 1;
        auto [at, fresh] = loaded.try_emplace({run.cRow, cRows}, used);
        if (fresh) {
          for (const DmaBox &box :
               contiguousBoxes(src[general] + run.cRow * inner,
                               (*slots)[general][s] + used, cRows * inner))
            it.loads.push_back(makeLoad(box));
          used += cRows * inner;
        }
        runAddr.push_back((*slots)[general][s] + at->second);
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (i == general)
        continue;
      DmaBox in;
      in.sram = (*slots)[i][s];
      // Constants are in the pool in the int8 domain already (constantInt8).
      in.flipSign = flips[i] && !isConstantTensor(op->getOperand(i));
      if (bcastOf(i) && perRow) {
        in.dram = src[i] + r0, in.n[0] = rt;
      } else if (bcastOf(i)) {
        in.dram = src[i], in.n[0] = small;
      } else {
        in.dram = src[i] + r0 * inner;
        in.n[0] = inner, in.n[1] = rt, in.s[1] = inner, in.t[1] = inner;
      }
      it.loads.push_back(makeLoad(in));
    }
    auto s1Of = [&](int i) -> int64_t {
      return !bcastOf(i) ? inner : perRow ? 1 : 0;
    };
    for (size_t k = 0; k < runs.size(); ++k) {
      const ConstantRun &run = runs[k];
      int64_t aS1 = s1Of(0), bS1 = s1Of(1);
      // Operand i's and the output's addresses for this run.
      uint64_t off = (run.row - r0) * inner;
      uint64_t addr[3] = {(*slots)[0][s] + off, (*slots)[1][s] + off,
                          (*slots)[2][s] + off};
      if (general < 0) {
        for (int i = 0; i < 2; ++i)
          if (bcastOf(i))
            addr[i] = (*slots)[i][s];
      } else {
        addr[general] = runAddr[k];
        (general == 0 ? aS1 : bS1) = run.step * inner;
      }
      int64_t n1 = run.rows;
      Instruction v(kind.opcode);
      setElementwiseAddressing(v, addr, inner, n1, aS1, bS1);
      if (vbinary) {
        v.set(Field::Vbinary_op, kind.floatOp);
        v.set(Field::Vbinary_a_bcast, (scalar || perRow) && bcastOf(0));
        v.set(Field::Vbinary_b_bcast, (scalar || perRow) && bcastOf(1));
        v.set(Field::Vbinary_a_zp, qa.zeroPoint);
        v.set(Field::Vbinary_b_zp, qb.zeroPoint);
        v.set(Field::Vbinary_o_zp, qc.zeroPoint);
        v.setF32(Field::Vbinary_a_scale, qa.scale);
        v.setF32(Field::Vbinary_b_scale, qb.scale);
        v.setF32(Field::Vbinary_o_scale, qc.scale);
      } else if (kind.opcode == Opcode::Vmul) {
        float ratio = mulRatio(qa, qb, qc);
        v.set(Field::Vmul_a_bcast, scalar && bcastOf(0));
        v.set(Field::Vmul_b_bcast, scalar && bcastOf(1));
        v.set(Field::Vmul_u8, u8);
        // Unsigned bytes in u8 mode: the fields' raw bits.
        setDomainByte(v, Field::Vmul_lo, lo, u8);
        setDomainByte(v, Field::Vmul_hi, hi, u8);
        setDomainByte(v, Field::Vmul_a_zp, qa.zeroPoint, u8);
        setDomainByte(v, Field::Vmul_b_zp, qb.zeroPoint, u8);
        setDomainByte(v, Field::Vmul_o_zp, qc.zeroPoint, u8);
        v.setF32(Field::Vmul_ratio, ratio);
      } else {
        AddConstants k = addConstants(qa, qb, qc);
        // ORT's broadcast loop calls its scalar kernel when a whole operand is
        // one element; a per-channel vector against NHWC rows is a
        // vector-vector span (ORT runs such adds in NHWC after a conv).
        int64_t mode = isa::AddMode_fma;
        if (bc == BinaryBroadcast::RhsScalar)
          mode = isa::AddMode_fma_scalar_b;
        else if (bc == BinaryBroadcast::LhsScalar)
          mode = isa::AddMode_fma_scalar_a;
        v.set(Field::Vadd_mode, mode);
        v.set(Field::Vadd_a_bcast, scalar && bcastOf(0));
        v.set(Field::Vadd_b_bcast, scalar && bcastOf(1));
        v.set(Field::Vadd_u8, u8);
        setDomainByte(v, Field::Vadd_lo, lo, u8);
        setDomainByte(v, Field::Vadd_hi, hi, u8);
        v.setF32(Field::Vadd_ratio_a, k.ratioA);
        v.setF32(Field::Vadd_ratio_b, k.ratioB);
        v.setF32(Field::Vadd_fixed, k.fixed);
      }
      it.computes.push_back(v);
    }
    DmaBox out;
    out.dram = io.output + r0 * inner, out.sram = (*slots)[2][s];
    out.n[0] = inner, out.n[1] = rt, out.s[1] = inner, out.t[1] = inner;
    out.flipSign = vbinary ? qc.isUnsigned : u8;
    if (after) {
      // The table stays in each slot of the pair after the first two items
      // load it. The tile is in the int8 domain (what VLUT indexes); the
      // table holds the output's stored bytes.
      if (r0 < 2 * rows)
        for (const DmaBox &box :
             contiguousBoxes(lutDram, (*slots)[3][s], lutBytes))
          it.loads.push_back(makeLoad(box));
      it.computes.push_back(vlut((*slots)[2][s], (*slots)[2][s], (*slots)[3][s],
                                 rt, inner, perColumn));
      out.flipSign = false;
    }
    it.stores.push_back(makeStore(out));
    items.push_back(std::move(it));
  }
  return items;
}

llvm::Expected<std::vector<Item>> lowerAdd(graph::AddOp op,
                                           const TilePlan &plan,
                                           const LayerIO &io,
                                           ProgramBuilder &b) {
  return lowerBinary(op, {Opcode::Vadd}, plan, io, b);
}

llvm::Expected<std::vector<Item>> lowerMul(graph::MulOp op,
                                           const TilePlan &plan,
                                           const LayerIO &io,
                                           ProgramBuilder &b) {
  return lowerBinary(op, {Opcode::Vmul}, plan, io, b);
}

bool hasF32Operand(Operation *op) {
  return llvm::isa<graph::AddOp, graph::SubOp, graph::MulOp, graph::DivOp>(
             op) &&
         getElementTypeOrSelf(op->getOperand(1).getType()).isF32();
}

/// VBINARY with an fp32 B (b_f32): the codes' rows in double-buffered
/// scratchpad tiles, the constant's rows in ACC words. The whole constant
/// is loaded once by the first item when the accumulator holds it (Swin's
/// relative position bias, read by every window); otherwise each item loads
/// the rows it reads into an ACC slot of its parity.
static llvm::Expected<std::vector<Item>>
lowerFloatConstantBinary(Operation *op, int64_t floatOp, const TilePlan &plan,
                         const LayerIO &io, ProgramBuilder &b) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  auto type = cast<ShapedType>(op->getResult(0).getType());
  BroadcastRows bcast(type, cast<ShapedType>(rhs.getType()));
  int64_t inner = type.getShape().back();
  int64_t outer = type.getNumElements() / inner;
  int64_t cInner = bcast.cInner();
  int64_t cWords = cast<ShapedType>(rhs.getType()).getNumElements();
  int64_t rows = plan.rows.value();
  if (inner > 0xffff || rows > 0xffff)
    return loweringError(op, "tensor dimensions exceed the field widths");

  auto slots =
      allocateSlotPairs(op, b.hw, {rows * inner, rows * inner}, io.spMirrored);
  if (!slots)
    return slots.takeError();
  int64_t accWords = b.hw.accumulatorWords();
  bool resident = cWords <= accWords;
  // Per item: at most every row of the tile once.
  int64_t slotWords = rows * cInner;
  if (!resident && 2 * slotWords > accWords)
    return loweringError(op, "accumulator of " +
                                 llvm::Twine(b.hw.sram.accumulatorBytes) +
                                 " bytes cannot hold two tiles of the fp32 "
                                 "operand (" +
                                 llvm::Twine(slotWords) + " words each)");
  uint64_t cDram = 0, aDram = io.inputs[0];
  if (io.materializeConstants) {
    std::vector<float> words;
    for (APFloat v : graph::constantBehind(rhs).getValues<APFloat>())
      words.push_back(v.convertToFloat());
    cDram = b.constantBase +
            b.addConstant(words.data(), words.size() * 4, /*derived=*/true);
    if (isConstantTensor(lhs)) {
      std::vector<char> bytes = constantInt8(lhs);
      aDram = b.constantBase + b.addConstant(bytes.data(), bytes.size());
    }
  }
  QParams qa = perTensorParams(lhs.getType());
  QParams qc = perTensorParams(type);
  // Words from the constant's row `cRow` on into ACC word `at`.
  auto loadWords = [&](Item &it, int64_t cRow, int64_t words, uint64_t at) {
    for (int64_t w = 0; w < words; w += 0x8000) {
      DmaBox t;
      t.acc = true, t.elemBytes = 4;
      t.dram = cDram + (cRow * cInner + w) * 4, t.sram = at + w;
      t.n[0] = std::min<int64_t>(0x8000, words - w);
      it.loads.push_back(makeLoad(t));
    }
  };

  std::vector<Item> items;
  for (int64_t r0 = 0; r0 < outer; r0 += rows) {
    int64_t rt = std::min(rows, outer - r0);
    size_t s = items.size() % 2;
    Item it;
    if (resident && r0 == 0)
      loadWords(it, 0, cWords, 0);
    DmaBox in;
    in.sram = (*slots)[0][s];
    in.flipSign = qa.isUnsigned && !isConstantTensor(lhs);
    in.dram = aDram + r0 * inner;
    in.n[0] = inner, in.n[1] = rt, in.s[1] = inner, in.t[1] = inner;
    it.loads.push_back(makeLoad(in));
    uint64_t slotBase = s * slotWords, used = 0;
    std::map<std::pair<int64_t, int64_t>, uint64_t> loaded;
    for (const ConstantRun &run : bcast.runs(r0, rt)) {
      int64_t cRows = run.step ? run.rows : 1;
      uint64_t bAddr = run.cRow * cInner;
      if (!resident) {
        auto [at, fresh] =
            loaded.try_emplace({run.cRow, cRows}, slotBase + used);
        if (fresh) {
          loadWords(it, run.cRow, cRows * cInner, at->second);
          used += cRows * cInner;
        }
        bAddr = at->second;
      }
      uint64_t off = (run.row - r0) * inner;
      Instruction v(Opcode::Vbinary);
      v.set(Field::Vbinary_op, floatOp);
      v.set(Field::Vbinary_b_f32, 1);
      v.set(Field::Vbinary_b_bcast, cInner == 1 && inner > 1);
      v.set(Field::Vbinary_a_zp, qa.zeroPoint);
      v.set(Field::Vbinary_o_zp, qc.zeroPoint);
      uint64_t addr[3] = {(*slots)[0][s] + off, bAddr, (*slots)[1][s] + off};
      setElementwiseAddressing(v, addr, inner, run.rows, inner,
                               run.step * cInner);
      v.setF32(Field::Vbinary_a_scale, qa.scale);
      v.setF32(Field::Vbinary_o_scale, qc.scale);
      it.computes.push_back(v);
    }
    DmaBox out;
    out.dram = io.output + r0 * inner, out.sram = (*slots)[1][s];
    out.n[0] = inner, out.n[1] = rt, out.s[1] = inner, out.t[1] = inner;
    out.flipSign = qc.isUnsigned;
    it.stores.push_back(makeStore(out));
    items.push_back(std::move(it));
  }
  return items;
}

llvm::Expected<std::vector<Item>> lowerFloatBinary(Operation *op,
                                                   const TilePlan &plan,
                                                   const LayerIO &io,
                                                   ProgramBuilder &b) {
  int64_t floatOp = llvm::isa<graph::AddOp>(op)   ? isa::BinaryOp_add
                    : llvm::isa<graph::SubOp>(op) ? isa::BinaryOp_sub
                    : llvm::isa<graph::MulOp>(op) ? isa::BinaryOp_mul
                                                  : isa::BinaryOp_div;
  if (hasF32Operand(op))
    return lowerFloatConstantBinary(op, floatOp, plan, io, b);
  return lowerBinary(op, {Opcode::Vbinary, floatOp}, plan, io, b);
}

/// A pooling layer reading a kept image: the image where onChipInput put
/// it (the first allocation), then two output slots of `outBytes`.
static llvm::Error keptImageSlots(Operation *op, const OnChipTile &kept,
                                  uint64_t outBytes, const LayerIO &io,
                                  const isa::HwConfig &hw, uint64_t inSlot[2],
                                  uint64_t outSlot[2]) {
  SramAllocator sp(hw.sram.scratchpadBytes, hw.scratchpadBankBytes(),
                   io.spMirrored);
  std::optional<uint64_t> image = sp.allocate(kept.bytes),
                          o0 = sp.allocate(outBytes),
                          o1 = sp.allocate(outBytes);
  if (!image || !o0 || !o1)
    return loweringError(op, "scratchpad of " +
                                 llvm::Twine(hw.sram.scratchpadBytes) +
                                 " bytes cannot hold the kept image and two "
                                 "output tiles");
  if (*image != kept.base)
    return loweringError(op, "the kept input is not where its producer "
                             "wrote it");
  inSlot[0] = inSlot[1] = *image;
  outSlot[0] = *o0, outSlot[1] = *o1;
  return llvm::Error::success();
}

llvm::Expected<std::vector<Item>> lowerPool(graph::PoolOp op,
                                            const TilePlan &plan,
                                            const LayerIO &io,
                                            ProgramBuilder &b) {
  auto in = cast<ShapedType>(op.getInput().getType());
  auto out = cast<ShapedType>(op.getOutput().getType());
  int64_t N = in.getDimSize(0), H = in.getDimSize(1), W = in.getDimSize(2),
          C = in.getDimSize(3);
  int64_t OH = out.getDimSize(1), OW = out.getDimSize(2);
  int64_t kh = op.getKernel()[0], kw = op.getKernel()[1];
  int64_t sh = op.getStrides()[0], sw = op.getStrides()[1];
  auto pads = op.getPads();
  int64_t pt = pads[0], pl = pads[1], pr = pads[3];
  int64_t wp = W + pl + pr;
  int64_t rows = plan.rows.value();
  int64_t inRows = (rows - 1) * sh + kh;
  if (C > 0xffff || kh > 255 || kw > 255 || sh > 255 || sw > 255 ||
      OW * C > 0xffff)
    return loweringError(op, "pooling dimensions exceed the field widths");
  // A kept input (npu-plan-cascades) is the whole padded image, the first
  // allocation (onChipInput); row tiles read their windows in place and
  // only the first item loads (the image's border).
  std::optional<OnChipTile> kept;
  std::vector<DmaBox> border;
  if (io.inputOnChip) {
    kept = onChipInput(op, plan, b.hw, io.spMirrored);
    if (!kept)
      return loweringError(op, "this pooling cannot read a kept input");
  }
  uint64_t inSlot[2], outSlot[2];
  if (kept) {
    if (llvm::Error e =
            keptImageSlots(op, *kept, rows * OW * C, io, b.hw, inSlot, outSlot))
      return std::move(e);
    border = keptImageBorder(kept->base, (OH - 1) * sh + kh, pt, H, W, pl, pr,
                             C, -128, io, b);
  } else {
    auto slots = allocateSlotPairs(op, b.hw, {inRows * wp * C, rows * OW * C},
                                   io.spMirrored);
    if (!slots)
      return slots.takeError();
    for (int i = 0; i < 2; ++i)
      inSlot[i] = (*slots)[0][i], outSlot[i] = (*slots)[1][i];
  }
  bool avg = op.getKind() != graph::PoolKind::Max;
  QParams x = perTensorParams(op.getInput().getType());
  QParams y = avg ? perTensorParams(op.getOutput().getType()) : x;
  if (avg && x.isUnsigned != y.isUnsigned)
    return loweringError(op, "average pooling between int8 and uint8");
  // Bounds in the NPU's int8 domain, as for the other units.
  auto [lo, hi] =
      avg ? clampBounds(op) : std::pair<int64_t, int64_t>{-128, 127};
  std::vector<Item> items;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy0 = 0; oy0 < OH; oy0 += rows) {
      int64_t th = std::min(rows, OH - oy0);
      int64_t iyStart = oy0 * sh - pt, iyEnd = iyStart + (th - 1) * sh + kh;
      int64_t iy0 = std::max<int64_t>(0, iyStart);
      size_t s = items.size() % 2;
      Item it;
      DmaBox ld;
      ld.dram = io.inputs[0] + n * H * W * C + iy0 * W * C;
      ld.sram = inSlot[s];
      ld.n[0] = C, ld.n[1] = W, ld.n[2] = std::min(H, iyEnd) - iy0;
      ld.s[1] = C, ld.s[2] = W * C, ld.t[1] = C, ld.t[2] = wp * C;
      ld.padTop = std::max<int64_t>(0, -iyStart);
      ld.padBottom = std::max<int64_t>(0, iyEnd - H);
      ld.padLeft = pl, ld.padRight = pr;
      ld.padValue = -128; // never wins a max: pads < kernel guarantees data
      ld.flipSign = x.isUnsigned;
      uint64_t inAddr = inSlot[s];
      if (!kept)
        it.loads.push_back(makeLoad(ld));
      else if (items.empty())
        for (const DmaBox &p : border)
          it.loads.push_back(makeLoad(p));
      if (kept)
        inAddr = kept->base + oy0 * sh * wp * C;
      Instruction p(Opcode::Pool);
      p.set(Field::Pool_mode,
            avg ? isa::PoolMode_avg_float : isa::PoolMode_max);
      p.set(Field::Pool_kh, kh);
      p.set(Field::Pool_kw, kw);
      p.set(Field::Pool_sh, sh);
      p.set(Field::Pool_sw, sw);
      p.set(Field::Pool_in_addr, inAddr);
      p.set(Field::Pool_out_addr, outSlot[s]);
      p.set(Field::Pool_oh, th);
      p.set(Field::Pool_ow, OW);
      p.set(Field::Pool_ch, C);
      p.set(Field::Pool_in_row_stride, wp * C);
      p.set(Field::Pool_in_pix_stride, C);
      p.set(Field::Pool_out_pix_stride, C);
      p.set(Field::Pool_out_row_stride, OW * C);
      if (avg) {
        // Padding contributes nothing to ORT's sum: the valid region is the
        // loaded data; count_include_pad picks the divisor (kh * kw).
        p.set(Field::Pool_valid_y0, ld.padTop);
        p.set(Field::Pool_valid_y1, ld.padTop + ld.n[2]);
        p.set(Field::Pool_valid_x0, pl);
        p.set(Field::Pool_valid_x1, pl + W);
        p.set(Field::Pool_count_include_pad, op.getCountIncludePad());
        p.setF32(Field::Pool_scale, x.scale);
        p.setF32(Field::Pool_out_scale, y.scale);
        // uint8: the unit's uint8 mode (docs/isa.md, "The uint8 domain")
        // reads zero points and bounds as unsigned bytes.
        p.set(Field::Pool_u8, x.isUnsigned);
        int64_t shift = x.isUnsigned ? 128 : 0;
        setDomainByte(p, Field::Pool_in_zp, x.zeroPoint + shift, x.isUnsigned);
        setDomainByte(p, Field::Pool_out_zp, y.zeroPoint + shift, x.isUnsigned);
        setDomainByte(p, Field::Pool_lo, lo + shift, x.isUnsigned);
        setDomainByte(p, Field::Pool_hi, hi + shift, x.isUnsigned);
      } else {
        p.set(Field::Pool_valid_y0, 0);
        p.set(Field::Pool_valid_y1, (th - 1) * sh + kh);
        p.set(Field::Pool_valid_x0, 0);
        p.set(Field::Pool_valid_x1, wp);
        p.set(Field::Pool_lo, -128);
        p.set(Field::Pool_hi, 127);
      }
      it.computes.push_back(p);
      DmaBox st;
      st.dram = io.output + n * OH * OW * C + oy0 * OW * C;
      st.sram = outSlot[s];
      st.n[0] = OW * C, st.n[1] = th, st.s[1] = OW * C, st.t[1] = OW * C;
      st.flipSign = ld.flipSign;
      it.stores.push_back(makeStore(st));
      items.push_back(std::move(it));
    }
  return items;
}

llvm::Expected<std::vector<Item>> lowerGlobalAvgPool(graph::GlobalAvgPoolOp op,
                                                     const TilePlan &plan,
                                                     const LayerIO &io,
                                                     ProgramBuilder &b) {
  auto in = cast<ShapedType>(op.getInput().getType());
  int64_t N = in.getDimSize(0), H = in.getDimSize(1), W = in.getDimSize(2),
          C = in.getDimSize(3);
  int64_t chMax = std::min<int64_t>(plan.channels.value(), C);
  if (H > 255 || W > 255 || H * W > 0xffff)
    return loweringError(op, "global pooling window exceeds the POOL fields");
  // A kept input (npu-plan-cascades) is the whole image, the first
  // allocation (onChipInput): the items read their channel slices in place
  // and load nothing.
  uint64_t inSlot[2], outSlot[2];
  std::optional<OnChipTile> kept;
  if (io.inputOnChip) {
    kept = onChipInput(op, plan, b.hw, io.spMirrored);
    if (!kept)
      return loweringError(op, "this pooling cannot read a kept input");
    if (llvm::Error e =
            keptImageSlots(op, *kept, chMax, io, b.hw, inSlot, outSlot))
      return std::move(e);
  } else {
    auto slots =
        allocateSlotPairs(op, b.hw, {H * W * chMax, chMax}, io.spMirrored);
    if (!slots)
      return slots.takeError();
    for (int i = 0; i < 2; ++i)
      inSlot[i] = (*slots)[0][i], outSlot[i] = (*slots)[1][i];
  }
  QParams x = perTensorParams(op.getInput().getType());
  QParams y = perTensorParams(op.getOutput().getType());
  // MLAS QLinearGlobalAveragePool: scale = ScaleIn / (ScaleOut * ImageSize),
  // bias = -ZeroPointIn * ImageSize, then MlasRequantizeOutput.
  volatile float denom = y.scale * static_cast<float>(H * W);
  float scale = x.scale / denom;
  std::vector<Item> items;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c0 = 0; c0 < C; c0 += chMax) {
      int64_t ch = std::min(chMax, C - c0);
      size_t s = items.size() % 2;
      Item it;
      // Kept: channels c0.. of every pixel, C bytes apart.
      uint64_t inAddr = kept ? inSlot[s] + c0 : inSlot[s];
      int64_t pix = kept ? C : ch;
      if (!kept) {
        DmaBox ld;
        ld.dram = io.inputs[0] + n * H * W * C + c0, ld.sram = inSlot[s];
        ld.n[0] = ch, ld.n[1] = H * W, ld.s[1] = C, ld.t[1] = ch;
        it.loads.push_back(makeLoad(ld));
      }
      Instruction p(Opcode::Pool);
      p.set(Field::Pool_mode, isa::PoolMode_avg_int);
      p.set(Field::Pool_kh, H);
      p.set(Field::Pool_kw, W);
      p.set(Field::Pool_sh, 1);
      p.set(Field::Pool_sw, 1);
      p.set(Field::Pool_in_addr, inAddr);
      p.set(Field::Pool_out_addr, outSlot[s]);
      p.set(Field::Pool_oh, 1);
      p.set(Field::Pool_ow, 1);
      p.set(Field::Pool_ch, ch);
      p.set(Field::Pool_in_row_stride, W * pix);
      p.set(Field::Pool_in_pix_stride, pix);
      p.set(Field::Pool_out_pix_stride, ch);
      p.set(Field::Pool_out_row_stride, ch);
      p.setF32(Field::Pool_scale, scale);
      p.set(Field::Pool_bias, -x.zeroPoint * H * W);
      p.set(Field::Pool_out_zp, y.zeroPoint);
      p.set(Field::Pool_lo, -128);
      p.set(Field::Pool_hi, 127);
      p.set(Field::Pool_valid_y0, 0);
      p.set(Field::Pool_valid_y1, H);
      p.set(Field::Pool_valid_x0, 0);
      p.set(Field::Pool_valid_x1, W);
      it.computes.push_back(p);
      DmaBox st;
      st.dram = io.output + n * C + c0, st.sram = outSlot[s];
      st.n[0] = ch;
      it.stores.push_back(makeStore(st));
      items.push_back(std::move(it));
    }
  return items;
}

} // namespace systole::npu
