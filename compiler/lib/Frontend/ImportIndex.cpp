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
  ArrayRef<int64_t> ds = shapeOf(*data), is = shapeOf(*indices);
  SmallVector<int64_t> shape(ds.begin(), ds.begin() + *axis);
  shape.append(is.begin(), is.end());
  shape.append(ds.begin() + *axis + 1, ds.end());
  auto &b = ic.builder;
  Value y = ic.hostOp({*data, *indices}, tensorType(shape, elementOf(*data)),
                      {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis))});
  return ic.defineOutput(0, y);
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
  auto &b = ic.builder;
  Value y = ic.hostOp({*data, *indices}, tensorType(is, elementOf(*data)),
                      {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis))});
  return ic.defineOutput(0, y);
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
  auto &b = ic.builder;
  Value y = ic.hostOp({*data, *indices}, tensorType(shape, elementOf(*data)),
                      {b.getNamedAttr("batch_dims", b.getI64IntegerAttr(bd))});
  return ic.defineOutput(0, y);
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

/// ONNX's `reduction`: none, add, mul, max or min
/// (lib/Conversion/OnnxToLinalg/Index.cpp combines with it).
llvm::Error checkReduction(ImportContext &ic) {
  std::string r = ic.attrString("reduction", "none");
  if (r == "none" || r == "add" || r == "mul" || r == "max" || r == "min")
    return llvm::Error::success();
  return ic.fail("reduction '" + r +
                 "' is not supported (none, add, mul, "
                 "max, min are)");
}

/// ScatterElements, and Scatter (its name before opset 11).
llvm::Error importScatterElements(ImportContext &ic) {
  if (auto err = checkReduction(ic))
    return err;
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
  auto &b = ic.builder;
  Value y = ic.hostOp(
      {*data, *indices, *updates}, data->getType(),
      {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis)),
       b.getNamedAttr("reduction",
                      b.getStringAttr(ic.attrString("reduction", "none")))});
  return ic.defineOutput(0, y);
}

llvm::Error importScatterND(ImportContext &ic) {
  if (auto err = checkReduction(ic))
    return err;
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
  auto &b = ic.builder;
  Value y = ic.hostOp(
      {*data, *indices, *updates}, data->getType(),
      {b.getNamedAttr("reduction",
                      b.getStringAttr(ic.attrString("reduction", "none")))});
  return ic.defineOutput(0, y);
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
  auto &b = ic.builder;
  Value y =
      ic.hostOp({*indices, *values}, tensorType(shape, elementOf(*values)),
                {b.getNamedAttr("axis", b.getI64IntegerAttr(a)),
                 b.getNamedAttr("depth", b.getI64IntegerAttr(depth))});
  return ic.defineOutput(0, y);
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
  auto &b = ic.builder;
  SmallVector<NamedAttribute> params{
      b.getNamedAttr("upper", b.getBoolAttr(upper))};
  if (k)
    params.push_back(b.getNamedAttr("k", b.getI64IntegerAttr(*k)));
  Value y = ic.hostOp(ins, x->getType(), params);
  return ic.defineOutput(0, y);
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
  SmallVector<int64_t> shape(xs);
  if (axis)
    shape[*axis] = selected.size();
  else
    shape = {int64_t(selected.size())};
  auto &b = ic.builder;
  SmallVector<NamedAttribute> params{
      b.getNamedAttr("selected", b.getDenseI64ArrayAttr(selected))};
  if (axis)
    params.push_back(b.getNamedAttr("axis", b.getI64IntegerAttr(*axis)));
  Value y = ic.hostOp(*x, tensorType(shape, elementOf(*x)), params);
  return ic.defineOutput(0, y);
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
