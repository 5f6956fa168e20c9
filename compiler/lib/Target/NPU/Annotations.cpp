//===- Annotations.cpp - Attributes the NPU passes exchange ---------------===//
#include "systole/Target/NPU/Annotations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;

namespace systole::npu {

std::optional<Placement> getPlacement(Operation *op) {
  auto a = op->getAttrOfType<PlacementAttr>(kPlacementAttr);
  if (!a)
    return std::nullopt;
  return a.getValue();
}

void setPlacement(Operation *op, Placement p) {
  op->setAttr(kPlacementAttr, PlacementAttr::get(op->getContext(), p));
}

std::optional<int64_t> getDramOffset(Value v) {
  IntegerAttr attr;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (func)
      attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kDramAttr);
  } else {
    attr = v.getDefiningOp()->getAttrOfType<IntegerAttr>(kDramAttr);
  }
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

void setDramOffset(Value v, int64_t offset) {
  auto attr = IntegerAttr::get(IntegerType::get(v.getContext(), 64), offset);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    func.setArgAttr(arg.getArgNumber(), kDramAttr, attr);
    return;
  }
  v.getDefiningOp()->setAttr(kDramAttr, attr);
}

llvm::ArrayRef<std::pair<llvm::StringLiteral, TilePlan::Field>>
TilePlan::fields() {
  static const std::pair<llvm::StringLiteral, Field> all[] = {
      {"channels", &TilePlan::channels},
      {"k", &TilePlan::k},
      {"n", &TilePlan::n},
      {"order", &TilePlan::order},
      {"os", &TilePlan::os},
      {"resident", &TilePlan::resident},
      {"rows", &TilePlan::rows}};
  return all;
}

TilePlan::Field TilePlan::field(llvm::StringRef name) {
  for (auto [n, f] : fields())
    if (n == name)
      return f;
  return nullptr;
}

std::optional<TilePlan> getTilePlan(Operation *op) {
  auto a = op->getAttrOfType<TilePlanAttr>(kTileAttr);
  if (!a)
    return std::nullopt;
  TilePlan plan;
  plan.channels = a.getChannels(), plan.k = a.getK(), plan.n = a.getN();
  plan.order = a.getOrder(), plan.os = a.getOs();
  plan.resident = a.getResident(), plan.rows = a.getRows();
  return plan;
}

uint64_t getPredictedCycles(Operation *op) {
  auto a = op->getAttrOfType<TilePlanAttr>(kTileAttr);
  return a ? static_cast<uint64_t>(a.getPredictedCycles().value_or(0)) : 0;
}

void setTilePlan(Operation *op, const TilePlan &plan,
                 uint64_t predictedCycles) {
  op->setAttr(kTileAttr,
              TilePlanAttr::get(op->getContext(), plan.channels, plan.k, plan.n,
                                plan.order, plan.os,
                                static_cast<int64_t>(predictedCycles),
                                plan.resident, plan.rows));
}

int64_t storedElementBytes(Type tensorType) {
  Type elem = cast<ShapedType>(tensorType).getElementType();
  if (auto q = dyn_cast<quant::QuantizedType>(elem))
    return q.getStorageTypeIntegralWidth() / 8;
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}

int64_t storedBytes(Type tensorType) {
  return cast<ShapedType>(tensorType).getNumElements() *
         storedElementBytes(tensorType);
}

} // namespace systole::npu
