//===- ImportShape.cpp - Reshape, Transpose, Concat, Shape, Cast ----------===//
//
// Shape-manipulating ops on constants are evaluated at import, which folds the
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains exporters emit for
// a flatten. On float32 and quantized activations they become the graph ops
// the partitioner places (int8 models concatenate between NPU layers); other
// element types are graph.host ops: tensor.insert_slice for Concat.
// Reshapes and transposes of any type stay graph ops: a reshape aliases, the
// runtime's transpose moves bytes. Pad and Slice: ImportPadSlice.cpp.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

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
  auto in = shapeOfInput(ic, 0);
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
  auto in = shapeOfInput(ic, 0);
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
  auto in = shapeOfInput(ic, 0);
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
  auto in = shapeOfInput(ic, 0);
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
  auto in = shapeOfInput(ic, 0);
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
  Value y = ic.hostOp(
      inputs, tensorType(shape, elem),
      {ic.builder.getNamedAttr("axis", ic.builder.getI64IntegerAttr(*axis))});
  return ic.defineOutput(0, y);
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
  auto in = shapeOfInput(ic, 0);
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
  table["Constant"] = importConstant;
  table["Shape"] = importShape;
  table["Cast"] = importCast;
}

} // namespace systole::frontend
