//===- Passes.h - Host code conversion passes -------------------*- C++ -*-===//
#ifndef SYSTOLE_CONVERSION_PASSES_H
#define SYSTOLE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace systole::conversion {

#define GEN_PASS_DECL
#include "systole/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "systole/Conversion/Passes.h.inc"

/// The patterns of convert-graph-to-linalg, for other drivers.
void populateGraphToLinalgPatterns(mlir::RewritePatternSet &patterns);

} // namespace systole::conversion

#endif // SYSTOLE_CONVERSION_PASSES_H
