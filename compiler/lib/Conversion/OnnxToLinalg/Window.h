//===- Window.h - What the conv and pool bodies share -----------*- C++ -*-===//
//
// Internal to lib/Conversion/OnnxToLinalg (Conv.cpp, Pool.cpp): the window
// read back from params and the tensor builders over it.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_CONVERSION_ONNXTOLINALG_WINDOW_H
#define SYSTOLE_LIB_CONVERSION_ONNXTOLINALG_WINDOW_H

#include "HostBody.h"

#include "systole/Conversion/HostWindow.h"

namespace systole::conversion::onnx::window {

/// The window params windowParams writes, checked for one entry per
/// spatial dim of a rank-`rank` input.
llvm::Expected<Window> windowOf(const Params &p, int64_t rank);

/// `in` padded by `low`/`high` per dim with the scalar `pad` (tensor.pad;
/// `in` itself when nothing is padded).
mlir::Value padWith(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                    llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                    mlir::Value pad);

/// N, C then the spatial dims padded by `begin`/`end`.
mlir::Value padWindow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                      llvm::ArrayRef<int64_t> begin,
                      llvm::ArrayRef<int64_t> end, mlir::Value pad);

/// Dim expressions d_from .. d_(from + n - 1).
llvm::SmallVector<mlir::AffineExpr> dims(mlir::MLIRContext *ctx, int64_t from,
                                         int64_t n);

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

} // namespace systole::conversion::onnx::window

#endif // SYSTOLE_LIB_CONVERSION_ONNXTOLINALG_WINDOW_H
