//===- OrtFusions.cpp - ORT's arithmetic-changing fusions -----------------===//
//
// ONNX Runtime rewrites a model's graph before it runs it, and some of its
// fusions change the arithmetic: a LayerNorm that an exporter wrote out as
// ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add (PyTorch at opset
// < 17) runs as one LayerNormalization kernel, which takes the mean and the
// mean of squares in one pass. Computing the ops as written differs from
// ORT in the last bits of most outputs (6,009 of 12,288 values of a 32x384
// block), and after a QuantizeLinear, by a step near ties. So the model is
// fused as ORT fuses it, under the same conditions, and the fused op is
// computed as ORT's kernel computes it.
//
// LayerNormFusion (onnxruntime/core/optimizer/layer_norm_fusion.cc, ORT
// 1.23): the first ReduceMean feeds one or two Subs and nothing else, and
// no graph output; each Sub subtracts it from the ReduceMean's input; the
// Sub (or its duplicate) feeds a Div and the Pow; Div <- Sqrt <- Add <-
// ReduceMean <- Pow, each with exactly one consumer; Div -> Mul -> Add;
// both ReduceMeans reduce the same one axis, the last; the Mul and the Add
// each have a 1-D operand of the normalized size (scale and bias). The
// epsilon is the Add's second operand when it is a float constant, 1e-5
// otherwise; the Pow's exponent is not checked (ORT does not). Not fused
// here: the mixed-precision variants with Casts inside the pattern, which
// ORT also fuses (a model with them is computed as written).
//
// GeluFusion: x / sqrt(2) -> Erf -> + 1 -> * x, times 0.5 first or last.
//
// Neither fires where x is a DequantizeLinear output read by more than one
// node: ORT first gives each reader its own DequantizeLinear
// (EnsureUniqueDQForNodeUnit), so the pattern's two readers of x read two
// tensors. A LayerNorm there is left to SimplifiedLayerNormFusion
// (layer_norm_fusion.cc), which runs after LayerNormFusion: Pow(x) ->
// ReduceMean over one axis -> Add eps -> Sqrt -> Div(x, .) -> Mul by a 1-D
// scale, each but the Mul with one consumer, becomes
// SimplifiedLayerNormalization (x / sqrt(mean(x^2) + eps) * scale, the
// LayerNorm kernel without the mean); the ReduceMean and Sub before it,
// and the bias Add after it, stay.
//
// MatMulScaleFusion (matmul_scale_fusion.cc), after the two above as in
// ORT's level-2 list: a float MatMul whose operand is a Mul or Div by a
// float scalar constant (a Div's divisor; rank at most the other operand's,
// which has a known, non-scalar shape), or whose only consumer is one, runs
// as com.microsoft.FusedMatMul with alpha = the product of the scales (a
// divisor d contributes 1.0f / d). MLAS then scales each K stride's sum by
// alpha (OrtMath.h, mlasSgemm), which rounds differently from scaling an
// operand or the product. An operand's Mul/Div stays when something else
// reads it. Not repeated to a fixed point as ORT's loop would (a chain of
// two scales on one operand fuses one).
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
#include "OrtFusions.h"

#include "GuardedShapeInference.h"

#include "systole/Frontend/OnnxModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <map>
#include <optional>

namespace systole::frontend {

namespace {

/// Who produces and who consumes each value of a graph.
struct Uses {
  llvm::StringMap<int> producer;
  llvm::StringMap<llvm::SmallVector<int>> consumers; ///< one per input slot
  llvm::StringMap<const onnx::TensorProto *> constants;
  llvm::StringMap<int> rank;
  llvm::StringMap<int32_t> elemType; ///< ONNX TensorProto data type
  llvm::StringMap<int64_t> lastDim;
  llvm::DenseSet<llvm::StringRef> graphOutputs;
  /// A node's position in the graph (a RepeatedPtrField's elements are not
  /// contiguous, so this is not pointer arithmetic).
  llvm::DenseMap<const onnx::NodeProto *, int> index;
};

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

/// The one reduced axis of a ReduceMean (attribute before opset 18, a
/// constant input since), normalized against `rank`.
std::optional<int64_t> reducedAxis(const Uses &u, const onnx::NodeProto &n,
                                   int rank) {
  llvm::SmallVector<int64_t> axes;
  for (const auto &a : n.attribute())
    if (a.name() == "axes")
      axes.assign(a.ints().begin(), a.ints().end());
  if (n.input_size() > 1 && !n.input(1).empty()) {
    auto t = constantOf(u, n.input(1), onnx::TensorProto::INT64);
    if (!t)
      return std::nullopt;
    axes.assign(t->dataAs<int64_t>(), t->dataAs<int64_t>() + t->numElements());
  }
  if (axes.size() != 1 || rank <= 0)
    return std::nullopt;
  int64_t axis = axes[0] < 0 ? axes[0] + rank : axes[0];
  if (axis != rank - 1)
    return std::nullopt;
  return axes[0];
}

/// Whether `x` is a DequantizeLinear output read by more than one node:
/// ORT's EnsureUniqueDQForNodeUnit (level 1, before its fusions) gives
/// each reader its own copy, so a pattern that needs two of its nodes to
/// read one tensor (LayerNorm's ReduceMean and Sub, GELU's Div and Mul)
/// no longer matches there.
bool sharedDequantize(const onnx::GraphProto &g, const Uses &u,
                      llvm::StringRef x) {
  auto c = u.consumers.find(x);
  return isOp(nodeOf(g, u, x), "DequantizeLinear") && c != u.consumers.end() &&
         c->second.size() > 1;
}

/// The first element of a float32 constant.
std::optional<float> floatConstant(const Uses &u, llvm::StringRef name) {
  auto t = constantOf(u, name, onnx::TensorProto::FLOAT);
  if (!t || t->numElements() == 0)
    return std::nullopt;
  return t->dataAs<float>()[0];
}

/// The epsilon (the eps Add's constant, else ORT's default 1e-5) and axis
/// attributes of a fused LayerNormalization or SimplifiedLayerNormalization.
void setNormAttributes(onnx::NodeProto &n, const Uses &u,
                       const onnx::NodeProto &epsAdd, int64_t axis) {
  auto *eps = n.add_attribute();
  eps->set_name("epsilon");
  eps->set_type(onnx::AttributeProto::FLOAT);
  eps->set_f(floatConstant(u, epsAdd.input(1)).value_or(1e-5f));
  auto *ax = n.add_attribute();
  ax->set_name("axis");
  ax->set_type(onnx::AttributeProto::INT);
  ax->set_i(axis);
}

/// The LayerNormalization node that replaces the pattern rooted at the
/// ReduceMean `rm1`, and the nodes it replaces; nothing if ORT would not
/// fuse it (or would fuse it with Casts, which is not done here).
std::optional<std::pair<onnx::NodeProto, llvm::SmallVector<int>>>
matchLayerNorm(const onnx::GraphProto &g, const Uses &u,
               const onnx::NodeProto &rm1) {
  if (!isOp(&rm1, "ReduceMean") || rm1.output_size() != 1 ||
      rm1.input_size() < 1)
    return std::nullopt;
  size_t rmEdges = edges(u, rm1);
  if ((rmEdges != 1 && rmEdges != 2) || u.graphOutputs.contains(rm1.output(0)))
    return std::nullopt;
  const std::string &x = rm1.input(0);
  if (isOp(nodeOf(g, u, x), "Cast"))
    return std::nullopt; // ORT fuses a leading Cast away; not done here
  if (sharedDequantize(g, u, x))
    return std::nullopt;
  auto subs = children(g, u, rm1);
  for (const onnx::NodeProto *s : subs)
    if (!isOp(s, "Sub"))
      return std::nullopt;
  // Each Sub is x - mean.
  for (const onnx::NodeProto *s : subs)
    if (s->input_size() != 2 || s->input(0) != x ||
        s->input(1) != rm1.output(0))
      return std::nullopt;
  const onnx::NodeProto *sub = subs[0];
  const onnx::NodeProto *dup = subs.size() == 2 ? subs[1] : nullptr;
  if (!dup && edges(u, *sub) == 1 && isOp(children(g, u, *sub)[0], "Cast"))
    return std::nullopt; // the Cast variant
  if (edges(u, *sub) != (dup ? 1u : 2u))
    return std::nullopt;
  const onnx::NodeProto *div = firstChild(g, u, *sub, "Div");
  if (dup && !div)
    div = firstChild(g, u, *dup, "Div");
  if (!div || edges(u, *div) != 1)
    return std::nullopt;
  const onnx::NodeProto *sqrt = firstParent(g, u, *div, "Sqrt");
  if (!sqrt || edges(u, *sqrt) != 1 || sqrt->input_size() != 1)
    return std::nullopt;
  const onnx::NodeProto *add2 = nodeOf(g, u, sqrt->input(0));
  if (!isOp(add2, "Add") || edges(u, *add2) != 1 || add2->input_size() != 2)
    return std::nullopt;
  const onnx::NodeProto *rm2 = firstParent(g, u, *add2, "ReduceMean");
  if (!rm2 || edges(u, *rm2) != 1)
    return std::nullopt;
  const onnx::NodeProto *pow = nodeOf(g, u, rm2->input(0));
  if (!isOp(pow, "Pow") || edges(u, *pow) != 1)
    return std::nullopt;
  if (firstParent(g, u, *pow, "Cast"))
    return std::nullopt; // the Cast variant
  const onnx::NodeProto *sub2 = firstParent(g, u, *pow, "Sub");
  if (!sub2 || (sub2 != sub && sub2 != dup))
    return std::nullopt;
  auto divChildren = children(g, u, *div);
  if (divChildren.empty() || isOp(divChildren[0], "Cast"))
    return std::nullopt;
  const onnx::NodeProto *mul = divChildren[0];
  if (!isOp(mul, "Mul") || edges(u, *mul) != 1)
    return std::nullopt;
  const onnx::NodeProto *add = children(g, u, *mul)[0];
  if (!isOp(add, "Add") || add->output_size() != 1)
    return std::nullopt;
  auto rankIt = u.rank.find(x);
  if (rankIt == u.rank.end())
    return std::nullopt;
  auto axis1 = reducedAxis(u, rm1, rankIt->second);
  auto axis2 = reducedAxis(u, *rm2, rankIt->second);
  if (!axis1 || !axis2 || *axis1 != *axis2)
    return std::nullopt;
  // scale and bias: the (last) 1-D operand of the Mul and of the Add.
  auto oneD = [&](const onnx::NodeProto &n) -> std::string {
    std::string found;
    for (const std::string &in : n.input())
      if (auto r = u.rank.find(in); r != u.rank.end() && r->second == 1)
        found = in;
    return found;
  };
  std::string scale = oneD(*mul), bias = oneD(*add);
  if (scale.empty() || bias.empty())
    return std::nullopt;
  auto sd = u.lastDim.find(scale), bd = u.lastDim.find(bias);
  if (sd == u.lastDim.end() || bd == u.lastDim.end() ||
      sd->second != bd->second)
    return std::nullopt;

  onnx::NodeProto ln;
  ln.set_op_type("LayerNormalization");
  ln.set_name(add->name().empty() ? add->output(0) + ":LayerNorm"
                                  : add->name() + ":LayerNorm");
  ln.add_input(x);
  ln.add_input(scale);
  ln.add_input(bias);
  ln.add_output(add->output(0));
  setNormAttributes(ln, u, *add2, *axis1);

  llvm::SmallVector<int> replaced;
  llvm::DenseSet<const onnx::NodeProto *> inside;
  for (const onnx::NodeProto *n :
       {&rm1, sub, dup, div, sqrt, add2, rm2, pow, mul, add})
    if (n) {
      replaced.push_back(u.index.lookup(n));
      inside.insert(n);
    }
  // What the fused op drops must have no other reader (ORT checks this for
  // every node but the duplicated Sub).
  for (const onnx::NodeProto *n : inside)
    if (n != add)
      for (const onnx::NodeProto *c : children(g, u, *n))
        if (!inside.contains(c))
          return std::nullopt;
  return std::make_pair(std::move(ln), std::move(replaced));
}

/// Whether `name` is a float32 constant whose every element is within
/// float rounding of `want` (ORT's CheckConstantInput).
bool isConstant(const Uses &u, llvm::StringRef name, double want) {
  auto v = floatConstant(u, name);
  return v && std::abs(double(*v) - want) <= 1e-6 * std::abs(want);
}

/// The Gelu node that replaces the pattern rooted at the Div `div`.
std::optional<std::pair<onnx::NodeProto, llvm::SmallVector<int>>>
matchGelu(const onnx::GraphProto &g, const Uses &u,
          const onnx::NodeProto &div) {
  if (!isOp(&div, "Div") || div.input_size() != 2 || edges(u, div) != 1 ||
      !isConstant(u, div.input(1), M_SQRT2))
    return std::nullopt;
  const std::string &x = div.input(0);
  if (sharedDequantize(g, u, x))
    return std::nullopt;
  const onnx::NodeProto *erf = children(g, u, div)[0];
  if (!isOp(erf, "Erf") || edges(u, *erf) != 1)
    return std::nullopt;
  const onnx::NodeProto *add = children(g, u, *erf)[0];
  if (!isOp(add, "Add") || edges(u, *add) != 1 || add->input_size() != 2)
    return std::nullopt;
  if (!isConstant(u, add->input(add->input(0) == erf->output(0) ? 1 : 0), 1.0))
    return std::nullopt;
  const onnx::NodeProto *mul = children(g, u, *add)[0];
  if (!isOp(mul, "Mul") || mul->input_size() != 2 || mul->output_size() != 1)
    return std::nullopt;
  const std::string &other =
      mul->input(0) == add->output(0) ? mul->input(1) : mul->input(0);
  const onnx::NodeProto *half = nullptr, *last = mul;
  if (const onnx::NodeProto *mul2 = nodeOf(g, u, other);
      isOp(mul2, "Mul") && edges(u, *mul2) == 1 && mul2->input_size() == 2) {
    // (x * 0.5) * (erf(...) + 1)
    int c = mul2->input(0) == x ? 1 : 0;
    if (mul2->input(1 - c) != x || !isConstant(u, mul2->input(c), 0.5))
      return std::nullopt;
    half = mul2;
  } else if (other == x && edges(u, *mul) == 1) {
    // ((erf(...) + 1) * x) * 0.5
    const onnx::NodeProto *mul3 = children(g, u, *mul)[0];
    if (!isOp(mul3, "Mul") || mul3->input_size() != 2 ||
        mul3->output_size() != 1)
      return std::nullopt;
    int c = mul3->input(0) == mul->output(0) ? 1 : 0;
    if (!isConstant(u, mul3->input(c), 0.5))
      return std::nullopt;
    half = mul3;
    last = mul3;
  } else {
    return std::nullopt;
  }
  onnx::NodeProto gelu;
  gelu.set_op_type("Gelu");
  gelu.set_name(last->name().empty() ? last->output(0) + ":Gelu"
                                     : last->name() + ":Gelu");
  gelu.add_input(x);
  gelu.add_output(last->output(0));
  llvm::SmallVector<int> replaced;
  for (const onnx::NodeProto *n : {&div, erf, add, half, mul})
    if (n != last)
      replaced.push_back(u.index.lookup(n));
  replaced.push_back(u.index.lookup(last));
  return std::make_pair(std::move(gelu), std::move(replaced));
}

/// The SimplifiedLayerNormalization that replaces Pow -> ReduceMean -> Add
/// -> Sqrt -> Div -> Mul rooted at the Pow (SimplifiedLayerNormFusion,
/// header), and the nodes it replaces.
std::optional<std::pair<onnx::NodeProto, llvm::SmallVector<int>>>
matchSimplifiedLayerNorm(const onnx::GraphProto &g, const Uses &u,
                         const onnx::NodeProto &pow) {
  if (!isOp(&pow, "Pow") || pow.input_size() != 2 || pow.output_size() != 1 ||
      edges(u, pow) != 1 || u.graphOutputs.contains(pow.output(0)))
    return std::nullopt;
  const std::string &x = pow.input(0);
  if (auto t = u.elemType.find(x);
      t == u.elemType.end() || t->second != onnx::TensorProto::FLOAT)
    return std::nullopt;
  auto single = [&](const onnx::NodeProto *n, llvm::StringRef type) {
    return isOp(n, type) && n->output_size() == 1 && edges(u, *n) == 1 &&
           !u.graphOutputs.contains(n->output(0));
  };
  const onnx::NodeProto *rm = firstChild(g, u, pow, "ReduceMean");
  if (!single(rm, "ReduceMean"))
    return std::nullopt;
  const onnx::NodeProto *add = firstChild(g, u, *rm, "Add");
  if (!single(add, "Add") || add->input_size() != 2)
    return std::nullopt;
  const onnx::NodeProto *sqrt = firstChild(g, u, *add, "Sqrt");
  if (!single(sqrt, "Sqrt"))
    return std::nullopt;
  const onnx::NodeProto *div = firstChild(g, u, *sqrt, "Div");
  if (!single(div, "Div") || div->input_size() != 2 || div->input(0) != x)
    return std::nullopt;
  const onnx::NodeProto *mul = children(g, u, *div)[0];
  if (!isOp(mul, "Mul") || mul->output_size() != 1)
    return std::nullopt;
  auto rank = u.rank.find(x);
  if (rank == u.rank.end())
    return std::nullopt;
  auto axis = reducedAxis(u, *rm, rank->second);
  if (!axis)
    return std::nullopt;
  std::string scale; // the (last) 1-D operand of the Mul
  for (const std::string &in : mul->input())
    if (auto r = u.rank.find(in); r != u.rank.end() && r->second == 1)
      scale = in;
  if (scale.empty())
    return std::nullopt;
  onnx::NodeProto sln;
  sln.set_op_type("SimplifiedLayerNormalization");
  sln.set_name(mul->name().empty()
                   ? mul->output(0) + ":SimplifiedLayerNormFusion"
                   : mul->name() + "/SimplifiedLayerNormFusion/");
  sln.add_input(x);
  sln.add_input(scale);
  sln.add_output(mul->output(0));
  setNormAttributes(sln, u, *add, *axis);
  llvm::SmallVector<int> replaced;
  for (const onnx::NodeProto *n : {&pow, rm, add, sqrt, div, mul})
    replaced.push_back(u.index.lookup(n));
  return std::make_pair(std::move(sln), std::move(replaced));
}

/// The scale a Mul or Div node applies when ORT's MatMulScaleFusion takes
/// it (GetScaleFromNode): a float32 scalar constant whose rank is at most
/// the other operand's (a Div's divisor becomes 1.0f / divisor), and the
/// index of the other, scaled operand.
std::optional<std::pair<float, int>> scaleOf(const Uses &u,
                                             const onnx::NodeProto &n) {
  if (n.input_size() != 2 || n.output_size() != 1 || !n.domain().empty())
    return std::nullopt;
  auto scalar = [&](int i) -> std::optional<float> {
    auto c = u.constants.find(n.input(i));
    if (c == u.constants.end() ||
        c->second->data_type() != onnx::TensorProto::FLOAT)
      return std::nullopt;
    int64_t count = 1;
    for (int64_t d : c->second->dims())
      count *= d;
    auto other = u.rank.find(n.input(1 - i));
    int maxRank = other == u.rank.end() ? 0 : other->second;
    if (count != 1 || c->second->dims_size() > maxRank)
      return std::nullopt;
    return floatConstant(u, n.input(i));
  };
  if (n.op_type() == "Div") {
    if (auto d = scalar(1))
      return std::make_pair(1.0f / *d, 0);
    return std::nullopt;
  }
  if (n.op_type() == "Mul")
    for (int i = 0; i < 2; ++i)
      if (auto m = scalar(i))
        return std::make_pair(*m, 1 - i);
  return std::nullopt;
}

/// The FusedMatMul that replaces a float32 MatMul and the scales around it
/// (MatMulScaleFusion, header), and the nodes it replaces.
std::optional<std::pair<onnx::NodeProto, llvm::SmallVector<int>>>
matchMatMulScale(const onnx::GraphProto &g, const Uses &u,
                 const onnx::NodeProto &mm) {
  if (!isOp(&mm, "MatMul") || mm.input_size() != 2 || mm.output_size() != 1)
    return std::nullopt;
  for (const std::string &in : mm.input())
    if (auto t = u.elemType.find(in);
        t == u.elemType.end() || t->second != onnx::TensorProto::FLOAT)
      return std::nullopt;
  float alpha = 1.0f;
  std::string inputs[2] = {mm.input(0), mm.input(1)};
  llvm::SmallVector<int> replaced;
  // Operands: the scaled one must have a known, non-scalar shape.
  for (int i = 0; i < 2; ++i) {
    const onnx::NodeProto *p = nodeOf(g, u, mm.input(i));
    if (!p || (!isOp(p, "Mul") && !isOp(p, "Div")))
      continue;
    auto sc = scaleOf(u, *p);
    if (!sc)
      continue;
    auto r = u.rank.find(p->input(sc->second));
    if (r == u.rank.end() || r->second == 0)
      continue;
    alpha *= sc->first;
    inputs[i] = p->input(sc->second);
    // Dropped when nothing else reads it (ORT's CheckOutputEdges: no other
    // consumer, no graph output).
    if (edges(u, *p) == 1 && !u.graphOutputs.contains(p->output(0)))
      replaced.push_back(u.index.lookup(p));
  }
  // The result: one consumer, no graph output.
  std::string output = mm.output(0);
  const onnx::NodeProto *after = nullptr;
  if (edges(u, mm) == 1 && !u.graphOutputs.contains(mm.output(0))) {
    const onnx::NodeProto *c = children(g, u, mm)[0];
    if (isOp(c, "Mul") || isOp(c, "Div"))
      if (auto sc = scaleOf(u, *c);
          sc && c->input(sc->second) == mm.output(0)) {
        alpha *= sc->first;
        output = c->output(0);
        after = c;
      }
  }
  if (!after && inputs[0] == mm.input(0) && inputs[1] == mm.input(1))
    return std::nullopt;
  onnx::NodeProto fused;
  fused.set_op_type("FusedMatMul");
  fused.set_domain("com.microsoft");
  fused.set_name(mm.name().empty() ? output + ":MatMulScaleFusion"
                                   : mm.name() + "/MatMulScaleFusion/");
  fused.add_input(inputs[0]);
  fused.add_input(inputs[1]);
  fused.add_output(output);
  auto *a = fused.add_attribute();
  a->set_name("alpha");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(alpha);
  replaced.push_back(u.index.lookup(&mm));
  if (after)
    replaced.push_back(u.index.lookup(after));
  return std::make_pair(std::move(fused), std::move(replaced));
}

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

/// One round of DoubleQDQPairsRemover over `model`; whether it changed it.
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

std::optional<std::pair<onnx::NodeProto, llvm::SmallVector<int>>>
matchQdqSoftmax(const onnx::GraphProto &g, const Uses &u,
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

} // namespace

bool fuseLikeOrt(onnx::ModelProto &model) {
  onnx::GraphProto *g = model.mutable_graph();
  // Level 1's DoubleQDQPairsRemover, to a fixed point as ORT's loop.
  bool changed = false;
  for (int round = 0; round < 10 && removeDoubleQdqPairs(model); ++round)
    changed = true;
  bool any = llvm::any_of(g->node(), [](const onnx::NodeProto &n) {
    return n.op_type() == "ReduceMean" || n.op_type() == "Erf" ||
           n.op_type() == "MatMul" || n.op_type() == "Pow" ||
           n.op_type() == "Softmax";
  });
  if (!any)
    return changed;
  onnx::ModelProto inferred = model;
  inferShapesGuarded(inferred);
  Uses u = usesOf(*g, inferred.graph());
  // Matches are found on the original graph; each replaced node belongs to
  // one match (a ReduceMean or a Div is the root of at most one), and the
  // fused node takes the place of the pattern's last node.
  llvm::DenseSet<int> removed;
  std::map<int, onnx::NodeProto> insertAt;
  auto take = [&](auto match) {
    for (const onnx::NodeProto &n : g->node()) {
      auto m = match(n);
      if (!m ||
          llvm::any_of(m->second, [&](int i) { return removed.contains(i); }))
        continue;
      for (int i : m->second)
        removed.insert(i);
      insertAt[m->second.back()] = std::move(m->first);
    }
  };
  // In ORT's order: MatMulScaleFusion runs after LayerNorm and GELU (a GELU
  // whose x / sqrt(2) reads a MatMul stays a GELU).
  take([&](const onnx::NodeProto &n) {
    auto m = matchLayerNorm(*g, u, n);
    return m ? m : matchGelu(*g, u, n);
  });
  take([&](const onnx::NodeProto &n) {
    return matchSimplifiedLayerNorm(*g, u, n);
  });
  take([&](const onnx::NodeProto &n) { return matchMatMulScale(*g, u, n); });
  // Level 2's QDQ actions, after the level-1 fusions above.
  int64_t opset = 0;
  for (const auto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  take([&](const onnx::NodeProto &n) {
    return matchQdqSoftmax(*g, u, n, opset);
  });
  if (removed.empty())
    return changed;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g->node_size(); ++i) {
    if (auto it = insertAt.find(i); it != insertAt.end())
      *nodes.Add() = std::move(it->second);
    else if (!removed.contains(i))
      *nodes.Add() = g->node(i);
  }
  g->mutable_node()->Swap(&nodes);
  return true;
}

} // namespace systole::frontend
