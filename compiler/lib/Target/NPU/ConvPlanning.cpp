//===- ConvPlanning.cpp - Conv geometry, tile candidates, kept tiles ------===//
//
// What the planners ask of an NPU layer before it is lowered: a
// graph.conv2d's geometry and the tile plans worth pricing (convCandidates),
// and whether a layer's input or output can stay in the scratchpad between
// layers (onChipInput, canKeepOutput: a cascade, npu-plan-cascades).
//
//===----------------------------------------------------------------------===//
#include "ConvCodegenUtils.h"

using namespace mlir;

namespace systole::npu {

ConvGeom geometry(graph::Conv2DOp op) {
  auto in = cast<ShapedType>(op.getInput().getType());
  auto out = cast<ShapedType>(op.getOutput().getType());
  auto w = cast<ShapedType>(op.getFilter().getType()); // HWIO
  auto pads = op.getPads();
  return {in.getDimSize(0),
          in.getDimSize(1),
          in.getDimSize(2),
          in.getDimSize(3),
          out.getDimSize(1),
          out.getDimSize(2),
          out.getDimSize(3),
          w.getDimSize(0),
          w.getDimSize(1),
          op.getStrides()[0],
          op.getStrides()[1],
          op.getDilations()[0],
          op.getDilations()[1],
          pads[0],
          pads[1],
          pads[2],
          pads[3]};
}

std::vector<DmaBox> keptInputBorder(const ConvGeom &g, uint64_t base,
                                    int64_t zeroPoint, const LayerIO &io,
                                    ProgramBuilder &b) {
  return keptImageBorder(base, g.inRowsFor(g.oh), g.pt, g.h, g.w, g.pl, g.pr,
                         g.cin, zeroPoint, io, b);
}

void appendConvEpilogue(Item &item, const AccTile &tile, const Epilogue &epi,
                        const LayerIO &io, const ConvGeom &g, int64_t n,
                        int64_t oy0, int64_t th, int64_t c0, int64_t channels) {
  if (io.keepOutput && !io.storeKept && !epi.residual) {
    appendKeptEpilogue(item, tile, epi, *io.keepOutput, oy0, th, g.ow, c0);
    return;
  }
  int64_t pix = io.outPixelStride ? io.outPixelStride : channels;
  std::optional<uint64_t> kept;
  if (io.keepOutput)
    kept = keptAddress(*io.keepOutput, oy0, c0);
  appendEpilogue(item, tile, epi, io.output, (n * g.oh + oy0) * g.ow * pix + c0,
                 pix, kept, io.keepOutput ? io.keepOutput->channels : 0,
                 !io.keepOutput || io.storeKept);
}

uint64_t keptBytes(const LayerIO &io) {
  return io.keepOutput ? (io.keepOutput->bytes + 3) / 4 * 4 : 0;
}

bool onVectorUnit(graph::Conv2DOp op) {
  return op.isDepthwise() &&
         cast<ShapedType>(op.getOutput().getType()).getShape().back() ==
             op.getGroup();
}

/// `t` at the consumer's first allocation (its end of the scratchpad), or
/// nullopt when it does not fit.
static std::optional<OnChipTile>
placedFirst(OnChipTile t, const isa::HwConfig &hw, bool mirrored) {
  SramAllocator sp(hw.sram.scratchpadBytes, hw.scratchpadBankBytes(), mirrored);
  std::optional<uint64_t> base = sp.allocate(t.bytes);
  if (!base)
    return std::nullopt;
  t.base = *base;
  return t;
}

std::optional<OnChipTile> onChipInput(Operation *op, const TilePlan &plan,
                                      const isa::HwConfig &hw, bool mirrored) {
  if (auto pool = dyn_cast<graph::PoolOp>(op)) {
    // A max pool reads its windows in place (padding: -128, which never
    // wins). Average pooling's valid region is not worked out for a padded
    // kept image.
    auto in = cast<ShapedType>(pool.getInput().getType());
    int64_t oh = cast<ShapedType>(pool.getOutput().getType()).getDimSize(1);
    int64_t h = in.getDimSize(1), w = in.getDimSize(2), c = in.getDimSize(3);
    auto pads = pool.getPads();
    int64_t rows = (oh - 1) * pool.getStrides()[0] + pool.getKernel()[0];
    int64_t wp = w + pads[1] + pads[3];
    // An average pool only without padding: its valid region is then its
    // windows, as in a loaded tile.
    bool padded = llvm::any_of(pads, [](int64_t p) { return p != 0; });
    if ((pool.getKind() != graph::PoolKind::Max && padded) ||
        in.getDimSize(0) != 1 || -pads[0] + rows < h || wp * c > 0xffff)
      return std::nullopt;
    OnChipTile t;
    t.bytes = rows * wp * c;
    t.padTop = pads[0], t.padLeft = pads[1], t.rowPitch = wp, t.channels = c;
    return placedFirst(t, hw, mirrored);
  }
  if (auto gap = dyn_cast<graph::GlobalAvgPoolOp>(op)) {
    // The whole image, channel slices read in place (pixel stride C).
    auto in = cast<ShapedType>(gap.getInput().getType());
    int64_t h = in.getDimSize(1), w = in.getDimSize(2), c = in.getDimSize(3);
    if (in.getDimSize(0) != 1 || w * c > 0xffff || c > 0xffff)
      return std::nullopt;
    OnChipTile t;
    t.bytes = h * w * c;
    t.rowPitch = w, t.channels = c;
    return placedFirst(t, hw, mirrored);
  }
  auto conv = dyn_cast<graph::Conv2DOp>(op);
  // Depthwise (vector unit), dense or grouped on the array: one image of
  // all the input channels (a grouped convolution's groups address their
  // slices in it; its sliced plans, order 1, cannot read it).
  if (!conv || epilogueOf(op).int32Out || !plan.rows)
    return std::nullopt;
  ConvGeom g = geometry(conv);
  // The tile holds the whole padded image (row tiles read it in place), and
  // every input row is in it (a strided layer may skip the last rows: the
  // producer would write past the tile).
  if (g.batch != 1 || -g.pt + g.inRowsFor(g.oh) < g.h)
    return std::nullopt;
  int64_t wp = g.paddedWidth();
  if (wp * g.cin > 0xffff)
    return std::nullopt;
  OnChipTile t;
  // The consumer's first allocation (lowerConv allocates the input first).
  t.bytes = g.inRowsFor(g.oh) * wp * g.cin;
  t.padTop = g.pt, t.padLeft = g.pl, t.rowPitch = wp, t.channels = g.cin;
  return placedFirst(t, hw, mirrored);
}

Value layerResult(Operation *op) {
  if (graph::TableOp t = fusedTable(op))
    return t.getOutput();
  if (graph::AddOp add = fusedResidual(op))
    return add.getOutput();
  return op->getResult(0);
}

bool canKeepOutput(Operation *op) {
  auto conv = dyn_cast<graph::Conv2DOp>(op);
  if (!conv || geometry(conv).batch != 1 || concatSlice(op))
    return false;
  return !epilogueOf(op).int32Out;
}

std::vector<TilePlan> convCandidates(graph::Conv2DOp op,
                                     const isa::HwConfig &hw, bool kSplit) {
  ConvGeom g = geometry(op);
  int64_t groups = op.getGroup();
  std::vector<TilePlan> plans;
  if (onVectorUnit(op)) {
    if (kSplit)
      return {};
    // Channel tiles are multiples of the vector lanes.
    for (int64_t ct = std::max<int64_t>(hw.vector.lanes, 1) * 8; ct >= 1;
         ct /= 2)
      for (TilePlan p : rowCandidates(g.oh)) {
        p.n = ct;
        plans.push_back(p);
      }
    return plans;
  }
  // Item widths: the array width and multiples of it (an item then runs
  // one MATMUL per column group); wider items store longer DRAM runs.
  // A grouped convolution is `groups` convolutions of cin/groups input and
  // cout/groups output channels each.
  int64_t cout = g.cout / groups;
  std::vector<int64_t> widths;
  for (int64_t w = hw.array.cols;; w *= 2) {
    widths.push_back(std::min(w, cout));
    if (w >= cout || widths.size() == 4)
      break;
  }
  // Groups narrower than the array share an item: n spans whole groups
  // (ConvCodegen), so stores are runs of several groups' channels.
  if (groups > 1 && cout < hw.array.cols)
    for (int64_t w = hw.array.cols; widths.size() < 4; w *= 2) {
      int64_t per = std::min(groups, w / cout);
      widths.push_back(per * cout);
      if (per == groups)
        break;
    }
  if (kSplit) {
    // Weights streamed in K chunks (multiples of the array rows) per item;
    // the input tile stays for the row tile.
    int64_t K = g.kh * g.kw * (g.cin / groups);
    for (int64_t kc : kChunkCandidates(K, hw.array.rows))
      for (int64_t os : {0, 1}) {
        if ((os && !hw.array.os) || (!os && !hw.array.ws))
          continue;
        for (int64_t nt : widths)
          for (TilePlan p : rowCandidates(g.oh)) {
            if (nt > cout) // one group per item in a K split
              continue;
            p.n = nt, p.resident = 0, p.os = os, p.order = 0, p.k = kc;
            plans.push_back(p);
          }
      }
    return plans;
  }
  for (int64_t os : {0, 1}) {
    if ((os && !hw.array.os) || (!os && !hw.array.ws))
      continue;
    for (int64_t nt : widths)
      for (int64_t resident : {1, 0})
        for (int64_t order : {0, 1})
          for (TilePlan p : rowCandidates(g.oh))
            // Resident weights of one group would be overwritten by the
            // next group's while its items still run: groups stream. Order
            // 1 of a grouped convolution loads each group's input slice
            // (ConvCodegen), one group per item.
            if ((!resident || !order) &&
                (groups == 1 || (!resident && (!order || nt <= cout)))) {
              p.n = nt, p.resident = resident, p.os = os, p.order = order;
              plans.push_back(p);
            }
  }
  return plans;
}

} // namespace systole::npu
