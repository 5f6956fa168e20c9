//===- Linear.cpp - Bodies of the contractions (Einsum) -------------------===//
//
// An Einsum is one linalg.generic: the product of the operands' elements,
// summed over the reduction loops into a zero-filled result. The importer
// (Frontend/ImportEinsum.cpp) parses the equation into the maps and the
// reduction loops, the params here.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace systole::conversion::onnx {

namespace linear {
namespace {

/// Params `indexing_maps` (one per operand, then the result's), `loops`,
/// `reduction_loops`.
llvm::Expected<Value> einsum(OpBuilder &b, Location loc, ValueRange args,
                             Type result, const Params &p) {
  SYSTOLE_PARAM(loops, p.i64("loops"));
  SYSTOLE_PARAM(reductionLoops, p.i64s("reduction_loops"));
  auto mapAttrs = llvm::dyn_cast_or_null<ArrayAttr>(p.attr("indexing_maps"));
  if (!mapAttrs || mapAttrs.size() != args.size() + 1)
    return p.fail("parameter 'indexing_maps' needs one affine map per operand "
                  "and one for the result");
  SmallVector<AffineMap> maps;
  for (Attribute a : mapAttrs) {
    auto m = llvm::dyn_cast<AffineMapAttr>(a);
    if (!m || m.getValue().getNumDims() != uint64_t(loops))
      return p.fail("every indexing map must range over the loops");
    maps.push_back(m.getValue());
  }
  SmallVector<utils::IteratorType> iters(loops, utils::IteratorType::parallel);
  for (int64_t r : reductionLoops) {
    if (r < 0 || r >= loops)
      return p.fail("a reduction loop is out of range");
    iters[r] = utils::IteratorType::reduction;
  }
  auto type = cast<RankedTensorType>(result);
  Type elem = type.getElementType();
  ArrayRef<int64_t> outShape = type.getShape();
  bool reduces = !reductionLoops.empty();
  bool isFloat = isa<FloatType>(elem);
  Value init = b.create<tensor::EmptyOp>(loc, outShape, elem);
  if (reduces) {
    Value zero =
        isFloat ? b.create<arith::ConstantOp>(loc, b.getFloatAttr(elem, 0.0))
                : b.create<arith::ConstantOp>(loc, b.getIntegerAttr(elem, 0));
    init = b.create<linalg::FillOp>(loc, ValueRange{zero}, ValueRange{init})
               .getResult(0);
  }
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, args, ValueRange{init}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange s) {
            Value prod = s[0];
            for (Value v : s.drop_front().drop_back())
              prod = isFloat ? Value(nb.create<arith::MulFOp>(l, prod, v))
                             : Value(nb.create<arith::MulIOp>(l, prod, v));
            if (reduces)
              prod = isFloat
                         ? Value(nb.create<arith::AddFOp>(l, s.back(), prod))
                         : Value(nb.create<arith::AddIOp>(l, s.back(), prod));
            nb.create<linalg::YieldOp>(l, prod);
          })
      .getResult(0);
}

} // namespace
} // namespace linear

void registerLinearBodies(llvm::StringMap<HostBodyFn> &table) {
  table["Einsum"] = linear::einsum;
}

} // namespace systole::conversion::onnx
