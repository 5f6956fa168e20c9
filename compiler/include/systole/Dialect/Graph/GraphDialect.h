//===- GraphDialect.h - Graph dialect declaration ---------------*- C++ -*-===//
#ifndef SYSTOLE_DIALECT_GRAPH_GRAPHDIALECT_H
#define SYSTOLE_DIALECT_GRAPH_GRAPHDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/IR/Dialect.h"

#include "systole/Dialect/Graph/GraphDialect.h.inc"

#endif // SYSTOLE_DIALECT_GRAPH_GRAPHDIALECT_H
