//===- PadSlice.cpp - Bodies of Pad and Slice of any type ----------------===//
//
// Pad, every mode: each output element reads its source position (or is
// the constant value outside the input); reflect and wrap fold the position
// back into the input as often as the pads need. Slice: an affine read map
// out[i] = x[start + i * step] (the importer's `map`), so negative steps
// need no special case. The importer (Frontend/ImportPadSlice.cpp) reads
// pads/starts/steps per opset and keeps graph.pad/graph.slice where they
// apply.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace padslice {
namespace {

using lw::cIndex;

/// The source position along one dim of size `n` for output position `o`
/// of a Pad with `low` leading pads, and whether it is inside the input.
std::pair<Value, Value> padSource(OpBuilder &b, Location loc, Value o,
                                  int64_t low, int64_t n, StringRef mode) {
  using P = arith::CmpIPredicate;
  Value src = b.create<arith::SubIOp>(loc, o, cIndex(b, loc, low));
  Value zero = cIndex(b, loc, 0), last = cIndex(b, loc, n - 1);
  Value inside = b.create<arith::AndIOp>(
      loc, b.create<arith::CmpIOp>(loc, P::sge, src, zero),
      b.create<arith::CmpIOp>(loc, P::sle, src, last));
  if (mode == "reflect" && n > 1) {
    // Mirror without repeating the edge, as often as the pads need.
    Value period = cIndex(b, loc, 2 * (n - 1));
    Value m = b.create<arith::RemSIOp>(loc, src, period);
    Value neg = b.create<arith::CmpIOp>(loc, P::slt, m, zero);
    m = b.create<arith::SelectOp>(loc, neg,
                                  b.create<arith::AddIOp>(loc, m, period), m);
    Value high = b.create<arith::CmpIOp>(loc, P::sgt, m, last);
    src = b.create<arith::SelectOp>(loc, high,
                                    b.create<arith::SubIOp>(loc, period, m), m);
  } else if (mode == "wrap") {
    Value size = cIndex(b, loc, n);
    Value m = b.create<arith::RemSIOp>(loc, src, size);
    Value neg = b.create<arith::CmpIOp>(loc, P::slt, m, zero);
    src = b.create<arith::SelectOp>(loc, neg,
                                    b.create<arith::AddIOp>(loc, m, size), m);
  }
  // Edge (and every mode, for safety): clamp into the input.
  src = b.create<arith::MaxSIOp>(loc, src, zero);
  src = b.create<arith::MinSIOp>(loc, src, last);
  return {src, inside};
}

/// Params `mode`, `pads` ([begin..., end...]) and `value` (absent: a
/// second operand holds the constant value).
llvm::Expected<Value> pad(OpBuilder &b, Location loc, ValueRange args,
                          Type result, const Params &params) {
  SYSTOLE_PARAM(pads, params.i64s("pads"));
  std::string mode = params.attrString("mode", "constant");
  struct {
    std::string mode;
    SmallVector<int64_t> pads;
    bool valueInput;
    double value = 0;
  } p{mode, pads, !params.has("value")};
  if (!p.valueInput) {
    SYSTOLE_PARAM(value, params.f64("value"));
    p.value = value;
  }
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return params.fail("mode '" + mode +
                       "' is not constant, reflect, edge or "
                       "wrap");
  Value x = args[0];
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t rank = in.size();
  if (args.size() != (p.valueInput ? 2u : 1u) ||
      int64_t(pads.size()) != 2 * rank)
    return params.fail("expects 2 pads per dimension and the constant value "
                       "as a param or a second operand");
  Type elem = elementOf(x);
  ArrayRef<int64_t> shape = cast<RankedTensorType>(result).getShape();
  bool empty = llvm::is_contained(in, 0);
  MLIRContext *ctx = b.getContext();
  // A runtime constant_value is a generic operand read at position 0 (the
  // GPU form has no place for a scalar computed outside the loops).
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  if (p.valueInput) {
    operands.push_back(lw::reshapeTo(b, loc, args[1], {1}));
    maps.push_back(
        AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = lw::emptyTensor(b, loc, shape, elem);
  Value data = args[0];
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, operands, ValueRange{init}, maps,
          iters,
          [&](OpBuilder &nb, Location l, ValueRange el) {
            Value cval;
            if (p.valueInput)
              cval = el[0];
            else if (auto f = dyn_cast<FloatType>(elem))
              cval =
                  nb.create<arith::ConstantOp>(l, nb.getFloatAttr(f, p.value));
            else
              cval = nb.create<arith::ConstantOp>(
                  l, nb.getIntegerAttr(elem, int64_t(p.value)));
            // An empty input has nothing to read: all constant value.
            if (empty) {
              nb.create<linalg::YieldOp>(l, cval);
              return;
            }
            SmallVector<Value> at;
            Value inside;
            for (int64_t d = 0; d < rank; ++d) {
              Value o = nb.create<linalg::IndexOp>(l, d);
              auto [src, in] =
                  padSource(nb, l, o, p.pads[d], shapeOf(data)[d], p.mode);
              at.push_back(src);
              inside = inside ? nb.create<arith::AndIOp>(l, inside, in) : in;
            }
            Value v = nb.create<tensor::ExtractOp>(l, data, at);
            if (p.mode == "constant" && inside)
              v = nb.create<arith::SelectOp>(l, inside, v, cval);
            nb.create<linalg::YieldOp>(l, v);
          })
      .getResult(0);
}

/// Slice as host code: param `map` (output position -> input position);
/// an empty result reads nothing (its start may lie past the end, which
/// the read map's bounds check would reject).
llvm::Expected<Value> slice(OpBuilder &b, Location loc, ValueRange args,
                            Type result, const Params &p) {
  auto attr = llvm::dyn_cast_or_null<AffineMapAttr>(p.attr("map"));
  auto type = cast<RankedTensorType>(result);
  if (!attr || args.size() != 1 ||
      attr.getValue().getNumDims() != type.getRank() ||
      attr.getValue().getNumResults() != shapeOf(args[0]).size())
    return p.fail("expects one operand and a 'map' from the result's rank to "
                  "the input's");
  Type elem = type.getElementType();
  ArrayRef<int64_t> shape = type.getShape();
  if (llvm::is_contained(shape, 0))
    return b
        .create<linalg::FillOp>(
            loc,
            ValueRange{
                b.create<arith::ConstantOp>(loc, elem, b.getZeroAttr(elem))},
            ValueRange{lw::emptyTensor(b, loc, shape, elem)})
        .getResult(0);
  return affineCopy(b, loc, args[0], shape, attr.getValue());
}

} // namespace
} // namespace padslice

void registerPadSliceBodies(llvm::StringMap<HostBodyFn> &table) {
  table["Pad"] = padslice::pad;
  table["Slice"] = padslice::slice;
}

} // namespace systole::conversion::onnx
