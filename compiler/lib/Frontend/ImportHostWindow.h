//===- ImportHostWindow.h - Windows of the host conv/pool ops ---*- C++ -*-===//
//
// Internal to the frontend: the window geometry (kernel_shape, pads,
// auto_pad, strides, dilations, ceil_mode) and the tensor builders that the
// host convolution (ImportHostConv.cpp) and pooling (ImportHostPool.cpp)
// importers share.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_IMPORTHOSTWINDOW_H
#define SYSTOLE_LIB_FRONTEND_IMPORTHOSTWINDOW_H

#include "ImportContext.h"

#include <optional>

namespace systole::frontend {

/// Per spatial dim: kernel, stride, dilation, padding and output size.
struct Window {
  llvm::SmallVector<int64_t> kernel, strides, dilations, padBegin, padEnd, out;
  /// End padding ceil_mode adds so that floor division yields the ceil
  /// output; part of padEnd, never counted by an average.
  llvm::SmallVector<int64_t> ceilExtra;
  int64_t rank() const { return kernel.size(); }
  int64_t extent(int64_t d) const { return dilations[d] * (kernel[d] - 1) + 1; }
};

/// `in` padded by `low`/`high` per dim with the scalar `pad` (tensor.pad;
/// `in` itself when nothing is padded).
mlir::Value padWith(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                    llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                    mlir::Value pad);

/// N, C then the spatial dims padded by `begin`/`end`.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                       llvm::ArrayRef<int64_t> begin,
                       llvm::ArrayRef<int64_t> end, mlir::Value pad);

/// Dim expressions d_from .. d_(from + n - 1).
llvm::SmallVector<mlir::AffineExpr> dims(mlir::MLIRContext *ctx, int64_t from,
                                         int64_t n);

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

/// A linalg named convolution or pooling op `OpT` of `in` and `filter` (or
/// the pooling window) into `init`.
template <typename OpT>
mlir::Value namedWindowOp(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value in, mlir::Value filter, mlir::Value init,
                          llvm::ArrayRef<int64_t> strides,
                          llvm::ArrayRef<int64_t> dilations) {
  return b
      .create<OpT>(loc, mlir::TypeRange{init.getType()},
                   mlir::ValueRange{in, filter}, mlir::ValueRange{init},
                   b.getI64TensorAttr(strides), b.getI64TensorAttr(dilations))
      .getResult(0);
}

/// Whether `v` is the result of a graph.dequantize (a QDQ operand).
bool fromDequantize(mlir::Value v);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_IMPORTHOSTWINDOW_H
