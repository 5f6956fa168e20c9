//===- ConstantTensors.cpp - Constant weights as the graph passes see them ===//
#include "systole/Dialect/Graph/ConstantTensors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"

using namespace mlir;

DenseElementsAttr systole::graph::constantBehind(Value v) {
  if (auto scast = v.getDefiningOp<quant::StorageCastOp>())
    v = scast.getArg();
  DenseElementsAttr attr;
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    attr = dyn_cast<DenseElementsAttr>(c.getValue());
  return attr;
}

Value systole::graph::materializeConstant(PatternRewriter &rewriter,
                                          Location loc, DenseElementsAttr data,
                                          RankedTensorType result) {
  Value c = rewriter.create<arith::ConstantOp>(loc, data.getType(), data);
  if (data.getType() == result)
    return c;
  return rewriter.create<quant::StorageCastOp>(loc, result, c);
}
