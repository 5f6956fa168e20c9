//===- TensorOps.cpp - Bodies of Expand, Tile, Split, EyeLike, Copy, ... -===//
//
// Ops that build or rearrange whole tensors, for any element type. Each data
// movement is one linalg.generic whose input indexing map is an affine
// function of the output position (Tile: `i mod d`, DepthToSpace/
// SpaceToDepth: floordiv/mod by the block size: the importer's `map`), which
// the host pipeline lowers to loops like any other linalg op. The output
// shapes are the ops' result types (the importer needs them at import).
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

Value affineCopy(OpBuilder &b, Location loc, Value in, ArrayRef<int64_t> shape,
                 AffineMap map) {
  MLIRContext *ctx = b.getContext();
  Type elem = elementOf(in);
  SmallVector<AffineMap> maps = {
      map, AffineMap::getMultiDimIdentityMap(shape.size(), ctx)};
  SmallVector<utils::IteratorType> iters(shape.size(),
                                         utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get(shape, elem)}, ValueRange{in},
          ValueRange{lw::emptyTensor(b, loc, shape, elem)}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(l, args[0]);
          })
      .getResult(0);
}

namespace tensorops {
namespace {

ArrayRef<int64_t> shapeOfType(Type t) {
  return cast<RankedTensorType>(t).getShape();
}

/// Tile, DepthToSpace, SpaceToDepth: param `map` (output position -> input
/// position).
llvm::Expected<Value> affineCopyBody(OpBuilder &b, Location loc, ValueRange a,
                                     Type result, const Params &p) {
  auto attr = llvm::dyn_cast_or_null<AffineMapAttr>(p.attr("map"));
  if (!attr)
    return p.fail("parameter 'map' is missing or not an affine map");
  AffineMap map = attr.getValue();
  ArrayRef<int64_t> shape = shapeOfType(result);
  if (a.size() != 1 || map.getNumDims() != shape.size() ||
      map.getNumResults() != shapeOf(a[0]).size())
    return p.fail("'map' must take the result's rank to the input's");
  return affineCopy(b, loc, a[0], shape, map);
}

/// Expand: numpy broadcasting of the operand to the result's shape.
llvm::Expected<Value> expand(OpBuilder &b, Location loc, ValueRange a,
                             Type result, const Params &p) {
  if (a.size() != 1)
    return p.fail("expects one operand");
  return lw::elementwise(
      b, loc, shapeOfType(result), a[0],
      [](OpBuilder &, Location, ValueRange s) { return s[0]; },
      elementOf(a[0]));
}

/// ConstantOfShape too large to fold: the one-element value filled into the
/// result at run time.
llvm::Expected<Value> constantOfShape(OpBuilder &b, Location loc, ValueRange a,
                                      Type result, const Params &p) {
  if (a.size() != 1 ||
      cast<RankedTensorType>(a[0].getType()).getNumElements() != 1)
    return p.fail("expects the one-element value");
  ArrayRef<int64_t> dims = shapeOfType(result);
  // The value is read inside the loop (no scalar outside the loops in the
  // GPU form).
  Value one = lw::reshapeTo(b, loc, a[0], {1});
  MLIRContext *ctx = b.getContext();
  int64_t rank = dims.size();
  Type elem = elementOf(one);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get(dims, elem)}, ValueRange{one},
          ValueRange{lw::emptyTensor(b, loc, dims, elem)}, maps, iters,
          [](OpBuilder &nb, Location l, ValueRange el) {
            nb.create<linalg::YieldOp>(l, el[0]);
          })
      .getResult(0);
}

/// EyeLike: ones on the `k`-th diagonal of the 2-D result.
llvm::Expected<Value> eyeLike(OpBuilder &b, Location loc, ValueRange a,
                              Type result, const Params &p) {
  SYSTOLE_PARAM(k, p.i64("k"));
  ArrayRef<int64_t> dims = shapeOfType(result);
  Type elem = cast<RankedTensorType>(result).getElementType();
  if (!a.empty() || dims.size() != 2)
    return p.fail("expects no operands and a 2-D result");
  MLIRContext *ctx = b.getContext();
  SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get(dims, elem)}, ValueRange{},
          ValueRange{lw::emptyTensor(b, loc, dims, elem)},
          ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx)}, iters,
          [&](OpBuilder &nb, Location l, ValueRange) {
            Value i = nb.create<linalg::IndexOp>(l, 0);
            Value j = nb.create<linalg::IndexOp>(l, 1);
            Value diag = nb.create<arith::SubIOp>(l, j, i);
            Value on = nb.create<arith::CmpIOp>(
                l, arith::CmpIPredicate::eq, diag,
                nb.create<arith::ConstantIndexOp>(l, k));
            Value one, zero;
            if (auto f = dyn_cast<FloatType>(elem)) {
              one = nb.create<arith::ConstantOp>(l, nb.getFloatAttr(f, 1.0));
              zero = nb.create<arith::ConstantOp>(l, nb.getFloatAttr(f, 0.0));
            } else {
              one = nb.create<arith::ConstantOp>(l, nb.getIntegerAttr(elem, 1));
              zero =
                  nb.create<arith::ConstantOp>(l, nb.getIntegerAttr(elem, 0));
            }
            nb.create<linalg::YieldOp>(
                l, ValueRange{nb.create<arith::SelectOp>(l, on, one, zero)});
          })
      .getResult(0);
}

/// One output of Split (of a type without a graph.slice form): the slice at
/// `offsets` with `strides`, the result's shape.
llvm::Expected<Value> split(OpBuilder &b, Location loc, ValueRange a,
                            Type result, const Params &p) {
  SYSTOLE_PARAM(offsets, p.i64s("offsets"));
  SYSTOLE_PARAM(strides, p.i64s("strides"));
  ArrayRef<int64_t> shape = shapeOfType(result);
  if (a.size() != 1 || offsets.size() != shape.size() ||
      strides.size() != shape.size())
    return p.fail("offsets and strides need one entry per dimension");
  return b
      .create<tensor::ExtractSliceOp>(
          loc, cast<RankedTensorType>(result), a[0], ValueRange{}, ValueRange{},
          ValueRange{}, b.getDenseI64ArrayAttr(offsets),
          b.getDenseI64ArrayAttr(shape), b.getDenseI64ArrayAttr(strides))
      .getResult();
}

/// Reverses the first sequence_lens[b] steps along `time_axis` of each batch
/// entry (`batch_axis`); the rest is copied. The lengths are read at run
/// time.
llvm::Expected<Value> reverseSequence(OpBuilder &b, Location loc, ValueRange a,
                                      Type, const Params &p) {
  SYSTOLE_PARAM(t, p.i64("time_axis"));
  SYSTOLE_PARAM(bAxis, p.i64("batch_axis"));
  if (a.size() != 2 || t == bAxis || t < 0 || t > 1 || bAxis < 0 || bAxis > 1)
    return p.fail("expects data and lengths, time_axis and batch_axis 0 and 1");
  SmallVector<int64_t> shape(shapeOf(a[0]));
  int64_t rank = shape.size();
  MLIRContext *ctx = b.getContext();
  Value data = a[0];
  Type elem = elementOf(data);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, {getAffineDimExpr(bAxis, ctx)}, ctx),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get(shape, elem)}, ValueRange{a[1]},
          ValueRange{lw::emptyTensor(b, loc, shape, elem)}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange el) {
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d)
              at.push_back(nb.create<linalg::IndexOp>(l, d));
            Value len =
                nb.create<arith::IndexCastOp>(l, nb.getIndexType(), el[0]);
            len = nb.create<arith::MinSIOp>(
                l, len, nb.create<arith::ConstantIndexOp>(l, shape[t]));
            Value inside = nb.create<arith::CmpIOp>(
                l, arith::CmpIPredicate::slt, at[t], len);
            Value last = nb.create<arith::SubIOp>(
                l, len, nb.create<arith::ConstantIndexOp>(l, 1));
            Value rev = nb.create<arith::SubIOp>(l, last, at[t]);
            at[t] = nb.create<arith::SelectOp>(l, inside, rev, at[t]);
            nb.create<linalg::YieldOp>(
                l, ValueRange{nb.create<tensor::ExtractOp>(l, data, at)});
          })
      .getResult(0);
}

/// An identity copy, one linalg.generic (a rank-0 linalg.copy of a constant
/// crashes upstream linalg-fuse-elementwise-ops): the importer's copy of a
/// graph output that is a graph input or a constant, selected by the
/// params' `body`.
llvm::Expected<Value> copy(OpBuilder &b, Location loc, ValueRange args,
                           Type result, const Params &p) {
  if (args.size() != 1)
    return p.fail("a copy has one operand");
  return lw::elementwise(
      b, loc, shapeOf(args[0]), args,
      [](OpBuilder &, Location, ValueRange s) { return s[0]; },
      elementOf(args[0]));
}

/// Concat of a type without a graph.concat form: each operand inserted at
/// its offset along `axis`.
llvm::Expected<Value> concat(OpBuilder &b, Location loc, ValueRange args,
                             Type result, const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  ArrayRef<int64_t> shape = shapeOfType(result);
  int64_t rank = shape.size();
  if (args.empty() || axis < 0 || axis >= rank)
    return p.fail("expects operands and an axis in range");
  int64_t total = 0;
  for (Value v : args) {
    if (shapeOf(v).size() != shape.size())
      return p.fail("operands differ in rank from the result");
    total += shapeOf(v)[axis];
  }
  if (total != shape[axis])
    return p.fail("the operands do not add up to the result along the axis");
  Value acc = lw::emptyTensor(b, loc, shape, elementOf(args[0]));
  SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
  for (Value v : args) {
    SmallVector<int64_t> sizes(shapeOf(v));
    acc = b.create<tensor::InsertSliceOp>(
        loc, v, acc, ValueRange{}, ValueRange{}, ValueRange{},
        b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
        b.getDenseI64ArrayAttr(strides));
    offsets[axis] += sizes[axis];
  }
  return acc;
}

} // namespace
} // namespace tensorops

void registerTensorOpBodies(llvm::StringMap<HostBodyFn> &table) {
  table["Tile"] = tensorops::affineCopyBody;
  table["DepthToSpace"] = tensorops::affineCopyBody;
  table["SpaceToDepth"] = tensorops::affineCopyBody;
  table["Expand"] = tensorops::expand;
  table["ConstantOfShape"] = tensorops::constantOfShape;
  table["EyeLike"] = tensorops::eyeLike;
  table["Split"] = tensorops::split;
  table["ReverseSequence"] = tensorops::reverseSequence;
  table["Concat"] = tensorops::concat;
  table["Copy"] = tensorops::copy;
}

} // namespace systole::conversion::onnx
