//===- ImportPadSlice.cpp - Pad and Slice ---------------------------------===//
//
// A Slice of a constant is evaluated at import (shape arithmetic). On float32
// and quantized activations Pad and Slice become the graph ops the
// partitioner places (int8 models pad and slice between NPU layers); other
// element types and the forms those ops lack (Pad's reflect/edge/wrap modes,
// negative pads, reversed or empty slices) are graph.host ops: one
// linalg.generic for Pad (tensor.extract at the clamped/mirrored/wrapped
// source) and for Slice (an affine read map `start + i * step`).
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Conversion/LoweringUtils.h"
#include "systole/Frontend/OnnxModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cstring>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::frontend {

namespace {

/// Pad's pads (2 * rank entries, begins then ends) and its constant value
/// source, per opset: attributes before 11, inputs since (axes since 18).
struct PadParams {
  std::string mode;
  std::vector<int64_t> pads;
  /// Input 2 holds the constant value (else `value`, 0 by default).
  bool valueInput = false;
  double value = 0;
};

llvm::Expected<PadParams> padParams(ImportContext &ic, int64_t rank) {
  PadParams p;
  p.mode = ic.attrString("mode", "constant");
  if (p.mode != "constant" && p.mode != "reflect" && p.mode != "edge" &&
      p.mode != "wrap")
    return ic.fail("Pad mode '" + p.mode +
                   "' is not supported (constant, reflect, edge, wrap are)");
  if (opsetVersion(ic.model, "") < 11) {
    auto pads = ic.attrInts("pads");
    if (!pads)
      return ic.fail("Pad before opset 11 needs the pads attribute");
    p.pads = *pads;
    p.value = ic.attrFloat("value", 0.0f);
  } else {
    auto pads = ic.constantInts(1);
    if (!pads)
      return pads.takeError();
    p.pads = *pads;
    p.valueInput = ic.hasInput(2);
  }
  if (ic.hasInput(3)) {
    auto axes = ic.constantInts(3);
    if (!axes)
      return axes.takeError();
    int64_t k = axes->size();
    if (int64_t(p.pads.size()) != 2 * k)
      return ic.fail("pads must have 2 entries per axis");
    std::vector<int64_t> full(2 * rank, 0);
    for (int64_t i = 0; i < k; ++i) {
      auto a = normalizeAxis(ic, (*axes)[i], rank);
      if (!a)
        return a.takeError();
      full[*a] = p.pads[i];
      full[*a + rank] = p.pads[i + k];
    }
    p.pads = full;
  }
  if (static_cast<int64_t>(p.pads.size()) != 2 * rank)
    return ic.fail("pads must have 2 * rank entries");
  return p;
}

/// The constant value of a float32 or quantized Pad as graph.pad takes it,
/// or nullopt when it is a runtime value.
std::optional<double> graphPadValue(ImportContext &ic, const PadParams &p) {
  if (!p.valueInput)
    return p.value;
  const HostTensor *c = ic.constantInput(2);
  if (!c || c->numElements() != 1)
    return std::nullopt;
  switch (c->type()) {
  case ElementType::Float32:
    return c->dataAs<float>()[0];
  case ElementType::Int8:
    return c->dataAs<int8_t>()[0];
  case ElementType::UInt8:
    return c->dataAs<uint8_t>()[0];
  default:
    return std::nullopt;
  }
}

/// The host form of Pad for every mode and type: each output element reads
/// its source position (or is the constant value outside the input).
llvm::Error hostPad(ImportContext &ic, Value x, const PadParams &p) {
  ArrayRef<int64_t> in = shapeOf(x);
  int64_t rank = in.size();
  Type elem = elementOf(x);
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    shape.push_back(in[d] + p.pads[d] + p.pads[d + rank]);
    if (shape.back() < 0)
      return ic.fail("pads remove more than dimension " + llvm::Twine(d) +
                     " holds");
  }
  bool empty = llvm::is_contained(in, 0);
  if (empty && p.mode != "constant" &&
      checkedNumElements(std::vector<int64_t>(shape.begin(), shape.end())) > 0)
    return ic.fail("Pad mode '" + p.mode + "' of an empty tensor");
  SmallVector<Value> ins = {x};
  if (p.valueInput) {
    auto v = ic.input(2);
    if (!v)
      return v.takeError();
    if (elementOf(*v) != elem ||
        cast<RankedTensorType>(v->getType()).getNumElements() != 1)
      return ic.fail("constant_value must be one element of the data's type");
    ins.push_back(*v);
  }
  auto &b = ic.builder;
  SmallVector<NamedAttribute> params{
      b.getNamedAttr("mode", b.getStringAttr(p.mode)),
      b.getNamedAttr("pads", b.getDenseI64ArrayAttr(p.pads))};
  if (!p.valueInput)
    params.push_back(b.getNamedAttr("value", b.getF64FloatAttr(p.value)));
  Value y = ic.hostOp(ins, tensorType(shape, elem), params);
  return ic.defineOutput(0, y);
}

llvm::Error importPad(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  int64_t rank = shapeOf(*x).size();
  auto p = padParams(ic, rank);
  if (!p)
    return p.takeError();
  Type elem = elementOf(*x);
  std::optional<double> value = graphPadValue(ic, *p);
  bool nonNegative = llvm::all_of(p->pads, [](int64_t v) { return v >= 0; });
  // The graph op the partitioner knows (int8 models pad activations):
  // float32 or quantized data, constant mode, growing pads, a known value.
  if (graph::isQuantized(elem) ||
      (elem.isF32() && p->mode == "constant" && nonNegative && value)) {
    if (p->mode != "constant" || !nonNegative || !value)
      return ic.fail("a quantized Pad needs constant mode, non-negative pads "
                     "and a constant value");
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d)
      shape.push_back(shapeOf(*x)[d] + p->pads[d] + p->pads[d + rank]);
    Value y = ic.builder.create<graph::PadOp>(
        ic.loc(), tensorType(shape, elem), *x,
        ic.builder.getDenseI64ArrayAttr(p->pads),
        ic.builder.getF64FloatAttr(*value));
    return ic.defineOutput(0, y);
  }
  return hostPad(ic, *x, *p);
}

/// Slice bounds normalized as ONNX specifies: negative starts/ends count
/// from the end, then clamp to [0, dim] (positive step) or [-1, dim - 1]
/// (negative step).
struct SliceDims {
  std::vector<int64_t> starts, steps, sizes;
};

llvm::Expected<SliceDims> sliceDims(ImportContext &ic, ArrayRef<int64_t> in) {
  int64_t rank = in.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (opsetVersion(ic.model, "") < 10) {
    auto s = ic.attrInts("starts"), e = ic.attrInts("ends");
    if (!s || !e)
      return ic.fail("Slice before opset 10 needs starts and ends attributes");
    starts = *s;
    ends = *e;
    if (auto a = ic.attrInts("axes"))
      axes = *a;
  } else {
    auto s = ic.constantInts(1), e = ic.constantInts(2);
    if (!s)
      return s.takeError();
    if (!e)
      return e.takeError();
    starts = *s;
    ends = *e;
    if (ic.hasInput(3)) {
      auto a = ic.constantInts(3);
      if (!a)
        return a.takeError();
      axes = *a;
    }
    if (ic.hasInput(4)) {
      auto st = ic.constantInts(4);
      if (!st)
        return st.takeError();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || ends.size() != starts.size() ||
      steps.size() != starts.size())
    return ic.fail("Slice starts/ends/axes/steps differ in length");
  SliceDims r;
  r.starts.assign(rank, 0);
  r.steps.assign(rank, 1);
  r.sizes.assign(in.begin(), in.end());
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = normalizeAxis(ic, axes[i], rank);
    if (!a)
      return a.takeError();
    if (seen[*a])
      return ic.fail("Slice axis " + llvm::Twine(*a) + " repeated");
    seen[*a] = true;
    int64_t dim = in[*a], step = steps[i], s = starts[i], e = ends[i];
    if (step == 0)
      return ic.fail("Slice step must not be zero");
    s = s < 0 ? std::max<int64_t>(s, -dim) + dim : s;
    e = e < 0 ? std::max<int64_t>(e, -dim - 1) + dim : e;
    int64_t size;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      size = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      size = s > e ? (s - e - step - 1) / -step : 0;
    }
    r.starts[*a] = s;
    r.steps[*a] = step;
    r.sizes[*a] = size;
  }
  return r;
}

/// Slice of a constant, at import (shape arithmetic).
HostTensor sliceConstant(const HostTensor &t, const SliceDims &s) {
  const auto &in = t.shape();
  size_t rank = in.size(), elem = elementSize(t.type());
  HostTensor out(t.type(), s.sizes);
  std::vector<int64_t> inStrides(rank, 1);
  for (int64_t i = int64_t(rank) - 2; i >= 0; --i)
    inStrides[i] = inStrides[i + 1] * in[i + 1];
  std::vector<int64_t> idx(rank, 0);
  for (int64_t o = 0; o < out.numElements(); ++o) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d)
      src += (s.starts[d] + idx[d] * s.steps[d]) * inStrides[d];
    std::memcpy(out.data() + o * elem, t.data() + src * elem, elem);
    for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
      if (++idx[d] < s.sizes[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

llvm::Error importSlice(ImportContext &ic) {
  auto in = shapeOfInput(ic, 0);
  if (!in)
    return in.takeError();
  auto s = sliceDims(ic, *in);
  if (!s)
    return s.takeError();
  if (const HostTensor *c = ic.constantInput(0)) {
    ic.defineConstant(ic.node->output(0), sliceConstant(*c, *s));
    return llvm::Error::success();
  }
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type elem = elementOf(*x);
  int64_t rank = in->size();
  bool forward = llvm::all_of(s->steps, [](int64_t v) { return v > 0; });
  bool empty = llvm::is_contained(s->sizes, 0);
  // float32 and quantized forward slices keep the graph op the partitioner
  // knows; other types, reversed and empty slices run as host code.
  if (graph::isQuantized(elem) || (elem.isF32() && forward && !empty)) {
    if (!forward || empty)
      return ic.fail("a quantized Slice needs positive steps and a non-empty "
                     "result");
    auto &b = ic.builder;
    Value y = b.create<graph::SliceOp>(ic.loc(), tensorType(s->sizes, elem), *x,
                                       b.getDenseI64ArrayAttr(s->starts),
                                       b.getDenseI64ArrayAttr(s->steps));
    return ic.defineOutput(0, y);
  }
  // out[i] = x[start + i * step] per dim: an affine read map, so negative
  // steps need no special case.
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(getAffineDimExpr(d, ic.ctx()) * s->steps[d] + s->starts[d]);
  AffineMap map = AffineMap::get(rank, 0, exprs, ic.ctx());
  SmallVector<int64_t> shape(s->sizes.begin(), s->sizes.end());
  Value y =
      ic.hostOp(*x, tensorType(shape, elem),
                {ic.builder.getNamedAttr("map", AffineMapAttr::get(map))});
  return ic.defineOutput(0, y);
}

} // namespace

void registerPadSliceImporters(llvm::StringMap<OpImporter> &table) {
  table["Pad"] = importPad;
  table["Slice"] = importSlice;
}

} // namespace systole::frontend
