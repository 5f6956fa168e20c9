//===- DropPaddingTaps.cpp - Remove kernel taps that only read padding ----===//
//
// A dilated kernel on a small map (DeepLab's ASPP: rates 12 to 36 on a 6x6
// map at a 96-pixel input) reaches the input only with some taps; the
// others read the padding of every output pixel. In a quantized
// convolution the padding is the input zero point, so those taps add
// (zx - zx) * w = 0 to an integer sum: slicing the filter to the taps that
// reach real pixels, and moving the padding with it, computes the same
// integers as ONNX Runtime's QLinearConv. An ASPP branch becomes the 1x1
// convolution it effectively is and runs on the array instead of the host
// (the NPU refuses dilated kernels wider than their input).
//
// Only quantized convolutions are rewritten: in float, a dropped 0 * w
// could still change a sum's sign of zero.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/Graph/ConstantTensors.h"
#include "systole/Dialect/Graph/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace systole::graph {
#define GEN_PASS_DEF_DROPPADDINGTAPS
#include "systole/Dialect/Graph/Passes.h.inc"
} // namespace systole::graph

using namespace mlir;
using namespace systole::graph;

namespace {

/// The taps [first, last] of one spatial dimension that read an input
/// pixel for some output; nullopt when none does.
std::optional<std::pair<int64_t, int64_t>>
usedTaps(int64_t input, int64_t output, int64_t kernel, int64_t stride,
         int64_t dilation, int64_t padBegin) {
  std::optional<std::pair<int64_t, int64_t>> used;
  for (int64_t k = 0; k < kernel; ++k) {
    // Output o reads o * stride - padBegin + k * dilation.
    int64_t first = -padBegin + k * dilation;
    int64_t last = first + (output - 1) * stride;
    if (last < 0 || first >= input)
      continue;
    // Some o in [0, output) lands in [0, input) unless the stride jumps
    // over the whole input.
    int64_t o = first >= 0 ? 0 : (-first + stride - 1) / stride;
    if (o >= output || first + o * stride >= input)
      continue;
    if (!used)
      used = {k, k};
    used->second = k;
  }
  return used;
}

struct DropTaps : OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    if (!isa<quant::UniformQuantizedType>(inType.getElementType()))
      return failure();
    DenseElementsAttr data = constantBehind(op.getFilter());
    if (!data)
      return failure();
    auto wType = cast<RankedTensorType>(op.getFilter().getType());
    // Bytes per stored element (the storage type, not the quantized one).
    size_t elem = cast<ShapedType>(data.getType()).getElementTypeBitWidth() / 8;
    if (elem == 0)
      return failure();
    bool nhwc = op.getLayout() == Layout::NHWC;
    // Spatial dims of input and output, and of the filter (HWIO / OIHW).
    int64_t sIn = nhwc ? 1 : 2, sW = nhwc ? 0 : 2;
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    SmallVector<int64_t> pads(op.getPads()), dilations(op.getDilations());
    int64_t begin[2], size[2];
    bool changed = false;
    for (int d = 0; d < 2; ++d) {
      int64_t k = wType.getDimSize(sW + d), dl = dilations[d];
      begin[d] = 0;
      size[d] = k;
      auto used =
          usedTaps(inType.getDimSize(sIn + d), outType.getDimSize(sIn + d), k,
                   op.getStrides()[d], dl, pads[d]);
      if (!used || (used->first == 0 && used->second == k - 1))
        continue;
      // The sliced kernel starts `first` taps later: its padding shrinks
      // by that many dilation steps (and at the end by the dropped tail),
      // which keeps every output's window where it was.
      int64_t padBegin = pads[d] - used->first * dl;
      int64_t padEnd = pads[d + 2] - (k - 1 - used->second) * dl;
      if (padBegin < 0 || padEnd < 0)
        continue;
      begin[d] = used->first;
      size[d] = used->second - used->first + 1;
      pads[d] = padBegin;
      pads[d + 2] = padEnd;
      if (size[d] == 1)
        dilations[d] = 1;
      changed = true;
    }
    if (!changed)
      return failure();

    SmallVector<int64_t> shape(wType.getShape());
    shape[sW] = size[0];
    shape[sW + 1] = size[1];
    SmallVector<int64_t> offset(4, 0);
    offset[sW] = begin[0];
    offset[sW + 1] = begin[1];
    ArrayRef<int64_t> full = wType.getShape();
    auto storage = RankedTensorType::get(
        shape, cast<ShapedType>(data.getType()).getElementType());
    DenseElementsAttr sliced;
    if (data.isSplat()) {
      sliced = data.resizeSplat(storage);
    } else {
      ArrayRef<char> raw = data.getRawData();
      std::vector<char> out(storage.getNumElements() * elem);
      size_t o = 0;
      for (int64_t a = 0; a < shape[0]; ++a)
        for (int64_t b = 0; b < shape[1]; ++b)
          for (int64_t c = 0; c < shape[2]; ++c) {
            // The innermost dim is contiguous in both filters.
            int64_t src =
                (((a + offset[0]) * full[1] + b + offset[1]) * full[2] + c +
                 offset[2]) *
                    full[3] +
                offset[3];
            std::memcpy(&out[o], &raw[src * elem], shape[3] * elem);
            o += shape[3] * elem;
          }
      sliced = DenseElementsAttr::getFromRawBuffer(storage, out);
    }
    auto newType = RankedTensorType::get(shape, wType.getElementType());
    Value filter = materializeConstant(rewriter, op.getLoc(), sliced, newType);
    // The model's MACs are those of its full kernel (what ONNX defines and
    // other tools count); the placement report keeps counting them.
    int64_t window = wType.getDimSize(sW) * wType.getDimSize(sW + 1);
    if (auto kept = op->getAttrOfType<IntegerAttr>(kModelWindowAttr))
      window = kept.getInt();
    rewriter.modifyOpInPlace(op, [&] {
      op->setAttr(kModelWindowAttr, rewriter.getI64IntegerAttr(window));
      op.getFilterMutable().assign(filter);
      op.setPads(pads);
      op.setDilations(dilations);
    });
    return success();
  }
};

struct DropPaddingTapsPass
    : systole::graph::impl::DropPaddingTapsBase<DropPaddingTapsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DropTaps>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
