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
// ORT's QDQ rewrites (DoubleQDQPairsRemover first, the QDQ Softmax after
// the float fusions) are in OrtQdqFusions.cpp.
//
//===----------------------------------------------------------------------===//
#include "OrtFusions.h"

#include "GuardedShapeInference.h"
#include "OrtGraph.h"

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

using namespace ort;

namespace {

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
