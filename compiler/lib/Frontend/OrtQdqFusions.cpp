//===- OrtQdqFusions.cpp - ORT's QDQ rewrites that change the arithmetic --===//
//
// DoubleQDQPairsRemover (double_qdq_pairs_remover.cc, level 1, first
// here): Q1 -> DQ1 -> Q2 -> DQ2 (a Dropout or Identity between DQ1 and Q2
// is eliminated first, as ORT's EliminateDropout/Identity do), each node
// read once and no graph output, each pair with one constant scale and zero
// point, drops DQ1 and Q2; when the pairs' parameters differ, Q1 and DQ2
// take the intersection of their real ranges: scale = (max - min) / 255,
// zero point = round(qmin - min / scale). A Softmax followed by a Dropout
// (Swin's attention) is so quantized once, to the second pair's range.
//
// QDQ UnaryOpQDQRules (qdq_selector_action_transformer.cc, with
// UnaryNodeGroupSelector): DequantizeLinear -> Softmax -> QuantizeLinear,
// the Softmax's only reader the Q and not a graph output, input and output
// of one 8-bit type with per-tensor parameters, becomes
// com.microsoft.QLinearSoftmax (opset = the Softmax's version: 1, 11 or
// 13). Its kernel is no float softmax at all (a table of exponentials, a
// float sum of table entries, floor(1 / y_scale), an int8 wrap-around;
// docs/host.md). The DequantizeLinear stays when something else reads it
// (ORT duplicates it first).
//
//===----------------------------------------------------------------------===//
#include "OrtGraph.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

namespace systole::frontend::ort {

namespace {

/// The one consumer node of `n`'s outputs when `n` has exactly one output
/// edge and produces no graph output, else null.
const onnx::NodeProto *onlyChild(const onnx::GraphProto &g, const Uses &u,
                                 const onnx::NodeProto &n) {
  if (edges(u, n) != 1)
    return nullptr;
  for (const std::string &out : n.output())
    if (u.graphOutputs.contains(out))
      return nullptr;
  auto c = children(g, u, n);
  return c.size() == 1 ? c[0] : nullptr;
}

/// A Q or DQ's constant one-element scale and zero point (QDQ's
/// IsQDQPairSupported wants the zero point given).
struct QParams {
  float scale = 0;
  int64_t zp = 0;
  int32_t zpType = 0;
};
std::optional<QParams> qparamsOf(const Uses &u, const onnx::NodeProto &n) {
  if (n.input_size() < 3 || n.input(2).empty())
    return std::nullopt;
  auto s = constantOf(u, n.input(1), onnx::TensorProto::FLOAT);
  auto zs = u.constants.find(n.input(2));
  if (!s || s->numElements() != 1 || zs == u.constants.end())
    return std::nullopt;
  int32_t type = zs->second->data_type();
  if (type != onnx::TensorProto::INT8 && type != onnx::TensorProto::UINT8)
    return std::nullopt;
  auto z = constantOf(u, n.input(2), type);
  if (!z || z->numElements() != 1)
    return std::nullopt;
  int64_t zp = type == onnx::TensorProto::INT8 ? *z->dataAs<int8_t>()
                                               : *z->dataAs<uint8_t>();
  return QParams{s->dataAs<float>()[0], zp, type};
}

} // namespace

bool removeDoubleQdqPairs(onnx::ModelProto &model) {
  onnx::GraphProto *g = model.mutable_graph();
  Uses u = usesOf(*g, *g);
  llvm::DenseSet<int> removed;
  // Per DQ2: the Q1 output it reads and, if reset, the new parameters.
  struct Rewrite {
    int q1, dq2;
    std::optional<QParams> reset;
  };
  std::vector<Rewrite> rewrites;
  for (int i = 0; i < g->node_size(); ++i) {
    const onnx::NodeProto &dq1 = g->node(i);
    if (!isOp(&dq1, "DequantizeLinear") || removed.contains(i))
      continue;
    const onnx::NodeProto *q1 = nodeOf(*g, u, dq1.input(0));
    if (!isOp(q1, "QuantizeLinear") || onlyChild(*g, u, *q1) != &dq1)
      continue;
    const onnx::NodeProto *q2 = onlyChild(*g, u, dq1);
    llvm::SmallVector<int> between;
    if (q2 && (isOp(q2, "Dropout") || isOp(q2, "Identity"))) {
      between.push_back(u.index.lookup(q2));
      q2 = onlyChild(*g, u, *q2);
    }
    if (!isOp(q2, "QuantizeLinear"))
      continue;
    const onnx::NodeProto *dq2 = onlyChild(*g, u, *q2);
    if (!isOp(dq2, "DequantizeLinear"))
      continue;
    auto p1 = qparamsOf(u, *q1), d1 = qparamsOf(u, dq1);
    auto p2 = qparamsOf(u, *q2), d2 = qparamsOf(u, *dq2);
    if (!p1 || !d1 || !p2 || !d2 || p1->scale != d1->scale ||
        p1->zp != d1->zp || p2->scale != d2->scale || p2->zp != d2->zp ||
        d1->zpType != p2->zpType)
      continue;
    int ids[] = {u.index.lookup(q1), i, u.index.lookup(q2),
                 u.index.lookup(dq2)};
    if (llvm::any_of(ids, [&](int k) { return removed.contains(k); }))
      continue;
    Rewrite r{ids[0], ids[3], std::nullopt};
    bool sameNames =
        dq1.input(1) == q2->input(1) && dq1.input(2) == q2->input(2);
    if (!sameNames &&
        !(d1->zp == p2->zp && std::fabs(d1->scale - p2->scale) < 1e-20f)) {
      bool isSigned = d1->zpType == onnx::TensorProto::INT8;
      int64_t qmin = isSigned ? -128 : 0, qmax = isSigned ? 127 : 255;
      float min1 = float(qmin - d1->zp) * d1->scale;
      float max1 = float(qmax - d1->zp) * d1->scale;
      float min2 = float(qmin - p2->zp) * p2->scale;
      float max2 = float(qmax - p2->zp) * p2->scale;
      float lo = std::max(min1, min2), hi = std::min(max1, max2);
      float scale = (hi - lo) / float(qmax - qmin);
      float zp = std::round(float(qmin) - lo / scale);
      r.reset = QParams{scale, int64_t(zp), d1->zpType};
    }
    removed.insert(i);
    removed.insert(ids[2]);
    for (int k : between)
      removed.insert(k);
    rewrites.push_back(r);
  }
  if (rewrites.empty())
    return false;
  unsigned fresh = 0;
  auto addInitializer = [&](const QParams &p, bool zp) {
    onnx::TensorProto *t = g->add_initializer();
    t->set_name("DoubleQDQRemoved_" + std::to_string(fresh++) +
                (zp ? "_zero_point" : "_scale"));
    if (zp) {
      t->set_data_type(p.zpType);
      t->add_int32_data(int32_t(p.zp));
    } else {
      t->set_data_type(onnx::TensorProto::FLOAT);
      t->add_float_data(p.scale);
    }
    return t->name();
  };
  for (const Rewrite &r : rewrites) {
    onnx::NodeProto *q1 = g->mutable_node(r.q1);
    onnx::NodeProto *dq2 = g->mutable_node(r.dq2);
    dq2->set_input(0, q1->output(0));
    if (r.reset) {
      std::string s = addInitializer(*r.reset, false);
      std::string z = addInitializer(*r.reset, true);
      q1->set_input(1, s);
      q1->set_input(2, z);
      dq2->set_input(1, s);
      dq2->set_input(2, z);
    }
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g->node_size(); ++i)
    if (!removed.contains(i))
      *nodes.Add() = g->node(i);
  g->mutable_node()->Swap(&nodes);
  return true;
}

namespace {

/// Whether a DequantizeLinear / QuantizeLinear's scale and zero point (if
/// any) are one-element constants.
bool perTensorParams(const Uses &u, const onnx::NodeProto &n) {
  for (int i = 1; i < n.input_size() && i < 3; ++i) {
    if (n.input(i).empty())
      continue;
    auto it = u.constants.find(n.input(i));
    if (it == u.constants.end())
      return false;
    int64_t count = 1;
    for (int64_t d : it->second->dims())
      count *= d;
    if (count != 1)
      return false;
  }
  return n.input_size() >= 2;
}

} // namespace

Match matchQdqSoftmax(const onnx::GraphProto &g, const Uses &u,
                      const onnx::NodeProto &sm, int64_t opset) {
  if (!isOp(&sm, "Softmax") || sm.input_size() != 1 || sm.output_size() != 1)
    return std::nullopt;
  const onnx::NodeProto *dq = nodeOf(g, u, sm.input(0));
  if (!isOp(dq, "DequantizeLinear") || !perTensorParams(u, *dq))
    return std::nullopt;
  if (edges(u, sm) != 1 || u.graphOutputs.contains(sm.output(0)))
    return std::nullopt;
  const onnx::NodeProto *q = children(g, u, sm)[0];
  if (!isOp(q, "QuantizeLinear") || q->input(0) != sm.output(0) ||
      !perTensorParams(u, *q))
    return std::nullopt;
  auto in = u.elemType.find(dq->input(0)), out = u.elemType.find(q->output(0));
  if (in == u.elemType.end() || out == u.elemType.end() ||
      in->second != out->second ||
      (in->second != onnx::TensorProto::INT8 &&
       in->second != onnx::TensorProto::UINT8))
    return std::nullopt;
  onnx::NodeProto fused;
  fused.set_op_type("QLinearSoftmax");
  fused.set_domain("com.microsoft");
  // Named after the Q whose tensor it produces (what `systole compare`
  // matches the binary's tensor to).
  fused.set_name(q->name().empty() ? q->output(0) + ":QLinearSoftmax"
                                   : q->name());
  fused.add_input(dq->input(0));
  fused.add_input(dq->input(1));
  fused.add_input(dq->input_size() > 2 ? dq->input(2) : "");
  fused.add_input(q->input(1));
  fused.add_input(q->input_size() > 2 ? q->input(2) : "");
  fused.add_output(q->output(0));
  for (const auto &a : sm.attribute())
    if (a.name() == "axis")
      *fused.add_attribute() = a;
  auto *v = fused.add_attribute();
  v->set_name("opset");
  v->set_type(onnx::AttributeProto::INT);
  v->set_i(opset >= 13 ? 13 : opset >= 11 ? 11 : 1);
  llvm::SmallVector<int> replaced;
  // The DequantizeLinear goes with its only reader.
  if (edges(u, *dq) == 1 && !u.graphOutputs.contains(dq->output(0)))
    replaced.push_back(u.index.lookup(dq));
  replaced.push_back(u.index.lookup(&sm));
  replaced.push_back(u.index.lookup(q));
  return std::make_pair(std::move(fused), std::move(replaced));
}

} // namespace systole::frontend::ort
