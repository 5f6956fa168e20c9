//===- ConvCodegenUtils.h - What the conv generators share ------*- C++ -*-===//
//
// Internal to the NPU target: a graph.conv2d's geometry and the kept-tile
// (cascade) helpers that the array convolution (ConvCodegen.cpp), the
// depthwise one on the vector unit (DepthwiseCodegen.cpp) and the
// convolution planning queries (ConvPlanning.cpp) share.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_TARGET_NPU_CONVCODEGENUTILS_H
#define SYSTOLE_LIB_TARGET_NPU_CONVCODEGENUTILS_H

#include "LayerCodegen.h"

namespace systole::npu {

/// A graph.conv2d's sizes (NHWC input, HWIO filter), strides, dilations and
/// pads [top, left, bottom, right].
struct ConvGeom {
  int64_t batch, h, w, cin, oh, ow, cout, kh, kw, sh, sw, dh, dw;
  int64_t pt, pl, pb, pr;
  int64_t k() const { return kh * kw * cin; }
  int64_t paddedWidth() const { return w + pl + pr; }
  int64_t inRowsFor(int64_t rows) const {
    return (rows - 1) * sh + (kh - 1) * dh + 1;
  }
};

ConvGeom geometry(graph::Conv2DOp op);

/// The loads that write a kept input's zero-point border around the image
/// ([inRowsFor(oh)][wp][cin] bytes at `base`): the previous layer wrote the
/// pixels only.
std::vector<DmaBox> keptInputBorder(const ConvGeom &g, uint64_t base,
                                    int64_t zeroPoint, const LayerIO &io,
                                    ProgramBuilder &b);

/// The epilogue of a conv tile (rows [oy0, oy0 + th), channels from c0, of
/// image n; `channels`: the output's): into the consumer's input tile when
/// the output is kept on chip and not stored, else stored (pixels a
/// concat's channels apart in an in-place concat slice) and, when kept
/// too, also written to the kept tile.
void appendConvEpilogue(Item &item, const AccTile &tile, const Epilogue &epi,
                        const LayerIO &io, const ConvGeom &g, int64_t n,
                        int64_t oy0, int64_t th, int64_t c0, int64_t channels);

/// Scratchpad bytes a kept output reserves at the far end (the consumer's
/// allocator rounds a top-down slot to 4 bytes).
uint64_t keptBytes(const LayerIO &io);

/// Depthwise (one input and one output channel per group) runs on the
/// vector unit; every other grouping on the array, group by group.
bool onVectorUnit(graph::Conv2DOp op);

/// Depthwise convolution on the vector unit (DWCONV): the array would run
/// at 1/R utilization, one input channel per output channel. Items are
/// (row tile, channel tile); the channel tile is a multiple of the lanes.
llvm::Expected<std::vector<Item>> lowerDepthwise(graph::Conv2DOp op,
                                                 const TilePlan &plan,
                                                 const LayerIO &io,
                                                 ProgramBuilder &b);

} // namespace systole::npu

#endif // SYSTOLE_LIB_TARGET_NPU_CONVCODEGENUTILS_H
