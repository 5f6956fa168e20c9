//===- ConvTransposeAsConv.cpp - Upsampling ConvTranspose as Conv + D2S ---===//
//
// A ConvTranspose of stride s writes output row t (per spatial dim, the
// full output cropped by the begin padding pb) from the input rows i with
// t + pb = i s + j, j a kernel tap: phase A = t mod s reads taps
// j = m s + a, a = (A + pb) mod s, from input rows Y + d - m, d =
// (A + pb) div s, m >= 0, for output row t = Y s + A. So every phase is an
// ordinary correlation over the undilated input, and all s^2 phases are one
// convolution of s^2 Cout filters (filter (A_h s + A_w) Cout + o holds phase
// (A_h, A_w) of filter o; taps a phase does not use hold the weight's zero
// point, i.e. 0) whose window spans the union of the phases' offsets,
// followed by a DCR DepthToSpace of block s that interleaves the phases.
// With groups, filter o * s^2 + phase holds phase `phase` of output o (the
// grouped convolution keeps each group's filters together) and the
// DepthToSpace is CRD (a channel gather into DCR order on the NPU).
// Conditions: no dilation, equal strides (a square block), and
// an output a multiple of s (k - pb - pe + output_padding divisible by s:
// "same"-style upsampling such as k = s, or k = 2s with pads s/2, as
// detection heads, U-Nets, GAN generators and FCNs use). For k = s the
// convolution is 1x1 and does exactly the model's MACs; otherwise it also
// multiplies the zero taps, and the placement report still counts the
// model's MACs (graph.model_macs).
//
// In a QDQ model (DequantizeLinear -> ConvTranspose [-> Relu/Clip] ->
// QuantizeLinear) the rewrite below makes the pair the NPU runs (a
// quantized convolution with its activation, and a DepthToSpace copy) with
// a QuantizeLinear/DequantizeLinear of the output's own parameters between
// them: the DepthToSpace only moves bytes, so activating and quantizing
// before it is the same as after.
//
// Numerics: ONNX Runtime 1.23 has no integer kernel for a QDQ ConvTranspose
// on the CPU; it dequantizes and runs the float kernel, so its sum is a
// float approximation of the exact integer one the NPU computes. The two
// quantize to the same code except when the exact value lies within the
// float sum's rounding error of a half-way point between two codes (the
// same caveat as ORT's float FusedConv, docs/compiler.md). ppocr_det's two
// upsampling layers are bit-exact with ORT on the zoo's inputs; ImportOptions
// ::hostConvTranspose keeps every ConvTranspose in float on the host.
//
// Runs on the ONNX graph before import, after quantizeFloatWeightsLikeOrt
// (which gives a float-weight ConvTranspose its int8 weight and int32 bias
// as ORT does).
//
//===----------------------------------------------------------------------===//
#include "ConvTransposeAsConv.h"

#include "systole/Frontend/OnnxModel.h"

#include <map>
#include <optional>
#include <set>

namespace systole::frontend {

namespace {

const onnx::AttributeProto *findAttr(const onnx::NodeProto &n,
                                     const std::string &name) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

std::vector<int64_t> intsAttr(const onnx::NodeProto &n,
                              const std::string &name) {
  const onnx::AttributeProto *a = findAttr(n, name);
  if (!a)
    return {};
  return {a->ints().begin(), a->ints().end()};
}

bool allEqual(const std::vector<int64_t> &v, int64_t x) {
  for (int64_t e : v)
    if (e != x)
      return false;
  return true;
}

int64_t numElements(const onnx::TensorProto &t) {
  int64_t n = 1;
  for (int64_t d : t.dims())
    n *= d;
  return n;
}

/// A per-tensor (scalar) initializer or one of `channels` values.
bool scalarOrPerChannel(const onnx::TensorProto *t, int64_t channels) {
  if (!t)
    return false;
  if (t->dims_size() == 0 || numElements(*t) == 1)
    return true;
  return t->dims_size() == 1 && t->dims(0) == channels;
}

/// How one spatial dim of a ConvTranspose maps onto the convolution.
struct DimPlan {
  int64_t taps = 0;   // the convolution's window
  int64_t minOff = 0; // input offset of its first tap
  int64_t padBegin = 0, padEnd = 0;
  std::vector<int64_t> a, d, m; // per phase: first tap, row shift, tap count
};

std::optional<DimPlan> planDim(int64_t k, int64_t s, int64_t pb, int64_t pe,
                               int64_t outPad) {
  // out = (in - 1) s + span, so out is a multiple of s iff span is.
  int64_t span = k - pb - pe + outPad;
  // ONNX bounds output_padding by the stride; kernel, pads and stride are
  // bounded here so a hostile model cannot ask for a huge weight.
  if (k < 1 || k > 64 || s < 1 || s > 16 || pb < 0 || pb >= 64 || pe < 0 ||
      pe >= 64 || outPad < 0 || outPad >= s || span <= 0 || span % s)
    return std::nullopt;
  DimPlan p;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t phase = 0; phase < s; ++phase) {
    int64_t a = (phase + pb) % s, d = (phase + pb) / s;
    int64_t m = a < k ? (k - a + s - 1) / s : 0;
    p.a.push_back(a);
    p.d.push_back(d);
    p.m.push_back(m);
    if (m > 0) {
      lo = std::min(lo, d - m + 1);
      hi = std::max(hi, d);
    }
  }
  if (lo > hi)
    return std::nullopt;
  p.minOff = lo;
  p.taps = hi - lo + 1;
  // Output row Y reads input rows Y + lo .. Y + hi; Y < out / s.
  p.padBegin = -lo;
  p.padEnd = span / s - 1 + hi;
  // A negative padding would be a crop, which a Conv cannot express.
  if (p.padBegin < 0 || p.padEnd < 0 || p.taps > 64)
    return std::nullopt;
  return p;
}

/// Kernel tap of phase `phase` at window position `u`, or -1 (a zero tap).
int64_t tapOf(const DimPlan &p, int64_t s, int64_t phase, int64_t u) {
  int64_t m = p.d[phase] - (u + p.minOff);
  if (m < 0 || m >= p.m[phase])
    return -1;
  return m * s + p.a[phase];
}

/// Where filter f of the convolution takes its per-channel parameters
/// from: DCR order (one group) puts phase-major filters f = phase * Cout + o,
/// CRD order (groups) filter-major ones f = o * taps + phase.
struct FilterOrder {
  bool crd = false;
  int64_t taps = 1;
  /// Index into `n` per-channel values (n = Cout, or Cout/group for a
  /// weight's axis-1 parameters, which repeat over the groups).
  int64_t source(int64_t f, int64_t n) const {
    return (crd ? f / taps : f) % n;
  }
};

/// `t` with one value per filter of `filters`, value f taken from
/// `order.source(f, C)`, named `name`; a scalar stays one value unless
/// `perFilter` (a bias has one value per filter even with one output
/// channel).
onnx::TensorProto repeated(const onnx::TensorProto &t, int64_t filters,
                           const FilterOrder &order, const std::string &name,
                           bool perFilter = false) {
  auto h = tensorFromProto(t, name);
  onnx::TensorProto r;
  r.set_name(name);
  r.set_data_type(t.data_type());
  int64_t n = h->numElements();
  size_t elem = h->byteSize() / std::max<int64_t>(n, 1);
  if (!perFilter && (t.dims_size() == 0 || n == 1)) {
    *r.mutable_dims() = t.dims();
    r.set_raw_data(
        std::string(reinterpret_cast<const char *>(h->data()), h->byteSize()));
    return r;
  }
  r.add_dims(filters);
  std::string raw;
  const char *src = reinterpret_cast<const char *>(h->data());
  for (int64_t f = 0; f < filters; ++f)
    raw.append(src + order.source(f, n) * elem, elem);
  r.set_raw_data(raw);
  return r;
}

/// DequantizeLinear `name`_dq of `data` (one row per filter) with the
/// parameters of `dq`: per-channel ones spread over the filters along axis
/// 0, a per-tensor pair reused by name.
onnx::NodeProto dequantizeRepeated(const std::string &name,
                                   const std::string &data,
                                   const onnx::NodeProto &dq,
                                   const onnx::TensorProto *scale,
                                   const onnx::TensorProto *zp, int64_t filters,
                                   const FilterOrder &order,
                                   std::vector<onnx::TensorProto> &newInits) {
  onnx::NodeProto d;
  d.set_op_type("DequantizeLinear");
  d.set_name(name + "_dq");
  d.add_input(data);
  if (numElements(*scale) > 1) {
    newInits.push_back(repeated(*scale, filters, order, name + "_scale"));
    d.add_input(newInits.back().name());
    if (zp) {
      newInits.push_back(repeated(*zp, filters, order, name + "_zp"));
      d.add_input(newInits.back().name());
    }
    onnx::AttributeProto axis;
    axis.set_name("axis");
    axis.set_type(onnx::AttributeProto::INT);
    axis.set_i(0);
    *d.add_attribute() = axis;
  } else {
    for (int k = 1; k < dq.input_size(); ++k)
      d.add_input(dq.input(k));
  }
  d.add_output(d.name());
  return d;
}

onnx::AttributeProto intsAttribute(const std::string &name,
                                   std::vector<int64_t> v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t e : v)
    a.add_ints(e);
  return a;
}

onnx::AttributeProto intAttribute(const std::string &name, int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}

} // namespace

bool convTransposeAsConv(onnx::ModelProto &model,
                         std::map<std::string, ConvTransposeOrigin> &origins) {
  onnx::GraphProto &g = *model.mutable_graph();
  std::map<std::string, int> producer;
  std::map<std::string, int> uses;
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto &o : g.node(i).output())
      producer[o] = i;
    for (const auto &in : g.node(i).input())
      ++uses[in];
  }
  std::set<std::string> graphOutputs;
  for (const auto &o : g.output())
    graphOutputs.insert(o.name());
  int64_t opset = opsetVersion(model, "");
  auto dqOf = [&](const std::string &v) -> const onnx::NodeProto * {
    auto p = producer.find(v);
    if (p == producer.end())
      return nullptr;
    const onnx::NodeProto &d = g.node(p->second);
    if (d.op_type() != "DequantizeLinear" || d.input_size() < 2 ||
        (!d.domain().empty() && d.domain() != "ai.onnx"))
      return nullptr;
    return &d;
  };

  std::map<int, std::vector<onnx::NodeProto>> replace;
  std::vector<onnx::TensorProto> newInits;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &n = g.node(i);
    if (n.op_type() != "ConvTranspose" ||
        (!n.domain().empty() && n.domain() != "ai.onnx") ||
        n.input_size() < 2 || n.output_size() != 1)
      continue;
    // The QDQ frame: a per-tensor input, one QuantizeLinear reader.
    const onnx::NodeProto *dqx = dqOf(n.input(0));
    if (!dqx || !scalarOrPerChannel(findInitializer(g, dqx->input(1)), 1))
      continue;
    // Its one reader, through at most one Relu/Clip (elementwise, so it
    // may run before the DepthToSpace as well as after).
    auto onlyReader = [&](const std::string &v) -> int {
      if (graphOutputs.count(v) || uses[v] != 1)
        return -1;
      for (int c = 0; c < g.node_size(); ++c)
        for (const auto &in : g.node(c).input())
          if (in == v)
            return c;
      return -1;
    };
    int reader = onlyReader(n.output(0));
    int act = -1;
    if (reader >= 0 &&
        (g.node(reader).op_type() == "Relu" ||
         g.node(reader).op_type() == "Clip") &&
        g.node(reader).output_size() == 1 &&
        g.node(reader).input(0) == n.output(0)) {
      act = reader;
      reader = onlyReader(g.node(act).output(0));
    }
    if (reader < 0)
      continue;
    const onnx::NodeProto *q = &g.node(reader);
    // y: what the QuantizeLinear reads, the DepthToSpace's output.
    const std::string &y = act >= 0 ? g.node(act).output(0) : n.output(0);
    if (q->op_type() != "QuantizeLinear" || q->input(0) != y ||
        q->input_size() < 2 ||
        !scalarOrPerChannel(findInitializer(g, q->input(1)), 1))
      continue;
    // The weight: DequantizeLinear of an int8/uint8 [Cin, Cout, s, s].
    const onnx::NodeProto *dqw = dqOf(n.input(1));
    if (!dqw)
      continue;
    const onnx::TensorProto *w = findInitializer(g, dqw->input(0));
    if (!w || w->dims_size() != 4 ||
        (w->data_type() != onnx::TensorProto::INT8 &&
         w->data_type() != onnx::TensorProto::UINT8))
      continue;
    // Groups: weight [Cin, Cout/G, k, k]; the convolution is grouped the
    // same way, its filters in CRD order (see FilterOrder).
    const onnx::AttributeProto *group = findAttr(n, "group");
    int64_t groups = group ? group->i() : 1;
    int64_t cin = w->dims(0), coutG = w->dims(1), kh = w->dims(2),
            kw = w->dims(3);
    if (kh < 1 || kw < 1 || cin < 1 || coutG < 1 || groups < 1 ||
        cin % groups || (groups > 1 && opset < 11))
      continue;
    int64_t cinG = cin / groups, cout = groups * coutG;
    std::vector<int64_t> ks = intsAttr(n, "kernel_shape");
    if (!ks.empty() && ks != std::vector<int64_t>{kh, kw})
      continue;
    std::vector<int64_t> st = intsAttr(n, "strides");
    if (st.size() != 2 || st[0] != st[1] || st[0] < 1)
      continue;
    int64_t s = st[0];
    std::vector<int64_t> pads = intsAttr(n, "pads");
    std::vector<int64_t> outPad = intsAttr(n, "output_padding");
    if (pads.empty())
      pads.assign(4, 0);
    if (outPad.empty())
      outPad.assign(2, 0);
    if (pads.size() != 4 || outPad.size() != 2 ||
        !allEqual(intsAttr(n, "dilations"), 1) || findAttr(n, "output_shape"))
      continue;
    // SAME_*: the output is in * s, the padding k - s + output_padding
    // split as ONNX says (the odd one at the end for SAME_UPPER).
    if (const onnx::AttributeProto *ap = findAttr(n, "auto_pad")) {
      if (ap->s() == "SAME_UPPER" || ap->s() == "SAME_LOWER") {
        for (int dim = 0; dim < 2; ++dim) {
          int64_t total = (dim ? kw : kh) - s + outPad[dim];
          int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
          pads[dim] = ap->s() == "SAME_UPPER" ? half : total - half;
          pads[dim + 2] = total - pads[dim];
        }
      } else if (ap->s() == "VALID") {
        pads.assign(4, 0);
      } else if (ap->s() != "NOTSET") {
        continue;
      }
    }
    std::optional<DimPlan> ph = planDim(kh, s, pads[0], pads[2], outPad[0]);
    std::optional<DimPlan> pw = planDim(kw, s, pads[1], pads[3], outPad[1]);
    if (!ph || !pw)
      continue;
    const onnx::TensorProto *wScale = findInitializer(g, dqw->input(1));
    const onnx::TensorProto *wZp =
        dqw->input_size() > 2 ? findInitializer(g, dqw->input(2)) : nullptr;
    if (!scalarOrPerChannel(wScale, coutG) ||
        (dqw->input_size() > 2 && !scalarOrPerChannel(wZp, coutG)))
      continue;
    bool wPerChannel = numElements(*wScale) > 1;
    if (wPerChannel) {
      const onnx::AttributeProto *axis = findAttr(*dqw, "axis");
      if (!axis || axis->i() != 1)
        continue;
    }
    // The optional bias: DequantizeLinear of an int32 [Cout].
    const onnx::NodeProto *dqb = nullptr;
    const onnx::TensorProto *bias = nullptr, *bScale = nullptr, *bZp = nullptr;
    if (n.input_size() > 2 && !n.input(2).empty()) {
      dqb = dqOf(n.input(2));
      if (!dqb)
        continue;
      bias = findInitializer(g, dqb->input(0));
      bScale = findInitializer(g, dqb->input(1));
      bZp = dqb->input_size() > 2 ? findInitializer(g, dqb->input(2)) : nullptr;
      if (!bias || bias->data_type() != onnx::TensorProto::INT32 ||
          bias->dims_size() != 1 || bias->dims(0) != cout ||
          !scalarOrPerChannel(bScale, cout) ||
          (dqb->input_size() > 2 && !scalarOrPerChannel(bZp, cout)))
        continue;
    }
    // Every tensor read must hold what its dims say (hostile models).
    bool wellFormed = true;
    for (const onnx::TensorProto *t : {w, wScale, wZp, bias, bScale, bZp})
      if (t)
        if (llvm::Error e = checkTensorStorage(*t, "")) {
          llvm::consumeError(std::move(e));
          wellFormed = false;
        }
    if (!wellFormed)
      continue;

    std::string base = (n.name().empty() ? y : n.name()) + "_as_conv";
    int64_t taps = s * s, filters = taps * cout;
    // The weight the convolution needs (zero taps included) stays within
    // what a real upsampling layer uses (a hostile model can declare any).
    if (filters * cinG * ph->taps * pw->taps > (int64_t(1) << 28))
      continue;
    FilterOrder order{groups > 1, taps};
    // Filter f = phase (A_h s + A_w) and output o (DCR: f = phase Cout + o;
    // CRD: f = o taps + phase): W'[f, c, u, v] = W[g Cin/G + c, o mod Cout/G,
    // tap_h, tap_w] for o's group g, or the weight's zero point (a 0 after
    // DequantizeLinear) where the phase has no tap at (u, v).
    auto wt = tensorFromProto(*w, base);
    if (!wt) {
      llvm::consumeError(wt.takeError());
      continue;
    }
    std::vector<char> zp(size_t(coutG), 0);
    if (wZp) {
      auto z = tensorFromProto(*wZp, base);
      if (!z) {
        llvm::consumeError(z.takeError());
        continue;
      }
      for (int64_t o = 0; o < coutG; ++o)
        zp[size_t(o)] = reinterpret_cast<const char *>(
            z->data())[z->numElements() == 1 ? 0 : o];
    }
    const char *wb = reinterpret_cast<const char *>(wt->data());
    int64_t th = ph->taps, tw = pw->taps;
    std::string raw(size_t(filters * cinG * th * tw), '\0');
    for (int64_t ah = 0; ah < s; ++ah)
      for (int64_t aw = 0; aw < s; ++aw)
        for (int64_t o = 0; o < cout; ++o) {
          int64_t phase = ah * s + aw, g = o / coutG, og = o % coutG;
          int64_t f = order.crd ? o * taps + phase : phase * cout + o;
          for (int64_t c = 0; c < cinG; ++c)
            for (int64_t u = 0; u < th; ++u)
              for (int64_t v = 0; v < tw; ++v) {
                int64_t jh = tapOf(*ph, s, ah, u), jw = tapOf(*pw, s, aw, v);
                int64_t ci = g * cinG + c;
                raw[size_t(((f * cinG + c) * th + u) * tw + v)] =
                    jh < 0 || jw < 0
                        ? zp[size_t(og)]
                        : wb[size_t(((ci * coutG + og) * kh + jh) * kw + jw)];
              }
        }
    onnx::TensorProto w2;
    w2.set_name(base + "_w");
    w2.set_data_type(w->data_type());
    for (int64_t d : {filters, cinG, th, tw})
      w2.add_dims(d);
    w2.set_raw_data(raw);
    newInits.push_back(w2);

    std::vector<onnx::NodeProto> seq;
    onnx::NodeProto dqw2 = dequantizeRepeated(
        base + "_w", w2.name(), *dqw, wScale, wZp, filters, order, newInits);
    seq.push_back(dqw2);

    onnx::NodeProto conv;
    conv.set_op_type("Conv");
    // The user's node name: reports and placement tables name it.
    conv.set_name(n.name().empty() ? base : n.name());
    conv.add_input(n.input(0));
    conv.add_input(dqw2.output(0));
    if (dqb) {
      newInits.push_back(
          repeated(*bias, filters, order, base + "_b", /*perFilter=*/true));
      onnx::NodeProto dqb2 =
          dequantizeRepeated(base + "_b", newInits.back().name(), *dqb, bScale,
                             bZp, filters, order, newInits);
      seq.push_back(dqb2);
      conv.add_input(dqb2.output(0));
    }
    *conv.add_attribute() = intsAttribute("kernel_shape", {th, tw});
    if (groups > 1)
      *conv.add_attribute() = intAttribute("group", groups);
    *conv.add_attribute() = intsAttribute(
        "pads", {ph->padBegin, pw->padBegin, ph->padEnd, pw->padEnd});
    // Stride 1: one phase, the convolution is the whole ConvTranspose
    // (its output keeps the name; any activation and the QuantizeLinear
    // stay where they are).
    conv.add_output(s == 1 ? n.output(0) : base + "_y");
    seq.push_back(conv);
    origins[conv.output(0)] = {kh * kw, coutG};
    if (s == 1) {
      replace[i] = std::move(seq);
      continue;
    }

    std::string convOut = conv.output(0);
    if (act >= 0) {
      onnx::NodeProto a = g.node(act);
      a.set_name(base + "_act");
      a.set_input(0, convOut);
      a.clear_output();
      a.add_output(base + "_act");
      convOut = a.output(0);
      seq.push_back(a);
    }
    // Quantized with the ConvTranspose output's parameters, then moved.
    onnx::NodeProto q2 = *q;
    q2.set_name(base + "_q");
    q2.set_input(0, convOut);
    q2.clear_output();
    q2.add_output(base + "_q");
    seq.push_back(q2);
    onnx::NodeProto dq2;
    dq2.set_op_type("DequantizeLinear");
    dq2.set_name(base + "_dq");
    dq2.add_input(q2.output(0));
    for (int k = 1; k < q->input_size(); ++k)
      dq2.add_input(q->input(k));
    dq2.add_output(base + "_dq");
    seq.push_back(dq2);
    onnx::NodeProto d2s;
    d2s.set_op_type("DepthToSpace");
    d2s.set_name(base + "_depth_to_space");
    d2s.add_input(dq2.output(0));
    d2s.add_output(y);
    *d2s.add_attribute() = intAttribute("blocksize", s);
    if (opset >= 11) {
      onnx::AttributeProto mode;
      mode.set_name("mode");
      mode.set_type(onnx::AttributeProto::STRING);
      mode.set_s(order.crd ? "CRD" : "DCR");
      *d2s.add_attribute() = mode;
    }
    seq.push_back(d2s);
    replace[i] = std::move(seq);
    if (act >= 0)
      replace[act] = {}; // now before the DepthToSpace
  }
  if (replace.empty())
    return false;
  for (auto &t : newInits)
    *g.add_initializer() = std::move(t);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g.node_size(); ++i) {
    auto it = replace.find(i);
    if (it == replace.end()) {
      *nodes.Add() = g.node(i);
      continue;
    }
    for (auto &r : it->second)
      *nodes.Add() = std::move(r);
  }
  g.mutable_node()->Swap(&nodes);
  return true;
}

} // namespace systole::frontend
