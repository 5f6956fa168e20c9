//===- ImportShape.cpp - Reshape, Transpose, Concat, Pad and friends ------===//
//
// Shape-manipulating ops on constants are evaluated at import, which folds the
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains exporters emit for
// a flatten. On activations they become graph ops.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "llvm/Support/MathExtras.h"

#include "onnx/onnx_pb.h"
#include "systole/Frontend/OnnxModel.h"

#include <cstring>

using namespace mlir;

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
  std::vector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back((*in)[p]);
  Value y = ic.builder.create<graph::TransposeOp>(
      ic.loc(), tensorType(shape, elementOf(*x)), *x,
      ic.builder.getDenseI64ArrayAttr(perm));
  return ic.defineOutput(0, y);
}

llvm::Error importConcat(ImportContext &ic) {
  int n = ic.node->input_size();
  if (n == 0)
    return ic.fail("Concat needs inputs");
  bool allConstant = true;
  for (int i = 0; i < n; ++i)
    allConstant &= ic.constantInput(i) != nullptr;
  if (allConstant) {
    // Only the 1-D integer case (shape vectors) is evaluated at import.
    const HostTensor *first = ic.constantInput(0);
    if (first->shape().size() == 1) {
      std::vector<uint8_t> bytes;
      int64_t count = 0;
      for (int i = 0; i < n; ++i) {
        const HostTensor *c = ic.constantInput(i);
        if (c->type() != first->type() || c->shape().size() != 1)
          return ic.fail("inputs differ in type or rank");
        bytes.insert(bytes.end(), c->data(), c->data() + c->byteSize());
        count += c->numElements();
      }
      HostTensor t(first->type(), {count});
      std::memcpy(t.data(), bytes.data(), bytes.size());
      ic.defineConstant(ic.node->output(0), std::move(t));
      return llvm::Error::success();
    }
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
  for (Value v : inputs) {
    if (static_cast<int64_t>(shapeOf(v).size()) != rank ||
        elementOf(v) != elementOf(inputs[0]))
      return ic.fail("inputs differ in rank or element type");
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && shapeOf(v)[d] != shape[d])
        return ic.fail("inputs differ in dimension " + llvm::Twine(d));
    shape[*axis] += shapeOf(v)[*axis];
  }
  Value y = ic.builder.create<graph::ConcatOp>(
      ic.loc(), tensorType(shape, elementOf(inputs[0])), inputs,
      ic.builder.getI64IntegerAttr(*axis));
  return ic.defineOutput(0, y);
}

llvm::Error importPad(ImportContext &ic) {
  std::string mode = ic.attrString("mode", "constant");
  if (mode != "constant")
    return ic.fail("Pad mode '" + mode + "' is not supported (constant is)");
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  int64_t rank = shapeOf(*x).size();
  auto pads = ic.constantInts(1);
  if (!pads)
    return pads.takeError();
  if (ic.hasInput(3))
    return ic.fail("Pad with an axes input is not supported");
  if (static_cast<int64_t>(pads->size()) != 2 * rank)
    return ic.fail("pads must have 2 * rank entries");
  double value = 0;
  if (ic.hasInput(2)) {
    const HostTensor *c = ic.constantInput(2);
    if (!c || c->numElements() != 1)
      return ic.fail("constant_value must be a constant scalar");
    switch (c->type()) {
    case ElementType::Float32:
      value = c->dataAs<float>()[0];
      break;
    case ElementType::Int8:
      value = c->dataAs<int8_t>()[0];
      break;
    case ElementType::UInt8:
      value = c->dataAs<uint8_t>()[0];
      break;
    default:
      return ic.fail("unsupported constant_value type");
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if ((*pads)[d] < 0 || (*pads)[d + rank] < 0)
      return ic.fail("negative pads are not supported");
    shape.push_back(shapeOf(*x)[d] + (*pads)[d] + (*pads)[d + rank]);
  }
  Value y = ic.builder.create<graph::PadOp>(
      ic.loc(), tensorType(shape, elementOf(*x)), *x,
      ic.builder.getDenseI64ArrayAttr(*pads),
      ic.builder.getF64FloatAttr(value));
  return ic.defineOutput(0, y);
}

llvm::Error importConstant(ImportContext &ic) {
  const onnx::AttributeProto *a = ic.attr("value");
  if (!a || !a->has_t())
    return ic.fail("only Constant with a 'value' tensor is supported");
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

/// Gather on constant integer tensors (shape arithmetic) only.
llvm::Error importGather(ImportContext &ic) {
  const HostTensor *data = ic.constantInput(0);
  if (!data)
    return ic.fail("Gather on activations is not supported yet (only on "
                   "constant shape tensors)");
  if (data->shape().size() != 1 || ic.attrInt("axis", 0) != 0)
    return ic.fail("only 1-D constant Gather along axis 0 is supported");
  auto idx = ic.constantInts(1);
  if (!idx)
    return idx.takeError();
  auto values = ic.constantInts(0);
  if (!values)
    return values.takeError();
  const HostTensor *it = ic.constantInput(1);
  HostTensor out(ElementType::Int64, it->shape());
  int64_t n = values->size();
  for (size_t i = 0; i < idx->size(); ++i) {
    int64_t k = (*idx)[i] < 0 ? (*idx)[i] + n : (*idx)[i];
    if (k < 0 || k >= n)
      return ic.fail("index out of range");
    out.dataAs<int64_t>()[i] = (*values)[k];
  }
  ic.defineConstant(ic.node->output(0), std::move(out));
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
  table["Constant"] = importConstant;
  table["Shape"] = importShape;
  table["Gather"] = importGather;
  table["Cast"] = importCast;
}

} // namespace systole::frontend
