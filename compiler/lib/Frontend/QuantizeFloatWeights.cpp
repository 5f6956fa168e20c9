//===- QuantizeFloatWeights.cpp - ORT's weight/bias quantization of QDQ ops
//===//
//
// A QDQ model may leave a Conv, ConvTranspose or Gemm with float weights
// between a DequantizeLinear and a QuantizeLinear (paddle2onnx's detectors,
// partially quantized exports). ONNX Runtime does not run those in float: its
// WeightBiasQuantization transformer (onnxruntime/core/optimizer/
// qdq_transformer/weight_bias_quantization.cc, on by default) quantizes the
// weight to int8 per tensor and the bias to int32, then runs the node group
// as a quantized op. ORT is the reference, so the same rewrite runs here on
// the ONNX graph before import, with ORT's arithmetic:
//
//   weight: min = min(0, min(w)), max = max(0, max(w)),
//           scale = max == min ? 1 : (max - min) / 255       (float32)
//           zp = round_half_even(clamp(-128 - min / scale, -128, 127))
//           q = clamp(round_half_even(w / scale) + zp, -128, 127)
//   bias:   scale = input_scale * weight_scale,
//           q = int32(round_half_even(b / scale)), zero point 0
//
// Conditions as ORT's: the data input comes from a per-tensor
// DequantizeLinear, the single consumer chain (through Relu/Clip) ends in a
// QuantizeLinear, the weight is a float32 initializer (or already
// dequantized: then only the bias is quantized), the bias a 1-D initializer.
//
//===----------------------------------------------------------------------===//
#include "QuantizeFloatWeights.h"

#include "systole/Frontend/OnnxModel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace systole::frontend {

namespace {

/// ORT's static_cast<int32_t>(float) as x86-64 compiles it (cvttss2si):
/// NaN and values outside int32 give INT32_MIN (a zero input scale makes
/// the bias infinite; in C++ that cast is undefined, found by UBSan).
int32_t toInt32LikeOrt(float x) {
  if (!(x >= -2147483648.0f && x < 2147483648.0f))
    return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(x);
}

float roundHalfToEven(float x) {
  if (!std::isfinite(x))
    return x;
  return x - std::remainderf(x, 1.0f);
}

/// Float values of a float32 initializer (raw or typed), or empty.
std::vector<float> floatsOf(const onnx::TensorProto &t) {
  if (t.data_type() != onnx::TensorProto::FLOAT)
    return {};
  auto h = tensorFromProto(t, "initializer");
  if (!h) {
    llvm::consumeError(h.takeError());
    return {};
  }
  return std::vector<float>(h->dataAs<float>(),
                            h->dataAs<float>() + h->numElements());
}

bool isScalarInitializer(const onnx::GraphProto &g, const std::string &name) {
  const onnx::TensorProto *t = findInitializer(g, name);
  if (!t)
    return false;
  int64_t n = 1;
  for (int64_t d : t->dims())
    n *= d;
  return n == 1;
}

} // namespace

bool quantizeFloatWeightsLikeOrt(onnx::ModelProto &model) {
  onnx::GraphProto &g = *model.mutable_graph();
  std::map<std::string, int> producer;
  std::map<std::string, std::vector<int>> consumers;
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto &o : g.node(i).output())
      producer[o] = i;
    for (const auto &in : g.node(i).input())
      if (!in.empty())
        consumers[in].push_back(i);
  }
  std::set<std::string> graphOutputs;
  for (const auto &o : g.output())
    graphOutputs.insert(o.name());
  auto onlyConsumer = [&](const std::string &v) -> int {
    auto it = consumers.find(v);
    if (graphOutputs.count(v) || it == consumers.end() ||
        it->second.size() != 1)
      return -1;
    return it->second[0];
  };
  bool changed = false;
  std::vector<onnx::TensorProto> newInits;
  std::vector<onnx::NodeProto> newNodes; // inserted before their user
  std::map<int, std::vector<onnx::NodeProto>> before;
  for (int i = 0; i < g.node_size(); ++i) {
    onnx::NodeProto &n = *g.mutable_node(i);
    const std::string &op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      continue;
    if ((op != "Conv" && op != "ConvTranspose" && op != "Gemm") ||
        n.input_size() < 2 || n.output_size() != 1)
      continue;
    auto p0 = producer.find(n.input(0));
    if (p0 == producer.end())
      continue;
    const onnx::NodeProto &dq0 = g.node(p0->second);
    if (dq0.op_type() != "DequantizeLinear" || dq0.input_size() < 2 ||
        !isScalarInitializer(g, dq0.input(1)))
      continue;
    // The single chain to a QuantizeLinear, through Relu/Clip.
    bool toQ = false;
    for (std::string v = n.output(0);;) {
      int c = onlyConsumer(v);
      if (c < 0)
        break;
      const onnx::NodeProto &cn = g.node(c);
      if (cn.op_type() == "QuantizeLinear") {
        toQ = true;
        break;
      }
      if ((cn.op_type() != "Relu" && cn.op_type() != "Clip") ||
          cn.output_size() != 1)
        break;
      v = cn.output(0);
    }
    if (!toQ)
      continue;
    auto p1 = producer.find(n.input(1));
    bool weightIsDq = p1 != producer.end() &&
                      g.node(p1->second).op_type() == "DequantizeLinear";
    const onnx::TensorProto *w =
        weightIsDq ? nullptr : findInitializer(g, n.input(1));
    if (!weightIsDq && (!w || w->data_type() != onnx::TensorProto::FLOAT))
      continue;
    const onnx::TensorProto *b = nullptr;
    if (n.input_size() >= 3 && !n.input(2).empty()) {
      b = findInitializer(g, n.input(2));
      if (!b || b->dims_size() != 1 ||
          b->data_type() != onnx::TensorProto::FLOAT)
        continue;
    }
    if (weightIsDq && !b)
      continue;
    std::string weightScaleName;
    std::vector<float> weightScales;
    if (weightIsDq) {
      const onnx::NodeProto &dq1 = g.node(p1->second);
      if (dq1.input_size() < 2)
        continue;
      const onnx::TensorProto *s = findInitializer(g, dq1.input(1));
      if (!s)
        continue;
      weightScales = floatsOf(*s);
      // Per-channel weights: ORT requires the Conv/Gemm channel axis; the
      // bias then gets one scale per channel (checked by its size).
      if (weightScales.size() != 1 &&
          int64_t(weightScales.size()) != (b ? b->dims(0) : -1))
        continue;
      weightScaleName = dq1.input(1);
    } else {
      std::vector<float> wv = floatsOf(*w);
      if (wv.empty())
        continue;
      float mn = *std::min_element(wv.begin(), wv.end());
      float mx = *std::max_element(wv.begin(), wv.end());
      mn = std::min(mn, 0.0f);
      mx = std::max(mx, 0.0f);
      float scale = mx == mn ? 1.0f : (mx - mn) / 255.0f;
      float zpf = roundHalfToEven(
          std::max(-128.0f, std::min(127.0f, -128.0f - mn / scale)));
      int8_t zp = static_cast<int8_t>(zpf);
      onnx::TensorProto q;
      q.set_name(n.name() + "_weight_q");
      q.set_data_type(onnx::TensorProto::INT8);
      *q.mutable_dims() = w->dims();
      std::string raw(wv.size(), '\0');
      for (size_t k = 0; k < wv.size(); ++k) {
        float v = roundHalfToEven(wv[k] / scale) + float(zp);
        v = std::max(-128.0f, std::min(127.0f, v));
        raw[k] = static_cast<char>(static_cast<int8_t>(v));
      }
      q.set_raw_data(raw);
      onnx::TensorProto s;
      s.set_name(n.name() + "_weight_scale");
      s.set_data_type(onnx::TensorProto::FLOAT);
      s.add_float_data(scale);
      onnx::TensorProto z;
      z.set_name(n.name() + "_weight_zp");
      z.set_data_type(onnx::TensorProto::INT8);
      z.add_int32_data(zp);
      onnx::NodeProto dq;
      dq.set_op_type("DequantizeLinear");
      dq.set_name(n.name() + "_weight_dq");
      dq.add_input(q.name());
      dq.add_input(s.name());
      dq.add_input(z.name());
      dq.add_output(n.name() + "_weight_dq");
      newInits.push_back(q);
      newInits.push_back(s);
      newInits.push_back(z);
      before[i].push_back(dq);
      n.set_input(1, dq.output(0));
      weightScaleName = s.name();
      weightScales = {scale};
    }
    if (b) {
      std::vector<float> inScale = floatsOf(*findInitializer(g, dq0.input(1)));
      std::vector<float> bv = floatsOf(*b);
      if (inScale.size() != 1 || bv.empty())
        continue;
      onnx::TensorProto bq;
      bq.set_name(n.name() + "_bias_int32");
      bq.set_data_type(onnx::TensorProto::INT32);
      *bq.mutable_dims() = b->dims();
      onnx::TensorProto bs;
      bs.set_name(n.name() + "_bias_scale");
      bs.set_data_type(onnx::TensorProto::FLOAT);
      if (weightScales.size() > 1)
        bs.add_dims(int64_t(weightScales.size()));
      for (float ws : weightScales)
        bs.add_float_data(inScale[0] * ws);
      for (size_t k = 0; k < bv.size(); ++k) {
        float sc = bs.float_data(weightScales.size() > 1 ? int(k) : 0);
        bq.add_int32_data(toInt32LikeOrt(roundHalfToEven(bv[k] / sc)));
      }
      onnx::NodeProto dq;
      dq.set_op_type("DequantizeLinear");
      dq.set_name(n.name() + "_bias_dq");
      dq.add_input(bq.name());
      dq.add_input(bs.name());
      dq.add_output(n.name() + "_bias_dq");
      if (weightScales.size() > 1) {
        auto *axis = dq.add_attribute();
        axis->set_name("axis");
        axis->set_type(onnx::AttributeProto::INT);
        axis->set_i(0);
      }
      newInits.push_back(bq);
      newInits.push_back(bs);
      before[i].push_back(dq);
      n.set_input(2, dq.output(0));
    }
    (void)weightScaleName;
    changed = true;
  }
  if (!changed)
    return false;
  for (auto &t : newInits)
    *g.add_initializer() = std::move(t);
  // Rebuild the node list with each new DequantizeLinear before its user,
  // keeping the topological order ONNX requires.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g.node_size(); ++i) {
    auto it = before.find(i);
    if (it != before.end())
      for (auto &d : it->second)
        *nodes.Add() = std::move(d);
    *nodes.Add() = g.node(i);
  }
  g.mutable_node()->Swap(&nodes);
  return true;
}

} // namespace systole::frontend
