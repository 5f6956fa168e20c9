//===- OrtGraph.cpp - Producers and consumers of an ONNX graph ------------===//
#include "OrtGraph.h"

namespace systole::frontend::ort {

namespace {

void recordType(Uses &u, const onnx::ValueInfoProto &v) {
  if (v.type().tensor_type().elem_type())
    u.elemType[v.name()] = v.type().tensor_type().elem_type();
  if (!v.type().tensor_type().has_shape())
    return;
  const auto &shape = v.type().tensor_type().shape();
  u.rank[v.name()] = shape.dim_size();
  if (shape.dim_size() > 0 && shape.dim(shape.dim_size() - 1).has_dim_value())
    u.lastDim[v.name()] = shape.dim(shape.dim_size() - 1).dim_value();
}

} // namespace

Uses usesOf(const onnx::GraphProto &g, const onnx::GraphProto &inferred) {
  Uses u;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &n = g.node(i);
    u.index[&n] = i;
    for (const std::string &out : n.output())
      u.producer[out] = i;
    for (const std::string &in : n.input())
      if (!in.empty())
        u.consumers[in].push_back(i);
    if (n.op_type() == "Constant" && n.domain().empty())
      for (const auto &a : n.attribute())
        if (a.name() == "value" && n.output_size() == 1)
          u.constants[n.output(0)] = &a.t();
  }
  for (const auto &t : g.initializer()) {
    u.constants[t.name()] = &t;
    u.elemType[t.name()] = t.data_type();
    u.rank[t.name()] = t.dims_size();
    if (t.dims_size() > 0)
      u.lastDim[t.name()] = t.dims(t.dims_size() - 1);
  }
  for (const auto &v : inferred.value_info())
    recordType(u, v);
  for (const auto &v : inferred.input())
    recordType(u, v);
  for (const auto &v : inferred.output())
    recordType(u, v);
  for (const auto &o : g.output())
    u.graphOutputs.insert(o.name());
  return u;
}

const onnx::NodeProto *nodeOf(const onnx::GraphProto &g, const Uses &u,
                              llvm::StringRef value) {
  auto it = u.producer.find(value);
  return it == u.producer.end() ? nullptr : &g.node(it->second);
}

bool isOp(const onnx::NodeProto *n, llvm::StringRef type) {
  return n && n->op_type() == type &&
         (n->domain().empty() || n->domain() == "ai.onnx");
}

/// ORT's output edge count: the consumers' input slots reading any output.
size_t edges(const Uses &u, const onnx::NodeProto &n) {
  size_t count = 0;
  for (const std::string &out : n.output()) {
    auto it = u.consumers.find(out);
    if (it != u.consumers.end())
      count += it->second.size();
  }
  return count;
}

/// The consumer nodes of `n`'s first output, in graph order.
llvm::SmallVector<const onnx::NodeProto *>
children(const onnx::GraphProto &g, const Uses &u, const onnx::NodeProto &n) {
  llvm::SmallVector<const onnx::NodeProto *> out;
  if (n.output_size() == 0)
    return out;
  auto it = u.consumers.find(n.output(0));
  if (it != u.consumers.end())
    for (int i : it->second)
      out.push_back(&g.node(i));
  return out;
}

const onnx::NodeProto *firstChild(const onnx::GraphProto &g, const Uses &u,
                                  const onnx::NodeProto &n,
                                  llvm::StringRef type) {
  for (const onnx::NodeProto *c : children(g, u, n))
    if (isOp(c, type))
      return c;
  return nullptr;
}

const onnx::NodeProto *firstParent(const onnx::GraphProto &g, const Uses &u,
                                   const onnx::NodeProto &n,
                                   llvm::StringRef type) {
  for (const std::string &in : n.input())
    if (const onnx::NodeProto *p = nodeOf(g, u, in); isOp(p, type))
      return p;
  return nullptr;
}

/// The constant `name` (initializer or Constant node) of ONNX type `type`,
/// decoded by tensorFromProto.
std::optional<HostTensor> constantOf(const Uses &u, llvm::StringRef name,
                                     int32_t type) {
  auto it = u.constants.find(name);
  if (it == u.constants.end() || it->second->data_type() != type)
    return std::nullopt;
  auto t = tensorFromProto(*it->second, "constant");
  if (!t) {
    llvm::consumeError(t.takeError());
    return std::nullopt;
  }
  return std::move(*t);
}

} // namespace systole::frontend::ort
