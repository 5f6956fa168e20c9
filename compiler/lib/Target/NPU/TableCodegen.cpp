//===- TableCodegen.cpp - Tables and concat copies as VLUT layers ---------===//
//
// A graph.table that no REQUANT applies (an activation after an add, a
// pool or a concat; a per-channel table) and a channel concat that is not
// written in place by its producers (DenseNet's concats reuse every earlier
// feature map, ShuffleNet's join split halves) run on the vector unit's
// table lookup (VLUT, docs/isa.md).
//
// Bytes in SP: inputs are loaded in the NPU's int8 domain (uint8 flipped
// by the DMA), so VLUT's index (the byte XOR 0x80) is the input code minus
// its storage minimum, graph.table's index. Tables hold output storage
// bytes, stored unflipped.
//
// An upsample (nearest, integer factors) copies each input row tile
// through the identity table and stores it fy * fx times, each a strided
// box of whole pixels (C bytes) fx pixels and fy rows apart.
//
// A quantized constant Pad of the middle dimensions (NHWC: H and W) copies
// each output row tile through the identity table: the DMA writes the
// input rows with the side padding, and one pixel of pad bytes, broadcast,
// the padding rows.
//
// A transpose of an 8-bit tensor that keeps the innermost dim (attention's
// head split and merge, Swin's window partition) copies runs of that dim:
// a strided LOAD gathers them in output order, the identity table, one
// contiguous STORE.
//
// A concat copies each input's rows into its channel slice of the output
// (DRAM pixel stride = the output's channels) through that input's table:
// Q(DQ_i(code)) (requantTable; identity when the parameters agree), and,
// when a table reads the concat and nothing else does (fusedTable: a
// pre-activation BatchNorm + ReLU), that table composed after it, so the
// concatenated tensor itself is never stored.
//
//===----------------------------------------------------------------------===//
#include "LayerCodegen.h"
#include "TableChain.h"

using namespace mlir;

namespace systole::npu {

namespace {

/// A DMA box of `rows` x `cols` bytes, rows `dramStride` apart in DRAM and
/// `cols` apart in SP.
DmaBox rowsBox(uint64_t dram, uint64_t sram, int64_t rows, int64_t cols,
               int64_t dramStride) {
  DmaBox box;
  box.dram = dram, box.sram = sram;
  box.n[0] = cols, box.n[1] = rows;
  box.s[1] = dramStride, box.t[1] = cols;
  return box;
}

constexpr int64_t kMaxField = 0xffff; // VLUT n0/n1, DMA counts

} // namespace

std::vector<int8_t> tableRows(graph::TableOp t) {
  std::vector<int8_t> rows;
  for (const APInt &v : t.getTable().getValues<APInt>())
    rows.push_back(static_cast<int8_t>(v.getZExtValue()));
  return rows;
}

/// Not in place: the item protocol orders a slot's next load after the
/// compute that read it, not after the store (ProgramBuilder), so the
/// result goes to a slot of its own.
Instruction vlut(uint64_t data, uint64_t out, uint64_t lut, int64_t rows,
                 int64_t cols, bool perColumn) {
  Instruction v(Opcode::Vlut);
  v.set(Field::Vlut_per_column, perColumn);
  v.set(Field::Vlut_a_addr, static_cast<int64_t>(data));
  v.set(Field::Vlut_o_addr, static_cast<int64_t>(out));
  v.set(Field::Vlut_lut_addr, static_cast<int64_t>(lut));
  v.set(Field::Vlut_n0, cols);
  v.set(Field::Vlut_n1, rows);
  v.set(Field::Vlut_a_s1, cols);
  v.set(Field::Vlut_o_s1, cols);
  return v;
}

std::vector<TilePlan> tableCandidates(graph::TableOp op,
                                      const isa::HwConfig &hw) {
  if (isFusedIntoProducer(op))
    return {};
  auto type = cast<ShapedType>(op.getInput().getType());
  int64_t channels = type.getRank() ? type.getShape().back() : 1;
  int64_t outer = type.getNumElements() / std::max<int64_t>(channels, 1);
  // Per channel, each channel of a tile needs its 256-byte table in SP:
  // chunks of channels bound that.
  std::vector<int64_t> chunks = {channels};
  if (isPerChannel(op))
    for (int64_t c = (channels + 1) / 2; c >= 8; c = (c + 1) / 2)
      chunks.push_back(c);
  std::vector<TilePlan> plans;
  for (int64_t c : chunks)
    for (TilePlan p : fittingRowCandidates(outer, 4 * c, hw)) {
      p.channels = c;
      plans.push_back(p);
    }
  return plans;
}

ConcatRows concatRows(graph::ConcatOp op) {
  auto type = cast<ShapedType>(op.getOutput().getType());
  int64_t rank = type.getRank();
  int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
  ConcatRows r;
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= type.getDimSize(d);
  for (int64_t d = 0; d < axis; ++d)
    r.rows *= type.getDimSize(d);
  for (Value in : op.getInputs())
    r.widths.push_back(cast<ShapedType>(in.getType()).getDimSize(axis) * inner);
  r.width = type.getDimSize(axis) * inner;
  r.lastAxis = axis == rank - 1;
  return r;
}

std::vector<TilePlan> concatCandidates(graph::ConcatOp op) {
  if (isFusedIntoProducer(op))
    return {};
  // Chunks of the widest input's row: with a per-channel table after the
  // concat, each chunk's channels need their 256-byte tables in SP; a row
  // wider than the fields (a concat of whole images) is cut into chunks.
  ConcatRows r = concatRows(op);
  int64_t widest = 1;
  for (int64_t w : r.widths)
    widest = std::max(widest, w);
  std::vector<int64_t> chunks;
  graph::TableOp after = fusedTable(op);
  bool halve = after && isPerChannel(after);
  for (int64_t c = widest; c >= 1; c = (c + 1) / 2) {
    if (c <= kMaxField)
      chunks.push_back(c);
    if ((!halve && c <= kMaxField) || c < 16)
      break;
  }
  std::vector<TilePlan> plans;
  for (int64_t c : chunks)
    for (TilePlan p : rowCandidates(r.rows)) {
      p.channels = c;
      plans.push_back(p);
    }
  return plans;
}

llvm::Expected<std::vector<Item>> lowerTable(graph::TableOp op,
                                             const TilePlan &plan,
                                             const LayerIO &io,
                                             ProgramBuilder &b) {
  auto type = cast<ShapedType>(op.getInput().getType());
  int64_t C = type.getRank() ? type.getShape().back() : 1;
  int64_t outer = type.getNumElements() / C;
  int64_t rows = plan.rows.value(), cc = std::min(plan.channels.value(), C);
  bool perChannel = isPerChannel(op);
  if (cc > kMaxField || rows > kMaxField)
    return loweringError(op, "table tile exceeds the VLUT/DMA field widths");
  int64_t lutBytes = perChannel ? cc * 256 : 256;
  auto slots = allocateSlotPairs(op, b.hw, {rows * cc, rows * cc, lutBytes},
                                 io.spMirrored);
  if (!slots)
    return slots.takeError();
  uint64_t lutDram = 0;
  if (io.materializeConstants) {
    std::vector<int8_t> t = tableRows(op);
    lutDram = b.constantBase + b.addConstant(t.data(), t.size(), true);
  }
  bool flipIn = perTensorParams(op.getInput().getType()).isUnsigned;
  std::vector<Item> items;
  for (int64_t c0 = 0; c0 < C; c0 += cc) {
    int64_t cw = std::min(cc, C - c0);
    for (int64_t r0 = 0; r0 < outer; r0 += rows) {
      int64_t rt = std::min(rows, outer - r0);
      size_t s = items.size() % 2;
      uint64_t data = (*slots)[0][s], out = (*slots)[1][s],
               lut = (*slots)[2][s];
      Item it;
      DmaBox in = rowsBox(io.inputs[0] + r0 * C + c0, data, rt, cw, C);
      in.flipSign = flipIn;
      it.loads.push_back(makeLoad(in));
      // A chunk's table stays in both slots after its first two items.
      if (r0 < 2 * rows)
        it.loads.push_back(
            makeLoad(rowsBox(lutDram + (perChannel ? c0 * 256 : 0), lut,
                             perChannel ? cw : 1, 256, 256)));
      it.computes.push_back(vlut(data, out, lut, rt, cw, perChannel));
      it.stores.push_back(
          makeStore(rowsBox(io.output + r0 * C + c0, out, rt, cw, C)));
      items.push_back(std::move(it));
    }
  }
  return items;
}

llvm::Expected<std::vector<Item>> lowerConcat(graph::ConcatOp op,
                                              const TilePlan &plan,
                                              const LayerIO &io,
                                              ProgramBuilder &b) {
  auto type = cast<ShapedType>(op.getOutput().getType());
  auto outQ = tables::quantized8(type);
  if (!outQ)
    return loweringError(op, "the concat's result is not 8-bit per-tensor "
                             "quantized");
  // Rows of the dims before the axis, each the inputs' runs side by side
  // (for the last axis: pixels of channels).
  ConcatRows view = concatRows(op);
  int64_t Cout = view.width;
  int64_t pixels = view.rows;
  int64_t rows = plan.rows.value();
  graph::TableOp after = fusedTable(op);
  std::vector<int8_t> afterRows;
  if (after)
    afterRows = tableRows(after);
  bool perChannel = after && isPerChannel(after);
  // Per input: its channels, slice offset and table (over its codes).
  struct Part {
    int64_t channels, offset;
    std::vector<int8_t> table;
    bool flip;
  };
  std::vector<Part> parts;
  int64_t offset = 0, widest = 0;
  for (Value in : op.getInputs()) {
    auto inQ = tables::quantized8(in.getType());
    if (!inQ)
      return loweringError(op, "a concat input is not 8-bit per-tensor "
                               "quantized");
    Part p{
        view.widths[parts.size()], offset, {}, inQ.isSigned() ? false : true};
    std::vector<int8_t> rq = tables::requantTable(inQ, outQ);
    if (!after) {
      p.table = rq;
    } else {
      // The table after the concat, read at each requantized code; per
      // channel, channel c of this input is the concat's offset + c.
      int64_t rowsOut = perChannel ? p.channels : 1;
      p.table.resize(rowsOut * 256);
      for (int64_t r = 0; r < rowsOut; ++r)
        for (int k = 0; k < 256; ++k)
          p.table[r * 256 + k] =
              afterRows[(perChannel ? (offset + r) * 256 : 0) +
                        tables::codeOf(outQ, rq[k]) - outQ.getStorageTypeMin()];
    }
    widest = std::max(widest, p.channels);
    offset += p.channels;
    parts.push_back(std::move(p));
  }
  if (rows > kMaxField)
    return loweringError(op, "concat tile exceeds the field widths");
  int64_t cc = std::min(plan.channels.value(), widest);
  if (cc > kMaxField)
    return loweringError(op, "concat chunk exceeds the field widths");
  int64_t lutBytes = perChannel ? cc * 256 : 256;
  auto slots = allocateSlotPairs(op, b.hw, {rows * cc, rows * cc, lutBytes},
                                 io.spMirrored);
  if (!slots)
    return slots.takeError();
  std::vector<uint64_t> lutDram(parts.size(), 0);
  if (io.materializeConstants)
    for (size_t i = 0; i < parts.size(); ++i)
      lutDram[i] = b.constantBase + b.addConstant(parts[i].table.data(),
                                                  parts[i].table.size(), true);
  // Input by input, chunk by chunk: a chunk's table is loaded by its first
  // two items (one per slot) and stays.
  std::vector<Item> items;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part &p = parts[i];
    bool perColumn = p.table.size() != 256;
    for (int64_t c0 = 0; c0 < p.channels; c0 += cc) {
      int64_t cw = std::min(cc, p.channels - c0);
      for (int64_t r0 = 0; r0 < pixels; r0 += rows) {
        int64_t rt = std::min(rows, pixels - r0);
        size_t s = items.size() % 2;
        uint64_t data = (*slots)[0][s], out = (*slots)[1][s],
                 lut = (*slots)[2][s];
        Item it;
        DmaBox in = rowsBox(io.inputs[i] + r0 * p.channels + c0, data, rt, cw,
                            p.channels);
        in.flipSign = p.flip;
        it.loads.push_back(makeLoad(in));
        if (r0 < 2 * rows)
          it.loads.push_back(
              makeLoad(rowsBox(lutDram[i] + (perColumn ? c0 * 256 : 0), lut,
                               perColumn ? cw : 1, 256, 256)));
        it.computes.push_back(vlut(data, out, lut, rt, cw, perColumn));
        it.stores.push_back(makeStore(
            rowsBox(io.output + r0 * Cout + p.offset + c0, out, rt, cw, Cout)));
        items.push_back(std::move(it));
      }
    }
  }
  return items;
}

/// A STORE of n0 x n1 x n2 bytes: runs of n0, DRAM strides s1, s2, SP
/// strides t1, t2.
static Instruction blockStore(uint64_t dram, uint64_t sram, int64_t n0,
                              int64_t n1, int64_t n2, int64_t s1, int64_t s2,
                              int64_t t1, int64_t t2) {
  DmaBox st;
  st.dram = dram, st.sram = sram;
  st.n[0] = n0, st.n[1] = n1, st.n[2] = n2;
  st.s[1] = s1, st.s[2] = s2;
  st.t[1] = t1, st.t[2] = t2;
  return makeStore(st);
}

/// The DRAM address of the identity table of `q`'s codes (entry k is the
/// storage byte of code min + k: the NPU's int8 domain back to storage), a
/// constant of the program; 0 while the planner prices a layer.
static uint64_t identityLut(quant::UniformQuantizedType q, const LayerIO &io,
                            ProgramBuilder &b) {
  if (!io.materializeConstants)
    return 0;
  std::vector<int8_t> id(256);
  for (int k = 0; k < 256; ++k)
    id[k] = static_cast<int8_t>(q.getStorageTypeMin() + k);
  return b.constantBase + b.addConstant(id.data(), id.size(), true);
}

/// The rows of an NHWC tensor ([N, H, W, C], 8-bit per tensor) copied
/// through the identity VLUT (the NPU's int8 codes back to storage bytes)
/// and written out by the strided stores `stores` makes for a chunk of
/// units [u0, u0 + ut) copied to SP address `sp`, a unit being `unit`
/// input rows (the plan's "rows" counts units): upsampling and DepthToSpace
/// (one row) and SpaceToDepth (b rows, one output row) are such copies.
using RowStores = llvm::function_ref<void(int64_t u0, int64_t ut, uint64_t sp,
                                          std::vector<Instruction> &out)>;
static llvm::Expected<std::vector<Item>>
copyRowsByStores(Operation *op, ShapedType type, const TilePlan &plan,
                 const LayerIO &io, ProgramBuilder &b, RowStores stores,
                 int64_t unit = 1) {
  int64_t N = type.getDimSize(0), H = type.getDimSize(1),
          W = type.getDimSize(2), C = type.getDimSize(3);
  int64_t rows = plan.rows.value() * unit, outer = N * H;
  if (W * C > kMaxField || rows > kMaxField || C > kMaxField || W > kMaxField)
    return loweringError(op, "row tile exceeds the field widths");
  auto slots = allocateSlotPairs(op, b.hw, {rows * W * C, rows * W * C, 256},
                                 io.spMirrored);
  if (!slots)
    return slots.takeError();
  auto q = tables::quantized8(type);
  if (!q)
    return loweringError(op, "the copy needs an 8-bit per-tensor input");
  uint64_t lutDram = identityLut(q, io, b);
  std::vector<Item> items;
  for (int64_t r0 = 0; r0 < outer; r0 += rows) {
    int64_t rt = std::min(rows, outer - r0);
    size_t s = items.size() % 2;
    uint64_t data = (*slots)[0][s], out = (*slots)[1][s], lut = (*slots)[2][s];
    Item it;
    DmaBox in = rowsBox(io.inputs[0] + r0 * W * C, data, rt, W * C, W * C);
    in.flipSign = !q.isSigned();
    it.loads.push_back(makeLoad(in));
    if (r0 < 2 * rows)
      it.loads.push_back(makeLoad(rowsBox(lutDram, lut, 1, 256, 256)));
    it.computes.push_back(vlut(data, out, lut, rt, W * C, false));
    stores(r0 / unit, rt / unit, out, it.stores);
    items.push_back(std::move(it));
  }
  return items;
}

llvm::Expected<std::vector<Item>> lowerUpsample(graph::UpsampleOp op,
                                                const TilePlan &plan,
                                                const LayerIO &io,
                                                ProgramBuilder &b) {
  auto type = cast<ShapedType>(op.getInput().getType()); // NHWC
  int64_t W = type.getDimSize(2), C = type.getDimSize(3);
  int64_t fy = op.getFactors()[0], fx = op.getFactors()[1];
  int64_t outRow = W * fx * C; // bytes of one output row
  return copyRowsByStores(
      op, type, plan, io, b,
      [&](int64_t r0, int64_t rt, uint64_t sp, std::vector<Instruction> &out) {
        for (int64_t dy = 0; dy < fy; ++dy)
          for (int64_t dx = 0; dx < fx; ++dx) {
            out.push_back(
                blockStore(io.output + (r0 * fy + dy) * outRow + dx * C, sp, C,
                           W, rt, fx * C, fy * outRow, C, W * C));
          }
      });
}

llvm::Expected<std::vector<Item>> lowerDepthToSpace(graph::DepthToSpaceOp op,
                                                    const TilePlan &plan,
                                                    const LayerIO &io,
                                                    ProgramBuilder &b) {
  auto type = cast<ShapedType>(op.getInput().getType()); // NHWC, DCR
  if (op.getCrd())
    return loweringError(op, "a CRD DepthToSpace must become a gather first");
  int64_t W = type.getDimSize(2), C = type.getDimSize(3);
  int64_t bs = op.getBlocksize(), cOut = C / (bs * bs);
  int64_t outRow = W * bs * cOut; // bytes of one output row
  // Input pixel (y, x)'s channel run (i * b + j) * C' .. + C' is output
  // pixel (y * b + i, x * b + j).
  return copyRowsByStores(
      op, type, plan, io, b,
      [&](int64_t r0, int64_t rt, uint64_t sp, std::vector<Instruction> &out) {
        for (int64_t i = 0; i < bs; ++i)
          for (int64_t j = 0; j < bs; ++j) {
            out.push_back(
                blockStore(io.output + (r0 * bs + i) * outRow + j * cOut,
                           sp + (i * bs + j) * cOut, cOut, W, rt, bs * cOut,
                           bs * outRow, C, W * C));
          }
      });
}

llvm::Expected<std::vector<Item>> lowerSpaceToDepth(graph::SpaceToDepthOp op,
                                                    const TilePlan &plan,
                                                    const LayerIO &io,
                                                    ProgramBuilder &b) {
  auto type = cast<ShapedType>(op.getInput().getType()); // NHWC
  int64_t W = type.getDimSize(2), C = type.getDimSize(3);
  int64_t bs = op.getBlocksize();
  int64_t outRow = (W / bs) * bs * bs * C; // bytes of one output row
  // Input pixel (y b + i, x b + j) is output pixel (y, x)'s channel run
  // (i * b + j) * C .. + C: store (i, j) reads row i of each unit of b rows,
  // every b-th pixel from j.
  return copyRowsByStores(
      op, type, plan, io, b,
      [&](int64_t u0, int64_t ut, uint64_t sp, std::vector<Instruction> &out) {
        for (int64_t i = 0; i < bs; ++i)
          for (int64_t j = 0; j < bs; ++j) {
            out.push_back(blockStore(io.output + u0 * outRow + (i * bs + j) * C,
                                     sp + (i * W + j) * C, C, W / bs, ut,
                                     bs * bs * C, outRow, bs * C, bs * W * C));
          }
      },
      bs);
}

std::optional<SliceRows> sliceRows(graph::SliceOp op) {
  auto in = cast<ShapedType>(op.getInput().getType());
  auto out = cast<ShapedType>(op.getOutput().getType());
  int64_t rank = in.getRank();
  if (rank < 1)
    return std::nullopt;
  int64_t cut = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (op.getStrides()[d] == 1 && op.getOffsets()[d] == 0 &&
        out.getDimSize(d) == in.getDimSize(d))
      continue;
    if (cut >= 0)
      return std::nullopt;
    cut = d;
  }
  SliceRows r;
  r.c = in.getShape().back(), r.co = out.getShape().back();
  if (cut < 0 || cut == rank - 1) {
    if (cut >= 0 && op.getStrides()[cut] != 1)
      return std::nullopt; // every other byte of a row: no run
    r.rows = out.getNumElements() / std::max<int64_t>(r.co, 1);
    r.c0 = cut < 0 ? 0 : op.getOffsets()[cut];
    return r;
  }
  // Rows of the last dim between the cut dim and the last one, and blocks
  // of the dims before it.
  int64_t inner = 1, outer = 1, step = op.getStrides()[cut];
  for (int64_t d = cut + 1; d + 1 < rank; ++d)
    inner *= in.getDimSize(d);
  for (int64_t d = 0; d < cut; ++d)
    outer *= in.getDimSize(d);
  int64_t n = out.getDimSize(cut), dim = in.getDimSize(cut),
          off = op.getOffsets()[cut];
  if (step == 1 || inner == 1) {
    // Per block, n * inner rows from (off * inner) on, `step` rows apart
    // (a strided cut of the dim next to the last: every step-th row).
    r.blocks = outer, r.rows = n * inner, r.blockStride = dim * inner;
    r.rowOffset = off * inner, r.rowStep = step;
    return r;
  }
  if (outer != 1)
    return std::nullopt;
  // A strided cut with rows inside it (Swin's patch merging, x[0::2] of
  // [1, H, W, C]): a block per kept index, its `inner` rows contiguous.
  r.blocks = n, r.rows = inner, r.blockStride = step * inner;
  r.rowOffset = off * inner;
  return r;
}

llvm::Expected<std::vector<Item>> lowerChannelSlice(graph::SliceOp op,
                                                    const TilePlan &plan,
                                                    const LayerIO &io,
                                                    ProgramBuilder &b) {
  auto r = sliceRows(op);
  if (!r)
    return loweringError(op, "the slice cuts more than one dim or strides");
  int64_t C = r->c, Co = r->co;
  int64_t rows = std::min(plan.rows.value(), r->rows);
  if (Co > kMaxField || C > kMaxField || rows > kMaxField)
    return loweringError(op, "slice rows exceed the field widths");
  auto q = tables::quantized8(op.getInput().getType());
  if (!q)
    return loweringError(op, "the slice needs an 8-bit per-tensor input");
  auto slots =
      allocateSlotPairs(op, b.hw, {rows * Co, rows * Co, 256}, io.spMirrored);
  if (!slots)
    return slots.takeError();
  uint64_t lutDram = identityLut(q, io, b);
  std::vector<Item> items;
  for (int64_t blk = 0; blk < r->blocks; ++blk)
    for (int64_t p0 = 0; p0 < r->rows; p0 += rows) {
      int64_t pt = std::min(rows, r->rows - p0);
      size_t s = items.size() % 2;
      uint64_t data = (*slots)[0][s], res = (*slots)[1][s],
               lut = (*slots)[2][s];
      Item it;
      // Co bytes of each row, C apart in DRAM, packed in SP.
      int64_t row = blk * r->blockStride + r->rowOffset + p0 * r->rowStep;
      DmaBox box =
          rowsBox(io.inputs[0] + row * C + r->c0, data, pt, Co, C * r->rowStep);
      box.flipSign = !q.isSigned();
      it.loads.push_back(makeLoad(box));
      if (items.size() < 2)
        it.loads.push_back(makeLoad(rowsBox(lutDram, lut, 1, 256, 256)));
      it.computes.push_back(vlut(data, res, lut, pt, Co, false));
      it.stores.push_back(makeStore(
          rowsBox(io.output + (blk * r->rows + p0) * Co, res, pt, Co, Co)));
      items.push_back(std::move(it));
    }
  return items;
}

std::optional<TransposeBoxes> transposeBoxes(graph::TransposeOp op) {
  auto in = cast<ShapedType>(op.getInput().getType());
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = in.getRank();
  if (rank == 0 || perm.back() != rank - 1)
    return std::nullopt;
  // Input strides in bytes (row-major), then the output's dims in order
  // with their input strides, size-1 dims dropped and a dim merged into
  // the one before it when both are adjacent in the input too.
  std::vector<int64_t> stride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    stride[d] = stride[d + 1] * in.getDimSize(d + 1);
  std::vector<std::pair<int64_t, int64_t>> dims; // (size, input stride)
  for (int64_t p : perm) {
    int64_t size = in.getDimSize(p);
    if (size == 1)
      continue;
    if (!dims.empty() && dims.back().second == stride[p] * size) {
      dims.back() = {dims.back().first * size, stride[p]};
      continue;
    }
    dims.push_back({size, stride[p]});
  }
  // The innermost run (the last dim, with what merged into it) is
  // contiguous; at most three dims outside it (the DMA box's n1..n3).
  if (dims.empty() || dims.back().second != 1 || dims.size() > 4)
    return std::nullopt;
  TransposeBoxes t;
  t.c = dims.back().first;
  dims.pop_back();
  while (dims.size() < 3)
    dims.insert(dims.begin(), {1, 0});
  for (int k = 0; k < 3; ++k)
    t.size[k] = dims[k].first, t.stride[k] = dims[k].second;
  if (t.c > kMaxField || t.size[1] > kMaxField || t.size[2] > kMaxField ||
      t.size[1] * t.size[2] > kMaxField)
    return std::nullopt;
  return t;
}

std::vector<TilePlan> transposeCandidates(graph::TransposeOp op,
                                          const isa::HwConfig &hw) {
  auto t = transposeBoxes(op);
  return t ? fittingRowCandidates(t->size[1], 4 * t->size[2] * t->c, hw)
           : std::vector<TilePlan>{};
}

/// An item loads, for one index of the outermost dim and a run of the
/// middle one, the input's runs of C bytes in output order (a strided DMA
/// box), copies them through the identity VLUT and stores them as one
/// contiguous run of the output.
llvm::Expected<std::vector<Item>> lowerTranspose(graph::TransposeOp op,
                                                 const TilePlan &plan,
                                                 const LayerIO &io,
                                                 ProgramBuilder &b) {
  auto t = transposeBoxes(op);
  auto q = tables::quantized8(op.getInput().getType());
  if (!t || !q)
    return loweringError(op, "this transpose is no strided copy of whole "
                             "innermost runs");
  int64_t C = t->c, inner = t->size[2] * C;
  int64_t rows = std::min(plan.rows.value(), t->size[1]);
  auto slots = allocateSlotPairs(op, b.hw, {rows * inner, rows * inner, 256},
                                 io.spMirrored);
  if (!slots)
    return slots.takeError();
  uint64_t lutDram = identityLut(q, io, b);
  std::vector<Item> items;
  for (int64_t i0 = 0; i0 < t->size[0]; ++i0)
    for (int64_t i1 = 0; i1 < t->size[1]; i1 += rows) {
      int64_t rt = std::min(rows, t->size[1] - i1);
      size_t s = items.size() % 2;
      uint64_t data = (*slots)[0][s], res = (*slots)[1][s],
               lut = (*slots)[2][s];
      Item it;
      DmaBox box;
      box.dram = io.inputs[0] + i0 * t->stride[0] + i1 * t->stride[1];
      box.sram = data;
      box.n[0] = C, box.n[1] = t->size[2], box.n[2] = rt;
      box.s[1] = t->stride[2], box.s[2] = t->stride[1];
      box.t[1] = C, box.t[2] = inner;
      box.flipSign = !q.isSigned();
      it.loads.push_back(makeLoad(box));
      if (items.size() < 2)
        it.loads.push_back(makeLoad(rowsBox(lutDram, lut, 1, 256, 256)));
      it.computes.push_back(vlut(data, res, lut, rt * t->size[2], C, false));
      for (const DmaBox &o : contiguousBoxes(
               io.output + (i0 * t->size[1] + i1) * inner, res, rt * inner))
        it.stores.push_back(makeStore(o));
      items.push_back(std::move(it));
    }
  return items;
}

llvm::Expected<std::vector<Item>> lowerPad(graph::PadOp op,
                                           const TilePlan &plan,
                                           const LayerIO &io,
                                           ProgramBuilder &b) {
  auto type = cast<ShapedType>(op.getInput().getType());
  int64_t N = type.getDimSize(0), H = type.getDimSize(1),
          W = type.getDimSize(2), C = type.getDimSize(3);
  ArrayRef<int64_t> p = op.getPads();
  int64_t pt = p[1], pl = p[2], pb = p[5], pr = p[6];
  int64_t Ho = H + pt + pb, Wo = W + pl + pr, row = Wo * C;
  int64_t rows = std::min(plan.rows.value(), Ho);
  if (row > kMaxField || rows > kMaxField || C > kMaxField || W > kMaxField)
    return loweringError(op, "row tile exceeds the field widths");
  auto q = tables::quantized8(type);
  if (!q)
    return loweringError(op, "Pad needs an 8-bit per-tensor input");
  auto slots =
      allocateSlotPairs(op, b.hw, {rows * row, rows * row, 256}, io.spMirrored);
  if (!slots)
    return slots.takeError();
  // The value is the stored integer; in SP the NPU's int8 domain (a uint8
  // tensor is loaded flipped, the identity table flips it back).
  int64_t stored = static_cast<int64_t>(op.getValue().convertToDouble());
  int8_t padByte = static_cast<int8_t>(q.isSigned() ? stored : stored - 128);
  uint64_t lutDram = identityLut(q, io, b), pixel = 0;
  if (io.materializeConstants) {
    std::vector<int8_t> px(C, padByte);
    pixel = b.constantBase + b.addConstant(px.data(), px.size(), true);
  }
  // `n` rows of `cols` pixels of pad bytes at (row r, column c) of a tile.
  auto padBox = [&](uint64_t tile, int64_t r, int64_t c, int64_t n,
                    int64_t cols) {
    DmaBox box;
    box.dram = pixel, box.sram = tile + (r * Wo + c) * C;
    box.n[0] = C, box.n[1] = cols, box.n[2] = n;
    box.t[1] = C, box.t[2] = row;
    return makeLoad(box);
  };
  std::vector<Item> items;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy0 = 0; oy0 < Ho; oy0 += rows) {
      int64_t rt = std::min(rows, Ho - oy0);
      size_t s = items.size() % 2;
      uint64_t data = (*slots)[0][s], out = (*slots)[1][s],
               lut = (*slots)[2][s];
      Item it;
      // Output rows [oy0, oy0 + rt): padding above, input rows, padding
      // below.
      int64_t realBegin = std::clamp(pt, oy0, oy0 + rt);
      int64_t realEnd = std::clamp(pt + H, realBegin, oy0 + rt);
      int64_t real = realEnd - realBegin;
      if (realBegin > oy0)
        it.loads.push_back(padBox(data, 0, 0, realBegin - oy0, Wo));
      if (real > 0) {
        int64_t r = realBegin - oy0;
        DmaBox in = rowsBox(io.inputs[0] + ((n * H + realBegin - pt) * W) * C,
                            data + (r * Wo + pl) * C, real, W * C, W * C);
        in.t[1] = row;
        in.flipSign = !q.isSigned();
        it.loads.push_back(makeLoad(in));
        if (pl)
          it.loads.push_back(padBox(data, r, 0, real, pl));
        if (pr)
          it.loads.push_back(padBox(data, r, pl + W, real, pr));
      }
      if (realEnd < oy0 + rt)
        it.loads.push_back(
            padBox(data, realEnd - oy0, 0, oy0 + rt - realEnd, Wo));
      if (items.size() < 2)
        it.loads.push_back(makeLoad(rowsBox(lutDram, lut, 1, 256, 256)));
      it.computes.push_back(vlut(data, out, lut, rt, row, false));
      it.stores.push_back(makeStore(
          rowsBox(io.output + (n * Ho + oy0) * row, out, rt, row, row)));
      items.push_back(std::move(it));
    }
  return items;
}

} // namespace systole::npu
