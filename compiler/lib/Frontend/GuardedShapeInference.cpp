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
// So, on the copy that is inferred: a convolution without `kernel_shape`
// whose weight dims are known before inference (an initializer or a graph
// input, through DequantizeLinear/Identity/Cast) gets them as
// `kernel_shape`; one whose weight dims are not known is dropped from the
// copy (its result and what depends on it keep their declared types).
// The model that is imported is not changed.
//
//===----------------------------------------------------------------------===//
#include "GuardedShapeInference.h"

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

} // namespace

bool inferShapesGuarded(onnx::ModelProto &model) {
  onnx::GraphProto *g = model.mutable_graph();
  // Dims known before inference: initializers, fully static graph inputs.
  std::map<std::string, std::vector<int64_t>> dims;
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
    if (!isConvolution(n) || hasAttribute(n, "kernel_shape")) {
      *kept.add_node() = n;
      continue;
    }
    int w = n.op_type() == "QLinearConv" ? 3 : 1;
    std::optional<std::vector<int64_t>> d;
    if (n.input_size() > w)
      d = weightDims(n.input(w));
    if (!d)
      continue; // dropped from the inferred copy
    onnx::NodeProto guarded = n;
    onnx::AttributeProto *ks = guarded.add_attribute();
    ks->set_name("kernel_shape");
    ks->set_type(onnx::AttributeProto::INTS);
    for (size_t i = 2; i < d->size(); ++i)
      ks->add_ints((*d)[i]);
    *kept.add_node() = std::move(guarded);
  }
  g->mutable_node()->Swap(kept.mutable_node());

  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &) {
    return false;
  }
  return true;
}

} // namespace systole::frontend
