//===- ImportHostWindow.h - Windows of the host conv/pool ops ---*- C++ -*-===//
//
// Internal to the frontend: the window geometry (kernel_shape, pads,
// auto_pad, strides, dilations, ceil_mode) that the host convolution
// (ImportHostConv.cpp) and pooling (ImportHostPool.cpp) importers resolve.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_IMPORTHOSTWINDOW_H
#define SYSTOLE_LIB_FRONTEND_IMPORTHOSTWINDOW_H

#include "ImportContext.h"

#include "systole/Conversion/HostWindow.h"

#include <optional>

namespace systole::frontend {

using conversion::Window;

/// Integer list attribute `name` with `n` entries of at least `min` (`n`
/// times `dflt` when absent).
llvm::Expected<llvm::SmallVector<int64_t>> attrVector(ImportContext &ic,
                                                      llvm::StringRef name,
                                                      int64_t n, int64_t dflt,
                                                      int64_t min);

/// ONNX's pads/auto_pad/strides/dilations (and ceil_mode when `ceilMode`)
/// for a window `kernel` over `in`, as ORT's pool and conv attributes
/// compute them.
llvm::Expected<Window> resolveWindow(ImportContext &ic,
                                     llvm::ArrayRef<int64_t> in,
                                     llvm::ArrayRef<int64_t> kernel,
                                     bool ceilMode);

/// The kernel's spatial shape: kernel_shape, which must agree with
/// `fromWeight` when the op has a weight.
llvm::Expected<llvm::SmallVector<int64_t>>
kernelShape(ImportContext &ic, int64_t rank,
            std::optional<llvm::ArrayRef<int64_t>> fromWeight);

/// Whether `v` is the result of a graph.dequantize (a QDQ operand).
bool fromDequantize(mlir::Value v);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_IMPORTHOSTWINDOW_H
