//===- HostWindow.h - The window of a host convolution or pool -*- C++ -*-===//
//
// What the importer resolves of a Conv/ConvInteger/pool node's window
// attributes (kernel_shape, pads, auto_pad, strides, dilations, ceil_mode)
// and the body builders of lib/Conversion/OnnxToLinalg read back from the
// graph.host op's params.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_HOSTWINDOW_H
#define SYSTOLE_CONVERSION_HOSTWINDOW_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

namespace systole::conversion {

/// Per spatial dim: kernel, stride, dilation, padding and output size.
struct Window {
  llvm::SmallVector<int64_t> kernel, strides, dilations, padBegin, padEnd, out;
  /// End padding ceil_mode adds so that floor division yields the ceil
  /// output; part of padEnd, never counted by an average.
  llvm::SmallVector<int64_t> ceilExtra;
  int64_t rank() const { return kernel.size(); }
  int64_t extent(int64_t d) const { return dilations[d] * (kernel[d] - 1) + 1; }
};

/// The window as params: `kernel`, `strides`, `dilations`, `pad_begin`,
/// `pad_end`, `ceil_extra` and `out`, each an array<i64> of one entry per
/// spatial dim.
llvm::SmallVector<mlir::NamedAttribute> windowParams(mlir::Builder &b,
                                                     const Window &w);

} // namespace systole::conversion

#endif // SYSTOLE_CONVERSION_HOSTWINDOW_H
