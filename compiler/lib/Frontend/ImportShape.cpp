//===- ImportShape.cpp - Reshape, Transpose, Concat, Pad, Slice -----------===//
//
// Shape-manipulating ops on constants are evaluated at import, which folds the
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains exporters emit for
// a flatten. On float32 and quantized activations they become the graph ops
// the partitioner places (int8 models concatenate, pad and slice between NPU
// layers); other element types and the forms those ops lack (Pad's
// reflect/edge/wrap modes, negative pads, reversed or empty slices) are
// graph.host ops: tensor.insert_slice for Concat, one linalg.generic for Pad
// (tensor.extract at the clamped/mirrored/wrapped source) and for Slice (an
// affine read map `start + i * step`). Reshapes and transposes of any type
// stay graph ops: a reshape aliases, the runtime's transpose moves bytes.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

#include "onnx/onnx_pb.h"
#include "systole/Frontend/OnnxModel.h"

#include <cstring>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::frontend {

namespace {

llvm::Expected<int64_t> normalizeAxis(ImportContext &ic, int64_t axis,
                                      int64_t rank) {
  if (axis < -rank || axis >= rank)
    return ic.fail("axis " + llvm::Twine(axis) + " out of range for rank " +
                   llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

/// Shape of input 0, whether a constant or an IR value.
llvm::Expected<std::vector<int64_t>> inputShape(ImportContext &ic) {
  if (const HostTensor *c = ic.constantInput(0))
    return c->shape();
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  auto s = shapeOf(*x);
  return std::vector<int64_t>(s.begin(), s.end());
}

/// Defines output 0 as input 0 with a new shape (same row-major data).
llvm::Error defineReshaped(ImportContext &ic, std::vector<int64_t> shape) {
  if (const HostTensor *c = ic.constantInput(0)) {
    HostTensor t(c->type(), shape);
    if (t.byteSize() != c->byteSize())
      return ic.fail("reshape changes the element count");
    std::memcpy(t.data(), c->data(), t.byteSize());
    ic.defineConstant(ic.node->output(0), std::move(t));
    return llvm::Error::success();
  }
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  if (checkedNumElements(shape) !=
      cast<RankedTensorType>(x->getType()).getNumElements())
    return ic.fail(
        "cannot reshape " +
        llvm::Twine(cast<RankedTensorType>(x->getType()).getNumElements()) +
        " elements to the requested shape");
  Value y = ic.builder.create<graph::ReshapeOp>(
      ic.loc(), tensorType(shape, elementOf(*x)), *x);
  return ic.defineOutput(0, y);
}

llvm::Error importReshape(ImportContext &ic) {
  auto in = inputShape(ic);
  if (!in)
    return in.takeError();
  auto target = ic.constantInts(1);
  if (!target)
    return target.takeError();
  bool allowZero = ic.attrInt("allowzero", 0);
  std::vector<int64_t> shape;
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target->size(); ++i) {
    int64_t d = (*target)[i];
    if (d == 0 && !allowZero) {
      if (i >= in->size())
        return ic.fail("shape entry 0 copies a dimension the input lacks");
      d = (*in)[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return ic.fail("more than one -1 in the target shape");
      inferred = static_cast<int>(i);
      d = 1;
    } else if (d < 0) {
      return ic.fail("invalid target dimension " + llvm::Twine(d));
    }
    shape.push_back(d);
    if (llvm::MulOverflow(known, d, known))
      return ic.fail("target shape is too large");
  }
  int64_t total = checkedNumElements(*in);
  if (inferred >= 0) {
    if (known == 0 || total % known)
      return ic.fail("cannot infer the -1 dimension");
    shape[inferred] = total / known;
  }
  return defineReshaped(ic, shape);
}

llvm::Error importFlatten(ImportContext &ic) {
  auto in = inputShape(ic);
  if (!in)
    return in.takeError();
  int64_t rank = in->size();
  int64_t axis = ic.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    return ic.fail("axis out of range");
  if (axis < 0)
    axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? outer : inner) *= (*in)[i];
  return defineReshaped(ic, {outer, inner});
}

llvm::Expected<std::vector<int64_t>> squeezeAxes(ImportContext &ic,
                                                 int64_t rank) {
  std::vector<int64_t> axes;
  if (ic.hasInput(1)) {
    auto a = ic.constantInts(1);
    if (!a)
      return a.takeError();
    axes = *a;
  } else if (auto a = ic.attrInts("axes")) {
    axes = *a; // opset < 13 spelling, still seen in the wild
  }
  for (int64_t &a : axes) {
    auto n = normalizeAxis(ic, a, rank);
    if (!n)
      return n.takeError();
    a = *n;
  }
  return axes;
}

llvm::Error importSqueeze(ImportContext &ic) {
  auto in = inputShape(ic);
  if (!in)
    return in.takeError();
  auto axes = squeezeAxes(ic, in->size());
  if (!axes)
    return axes.takeError();
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < static_cast<int64_t>(in->size()); ++i) {
    bool listed = llvm::is_contained(*axes, i);
    if (listed && (*in)[i] != 1)
      return ic.fail("cannot squeeze dimension " + llvm::Twine(i) +
                     " of size " + llvm::Twine((*in)[i]));
    if (!listed && !(axes->empty() && (*in)[i] == 1))
      shape.push_back((*in)[i]);
  }
  return defineReshaped(ic, shape);
}

llvm::Error importUnsqueeze(ImportContext &ic) {
  auto in = inputShape(ic);
  if (!in)
    return in.takeError();
  // Unsqueeze's axes index the output, whose rank is input rank + #axes.
  int64_t numAxes = 0;
  if (const HostTensor *a = ic.constantInput(1))
    numAxes = a->numElements();
  else if (auto a = ic.attrInts("axes"))
    numAxes = a->size();
  auto axes = squeezeAxes(ic, in->size() + numAxes);
  if (!axes)
    return axes.takeError();
  std::vector<int64_t> shape;
  size_t next = 0;
  int64_t outRank = in->size() + axes->size();
  for (int64_t i = 0; i < outRank; ++i)
    shape.push_back(llvm::is_contained(*axes, i) ? 1 : (*in)[next++]);
  if (next != in->size())
    return ic.fail("invalid Unsqueeze axes");
  return defineReshaped(ic, shape);
}

/// Permutes a constant tensor (element size agnostic).
HostTensor transposeConstant(const HostTensor &t,
                             const std::vector<int64_t> &perm) {
  const auto &in = t.shape();
  std::vector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(in[p]);
  HostTensor out(t.type(), outShape);
  size_t rank = in.size(), elem = elementSize(t.type());
  std::vector<int64_t> inStrides(rank, 1);
  for (int64_t i = static_cast<int64_t>(rank) - 2; i >= 0; --i)
    inStrides[i] = inStrides[i + 1] * in[i + 1];
  std::vector<int64_t> idx(rank, 0);
  for (int64_t o = 0; o < out.numElements(); ++o) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d)
      src += idx[d] * inStrides[perm[d]];
    std::memcpy(out.data() + o * elem, t.data() + src * elem, elem);
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      if (++idx[d] < outShape[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

llvm::Error importTranspose(ImportContext &ic) {
  auto in = inputShape(ic);
  if (!in)
    return in.takeError();
  int64_t rank = in->size();
  std::vector<int64_t> perm;
  if (auto p = ic.attrInts("perm")) {
    perm = *p;
  } else {
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  std::vector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank)
    return ic.fail("perm must have one entry per dimension");
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return ic.fail("perm is not a permutation");
    seen[p] = true;
  }
  if (const HostTensor *c = ic.constantInput(0)) {
    ic.defineConstant(ic.node->output(0), transposeConstant(*c, perm));
    return llvm::Error::success();
  }
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  // An identity permutation is a view, like Identity: defining the output
  // as the input lets a graph output that is one get its own copy (a
  // graph.transpose would fold away after import and leave none).
  bool identity = true;
  for (int64_t i = 0; i < rank; ++i)
    identity &= perm[i] == i;
  if (identity)
    return ic.defineOutput(0, *x);
  std::vector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back((*in)[p]);
  Value y = ic.builder.create<graph::TransposeOp>(
      ic.loc(), tensorType(shape, elementOf(*x)), *x,
      ic.builder.getDenseI64ArrayAttr(perm));
  return ic.defineOutput(0, y);
}

/// Concatenates constants along `axis` (any rank and type), at import.
llvm::Error foldConcat(ImportContext &ic, int64_t axis) {
  int n = ic.node->input_size();
  const HostTensor *first = ic.constantInput(0);
  std::vector<int64_t> shape = first->shape();
  shape[axis] = 0;
  for (int i = 0; i < n; ++i) {
    const HostTensor *c = ic.constantInput(i);
    if (c->type() != first->type() || c->shape().size() != shape.size())
      return ic.fail("inputs differ in type or rank");
    for (size_t d = 0; d < shape.size(); ++d)
      if (int64_t(d) != axis && c->shape()[d] != first->shape()[d])
        return ic.fail("inputs differ in dimension " + llvm::Twine(d));
    shape[axis] += c->shape()[axis];
  }
  HostTensor t(first->type(), shape);
  size_t elem = elementSize(first->type());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  uint8_t *dst = t.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int i = 0; i < n; ++i) {
      const HostTensor *c = ic.constantInput(i);
      size_t row = c->shape()[axis] * inner * elem;
      std::memcpy(dst, c->data() + o * row, row);
      dst += row;
    }
  ic.defineConstant(ic.node->output(0), std::move(t));
  return llvm::Error::success();
}

llvm::Error importConcat(ImportContext &ic) {
  int n = ic.node->input_size();
  if (n == 0)
    return ic.fail("Concat needs inputs");
  bool allConstant = true;
  for (int i = 0; i < n; ++i)
    allConstant &= ic.constantInput(i) != nullptr;
  if (allConstant) {
    auto axis = normalizeAxis(ic, ic.attrInt("axis", 0),
                              ic.constantInput(0)->shape().size());
    if (!axis)
      return axis.takeError();
    return foldConcat(ic, *axis);
  }
  SmallVector<Value> inputs;
  for (int i = 0; i < n; ++i) {
    auto v = ic.input(i);
    if (!v)
      return v.takeError();
    inputs.push_back(*v);
  }
  int64_t rank = shapeOf(inputs[0]).size();
  auto axis = normalizeAxis(ic, ic.attrInt("axis", 0), rank);
  if (!axis)
    return axis.takeError();
  SmallVector<int64_t> shape(shapeOf(inputs[0]));
  shape[*axis] = 0;
  Type elem = elementOf(inputs[0]);
  for (Value v : inputs) {
    if (static_cast<int64_t>(shapeOf(v).size()) != rank || elementOf(v) != elem)
      return ic.fail("inputs differ in rank or element type");
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && shapeOf(v)[d] != shape[d])
        return ic.fail("inputs differ in dimension " + llvm::Twine(d));
    shape[*axis] += shapeOf(v)[*axis];
  }
  // float32 and quantized tensors keep the graph op the partitioner knows
  // (int8 models concatenate on the NPU's side of the graph).
  if (elem.isF32() || graph::isQuantized(elem)) {
    Value y = ic.builder.create<graph::ConcatOp>(
        ic.loc(), tensorType(shape, elem), inputs,
        ic.builder.getI64IntegerAttr(*axis));
    return ic.defineOutput(0, y);
  }
  auto y = ic.hostOp(inputs,
                     [&](OpBuilder &b, Location loc,
                         ValueRange args) -> llvm::Expected<Value> {
                       Value acc = lw::emptyTensor(b, loc, shape, elem);
                       SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
                       for (Value v : args) {
                         SmallVector<int64_t> sizes(shapeOf(v));
                         acc = b.create<tensor::InsertSliceOp>(
                             loc, v, acc, ValueRange{}, ValueRange{},
                             ValueRange{}, b.getDenseI64ArrayAttr(offsets),
                             b.getDenseI64ArrayAttr(sizes),
                             b.getDenseI64ArrayAttr(strides));
                         offsets[*axis] += sizes[*axis];
                       }
                       return acc;
                     });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

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

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

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
  auto y = ic.hostOp(
      ins,
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
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
        SmallVector<utils::IteratorType> iters(rank,
                                               utils::IteratorType::parallel);
        return b
            .create<linalg::GenericOp>(
                loc, TypeRange{init.getType()}, operands, ValueRange{init},
                maps, iters,
                [&](OpBuilder &nb, Location l, ValueRange el) {
                  Value cval;
                  if (p.valueInput)
                    cval = el[0];
                  else if (auto f = dyn_cast<FloatType>(elem))
                    cval = nb.create<arith::ConstantOp>(
                        l, nb.getFloatAttr(f, p.value));
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
                    auto [src, in] = padSource(nb, l, o, p.pads[d],
                                               shapeOf(data)[d], p.mode);
                    at.push_back(src);
                    inside =
                        inside ? nb.create<arith::AndIOp>(l, inside, in) : in;
                  }
                  Value v = nb.create<tensor::ExtractOp>(l, data, at);
                  if (p.mode == "constant" && inside)
                    v = nb.create<arith::SelectOp>(l, inside, v, cval);
                  nb.create<linalg::YieldOp>(l, v);
                })
            .getResult(0);
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
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
  auto in = inputShape(ic);
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
  auto y = ic.hostOp(
      *x,
      [&](OpBuilder &b, Location loc,
          ValueRange args) -> llvm::Expected<Value> {
        // An empty result reads nothing (its start may lie past the end, which
        // the read map's bounds check would reject).
        if (empty)
          return b
              .create<linalg::FillOp>(
                  loc,
                  ValueRange{b.create<arith::ConstantOp>(loc, elem,
                                                         b.getZeroAttr(elem))},
                  ValueRange{lw::emptyTensor(b, loc, shape, elem)})
              .getResult(0);
        SmallVector<AffineMap> maps = {
            map, AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
        SmallVector<utils::IteratorType> iters(rank,
                                               utils::IteratorType::parallel);
        return b
            .create<linalg::GenericOp>(
                loc, TypeRange{RankedTensorType::get(shape, elem)},
                ValueRange{args[0]},
                ValueRange{lw::emptyTensor(b, loc, shape, elem)}, maps, iters,
                [&](OpBuilder &nb, Location l, ValueRange el) {
                  nb.create<linalg::YieldOp>(l, el[0]);
                })
            .getResult(0);
      });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

llvm::Error importConstant(ImportContext &ic) {
  // Since opset 12 a Constant may hold a scalar or a list instead of a tensor
  // (value_float(s), value_int(s)): rank 0 or rank 1.
  if (const onnx::AttributeProto *f = ic.attr("value_float")) {
    HostTensor t(ElementType::Float32, {});
    t.dataAs<float>()[0] = f->f();
    ic.defineConstant(ic.node->output(0), std::move(t));
    return llvm::Error::success();
  }
  if (const onnx::AttributeProto *i = ic.attr("value_int")) {
    HostTensor t(ElementType::Int64, {});
    t.dataAs<int64_t>()[0] = i->i();
    ic.defineConstant(ic.node->output(0), std::move(t));
    return llvm::Error::success();
  }
  if (const onnx::AttributeProto *fs = ic.attr("value_floats")) {
    HostTensor t(ElementType::Float32, {int64_t(fs->floats_size())});
    for (int k = 0; k < fs->floats_size(); ++k)
      t.dataAs<float>()[k] = fs->floats(k);
    ic.defineConstant(ic.node->output(0), std::move(t));
    return llvm::Error::success();
  }
  if (const onnx::AttributeProto *is = ic.attr("value_ints")) {
    HostTensor t(ElementType::Int64, {int64_t(is->ints_size())});
    for (int k = 0; k < is->ints_size(); ++k)
      t.dataAs<int64_t>()[k] = is->ints(k);
    ic.defineConstant(ic.node->output(0), std::move(t));
    return llvm::Error::success();
  }
  const onnx::AttributeProto *a = ic.attr("value");
  if (!a || !a->has_t())
    return ic.fail("Constant needs a 'value' tensor or value_float(s)/"
                   "value_int(s) (sparse and string constants are not "
                   "supported)");
  auto t = tensorFromProto(a->t(), ic.modelPath.str() + ": Constant");
  if (!t)
    return t.takeError();
  ic.defineConstant(ic.node->output(0), std::move(*t));
  return llvm::Error::success();
}

/// Shapes are static after import, so Shape is always a constant.
llvm::Error importShape(ImportContext &ic) {
  auto in = inputShape(ic);
  if (!in)
    return in.takeError();
  int64_t rank = in->size();
  int64_t start = ic.attrInt("start", 0), end = ic.attrInt("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  int64_t n = std::max<int64_t>(0, end - start);
  HostTensor t(ElementType::Int64, {n});
  for (int64_t i = 0; i < n; ++i)
    t.dataAs<int64_t>()[i] = (*in)[start + i];
  ic.defineConstant(ic.node->output(0), std::move(t));
  return llvm::Error::success();
}

/// Cast of constant integer tensors (shape arithmetic) to int64 folds at
/// import; every other Cast runs on the host.
llvm::Error importCast(ImportContext &ic) {
  const HostTensor *data = ic.constantInput(0);
  if (!data || ic.attrInt("to", 0) != onnx::TensorProto::INT64 ||
      (data->type() != ElementType::Int64 &&
       data->type() != ElementType::Int32))
    return importHostElementwise(ic);
  auto values = ic.constantInts(0);
  if (!values)
    return values.takeError();
  HostTensor out(ElementType::Int64, data->shape());
  std::memcpy(out.data(), values->data(), out.byteSize());
  ic.defineConstant(ic.node->output(0), std::move(out));
  return llvm::Error::success();
}

} // namespace

void registerShapeImporters(llvm::StringMap<OpImporter> &table) {
  table["Reshape"] = importReshape;
  table["Flatten"] = importFlatten;
  table["Squeeze"] = importSqueeze;
  table["Unsqueeze"] = importUnsqueeze;
  table["Transpose"] = importTranspose;
  table["Concat"] = importConcat;
  table["Pad"] = importPad;
  table["Slice"] = importSlice;
  table["Constant"] = importConstant;
  table["Shape"] = importShape;
  table["Cast"] = importCast;
}

} // namespace systole::frontend
