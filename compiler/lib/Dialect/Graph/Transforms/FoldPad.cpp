//===- FoldPad.cpp - A Pad before a quantized convolution as its padding --===//
//
// Models converted from TensorFlow (tf2onnx, TFLite) write "SAME" padding of
// strided convolutions as an explicit Pad of 0 before a VALID Conv, often
// asymmetric (one more row and column at the bottom and right). Quantized,
// that Pad's value is the stored integer of 0.0, the input's zero point:
// exactly what a convolution's own padding reads. Adding the Pad's spatial
// amounts to the convolution's pads computes the same integers, and the
// convolution runs on the array instead of a Pad on the host between two
// NPU segments.
//
// Only quantized (per-tensor) inputs whose pad value equals the zero point,
// and pads of the spatial dims only.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/Graph/Passes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace systole::graph {
#define GEN_PASS_DEF_FOLDPAD
#include "systole/Dialect/Graph/Passes.h.inc"
} // namespace systole::graph

using namespace mlir;
using namespace systole::graph;

namespace {

struct FoldPadIntoConv : OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DOp conv,
                                PatternRewriter &rewriter) const override {
    auto pad = conv.getInput().getDefiningOp<PadOp>();
    if (!pad)
      return failure();
    auto q = dyn_cast<quant::UniformQuantizedType>(
        getElementTypeOrSelf(pad.getInput().getType()));
    if (!q || pad.getValue().convertToDouble() != double(q.getZeroPoint()))
      return rewriter.notifyMatchFailure(conv, "not a pad of the zero point");
    ArrayRef<int64_t> p = pad.getPads();
    if (p.size() != 8)
      return failure();
    // Spatial dims: H, W at 2, 3 (NCHW) or 1, 2 (NHWC).
    int64_t h = conv.getLayout() == Layout::NHWC ? 1 : 2;
    for (int64_t d = 0; d < 4; ++d)
      if (d != h && d != h + 1 && (p[d] != 0 || p[d + 4] != 0))
        return rewriter.notifyMatchFailure(conv, "pads a non-spatial dim");
    ArrayRef<int64_t> cp = conv.getPads(); // [top, left, bottom, right]
    SmallVector<int64_t> pads = {cp[0] + p[h], cp[1] + p[h + 1],
                                 cp[2] + p[h + 4], cp[3] + p[h + 5]};
    // Padding at least a kernel extent wide gives outputs that read only
    // padding, which the NPU's convolution tiling does not produce: such a
    // Pad stays.
    auto filter = cast<RankedTensorType>(conv.getFilter().getType());
    int64_t kh = filter.getDimSize(conv.getLayout() == Layout::NHWC ? 0 : 2);
    int64_t kw = filter.getDimSize(conv.getLayout() == Layout::NHWC ? 1 : 3);
    ArrayRef<int64_t> dil = conv.getDilations();
    int64_t eh = (kh - 1) * dil[0] + 1, ew = (kw - 1) * dil[1] + 1;
    if (pads[0] >= eh || pads[2] >= eh || pads[1] >= ew || pads[3] >= ew)
      return rewriter.notifyMatchFailure(conv, "padding as wide as the kernel");
    rewriter.modifyOpInPlace(conv, [&] {
      conv.getInputMutable().assign(pad.getInput());
      conv.setPads(pads);
    });
    return success();
  }
};

struct FoldPadPass : systole::graph::impl::FoldPadBase<FoldPadPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldPadIntoConv>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
