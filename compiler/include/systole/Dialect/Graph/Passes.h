//===- Passes.h - Graph dialect passes --------------------------*- C++ -*-===//
#ifndef SYSTOLE_DIALECT_GRAPH_PASSES_H
#define SYSTOLE_DIALECT_GRAPH_PASSES_H

#include "systole/Dialect/Graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace systole::graph {

#define GEN_PASS_DECL
#include "systole/Dialect/Graph/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "systole/Dialect/Graph/Passes.h.inc"

/// graph-fold-constants' rewrites (transposes, reshapes and dequantizes of
/// constants), for passes that create constants and fold on from them.
void populateFoldConstantsPatterns(mlir::RewritePatternSet &patterns);

} // namespace systole::graph

#endif // SYSTOLE_DIALECT_GRAPH_PASSES_H
