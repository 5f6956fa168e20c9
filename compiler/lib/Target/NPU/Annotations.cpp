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
  auto s = op->getAttrOfType<StringAttr>(kPlacementAttr);
  if (!s)
    return std::nullopt;
  return s.getValue() == "npu" ? Placement::Npu : Placement::Host;
}

void setPlacement(Operation *op, Placement p) {
  op->setAttr(
      kPlacementAttr,
      StringAttr::get(op->getContext(), p == Placement::Npu ? "npu" : "host"));
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

DictionaryAttr getTile(Operation *op) {
  return op->getAttrOfType<DictionaryAttr>(kTileAttr);
}

int64_t tileInt(DictionaryAttr tile, llvm::StringRef key, int64_t dflt) {
  if (!tile)
    return dflt;
  if (auto a = tile.getAs<IntegerAttr>(key))
    return a.getInt();
  return dflt;
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
