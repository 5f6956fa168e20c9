//===- GuardedShapeInference.cpp - ONNX shape inference without its crashes
//===//
//
// The importer asks ONNX's shape inference for every value's element type
// (signedness is not in MLIR's signless integers). Debian's libonnx 1.12
// trusts the models it infers: convPoolShapeInference and
// convTransposeShapeInference take the kernel shape from the weight's dims
// when `kernel_shape` is absent and index the dilation and stride vectors
// (sized by the *input's* rank) with it, so a Conv whose weight has a
// higher rank than its input reads out of bounds and crashes (found by
// fuzz-onnx-import: x [1, 1, 4], w [1, 1, 9, 9]). With an explicit
// `kernel_shape` the same function compares the two sizes and throws.
//
// It also divides by attributes it never checks, and an integer division
// by zero is a SIGFPE, not an exception: convPoolShapeInference by every
// `strides` value (Conv, pools; found by the CI fuzz slice: strides 0),
// DepthToSpace by blocksize * blocksize (0 once blocksize reaches 2^32) and
// SplitToSequence by its scalar `split` (0).
//
// And it reads constant tensors without checking what they store against
// their dims: ParseData sizes its result by raw_data's whole elements and
// then copies all of raw_data, so an int64 Reshape shape of 6 raw bytes
// writes through a null pointer (found by the CI fuzz slice).
//
// convTransposeShapeInference reads the weight's dim 1 for the output
// channels without checking its rank, kernel_shape or not (found by the
// fuzzer: a ConvTranspose whose weight is a 1-D bias).
//
// So, on the copy that is inferred, in the graph and its subgraphs: a
// convolution without `kernel_shape` whose weight dims are known before
// inference (an initializer or a graph input, through DequantizeLinear/
// Identity/Cast) gets them as `kernel_shape`; a convolution whose weight
// dims are not known or have a rank below 3, a node with a `strides` value
// below 1 or a `blocksize` outside [1, 2^31], every SplitToSequence, every
// initializer and every Constant whose storage does not match its dims
// (checkTensorStorage, the importer's own rule) are dropped from the copy
// (their results and what depends on them keep their declared types). The model
// that is imported is not changed; the importer's own checks then name what is
// wrong with such a node.
//
//===----------------------------------------------------------------------===//
#include "GuardedShapeInference.h"

#include "systole/Frontend/OnnxModel.h"

#include "onnx/shape_inference/implementation.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace systole::frontend {

namespace {

bool isConvolution(const onnx::NodeProto &n) {
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    return false;
  const std::string &t = n.op_type();
  return t == "Conv" || t == "ConvInteger" || t == "QLinearConv" ||
         t == "ConvTranspose";
}

bool hasAttribute(const onnx::NodeProto &n, const std::string &name) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return true;
  return false;
}

/// Whether `t` stores what its dims declare (ParseData trusts it).
bool wellFormed(const onnx::TensorProto &t) {
  if (llvm::Error e = checkTensorStorage(t, "")) {
    llvm::consumeError(std::move(e));
    return false;
  }
  return true;
}

/// Whether `n` is a Constant whose tensor value is malformed.
bool malformedConstant(const onnx::NodeProto &n) {
  if (n.op_type() != "Constant")
    return false;
  for (const auto &a : n.attribute())
    if (a.name() == "value" && !wellFormed(a.t()))
      return true;
  return false;
}

/// Whether libonnx 1.12's inference of `n` divides by zero (see above).
bool dividesByZero(const onnx::NodeProto &n) {
  if (n.op_type() == "SplitToSequence")
    return true; // its divisor is a tensor's value, not an attribute
  for (const auto &a : n.attribute()) {
    if (a.name() == "strides")
      for (int64_t s : a.ints())
        if (s < 1)
          return true;
    // blocksize * blocksize must stay a nonzero int64.
    if (a.name() == "blocksize" && (a.i() < 1 || a.i() > (int64_t(1) << 31)))
      return true;
  }
  return false;
}

using DimsMap = std::map<std::string, std::vector<int64_t>>;

/// Guards the nodes of `g` and of its subgraphs; `dims` holds the dims
/// known in the enclosing scopes.
void guardGraph(onnx::GraphProto *g, DimsMap dims) {
  // Malformed initializers leave the copy: their consumers see no value.
  auto *inits = g->mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i)
    if (!wellFormed(inits->Get(i)))
      inits->DeleteSubrange(i, 1);
  // Dims known before inference: initializers, fully static graph inputs.
  for (const auto &t : g->initializer())
    dims[t.name()] = {t.dims().begin(), t.dims().end()};
  for (const auto &in : g->input()) {
    if (dims.count(in.name()) || !in.type().has_tensor_type() ||
        !in.type().tensor_type().has_shape())
      continue;
    std::vector<int64_t> d;
    bool known = true;
    for (const auto &dim : in.type().tensor_type().shape().dim()) {
      known = known && dim.has_dim_value();
      d.push_back(dim.dim_value());
    }
    if (known)
      dims[in.name()] = d;
  }
  // ... and Constants (a weight folded by an exporter).
  for (const auto &n : g->node())
    if (n.op_type() == "Constant" && n.output_size() == 1)
      for (const auto &a : n.attribute())
        if (a.name() == "value" && a.has_t())
          dims[n.output(0)] = {a.t().dims().begin(), a.t().dims().end()};
  std::map<std::string, const onnx::NodeProto *> producer;
  for (const auto &n : g->node())
    for (const auto &o : n.output())
      producer[o] = &n;
  // Follows shape-preserving single-input ops back to known dims.
  auto weightDims =
      [&](std::string name) -> std::optional<std::vector<int64_t>> {
    for (int hops = 0; hops < 8; ++hops) {
      if (auto it = dims.find(name); it != dims.end())
        return it->second;
      auto p = producer.find(name);
      if (p == producer.end() || p->second->input_size() == 0)
        return std::nullopt;
      const std::string &t = p->second->op_type();
      if (t != "DequantizeLinear" && t != "Identity" && t != "Cast" &&
          t != "QuantizeLinear")
        return std::nullopt;
      name = p->second->input(0);
    }
    return std::nullopt;
  };

  onnx::GraphProto kept;
  for (const auto &n : g->node()) {
    if (dividesByZero(n) || malformedConstant(n))
      continue; // dropped from the inferred copy
    if (!isConvolution(n)) {
      onnx::NodeProto *k = kept.add_node();
      *k = n;
      for (auto &a : *k->mutable_attribute()) {
        if (a.has_g())
          guardGraph(a.mutable_g(), dims);
        for (auto &sub : *a.mutable_graphs())
          guardGraph(&sub, dims);
      }
      continue;
    }
    int w = n.op_type() == "QLinearConv" ? 3 : 1;
    std::optional<std::vector<int64_t>> d;
    if (n.input_size() > w)
      d = weightDims(n.input(w));
    // convTransposeShapeInference reads the weight's dim 1 (its output
    // channels) whatever the weight's rank, even with a kernel_shape.
    if (!d || d->size() < 3)
      continue; // dropped from the inferred copy
    onnx::NodeProto guarded = n;
    if (!hasAttribute(n, "kernel_shape")) {
      onnx::AttributeProto *ks = guarded.add_attribute();
      ks->set_name("kernel_shape");
      ks->set_type(onnx::AttributeProto::INTS);
      for (size_t i = 2; i < d->size(); ++i)
        ks->add_ints((*d)[i]);
    }
    *kept.add_node() = std::move(guarded);
  }
  g->mutable_node()->Swap(kept.mutable_node());
}

} // namespace

bool inferShapesGuarded(onnx::ModelProto &model) {
  guardGraph(model.mutable_graph(), {});
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &) {
    return false;
  }
  return true;
}

} // namespace systole::frontend
