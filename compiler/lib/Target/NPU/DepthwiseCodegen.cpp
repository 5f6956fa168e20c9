//===- DepthwiseCodegen.cpp - Depthwise convolution on the vector unit ----===//
//
// A depthwise graph.conv2d (one input and one output channel per group) as
// DWCONV instructions: the array would run at 1/R utilization, one input
// channel per output channel. Items are (row tile, channel tile); the
// channel tile is a multiple of the lanes.
//
//===----------------------------------------------------------------------===//
#include "ConvCodegenUtils.h"

using namespace mlir;

namespace systole::npu {

llvm::Expected<std::vector<Item>> lowerDepthwise(graph::Conv2DOp op,
                                                 const TilePlan &plan,
                                                 const LayerIO &io,
                                                 ProgramBuilder &b) {
  const isa::HwConfig &hw = b.hw;
  ConvGeom g = geometry(op);
  int64_t C = g.cout, rows = plan.rows.value(),
          ctMax = std::min(plan.n.value(), C);
  int64_t wp = g.paddedWidth();
  int64_t mMax = rows * g.ow;
  if (g.kh > 255 || g.kw > 255 || g.sh > 255 || g.sw > 255 || g.dh > 255 ||
      g.dw > 255 || C > 0xffff || mMax > 0xffff || g.w > 0xffff)
    return loweringError(op, "depthwise dimensions exceed the field widths");
  int64_t inTile = g.inRowsFor(rows) * wp * ctMax;
  SramAllocator sp(hw.sram.scratchpadBytes, hw.scratchpadBankBytes(),
                   io.spMirrored, keptBytes(io));
  // A kept input is the whole padded image of all channels, the first
  // allocation (onChipInput); items read their rows and channels in place.
  std::optional<uint64_t> keptIn;
  if (io.inputOnChip) {
    if (!onChipInput(op, plan, hw, io.spMirrored))
      return loweringError(op, "this plan cannot read a kept input");
    keptIn = sp.allocate(g.inRowsFor(g.oh) * wp * C);
    if (!keptIn)
      return loweringError(op, "scratchpad of " +
                                   llvm::Twine(hw.sram.scratchpadBytes) +
                                   " bytes cannot hold the kept input image");
    inTile = 0;
  }
  SramAllocator acc(hw.accumulatorWords(),
                    hw.accumulatorWords() /
                        std::max<uint64_t>(1, hw.sram.accumulatorBanks));
  std::optional<uint64_t> inSlot[2], wSlot[2], outSlot[2], accSlot[2],
      scaleSlot[2], biasSlot[2], lutSlot[2], resSlot[2];
  int64_t lutBytes = fusedTable(op) ? 256 : 0;
  int64_t resBytes = fusedResidual(op) ? mMax * ctMax : 0;
  for (int s = 0; s < 2; ++s) {
    inSlot[s] = keptIn ? keptIn : sp.allocate(inTile);
    wSlot[s] = sp.allocate(g.kh * g.kw * ctMax);
    // A kept output goes straight into the next layer's tile (a fused
    // residual add's VADD reads the requantized tile from its slot).
    outSlot[s] = io.keepOutput && !fusedResidual(op)
                     ? std::optional<uint64_t>(0)
                     : sp.allocate(mMax * ctMax);
    lutSlot[s] = lutBytes ? sp.allocate(lutBytes) : std::optional<uint64_t>(0);
    resSlot[s] = resBytes ? sp.allocate(resBytes) : std::optional<uint64_t>(0);
    accSlot[s] = acc.allocate(mMax * ctMax);
    scaleSlot[s] = acc.allocate(ctMax);
    biasSlot[s] = acc.allocate(ctMax);
  }
  for (int s = 0; s < 2; ++s)
    if (!inSlot[s] || !wSlot[s] || !outSlot[s] || !lutSlot[s] || !resSlot[s] ||
        !accSlot[s] || !scaleSlot[s] || !biasSlot[s])
      return loweringError(
          op, "SRAM cannot hold this depthwise tiling (scratchpad needs " +
                  llvm::Twine(2 * (inTile + g.kh * g.kw * ctMax + mMax * ctMax +
                                   lutBytes + resBytes)) +
                  " bytes, accumulator " + llvm::Twine(8 * (mMax + 2) * ctMax) +
                  " bytes)");

  QParams x = perTensorParams(op.getInput().getType());
  Epilogue epi = epilogueOf(op);
  epi.residualDram = io.residual;
  int64_t wZp = uniformZeroPoint(op.getFilter().getType());
  uint64_t wAddr = 0, biasAddr = 0, scaleAddr = 0;
  if (io.materializeConstants) {
    // HWIO with I = 1 is [kh][kw][C], DWCONV's weight layout.
    std::vector<char> w = constantInt8(op.getFilter());
    wAddr = b.constantBase + b.addConstant(w.data(), w.size());
    std::tie(biasAddr, scaleAddr) = materializeEpilogueConstants(
        b, op.getBias(), op.getFilter().getType(), x.scale, epi.y.scale, C);
    materializeTable(b, epi);
  }

  std::vector<DmaBox> border;
  if (keptIn)
    border = keptInputBorder(g, *keptIn, x.zeroPoint, io, b);

  std::vector<Item> items;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy0 = 0; oy0 < g.oh; oy0 += rows)
      for (int64_t c0 = 0; c0 < C; c0 += ctMax) {
        int64_t th = std::min(rows, g.oh - oy0), ct = std::min(ctMax, C - c0);
        int64_t m = th * g.ow;
        int64_t iyStart = oy0 * g.sh - g.pt;
        int64_t iyEnd = iyStart + g.inRowsFor(th);
        int64_t iy0 = std::max<int64_t>(0, iyStart);
        int64_t realRows = std::min(g.h, iyEnd) - iy0;
        size_t slot = items.size() % 2;
        Item it;
        DmaBox in;
        in.dram = io.inputs[0] + (n * g.h + iy0) * g.w * C + c0;
        in.sram = *inSlot[slot];
        in.n[0] = ct, in.n[1] = g.w, in.n[2] = realRows;
        in.s[1] = C, in.s[2] = g.w * C;
        in.t[1] = ct, in.t[2] = wp * ct;
        in.padTop = std::max<int64_t>(0, -iyStart);
        in.padBottom = std::max<int64_t>(0, iyEnd - g.h);
        in.padLeft = g.pl, in.padRight = g.pr;
        in.padValue = x.zeroPoint;
        in.flipSign = x.isUnsigned;
        if (!keptIn)
          it.loads.push_back(makeLoad(in));
        else if (items.empty())
          for (const DmaBox &p : border)
            it.loads.push_back(makeLoad(p));
        // The tile's first input row and channel, and its strides.
        uint64_t inAddr =
            keptIn ? *keptIn + oy0 * g.sh * wp * C + c0 : *inSlot[slot];
        int64_t pixStride = keptIn ? C : ct;
        DmaBox wb;
        wb.dram = wAddr + c0, wb.sram = *wSlot[slot];
        wb.n[0] = ct, wb.n[1] = g.kh * g.kw, wb.s[1] = C, wb.t[1] = ct;
        it.loads.push_back(makeLoad(wb));
        AccTile tile{*accSlot[slot],
                     *scaleSlot[slot],
                     *biasSlot[slot],
                     *outSlot[slot],
                     m,
                     ct,
                     *lutSlot[slot],
                     *resSlot[slot]};
        appendEpilogueLoads(it, tile, epi, biasAddr + 4 * c0,
                            scaleAddr + 4 * c0);
        Instruction dw(Opcode::Dwconv);
        dw.set(Field::Dwconv_in_zp, x.zeroPoint);
        dw.set(Field::Dwconv_w_zp, wZp);
        dw.set(Field::Dwconv_kh, g.kh);
        dw.set(Field::Dwconv_kw, g.kw);
        dw.set(Field::Dwconv_sh, g.sh);
        dw.set(Field::Dwconv_sw, g.sw);
        dw.set(Field::Dwconv_dh, g.dh);
        dw.set(Field::Dwconv_dw, g.dw);
        dw.set(Field::Dwconv_in_addr, inAddr);
        dw.set(Field::Dwconv_w_addr, *wSlot[slot]);
        dw.set(Field::Dwconv_c_addr, *accSlot[slot]);
        dw.set(Field::Dwconv_oh, th);
        dw.set(Field::Dwconv_ow, g.ow);
        dw.set(Field::Dwconv_ch, ct);
        dw.set(Field::Dwconv_in_row_stride, wp * pixStride);
        dw.set(Field::Dwconv_in_pix_stride, pixStride);
        dw.set(Field::Dwconv_c_row_stride, g.ow * ct);
        dw.set(Field::Dwconv_c_pix_stride, ct);
        it.computes.push_back(dw);
        appendConvEpilogue(it, tile, epi, io, g, n, oy0, th, c0, C);
        items.push_back(std::move(it));
      }
  return items;
}

} // namespace systole::npu
