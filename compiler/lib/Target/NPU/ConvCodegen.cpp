//===- ConvCodegen.cpp - Convolution on the systolic array ----------------===//
//
// Weight-stationary convolution with implicit im2col: an item is (row tile,
// output-channel tile). The input rows of a row tile (with their halo and
// the padding written by the DMA) are loaded once; each K chunk of at most R
// rows of the [kh*kw*Cin, Cout] weight matrix is one MATMUL whose A operand
// walks the NHWC tile as the im2col matrix; the first one overwrites the
// accumulator, the rest accumulate; REQUANT adds the bias and writes int8.
// Depthwise convolutions run on the vector unit (DepthwiseCodegen.cpp); the
// geometry and the plan candidates are in ConvPlanning.cpp.
//
//===----------------------------------------------------------------------===//
#include "ConvCodegenUtils.h"

#include <numeric>

using namespace mlir;

namespace systole::npu {

namespace {

/// A range [begin, end) of rows (input tile rows or weight rows) that the
/// compute `need` reads first.
struct Chunk {
  int64_t begin, end;
  size_t need;
};

/// Splits rows [0, blockEnd.back()) into at most `stages` chunks for an
/// item's load stages: block q's rows end at blockEnd[q] and compute
/// blockCompute[q] is the first to read them. The first block is a chunk of
/// its own (it alone gates the first compute), the others are spread evenly.
std::vector<Chunk> stageChunks(llvm::ArrayRef<int64_t> blockEnd,
                               llvm::ArrayRef<size_t> blockCompute,
                               size_t stages) {
  std::vector<Chunk> chunks;
  size_t nb = blockEnd.size();
  if (nb == 0)
    return chunks;
  chunks.push_back({0, blockEnd[0], 0});
  if (stages < 2)
    return {{0, blockEnd.back(), 0}};
  size_t rest = nb - 1, groups = std::min(rest, stages - 1);
  for (size_t g = 0, q = 1; g < groups; ++g) {
    size_t last = 1 + (rest * (g + 1)) / groups - 1;
    if (blockEnd[last] > chunks.back().end)
      chunks.push_back({chunks.back().end, blockEnd[last], blockCompute[q]});
    q = last + 1;
  }
  return chunks;
}

/// The part of an input-tile load `in` (rows along dim 2, with its top and
/// bottom padding) covering tile rows [a, b); nullopt when that part has no
/// DRAM row (a LOAD moves at least one).
std::optional<DmaBox> rowSlice(const DmaBox &in, int64_t a, int64_t b) {
  int64_t realRows = in.n[2];
  int64_t realBegin = std::max(a, in.padTop);
  int64_t realEnd = std::min(b, in.padTop + realRows);
  if (realEnd <= realBegin)
    return std::nullopt;
  DmaBox part = in;
  part.padTop = std::max<int64_t>(0, std::min(b, in.padTop) - a);
  part.n[2] = realEnd - realBegin;
  part.padBottom = (b - a) - part.padTop - part.n[2];
  part.sram = in.sram + a * in.t[2];
  part.dram = in.dram + (realBegin - in.padTop) * in.s[2];
  return part;
}

} // namespace

llvm::Expected<std::vector<Item>> lowerConv(graph::Conv2DOp op,
                                            const TilePlan &plan,
                                            const LayerIO &io,
                                            ProgramBuilder &b) {
  const isa::HwConfig &hw = b.hw;
  if (onVectorUnit(op))
    return lowerDepthwise(op, plan, io, b);
  ConvGeom g = geometry(op);
  // Group gi reads input channels [gi*cin, +cin) and writes output channels
  // [gi*cout, +cout) of the full tensors (cinAll/coutAll channels); `g`
  // describes one group, DRAM strides use the full channel counts. An input
  // tile holds whole pixels, all cinAll channels (`tp` bytes apart), and
  // the groups' MATMULs address their slices; a slice's runs are cin bytes
  // of a pixel, a DRAM burst each (RegNetY's groups of 8 channels moved 8
  // bytes per 64-byte burst). Plan order 1 (`sliced`) loads each group's
  // slice instead, groups outer: one MATMUL then spans kernel rows, which
  // pays where the groups' K is small (ResNeXt's 4 channels).
  int64_t G = op.getGroup();
  int64_t cinAll = g.cin, coutAll = g.cout;
  g.cin /= G, g.cout /= G;
  bool sliced = G > 1 && plan.order.has_value() && plan.order.value();
  int64_t tp = sliced ? g.cin : cinAll;
  // The input image in DRAM: bytes per image, between rows and pixels.
  int64_t inBytesPerImage = g.h * g.w * cinAll;
  int64_t dramRow = g.w * cinAll, dramPixel = cinAll;
  // A strided 1x1 convolution without padding (ResNet's downsampling
  // shortcut) reads one pixel in sh x sw: its DMA gathers only those,
  // whole pixels of at least a burst each, and the layer runs as a stride-1
  // convolution over the OH x OW image they form (a quarter of the DRAM
  // reads at stride 2). A kept input is the full image: not gathered.
  if (g.kh == 1 && g.kw == 1 && (g.sh > 1 || g.sw > 1) &&
      g.pt + g.pl + g.pb + g.pr == 0 && !io.inputOnChip &&
      g.cin >= static_cast<int64_t>(hw.dram.burstBytes)) {
    dramRow *= g.sh, dramPixel *= g.sw;
    g.h = g.oh, g.w = g.ow, g.sh = g.sw = 1;
  }
  int64_t rows = plan.rows.value(), ntMax = std::min(plan.n.value(), g.cout);
  // Groups narrower than the plan's n share an item: its output channels
  // are those of `groupsPerItem` consecutive groups, stored as one run per
  // pixel.
  int64_t groupsPerItem =
      G > 1 && !sliced && plan.n.value() > g.cout
          ? std::min(G, plan.n.value() / std::max<int64_t>(1, g.cout))
          : 1;
  int64_t itemCh = groupsPerItem * ntMax;
  bool resident = plan.resident.value();
  if (resident && G > 1)
    return loweringError(op, "resident weights of a grouped convolution");
  bool os = plan.os.has_value() && plan.os.value();
  bool channelsOuter =
      G == 1 && !resident && plan.order.has_value() && plan.order.value();
  int64_t K = g.k(), R = hw.array.rows;
  // A's K addressing has two levels: a kernel row's kw*cin bytes are one
  // run when its taps are adjacent whole pixels, and one MATMUL then spans
  // kernel rows (outer stride dh rows). With dw > 1, or one group's slice
  // of wider pixels, each kernel row is a MATMUL of its own whose taps are
  // dw*tp bytes apart.
  bool rowSplit = g.dw != 1 || (tp != g.cin && g.kw > 1);
  // K chunk of an item (plan "k"): split, an output tile is a group of
  // items that stream the weights in chunks and accumulate into one
  // accumulator tile; the input tile stays for the row tile.
  int64_t kc = plan.k.has_value() ? std::min(plan.k.value(), K) : K;
  int64_t kChunks = (K + kc - 1) / kc;
  if (kChunks > 1 && (resident || channelsOuter))
    return loweringError(op, "a K split streams the weights per item");
  if (kChunks > 1 && groupsPerItem > 1)
    return loweringError(op, "a K split of several groups per item");
  int64_t wp = g.paddedWidth();
  // A kept input is the whole padded image; each row tile reads its rows
  // in place.
  int64_t inTile = g.inRowsFor(io.inputOnChip ? g.oh : rows) * wp * tp;
  int64_t mMax = rows * g.ow;
  if (K > 0xffff || coutAll > 0xffff || mMax > 0xffff || cinAll > 0xffff ||
      (G > 1 && wp * tp > 0xffff))
    return loweringError(op, "layer dimensions exceed the DMA field widths");

  // SRAM plan: two input slots, weights (resident or two slots), two output
  // slots; ACC: two accumulator tiles with their scale vectors.
  SramAllocator sp(hw.sram.scratchpadBytes, hw.scratchpadBankBytes(),
                   io.spMirrored, keptBytes(io));
  SramAllocator acc(hw.accumulatorWords(),
                    hw.accumulatorWords() /
                        std::max<uint64_t>(1, hw.sram.accumulatorBanks));
  std::optional<uint64_t> inSlot[2], wSlot[2], outSlot[2], accSlot[2],
      scaleSlot[2], biasSlot[2], lutSlot[2], resSlot[2];
  int64_t lutBytes = fusedTable(op) ? 256 : 0;
  // A kept input is the whole image of all channels: sliced groups cannot
  // read it.
  if (io.inputOnChip && (sliced || !onChipInput(op, plan, hw, io.spMirrored)))
    return loweringError(op, "this plan cannot read a kept input");
  // A fused residual add's operand tile, beside the output tile.
  int64_t resBytes = fusedResidual(op) ? mMax * itemCh : 0;
  // One input tile in the whole layer (row tiles outer, one image, one row
  // tile) needs no second buffer: the space goes to larger tiles instead.
  int64_t inputTiles = (sliced ? G : 1) * g.batch * ((g.oh + rows - 1) / rows) *
                       (channelsOuter ? (g.cout + ntMax - 1) / ntMax : 1);
  inSlot[0] = sp.allocate(inTile);
  // A kept input is the one tile, written by the previous layer.
  inSlot[1] =
      inputTiles > 1 && !io.inputOnChip ? sp.allocate(inTile) : inSlot[0];
  if (resident)
    wSlot[0] = wSlot[1] = sp.allocate(K * g.cout);
  else
    for (int s = 0; s < 2; ++s)
      wSlot[s] = sp.allocate(kc * itemCh);
  // A kept output goes straight into the next layer's tile (a fused
  // residual add's VADD reads the requantized tile from its slot).
  for (int s = 0; s < 2; ++s)
    outSlot[s] = io.keepOutput && !fusedResidual(op)
                     ? std::optional<uint64_t>(0)
                     : sp.allocate(mMax * itemCh);
  for (int s = 0; s < 2; ++s)
    resSlot[s] = resBytes ? sp.allocate(resBytes) : std::optional<uint64_t>(0);
  for (int s = 0; s < 2; ++s)
    lutSlot[s] = lutBytes ? sp.allocate(lutBytes) : std::optional<uint64_t>(0);
  for (int s = 0; s < 2; ++s) {
    accSlot[s] = acc.allocate(mMax * itemCh);
    scaleSlot[s] = acc.allocate(itemCh);
    biasSlot[s] = acc.allocate(itemCh);
  }
  for (int s = 0; s < 2; ++s)
    if (!inSlot[s] || !wSlot[s] || !outSlot[s] || !lutSlot[s] || !resSlot[s])
      return loweringError(
          op, "scratchpad of " + llvm::Twine(hw.sram.scratchpadBytes) +
                  " bytes cannot hold this tiling (needs " +
                  llvm::Twine(2 * inTile +
                              (resident ? K * g.cout : 2 * kc * itemCh) +
                              2 * mMax * itemCh + 2 * lutBytes + 2 * resBytes) +
                  " bytes)");
  for (int s = 0; s < 2; ++s)
    if (!accSlot[s] || !scaleSlot[s] || !biasSlot[s])
      return loweringError(
          op, "accumulator of " + llvm::Twine(hw.sram.accumulatorBytes) +
                  " bytes cannot hold this tiling (needs " +
                  llvm::Twine(8 * (mMax + 1) * itemCh) + " bytes)");

  // Constants: weights as the [K, Cout] matrix (HWIO is already that),
  // int32 bias, fp32 requantization scales per output channel.
  QParams x = perTensorParams(op.getInput().getType());
  Epilogue epi = epilogueOf(op);
  epi.residualDram = io.residual;
  int64_t wZp = uniformZeroPoint(op.getFilter().getType());
  std::vector<uint64_t> wAddrs(G, 0);
  uint64_t biasAddr = 0, scaleAddr = 0;
  if (io.materializeConstants) {
    // HWIO is the [K, coutAll] matrix; group gi's weights are its columns
    // [gi*cout, +cout).
    std::vector<char> all = constantInt8(op.getFilter());
    for (int64_t gi = 0; gi < G; ++gi) {
      std::vector<char> w;
      if (G == 1) {
        w = std::move(all);
      } else {
        w.reserve(K * g.cout);
        for (int64_t r = 0; r < K; ++r)
          w.insert(w.end(), all.begin() + r * coutAll + gi * g.cout,
                   all.begin() + r * coutAll + (gi + 1) * g.cout);
      }
      // A channel gather's 0/1 matrix is the compiler's, not the model's.
      bool derived = op->hasAttr(graph::kDataMovementAttr);
      if (resident) {
        wAddrs[gi] =
            b.constantBase + b.addConstant(w.data(), w.size(), derived);
      } else {
        std::vector<char> tiled = tileColumns(w, K, g.cout, ntMax);
        wAddrs[gi] =
            b.constantBase + b.addConstant(tiled.data(), tiled.size(), derived);
      }
    }
    std::tie(biasAddr, scaleAddr) = materializeEpilogueConstants(
        b, op.getBias(), op.getFilter().getType(), x.scale, epi.y.scale,
        coutAll, op->hasAttr(graph::kDataMovementAttr));
    materializeTable(b, epi);
  }

  // Rows whose pixels are narrower than a DRAM burst load as whole rows
  // (per-pixel runs would each waste most of a burst); the side padding then
  // comes from a small constant of pad bytes in the NPU's int8 domain.
  bool wholeRows =
      !sliced && dramPixel == cinAll && g.w * tp <= 0xffff &&
      (g.pl + g.pr == 0 || tp < static_cast<int64_t>(hw.dram.burstBytes));
  // Channel slices (a 1x1 convolution whose input is one tile for the whole
  // layer, WS): the tile is laid out slice by slice, [slice][pixel][its
  // channels], and loaded slice by slice, so the first item's first
  // MATMULs (K chunks of the first channels) start once the first slice has
  // arrived instead of the whole image (layer3 of ResNet-50 waited 14 K
  // cycles for 200 KB). Slices are multiples of a burst and of the array's
  // rows, so a K chunk never straddles two; they follow the weights' load
  // stages. Contiguous slices also keep each DMA's and MATMUL's bounding
  // interval inside its slice (the race and hazard checks use intervals).
  std::vector<Chunk> inSlices;
  {
    int64_t blk =
        std::lcm<int64_t>(R, std::max<int64_t>(1, hw.dram.burstBytes));
    if (g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 &&
        g.pt + g.pb + g.pl + g.pr == 0 && G == 1 && !io.inputOnChip && !os &&
        inputTiles == 1 && kChunks == 1 && b.maxStages() > 1 &&
        g.cin % blk == 0 && g.cin / blk >= 2 && g.cin <= 0xffff) {
      std::vector<int64_t> ends;
      std::vector<size_t> computes;
      for (int64_t c = 0; c < g.cin; c += blk) {
        ends.push_back(c + blk);
        computes.push_back(static_cast<size_t>(c / R));
      }
      inSlices = stageChunks(ends, computes, b.maxStages());
    }
  }
  // The slice holding input channel k: {its first channel, its width}.
  auto sliceOf = [&](int64_t k) {
    for (const Chunk &c : inSlices)
      if (k < c.end)
        return std::make_pair(c.begin, c.end - c.begin);
    return std::pair<int64_t, int64_t>(0, g.cin);
  };
  uint64_t padAddr = 0;
  if (wholeRows && g.pl + g.pr > 0 && io.materializeConstants) {
    std::vector<int8_t> pad(std::max(g.pl, g.pr) * tp,
                            static_cast<int8_t>(x.zeroPoint));
    padAddr = b.constantBase + b.addConstant(pad.data(), pad.size());
  }
  std::vector<DmaBox> border;
  if (io.inputOnChip) {
    ConvGeom image = g;
    image.cin = tp;
    border = keptInputBorder(image, *inSlot[0], x.zeroPoint, io, b);
  }

  std::vector<Item> items;
  int64_t rowTiles = (g.oh + rows - 1) / rows;
  int64_t nTiles = (g.cout + ntMax - 1) / ntMax;
  // Loop order: row tiles outer reuse each input tile across the channel
  // tiles; channel tiles outer (streamed weights only) load each weight
  // slice once and re-read the input instead, the better trade when the
  // weights outweigh the activations (late layers).
  // Each step is one output tile: kChunks items (K split) that accumulate
  // into the accumulator tile of the step, the last one storing it.
  // A grouped convolution walks its groups inside a row tile (gi: the
  // item's first group), all of them reading the row tile's input, or,
  // sliced, outside everything.
  struct Step {
    int64_t gi, n, r, j;
  };
  std::vector<Step> steps;
  for (int64_t go = 0; go < (sliced ? G : 1); ++go)
    for (int64_t n = 0; n < g.batch; ++n)
      for (int64_t outer = 0; outer < (channelsOuter ? nTiles : rowTiles);
           ++outer)
        for (int64_t gi = go; gi < (sliced ? go + 1 : G); gi += groupsPerItem)
          for (int64_t inner = 0; inner < (channelsOuter ? rowTiles : nTiles);
               ++inner)
            steps.push_back(channelsOuter ? Step{gi, n, inner, outer}
                                          : Step{gi, n, outer, inner});
  int64_t rowTilesSeen = 0, outTiles = 0, weightSlices = 0;
  size_t weightSlot = 0;
  uint64_t inBase = 0;
  for (const Step &step : steps) {
    int64_t gi = step.gi, n = step.n, r = step.r, j = step.j;
    int64_t groups = std::min(groupsPerItem, G - gi);
    uint64_t wAddr = wAddrs[gi];
    size_t oslot = outTiles++ % 2;
    if (channelsOuter && r == 0)
      weightSlot = weightSlices++ % 2;
    for (int64_t q = 0; q < kChunks; ++q) {
      int64_t oy0 = r * rows, th = std::min(rows, g.oh - oy0);
      int64_t m = th * g.ow;
      int64_t iyStart = oy0 * g.sh - g.pt;
      int64_t iyEnd = iyStart + g.inRowsFor(th);
      int64_t padTop = std::max<int64_t>(0, -iyStart);
      int64_t padBottom = std::max<int64_t>(0, iyEnd - g.h);
      int64_t iy0 = std::max<int64_t>(0, iyStart);
      int64_t realRows = std::min(g.h, iyEnd) - iy0;
      // Input slots alternate per loaded input tile (across images too), so
      // two consecutive tiles never share a buffer.
      bool loadInput =
          channelsOuter || ((sliced || gi == 0) && j == 0 && q == 0);
      int64_t k0 = q * kc, kn = std::min(kc, K - k0);
      if (loadInput)
        inBase = io.inputOnChip ? *inSlot[0] + oy0 * g.sh * wp * tp
                                : *inSlot[rowTilesSeen++ % 2];
      {
        size_t slot = items.size() % 2;
        // ntg channels of each of the item's groups, nt in all.
        int64_t c0 = j * ntMax, ntg = std::min(ntMax, g.cout - c0);
        int64_t nt = groups * ntg;
        // First output channel of the tile in the full tensor.
        int64_t cAll = gi * g.cout + c0;
        // Channels outer keep a weight slice for a whole channel tile; the
        // slices alternate slots in the order they load (across channel
        // tiles, images and groups), so a slice never lands in the slot the
        // previous slice's items still read: item i+1's loads run while item
        // i computes. (Counting channel tiles alone reloaded tile 0 of the
        // next image into the slot of the last tile of this one when the
        // tile count was odd.)
        size_t wIdx = channelsOuter ? weightSlot : slot;
        Item it;
        // Load stages of the layer's first and last items: (load index,
        // need). The first overlaps nothing before it; the last has nothing
        // after it to hide its loads behind, which in a layer bound by its
        // weights' DMA leaves the whole last item's compute after the last
        // byte. (Stages map loads to MATMUL indices counted one per K chunk
        // or row block; dw > 1 splits MATMULs per kernel row, so it loads at
        // once.)
        bool lastItem = &step == &steps.back() && q + 1 == kChunks;
        bool staged =
            (items.empty() || lastItem) && b.maxStages() > 1 && !rowSplit;
        std::vector<std::pair<size_t, size_t>> needs;
        // MATMULs of the first column group, in emission order (see below):
        // OS walks row blocks, WS walks K chunks.
        auto osRowChunks = [&](int64_t th) {
          std::vector<int64_t> ends;
          std::vector<size_t> computes;
          if (g.ow <= R) {
            int64_t rowsPer = R / g.ow;
            for (int64_t ro = 0; ro < th; ro += rowsPer) {
              ends.push_back(ro * g.sh +
                             g.inRowsFor(std::min(rowsPer, th - ro)));
              computes.push_back(computes.size());
            }
          } else {
            size_t perRow = (g.ow + R - 1) / R;
            for (int64_t ro = 0; ro < th; ++ro) {
              ends.push_back(ro * g.sh + g.inRowsFor(1));
              computes.push_back(ro * perRow);
            }
          }
          return stageChunks(ends, computes, b.maxStages());
        };
        // Weights ([rows][stride] bytes from `dram`): WS reads K chunk q
        // first in MATMUL q, so the first item loads them chunk by chunk.
        auto loadWeights = [&](uint64_t dram, uint64_t sram, int64_t stride,
                               int64_t rows) {
          std::vector<Chunk> chunks{{0, rows, 0}};
          if (staged && !inSlices.empty() && rows == K) {
            chunks = inSlices;
          } else if (staged && !os) {
            std::vector<int64_t> ends;
            std::vector<size_t> computes;
            for (int64_t kk = 0; kk < rows; kk += R) {
              ends.push_back(std::min(rows, kk + R));
              computes.push_back(computes.size());
            }
            chunks = stageChunks(ends, computes, b.maxStages());
          }
          for (const Chunk &c : chunks)
            for (const DmaBox &wb : contiguousBoxes(
                     dram + c.begin * stride, sram + c.begin * stride,
                     (c.end - c.begin) * stride)) {
              if (c.need)
                needs.push_back({it.loads.size(), c.need});
              it.loads.push_back(makeLoad(wb));
            }
        };
        if (loadInput && io.inputOnChip) {
          // The image is in place; the layer's first item writes its
          // border.
          if (items.empty())
            for (const DmaBox &p : border)
              it.loads.push_back(makeLoad(p));
          if (resident && n == 0 && r == 0)
            loadWeights(wAddr, *wSlot[0], g.cout, K);
        } else if (loadInput && !inSlices.empty()) {
          // Slice by slice (above): pixels of [c.begin, c.end) channels,
          // contiguous in the tile.
          int64_t pixels = realRows * g.w;
          for (const Chunk &c : inSlices) {
            DmaBox in;
            in.dram =
                io.inputs[0] + n * inBytesPerImage + iy0 * dramRow + c.begin;
            in.sram = inBase + pixels * c.begin;
            in.n[0] = c.end - c.begin, in.n[1] = g.w, in.n[2] = realRows;
            in.s[1] = dramPixel, in.s[2] = dramRow;
            in.t[1] = c.end - c.begin, in.t[2] = g.w * (c.end - c.begin);
            in.flipSign = x.isUnsigned;
            if (staged && c.need)
              needs.push_back({it.loads.size(), c.need});
            it.loads.push_back(makeLoad(in));
          }
          if (resident && n == 0 && r == 0)
            loadWeights(wAddr, *wSlot[0], g.cout, K);
        } else if (loadInput) {
          DmaBox in;
          in.dram = io.inputs[0] + n * inBytesPerImage + iy0 * dramRow +
                    (sliced ? gi * g.cin : 0);
          in.sram = inBase;
          in.n[0] = tp, in.n[1] = g.w, in.n[2] = realRows;
          in.s[1] = dramPixel, in.s[2] = dramRow;
          in.t[1] = tp, in.t[2] = wp * tp;
          in.padTop = padTop, in.padBottom = padBottom;
          in.padLeft = g.pl, in.padRight = g.pr;
          in.padValue = x.zeroPoint;
          in.flipSign = x.isUnsigned;
          if (wholeRows) {
            // One DRAM run per input row; the side padding comes from the
            // pad constant (stride 0), a short run per row and side.
            in.sram = inBase + g.pl * tp;
            in.n[0] = g.w * tp, in.n[1] = 1;
            in.s[1] = in.t[1] = 0;
            in.padLeft = in.padRight = 0;
            int64_t tileRows = padTop + realRows + padBottom;
            auto side = [&](uint64_t sram, int64_t cols) {
              DmaBox p;
              p.dram = padAddr, p.sram = sram;
              p.n[0] = cols * tp, p.n[2] = tileRows;
              p.s[2] = 0, p.t[2] = wp * tp;
              it.loads.push_back(makeLoad(p));
            };
            if (g.pl)
              side(inBase, g.pl);
            if (g.pr)
              side(inBase + (g.pl + g.w) * tp, g.pr);
          }
          // The layer's first item overlaps nothing: in OS its input
          // arrives in row chunks, the first computes starting on the first.
          std::vector<DmaBox> parts;
          if (realRows > 0 && staged && os)
            for (const Chunk &c : osRowChunks(th)) {
              std::optional<DmaBox> part = rowSlice(in, c.begin, c.end);
              if (!part) {
                parts.clear();
                break;
              }
              parts.push_back(*part);
              needs.push_back({it.loads.size() + parts.size() - 1, c.need});
            }
          if (!parts.empty()) {
            for (const DmaBox &part : parts)
              it.loads.push_back(makeLoad(part));
          } else {
            needs.clear();
            if (realRows > 0)
              it.loads.push_back(makeLoad(in));
          }
          if (resident && n == 0 && r == 0)
            loadWeights(wAddr, *wSlot[0], g.cout, K);
        }
        // Each group's chunk of its column tile, one after the other.
        if (!resident && (!channelsOuter || r == 0))
          for (int64_t l = 0; l < groups; ++l)
            loadWeights(wAddrs[gi + l] + columnTileOffset(K, ntMax, j) +
                            k0 * ntg,
                        *wSlot[wIdx] + l * kn * ntg, ntg, kn);
        AccTile tile{*accSlot[oslot],
                     *scaleSlot[oslot],
                     *biasSlot[oslot],
                     *outSlot[oslot],
                     m,
                     nt,
                     *lutSlot[oslot],
                     *resSlot[oslot]};
        if (q == 0)
          appendEpilogueLoads(it, tile, epi, biasAddr + 4 * cAll,
                              scaleAddr + 4 * cAll);
        if (!needs.empty()) {
          it.loadNeed.assign(it.loads.size(), 0);
          for (auto [load, need] : needs)
            it.loadNeed[load] = need;
        }

        // Per group of the item (below): B rows are those of this item's
        // chunk (resident weights hold all of K, streamed ones rows [k0, k0
        // + kn)), A is the group's channel slice, C its columns of the tile.
        uint64_t bBase = 0;
        int64_t bStride = 0, aOff = 0, cOff = 0;
        // A MATMUL over output pixels [first row, +rowsM) x [ox0, +cols)
        // of this tile: `cols` = OW walks whole rows (im2col groups), fewer
        // columns stay within one row.
        // One MATMUL covers at most the array's C output channels: column
        // group [g0, g0 + gw) of the item's nt channels.
        int64_t C = hw.array.cols;
        // K runs over (ky, kx, ci); with rowSplit each kernel row's part of
        // [kFirst, kFirst + kCount) is a MATMUL of its own.
        int64_t rowK = g.kw * g.cin;
        auto matmul = [&](int64_t rowOff, int64_t ox0, int64_t rowsM,
                          int64_t cols, int64_t kFirst, int64_t kCount,
                          bool osFlow, int64_t g0, int64_t gw) {
          for (int64_t kk = kFirst; kk < kFirst + kCount;) {
            int64_t ky = rowSplit ? kk / rowK : 0;
            int64_t kEnd = rowSplit ? std::min(kFirst + kCount, (ky + 1) * rowK)
                                    : kFirst + kCount;
            Instruction mm(Opcode::Matmul);
            mm.set(Field::Matmul_dataflow,
                   osFlow ? isa::Dataflow_os : isa::Dataflow_ws);
            mm.set(Field::Matmul_preload, !osFlow);
            mm.set(Field::Matmul_accumulate, kk > 0);
            mm.set(Field::Matmul_a_zp, x.zeroPoint);
            mm.set(Field::Matmul_b_zp, wZp);
            mm.set(Field::Matmul_a_addr,
                   inBase + aOff + rowOff * g.sh * wp * tp + ox0 * g.sw * tp +
                       ky * g.dh * wp * tp);
            mm.set(Field::Matmul_a_m_inner, cols);
            mm.set(Field::Matmul_a_m_inner_stride, g.sw * tp);
            mm.set(Field::Matmul_a_m_outer_stride, g.sh * wp * tp);
            mm.set(Field::Matmul_a_k_inner, rowSplit ? g.cin : rowK);
            mm.set(Field::Matmul_a_k_outer_stride,
                   rowSplit ? g.dw * tp : g.dh * wp * tp);
            mm.set(Field::Matmul_a_k_offset, kk - ky * rowK);
            if (!inSlices.empty()) {
              // The chunk's slice: pixels `width` bytes apart (one input
              // tile of the whole image: the tile's pixel p is output
              // pixel p).
              auto [first, width] = sliceOf(kk);
              int64_t pixels = g.h * g.w;
              mm.set(Field::Matmul_a_addr,
                     inBase + pixels * first + (rowOff * g.w + ox0) * width);
              mm.set(Field::Matmul_a_m_inner_stride, width);
              mm.set(Field::Matmul_a_m_outer_stride, g.w * width);
              mm.set(Field::Matmul_a_k_inner, width);
              mm.set(Field::Matmul_a_k_outer_stride, pixels * width);
              mm.set(Field::Matmul_a_k_offset, kk - first);
            }
            mm.set(Field::Matmul_m, rowsM * cols);
            mm.set(Field::Matmul_k, kEnd - kk);
            mm.set(Field::Matmul_n, gw);
            mm.set(Field::Matmul_b_addr, bBase + kk * bStride + g0);
            mm.set(Field::Matmul_b_stride, bStride);
            mm.set(Field::Matmul_c_addr,
                   tile.acc + (rowOff * g.ow + ox0) * nt + cOff + g0);
            mm.set(Field::Matmul_c_stride, nt);
            it.computes.push_back(mm);
            kk = kEnd;
          }
        };
        for (int64_t l = 0; l < groups; ++l) {
          bBase = resident ? *wSlot[0] + c0
                           : *wSlot[wIdx] + l * kn * ntg - k0 * ntg;
          bStride = resident ? g.cout : ntg;
          aOff = tp == g.cin ? 0 : (gi + l) * g.cin;
          cOff = l * ntg;
          for (int64_t g0 = 0; g0 < ntg; g0 += C) {
            int64_t gw = std::min(C, ntg - g0);
            if (!os) {
              // At most R rows of B per MATMUL; with rowSplit counted from
              // each kernel row's start (a chunk across a row's end would
              // be two MATMULs).
              for (int64_t kk = k0; kk < k0 + kn;) {
                int64_t end = k0 + kn;
                if (rowSplit)
                  end = std::min(end, (kk / rowK + 1) * rowK);
                int64_t len = std::min(R, end - kk);
                matmul(0, 0, th, g.ow, kk, len, false, g0, gw);
                kk += len;
              }
            } else if (g.ow <= R) {
              // Output-stationary: at most R pixels per MATMUL, all of the
              // item's K.
              int64_t rowsPer = R / g.ow;
              for (int64_t ro = 0; ro < th; ro += rowsPer)
                matmul(ro, 0, std::min(rowsPer, th - ro), g.ow, k0, kn, true,
                       g0, gw);
            } else {
              for (int64_t ro = 0; ro < th; ++ro)
                for (int64_t ox0 = 0; ox0 < g.ow; ox0 += R)
                  matmul(ro, ox0, 1, std::min(R, g.ow - ox0), k0, kn, true, g0,
                         gw);
            }
          }
        }
        if (q + 1 == kChunks) {
          appendConvEpilogue(it, tile, epi, io, g, n, oy0, th, cAll, coutAll);
        }
        items.push_back(std::move(it));
      }
    }
  }
  return items;
}

} // namespace systole::npu
