//===- ImportIndex.cpp - Gather/Scatter family, OneHot, Trilu, NonZero ----===//
//
// Ops that read or write a tensor at data-dependent positions, as graph.host
// ops over any element type. Reads (Gather, GatherElements, GatherND, OneHot,
// Compress) are one linalg.generic over the output whose body computes the
// source position from linalg.index and the index tensor and reads it with
// tensor.extract. Writes (Scatter, ScatterElements, ScatterND) are an scf.for
// over the updates carrying the result tensor (tensor.extract +
// tensor.insert), so duplicate indices combine in order as ONNX Runtime's
// CPU kernels do. Out-of-range indices, which ONNX calls an error, are
// clamped so the compiled code never reads or writes outside a buffer.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cstring>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::frontend {

namespace {

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

/// The element at position `i` of constant input `i` as a double, whatever
/// its type (OneHot's depth may be a float).
llvm::Expected<double> constantScalar(ImportContext &ic, int i) {
  const HostTensor *t = ic.constantInput(i);
  if (!t)
    return ic.notConstant(i);
  if (t->numElements() != 1)
    return ic.fail("input " + llvm::Twine(i) + " must have one element");
  switch (t->type()) {
  case ElementType::Float32:
    return double(t->dataAs<float>()[0]);
  case ElementType::Float64:
    return t->dataAs<double>()[0];
  case ElementType::Int8:
    return double(t->dataAs<int8_t>()[0]);
  case ElementType::UInt8:
    return double(t->dataAs<uint8_t>()[0]);
  case ElementType::Int16:
    return double(t->dataAs<int16_t>()[0]);
  case ElementType::UInt16:
    return double(t->dataAs<uint16_t>()[0]);
  case ElementType::Int32:
    return double(t->dataAs<int32_t>()[0]);
  case ElementType::UInt32:
    return double(t->dataAs<uint32_t>()[0]);
  case ElementType::Int64:
    return double(t->dataAs<int64_t>()[0]);
  case ElementType::UInt64:
    return double(t->dataAs<uint64_t>()[0]);
  default:
    return ic.fail("input " + llvm::Twine(i) + " has an unsupported type " +
                   elementTypeName(t->type()));
  }
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

/// Gather of two constants, evaluated at import (shape arithmetic:
/// Shape -> Gather -> Unsqueeze -> Concat -> Reshape).
llvm::Error foldGather(ImportContext &ic, const HostTensor &data,
                       int64_t axis) {
  auto idx = ic.constantInts(1);
  if (!idx)
    return idx.takeError();
  const auto &ds = data.shape();
  const auto &is = ic.constantInput(1)->shape();
  std::vector<int64_t> shape(ds.begin(), ds.begin() + axis);
  shape.insert(shape.end(), is.begin(), is.end());
  shape.insert(shape.end(), ds.begin() + axis + 1, ds.end());
  HostTensor out(data.type(), shape);
  size_t elem = elementSize(data.type());
  int64_t outer = 1, inner = 1, n = ds[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= ds[d];
  for (size_t d = axis + 1; d < ds.size(); ++d)
    inner *= ds[d];
  uint8_t *dst = out.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : *idx) {
      int64_t k = i < 0 ? i + n : i;
      if (k < 0 || k >= n)
        return ic.fail("Gather index " + llvm::Twine(i) +
                       " out of range for a dimension of " + llvm::Twine(n));
      std::memcpy(dst, data.data() + ((o * n + k) * inner) * elem,
                  inner * elem);
      dst += inner * elem;
    }
  return defineFolded(ic, std::move(out));
}

llvm::Error importGather(ImportContext &ic) {
  const HostTensor *cdata = ic.constantInput(0);
  int64_t rank = cdata ? int64_t(cdata->shape().size()) : 0;
  if (!cdata) {
    auto x = ic.input(0);
    if (!x)
      return x.takeError();
    rank = shapeOf(*x).size();
  }
  auto axis = normalizeAxis(ic, ic.attrInt("axis", 0), rank);
  if (!axis)
    return axis.takeError();
  if (cdata && ic.constantInput(1))
    return foldGather(ic, *cdata, *axis);
  auto data = plainInput(ic, 0), indices = plainInput(ic, 1);
  if (!data)
    return data.takeError();
  if (!indices)
    return indices.takeError();
  auto y = ic.hostOp({*data, *indices},
                     [&](OpBuilder &b, Location loc,
                         ValueRange args) -> llvm::Expected<Value> {
                       return gatherAlong(b, loc, args[0], args[1], *axis);
                     });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

llvm::Error importGatherElements(ImportContext &ic) {
  auto data = plainInput(ic, 0), indices = plainInput(ic, 1);
  if (!data)
    return data.takeError();
  if (!indices)
    return indices.takeError();
  ArrayRef<int64_t> ds = shapeOf(*data), is = shapeOf(*indices);
  if (ds.size() != is.size())
    return ic.fail("data and indices differ in rank");
  auto axis = normalizeAxis(ic, ic.attrInt("axis", 0), ds.size());
  if (!axis)
    return axis.takeError();
  int64_t a = *axis, dim = ds[a];
  SmallVector<int64_t> shape(is);
  auto y = ic.hostOp(
      {*data, *indices},
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        Value d = args[0];
        return indexedGeneric(
            b, loc, shape, elementOf(d), args[1],
            AffineMap::getMultiDimIdentityMap(shape.size(), b.getContext()),
            [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange el) {
              SmallVector<Value> at(ivs);
              at[a] = normalizeIndex(nb, l, asIndex(nb, l, el[0]), dim);
              return nb.create<tensor::ExtractOp>(l, d, at).getResult();
            });
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

llvm::Error importGatherND(ImportContext &ic) {
  auto data = plainInput(ic, 0), indices = plainInput(ic, 1);
  if (!data)
    return data.takeError();
  if (!indices)
    return indices.takeError();
  SmallVector<int64_t> ds(shapeOf(*data)), is(shapeOf(*indices));
  int64_t r = ds.size(), q = is.size(), bd = ic.attrInt("batch_dims", 0);
  if (q < 1 || bd < 0 || bd >= std::min(r, q))
    return ic.fail("batch_dims " + llvm::Twine(bd) +
                   " must be below the ranks of data and indices");
  int64_t k = is.back();
  if (k < 1 || bd + k > r)
    return ic.fail("indices' last dimension " + llvm::Twine(k) +
                   " exceeds the data's rank minus batch_dims");
  for (int64_t d = 0; d < bd; ++d)
    if (ds[d] != is[d])
      return ic.fail("data and indices differ in batch dimension " +
                     llvm::Twine(d));
  SmallVector<int64_t> shape(is.begin(), is.end() - 1);
  shape.append(ds.begin() + bd + k, ds.end());
  auto y = ic.hostOp(
      {*data, *indices},
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        Value d = args[0], idx = args[1];
        return indexedGeneric(
            b, loc, shape, elementOf(d), {}, {},
            [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) {
              SmallVector<Value> at(ivs.begin(), ivs.begin() + bd);
              SmallVector<Value> row(ivs.begin(), ivs.begin() + (q - 1));
              row.push_back(Value());
              for (int64_t j = 0; j < k; ++j) {
                row.back() = cIndex(nb, l, j);
                Value i = nb.create<tensor::ExtractOp>(l, idx, row);
                at.push_back(
                    normalizeIndex(nb, l, asIndex(nb, l, i), ds[bd + j]));
              }
              at.append(ivs.begin() + (q - 1), ivs.end());
              return nb.create<tensor::ExtractOp>(l, d, at).getResult();
            });
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

enum class Reduction { None, Add, Mul, Max, Min };

llvm::Expected<Reduction> reductionAttr(ImportContext &ic) {
  std::string r = ic.attrString("reduction", "none");
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
  return ic.fail("reduction '" + r +
                 "' is not supported (none, add, mul, "
                 "max, min are)");
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

/// ScatterElements, and Scatter (its name before opset 11).
llvm::Error importScatterElements(ImportContext &ic) {
  auto red = reductionAttr(ic);
  if (!red)
    return red.takeError();
  auto data = plainInput(ic, 0), indices = plainInput(ic, 1),
       updates = plainInput(ic, 2);
  if (!data)
    return data.takeError();
  if (!indices)
    return indices.takeError();
  if (!updates)
    return updates.takeError();
  ArrayRef<int64_t> ds = shapeOf(*data);
  if (shapeOf(*indices) != shapeOf(*updates) ||
      shapeOf(*indices).size() != ds.size())
    return ic.fail("indices and updates must have one shape, of the data's "
                   "rank");
  if (elementOf(*updates) != elementOf(*data))
    return ic.fail("updates and data differ in element type");
  auto axis = normalizeAxis(ic, ic.attrInt("axis", 0), ds.size());
  if (!axis)
    return axis.takeError();
  int64_t a = *axis, dim = ds[a];
  auto y =
      ic.hostOp({*data, *indices, *updates},
                [&](OpBuilder &b, Location loc,
                    ValueRange args) -> llvm::Expected<Value> {
                  Value idx = args[1];
                  return scatterLoop(
                      b, loc, args[0], args[2], *red,
                      [&](OpBuilder &nb, Location l, ArrayRef<Value> ivs) {
                        SmallVector<Value> at(ivs);
                        Value i = nb.create<tensor::ExtractOp>(l, idx, ivs);
                        at[a] = normalizeIndex(nb, l, asIndex(nb, l, i), dim);
                        return at;
                      });
                });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

llvm::Error importScatterND(ImportContext &ic) {
  auto red = reductionAttr(ic);
  if (!red)
    return red.takeError();
  auto data = plainInput(ic, 0), indices = plainInput(ic, 1),
       updates = plainInput(ic, 2);
  if (!data)
    return data.takeError();
  if (!indices)
    return indices.takeError();
  if (!updates)
    return updates.takeError();
  SmallVector<int64_t> ds(shapeOf(*data)), is(shapeOf(*indices));
  int64_t r = ds.size(), q = is.size();
  if (q < 1 || is.back() < 1 || is.back() > r)
    return ic.fail("indices' last dimension must be in [1, data rank]");
  int64_t k = is.back();
  SmallVector<int64_t> want(is.begin(), is.end() - 1);
  want.append(ds.begin() + k, ds.end());
  if (ArrayRef<int64_t>(want) != shapeOf(*updates))
    return ic.fail("updates must have shape indices.shape[:-1] + "
                   "data.shape[indices.shape[-1]:]");
  if (elementOf(*updates) != elementOf(*data))
    return ic.fail("updates and data differ in element type");
  auto y = ic.hostOp(
      {*data, *indices, *updates},
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        Value idx = args[1];
        return scatterLoop(
            b, loc, args[0], args[2], *red,
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
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

//===----------------------------------------------------------------------===//
// OneHot, Trilu
//===----------------------------------------------------------------------===//

/// out = (index == position along axis) ? on : off; depth must be known
/// (it is a dimension of the result), the values may be runtime.
llvm::Error importOneHot(ImportContext &ic) {
  auto indices = plainInput(ic, 0), values = plainInput(ic, 2);
  if (!indices)
    return indices.takeError();
  if (!values)
    return values.takeError();
  auto depthValue = constantScalar(ic, 1);
  if (!depthValue)
    return depthValue.takeError();
  int64_t depth = int64_t(*depthValue);
  if (depth < 1)
    return ic.fail("depth must be positive, got " + llvm::Twine(depth));
  if (cast<RankedTensorType>(values->getType()).getNumElements() != 2)
    return ic.fail("values must hold [off_value, on_value]");
  ArrayRef<int64_t> is = shapeOf(*indices);
  int64_t rank = is.size() + 1;
  auto axis = normalizeAxis(ic, ic.attrInt("axis", -1), rank);
  if (!axis)
    return axis.takeError();
  int64_t a = *axis;
  SmallVector<int64_t> shape(is);
  shape.insert(shape.begin() + a, depth);
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != a)
      exprs.push_back(getAffineDimExpr(d, ic.ctx()));
  AffineMap idxMap = AffineMap::get(rank, 0, exprs, ic.ctx());
  // off/on reach the body as generic operands read at a fixed position:
  // a scalar computed outside the loops has no place in the GPU form.
  MLIRContext *ctx = ic.ctx();
  SmallVector<AffineMap> maps = {
      idxMap, AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx),
      AffineMap::get(rank, 0, {getAffineConstantExpr(1, ctx)}, ctx)};
  auto y = ic.hostOp(
      {*indices, *values},
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        Value vals = lw::reshapeTo(b, loc, args[1], {2});
        return indexedGeneric(
            b, loc, shape, elementOf(vals), {args[0], vals, vals}, maps,
            [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange el) {
              // ONNX: negative indices count from depth; others out of range
              // match no position (all off).
              Value i = asIndex(nb, l, el[0]);
              Value neg = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                                   i, cIndex(nb, l, 0));
              i = nb.create<arith::SelectOp>(
                  l, neg, nb.create<arith::AddIOp>(l, i, cIndex(nb, l, depth)),
                  i);
              Value hit = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                                   i, ivs[a]);
              return nb.create<arith::SelectOp>(l, hit, el[2], el[1])
                  .getResult();
            });
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

/// Trilu keeps the elements on and above (upper) or below the k-th diagonal
/// of the last two dims; k may be a runtime scalar.
llvm::Error importTrilu(ImportContext &ic) {
  auto x = plainInput(ic, 0);
  if (!x)
    return x.takeError();
  ArrayRef<int64_t> shape = shapeOf(*x);
  int64_t rank = shape.size();
  if (rank < 2)
    return ic.fail("Trilu needs a tensor of rank 2 or more");
  bool upper = ic.attrInt("upper", 1) != 0;
  SmallVector<Value> ins = {*x};
  std::optional<int64_t> k = 0;
  if (ic.hasInput(1)) {
    if (const HostTensor *c = ic.constantInput(1)) {
      auto v = ic.constantInts(1);
      if (!v)
        return v.takeError();
      if (c->numElements() != 1)
        return ic.fail("k must be a scalar");
      k = (*v)[0];
    } else {
      auto kv = plainInput(ic, 1);
      if (!kv)
        return kv.takeError();
      if (cast<RankedTensorType>(kv->getType()).getNumElements() != 1 ||
          !isa<IntegerType>(elementOf(*kv)))
        return ic.fail("k must be an integer scalar");
      ins.push_back(*kv);
      k.reset();
    }
  }
  auto y = ic.hostOp(
      ins,
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        MLIRContext *ctx = b.getContext();
        SmallVector<Value> operands = {args[0]};
        SmallVector<AffineMap> maps = {
            AffineMap::getMultiDimIdentityMap(rank, ctx)};
        if (!k) {
          // A runtime k is a generic operand read at position 0 (no scalar
          // outside the loops, for the GPU form).
          operands.push_back(lw::reshapeTo(b, loc, args[1], {1}));
          maps.push_back(
              AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx));
        }
        Type elem = elementOf(args[0]);
        return indexedGeneric(
            b, loc, shape, elem, operands, maps,
            [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange el) {
              Value kIdx = k ? cIndex(nb, l, *k) : asIndex(nb, l, el[1]);
              Value diag =
                  nb.create<arith::SubIOp>(l, ivs[rank - 1], ivs[rank - 2]);
              Value keep = nb.create<arith::CmpIOp>(
                  l,
                  upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
                  diag, kIdx);
              Value zero =
                  nb.create<arith::ConstantOp>(l, elem, nb.getZeroAttr(elem));
              return nb.create<arith::SelectOp>(l, keep, el[0], zero)
                  .getResult();
            });
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

//===----------------------------------------------------------------------===//
// Compress, NonZero: output shapes that depend on values
//===----------------------------------------------------------------------===//

/// Whether element `i` of a constant is nonzero (-0.0 is zero).
bool isNonZero(const HostTensor &t, int64_t i) {
  switch (t.type()) {
  case ElementType::Float32:
    return t.dataAs<float>()[i] != 0.0f;
  case ElementType::Float64:
    return t.dataAs<double>()[i] != 0.0;
  case ElementType::Float16:
    return (t.dataAs<uint16_t>()[i] & 0x7fff) != 0;
  default: {
    size_t elem = elementSize(t.type());
    const uint8_t *p = t.data() + i * elem;
    return std::any_of(p, p + elem, [](uint8_t v) { return v != 0; });
  }
  }
}

/// Compress selects slices along `axis` (or elements of the flattened
/// input) where the condition holds: the condition must be a constant, the
/// count of its true values being a dimension of the result.
llvm::Error importCompress(ImportContext &ic) {
  const HostTensor *cond = ic.constantInput(1);
  if (!cond)
    return ic.notConstant(1, "the condition, whose true count is the "
                             "output's size");
  auto x = plainInput(ic, 0);
  if (!x)
    return x.takeError();
  ArrayRef<int64_t> xs = shapeOf(*x);
  std::optional<int64_t> axis;
  if (ic.attr("axis")) {
    auto a = normalizeAxis(ic, ic.attrInt("axis", 0), xs.size());
    if (!a)
      return a.takeError();
    axis = *a;
  }
  int64_t dim =
      axis ? xs[*axis] : cast<RankedTensorType>(x->getType()).getNumElements();
  if (cond->numElements() > dim)
    return ic.fail("condition has " + llvm::Twine(cond->numElements()) +
                   " entries for a dimension of " + llvm::Twine(dim));
  SmallVector<int64_t> selected;
  for (int64_t i = 0; i < cond->numElements(); ++i)
    if (isNonZero(*cond, i))
      selected.push_back(i);
  auto y = ic.hostOp(
      *x,
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        Value data = args[0];
        if (!axis)
          data = lw::reshapeTo(
              b, loc, data,
              {cast<RankedTensorType>(data.getType()).getNumElements()});
        auto idxType =
            RankedTensorType::get({int64_t(selected.size())}, b.getI64Type());
        Value idx = b.create<arith::ConstantOp>(
            loc, DenseElementsAttr::get(idxType, ArrayRef<int64_t>(selected)));
        return gatherAlong(b, loc, data, idx, axis.value_or(0));
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

/// NonZero's output size is the input's count of nonzeros: the input must be
/// a constant, and the result is one.
llvm::Error importNonZero(ImportContext &ic) {
  const HostTensor *x = ic.constantInput(0);
  if (!x)
    return ic.notConstant(0, "NonZero's output size is its count of "
                             "nonzeros");
  const auto &shape = x->shape();
  int64_t rank = shape.size();
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x->numElements(); ++i)
    if (isNonZero(*x, i))
      hits.push_back(i);
  int64_t n = hits.size();
  HostTensor out(ElementType::Int64, {rank, n});
  for (int64_t j = 0; j < n; ++j) {
    int64_t linear = hits[j];
    for (int64_t d = rank - 1; d >= 0; --d) {
      out.dataAs<int64_t>()[d * n + j] = linear % shape[d];
      linear /= shape[d];
    }
  }
  ic.defineConstant(ic.node->output(0), std::move(out));
  return llvm::Error::success();
}

} // namespace

void registerIndexImporters(llvm::StringMap<OpImporter> &table) {
  table["Gather"] = importGather;
  table["GatherElements"] = importGatherElements;
  table["GatherND"] = importGatherND;
  table["ScatterElements"] = importScatterElements;
  table["Scatter"] = importScatterElements;
  table["ScatterND"] = importScatterND;
  table["OneHot"] = importOneHot;
  table["Trilu"] = importTrilu;
  table["Compress"] = importCompress;
  table["NonZero"] = importNonZero;
}

} // namespace systole::frontend
