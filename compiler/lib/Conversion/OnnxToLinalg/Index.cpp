//===- Index.cpp - Bodies of the Gather/Scatter family, OneHot, Trilu ----===//
//
// Ops that read or write a tensor at data-dependent positions, over any
// element type. Reads (Gather, GatherElements, GatherND, OneHot, Compress)
// are one linalg.generic over the output whose body computes the source
// position from linalg.index and the index tensor and reads it with
// tensor.extract. Writes (Scatter, ScatterElements, ScatterND) are an scf.for
// over the updates carrying the result tensor (tensor.extract +
// tensor.insert), so duplicate indices combine in order as ONNX Runtime's
// CPU kernels do. Out-of-range indices, which ONNX calls an error, are
// clamped so the compiled code never reads or writes outside a buffer.
// The importer (Frontend/ImportIndex.cpp) checks shapes and folds constants.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace index {
namespace {

using lw::cIndex;

using IndexedBodyFn = llvm::function_ref<Value(
    OpBuilder &, Location, ValueRange ivs, ValueRange args)>;

/// out[ivs] = body(ivs, the elements of `ins` read through `maps`), one
/// parallel linalg.generic over `shape`.
Value indexedGeneric(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                     Type elem, ValueRange ins, ArrayRef<AffineMap> maps,
                     IndexedBodyFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> all(maps.begin(), maps.end());
  all.push_back(AffineMap::getMultiDimIdentityMap(shape.size(), ctx));
  SmallVector<utils::IteratorType> iters(shape.size(),
                                         utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{RankedTensorType::get(shape, elem)}, ins,
          ValueRange{lw::emptyTensor(b, loc, shape, elem)}, all, iters,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            SmallVector<Value> ivs;
            for (int64_t d = 0; d < int64_t(shape.size()); ++d)
              ivs.push_back(nb.create<linalg::IndexOp>(l, d));
            nb.create<linalg::YieldOp>(l, body(nb, l, ivs, args.drop_back()));
          })
      .getResult(0);
}

/// An index element (any integer type, or a float as OneHot allows) as an
/// `index` value.
Value asIndex(OpBuilder &b, Location loc, Value v) {
  if (isa<FloatType>(v.getType()))
    v = b.create<arith::FPToSIOp>(loc, b.getI64Type(), v);
  else if (v.getType().getIntOrFloatBitWidth() == 1)
    v = b.create<arith::ExtUIOp>(loc, b.getI64Type(), v);
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
}

/// ONNX's negative index (counts from the end of a dim of size `dim`),
/// clamped into [0, dim - 1] so an invalid index cannot leave the buffer.
Value normalizeIndex(OpBuilder &b, Location loc, Value idx, int64_t dim) {
  Value zero = cIndex(b, loc, 0);
  Value neg =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, idx, zero);
  Value wrapped = b.create<arith::AddIOp>(loc, idx, cIndex(b, loc, dim));
  idx = b.create<arith::SelectOp>(loc, neg, wrapped, idx);
  idx = b.create<arith::MaxSIOp>(loc, idx, zero);
  return b.create<arith::MinSIOp>(
      loc, idx, cIndex(b, loc, std::max<int64_t>(dim - 1, 0)));
}

/// The coordinates of row-major position `linear` in `shape`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape) {
  SmallVector<Value> ivs(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    Value dim = cIndex(b, loc, shape[d]);
    ivs[d] = d == 0 ? linear : b.create<arith::RemUIOp>(loc, linear, dim);
    if (d > 0)
      linear = b.create<arith::DivUIOp>(loc, linear, dim);
  }
  return ivs;
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

/// data gathered along `axis` at `indices` (any integer type):
/// out[a..., i..., b...] = data[a..., indices[i...], b...].
Value gatherAlong(OpBuilder &b, Location loc, Value data, Value indices,
                  int64_t axis) {
  ArrayRef<int64_t> ds = shapeOf(data), is = shapeOf(indices);
  int64_t q = is.size();
  SmallVector<int64_t> shape(ds.begin(), ds.begin() + axis);
  shape.append(is.begin(), is.end());
  shape.append(ds.begin() + axis + 1, ds.end());
  SmallVector<AffineExpr> idxExprs;
  for (int64_t d = 0; d < q; ++d)
    idxExprs.push_back(b.getAffineDimExpr(axis + d));
  AffineMap idxMap = AffineMap::get(shape.size(), 0, idxExprs, b.getContext());
  return indexedGeneric(
      b, loc, shape, elementOf(data), indices, idxMap,
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange args) {
        SmallVector<Value> at(ivs.begin(), ivs.begin() + axis);
        at.push_back(normalizeIndex(nb, l, asIndex(nb, l, args[0]), ds[axis]));
        at.append(ivs.begin() + axis + q, ivs.end());
        return nb.create<tensor::ExtractOp>(l, data, at).getResult();
      });
}

/// Params `axis` (in range).
llvm::Expected<Value> gather(OpBuilder &b, Location loc, ValueRange a, Type,
                             const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  if (a.size() != 2 || axis < 0 || axis >= int64_t(shapeOf(a[0]).size()))
    return p.fail("expects data and indices and an axis in range");
  return gatherAlong(b, loc, a[0], a[1], axis);
}

/// Params `axis`; indices have the data's rank.
llvm::Expected<Value> gatherElements(OpBuilder &b, Location loc, ValueRange a,
                                     Type, const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  if (a.size() != 2 || shapeOf(a[0]).size() != shapeOf(a[1]).size() ||
      axis < 0 || axis >= int64_t(shapeOf(a[0]).size()))
    return p.fail("expects data and indices of one rank and an axis in range");
  Value d = a[0];
  int64_t dim = shapeOf(d)[axis];
  SmallVector<int64_t> shape(shapeOf(a[1]));
  return indexedGeneric(
      b, loc, shape, elementOf(d), a[1],
      AffineMap::getMultiDimIdentityMap(shape.size(), b.getContext()),
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange el) {
        SmallVector<Value> at(ivs);
        at[axis] = normalizeIndex(nb, l, asIndex(nb, l, el[0]), dim);
        return nb.create<tensor::ExtractOp>(l, d, at).getResult();
      });
}

/// Params `batch_dims`; the indices' last dim k addresses data dims
/// [batch_dims, batch_dims + k).
llvm::Expected<Value> gatherND(OpBuilder &b, Location loc, ValueRange a, Type,
                               const Params &p) {
  SYSTOLE_PARAM(bd, p.i64("batch_dims"));
  if (a.size() != 2)
    return p.fail("expects data and indices");
  Value d = a[0], idx = a[1];
  SmallVector<int64_t> ds(shapeOf(d)), is(shapeOf(idx));
  int64_t r = ds.size(), q = is.size();
  if (q < 1 || bd < 0 || bd >= std::min(r, q) || is.back() < 1 ||
      bd + is.back() > r)
    return p.fail("batch_dims and the indices' last dimension do not fit "
                  "the data's rank");
  int64_t k = is.back();
  SmallVector<int64_t> shape(is.begin(), is.end() - 1);
  shape.append(ds.begin() + bd + k, ds.end());
  return indexedGeneric(
      b, loc, shape, elementOf(d), {}, {},
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) {
        SmallVector<Value> at(ivs.begin(), ivs.begin() + bd);
        SmallVector<Value> row(ivs.begin(), ivs.begin() + (q - 1));
        row.push_back(Value());
        for (int64_t j = 0; j < k; ++j) {
          row.back() = cIndex(nb, l, j);
          Value i = nb.create<tensor::ExtractOp>(l, idx, row);
          at.push_back(normalizeIndex(nb, l, asIndex(nb, l, i), ds[bd + j]));
        }
        at.append(ivs.begin() + (q - 1), ivs.end());
        return nb.create<tensor::ExtractOp>(l, d, at).getResult();
      });
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

enum class Reduction { None, Add, Mul, Max, Min };

/// ONNX's `reduction` attribute.
llvm::Expected<Reduction> reduction(const Params &p) {
  std::string r = p.attrString("reduction", "none");
  if (r == "none")
    return Reduction::None;
  if (r == "add")
    return Reduction::Add;
  if (r == "mul")
    return Reduction::Mul;
  if (r == "max")
    return Reduction::Max;
  if (r == "min")
    return Reduction::Min;
  return p.fail("reduction '" + r + "' is not one of none, add, mul, max, min");
}

/// `old` combined with the update `u` (bool: add is or, mul is and).
Value combine(OpBuilder &b, Location loc, Reduction r, Value old, Value u) {
  bool f = isa<FloatType>(u.getType());
  bool i1 = !f && u.getType().getIntOrFloatBitWidth() == 1;
  switch (r) {
  case Reduction::None:
    return u;
  case Reduction::Add:
    if (f)
      return b.create<arith::AddFOp>(loc, old, u);
    if (i1)
      return b.create<arith::OrIOp>(loc, old, u);
    return b.create<arith::AddIOp>(loc, old, u);
  case Reduction::Mul:
    if (f)
      return b.create<arith::MulFOp>(loc, old, u);
    if (i1)
      return b.create<arith::AndIOp>(loc, old, u);
    return b.create<arith::MulIOp>(loc, old, u);
  case Reduction::Max:
    if (f)
      return b.create<arith::MaximumFOp>(loc, old, u);
    if (i1)
      return b.create<arith::OrIOp>(loc, old, u);
    return b.create<arith::MaxSIOp>(loc, old, u);
  case Reduction::Min:
    if (f)
      return b.create<arith::MinimumFOp>(loc, old, u);
    if (i1)
      return b.create<arith::AndIOp>(loc, old, u);
    return b.create<arith::MinSIOp>(loc, old, u);
  }
  return u;
}

/// For each element of `updates` in row-major order: the data position
/// `where` computes from its coordinates, combined into the result.
using WhereFn = llvm::function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                      ArrayRef<Value> ivs)>;
Value scatterLoop(OpBuilder &b, Location loc, Value data, Value updates,
                  Reduction r, WhereFn where) {
  // The host pipeline bufferizes scf.for's tensor iter_args only with scf's
  // bufferization models, which it does not register itself (yet).
  DialectRegistry registry;
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  b.getContext()->appendDialectRegistry(registry);
  ArrayRef<int64_t> us = shapeOf(updates);
  int64_t n = 1;
  for (int64_t d : us)
    n *= d;
  auto loop = b.create<scf::ForOp>(
      loc, cIndex(b, loc, 0), cIndex(b, loc, n), cIndex(b, loc, 1),
      ValueRange{data},
      [&](OpBuilder &nb, Location l, Value iv, ValueRange acc) {
        SmallVector<Value> ivs = delinearize(nb, l, iv, us);
        SmallVector<Value> at = where(nb, l, ivs);
        Value u = nb.create<tensor::ExtractOp>(l, updates, ivs);
        if (r != Reduction::None)
          u = combine(nb, l, r, nb.create<tensor::ExtractOp>(l, acc[0], at), u);
        Value next = nb.create<tensor::InsertOp>(l, u, acc[0], at);
        nb.create<scf::YieldOp>(l, next);
      });
  return loop.getResult(0);
}

/// ScatterElements and Scatter: params `axis`, ONNX's `reduction`.
llvm::Expected<Value> scatterElements(OpBuilder &b, Location loc, ValueRange a,
                                      Type, const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  SYSTOLE_PARAM(red, reduction(p));
  if (a.size() != 3 || shapeOf(a[1]) != shapeOf(a[2]) ||
      shapeOf(a[1]).size() != shapeOf(a[0]).size() || axis < 0 ||
      axis >= int64_t(shapeOf(a[0]).size()))
    return p.fail("expects data, indices and updates of one rank and an axis "
                  "in range");
  int64_t dim = shapeOf(a[0])[axis];
  Value idx = a[1];
  return scatterLoop(b, loc, a[0], a[2], red,
                     [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
                       SmallVector<Value> at(ivs);
                       Value i = nb.create<tensor::ExtractOp>(l, idx, ivs);
                       at[axis] = normalizeIndex(nb, l, asIndex(nb, l, i), dim);
                       return at;
                     });
}

/// ScatterND: ONNX's `reduction`; the indices' last dim k addresses the
/// data's first k dims.
llvm::Expected<Value> scatterND(OpBuilder &b, Location loc, ValueRange a, Type,
                                const Params &p) {
  SYSTOLE_PARAM(red, reduction(p));
  if (a.size() != 3)
    return p.fail("expects data, indices and updates");
  SmallVector<int64_t> ds(shapeOf(a[0])), is(shapeOf(a[1]));
  int64_t q = is.size();
  if (q < 1 || is.back() < 1 || is.back() > int64_t(ds.size()))
    return p.fail("indices' last dimension must be in [1, data rank]");
  int64_t k = is.back();
  Value idx = a[1];
  return scatterLoop(
      b, loc, a[0], a[2], red,
      [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
        SmallVector<Value> row(ivs.begin(), ivs.begin() + (q - 1));
        row.push_back(Value());
        SmallVector<Value> at;
        for (int64_t j = 0; j < k; ++j) {
          row.back() = cIndex(nb, l, j);
          Value i = nb.create<tensor::ExtractOp>(l, idx, row);
          at.push_back(normalizeIndex(nb, l, asIndex(nb, l, i), ds[j]));
        }
        at.append(ivs.begin() + (q - 1), ivs.end());
        return at;
      });
}

//===----------------------------------------------------------------------===//
// OneHot, Trilu, Compress
//===----------------------------------------------------------------------===//

/// out = (index == position along axis) ? on : off. Params `axis` (of the
/// result) and `depth`; args indices and [off, on].
llvm::Expected<Value> oneHot(OpBuilder &b, Location loc, ValueRange a, Type,
                             const Params &p) {
  SYSTOLE_PARAM(axis, p.i64("axis"));
  SYSTOLE_PARAM(depth, p.i64("depth"));
  if (a.size() != 2)
    return p.fail("expects indices and values");
  ArrayRef<int64_t> is = shapeOf(a[0]);
  int64_t rank = is.size() + 1;
  if (axis < 0 || axis >= rank || depth < 1)
    return p.fail("axis out of range or depth not positive");
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape(is);
  shape.insert(shape.begin() + axis, depth);
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      exprs.push_back(getAffineDimExpr(d, ctx));
  AffineMap idxMap = AffineMap::get(rank, 0, exprs, ctx);
  // off/on reach the body as generic operands read at a fixed position:
  // a scalar computed outside the loops has no place in the GPU form.
  SmallVector<AffineMap> maps = {
      idxMap, AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx),
      AffineMap::get(rank, 0, {getAffineConstantExpr(1, ctx)}, ctx)};
  Value vals = lw::reshapeTo(b, loc, a[1], {2});
  return indexedGeneric(
      b, loc, shape, elementOf(vals), {a[0], vals, vals}, maps,
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange el) {
        // ONNX: negative indices count from depth; others out of range
        // match no position (all off).
        Value i = asIndex(nb, l, el[0]);
        Value neg = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, i,
                                             cIndex(nb, l, 0));
        i = nb.create<arith::SelectOp>(
            l, neg, nb.create<arith::AddIOp>(l, i, cIndex(nb, l, depth)), i);
        Value hit =
            nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, i, ivs[axis]);
        return nb.create<arith::SelectOp>(l, hit, el[2], el[1]).getResult();
      });
}

/// Trilu keeps the elements on and above (`upper`) or below the k-th
/// diagonal of the last two dims: param `k`, or a second (runtime scalar)
/// operand when the params have none.
llvm::Expected<Value> trilu(OpBuilder &b, Location loc, ValueRange a, Type,
                            const Params &p) {
  SYSTOLE_PARAM(upper, p.flag("upper"));
  std::optional<int64_t> k;
  if (p.has("k")) {
    SYSTOLE_PARAM(kv, p.i64("k"));
    k = kv;
  }
  if (a.size() != (k ? 1u : 2u))
    return p.fail("expects k as a param or as a second operand, not both");
  ArrayRef<int64_t> shape = shapeOf(a[0]);
  int64_t rank = shape.size();
  if (rank < 2)
    return p.fail("needs a tensor of rank 2 or more");
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> operands = {a[0]};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  if (!k) {
    // A runtime k is a generic operand read at position 0 (no scalar
    // outside the loops, for the GPU form).
    operands.push_back(lw::reshapeTo(b, loc, a[1], {1}));
    maps.push_back(
        AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx));
  }
  Type elem = elementOf(a[0]);
  return indexedGeneric(
      b, loc, shape, elem, operands, maps,
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange el) {
        Value kIdx = k ? cIndex(nb, l, *k) : asIndex(nb, l, el[1]);
        Value diag = nb.create<arith::SubIOp>(l, ivs[rank - 1], ivs[rank - 2]);
        Value keep = nb.create<arith::CmpIOp>(
            l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
            diag, kIdx);
        Value zero =
            nb.create<arith::ConstantOp>(l, elem, nb.getZeroAttr(elem));
        return nb.create<arith::SelectOp>(l, keep, el[0], zero).getResult();
      });
}

/// Compress: the positions `selected` (where the constant condition holds)
/// along `axis`, or of the flattened input without one.
llvm::Expected<Value> compress(OpBuilder &b, Location loc, ValueRange a, Type,
                               const Params &p) {
  SYSTOLE_PARAM(selected, p.i64s("selected"));
  std::optional<int64_t> axis;
  if (p.has("axis")) {
    SYSTOLE_PARAM(av, p.i64("axis"));
    if (av < 0 || av >= int64_t(shapeOf(a[0]).size()))
      return p.fail("axis out of range");
    axis = av;
  }
  Value data = a[0];
  if (!axis)
    data = lw::reshapeTo(
        b, loc, data,
        {cast<RankedTensorType>(data.getType()).getNumElements()});
  int64_t dim = shapeOf(data)[axis.value_or(0)];
  if (llvm::any_of(selected, [&](int64_t i) { return i < 0 || i >= dim; }))
    return p.fail("a selected position is out of range");
  auto idxType =
      RankedTensorType::get({int64_t(selected.size())}, b.getI64Type());
  Value idx = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(idxType, ArrayRef<int64_t>(selected)));
  return gatherAlong(b, loc, data, idx, axis.value_or(0));
}

} // namespace
} // namespace index

void registerIndexBodies(llvm::StringMap<HostBodyFn> &table) {
  table["Gather"] = index::gather;
  table["GatherElements"] = index::gatherElements;
  table["GatherND"] = index::gatherND;
  table["ScatterElements"] = index::scatterElements;
  table["Scatter"] = index::scatterElements;
  table["ScatterND"] = index::scatterND;
  table["OneHot"] = index::oneHot;
  table["Trilu"] = index::trilu;
  table["Compress"] = index::compress;
}

} // namespace systole::conversion::onnx
