//===- ImportRecurrent.cpp - ONNX RNN, GRU and LSTM on the host -----------===//
//
// The recurrent ops as graph.host ops. Every attribute of ONNX's schema is
// read and checked here: direction (forward, reverse, bidirectional),
// layout 0/1, activations with activation_alpha/beta (the defaults and the
// alternatives ONNX lists, alpha/beta consumed in order by the functions
// that take them, as ORT does), clip, GRU's linear_before_reset and LSTM's
// input_forget and peepholes, and sequence_lens (a constant one outside
// [0, seq_length] is an import error). Resolved, they become the op's
// params (HostRecurrence.h); Conversion/OnnxToLinalg/Recurrent.cpp builds
// the bodies. graph.host has one result, so Y, Y_h and Y_c are one op each.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Conversion/HostRecurrence.h"

#include <optional>

using namespace mlir;

namespace systole::frontend {

namespace {

using conversion::Activation;
using conversion::Cell;
using conversion::Recurrence;

/// Which alpha/beta each activation takes and ORT's defaults for them.
struct ActivationInfo {
  bool alpha, beta;
  float alphaDefault, betaDefault;
};
std::optional<ActivationInfo> activationInfo(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ActivationInfo>>(name)
      .Case("relu", ActivationInfo{false, false, 0, 0})
      .Case("tanh", ActivationInfo{false, false, 0, 0})
      .Case("sigmoid", ActivationInfo{false, false, 0, 0})
      .Case("softsign", ActivationInfo{false, false, 0, 0})
      .Case("softplus", ActivationInfo{false, false, 0, 0})
      .Case("affine", ActivationInfo{true, true, 0, 0})
      .Case("scaledtanh", ActivationInfo{true, true, 0, 0})
      .Case("leakyrelu", ActivationInfo{true, false, 0.01f, 0})
      .Case("thresholdedrelu", ActivationInfo{true, false, 0, 0})
      .Case("hardsigmoid", ActivationInfo{true, true, 0.2f, 0.5f})
      .Case("elu", ActivationInfo{true, false, 1.0f, 0})
      .Default(std::nullopt);
}

llvm::Expected<Recurrence> parse(ImportContext &ic, Cell cell) {
  Recurrence rc;
  rc.cell = cell;
  rc.gates = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
  auto x = ic.input(0), w = ic.input(1), r = ic.input(2);
  if (!x)
    return x.takeError();
  if (!w)
    return w.takeError();
  if (!r)
    return r.takeError();
  Type elem = elementOf(*x);
  if (!isa<FloatType>(elem) || elementOf(*w) != elem || elementOf(*r) != elem)
    return ic.fail("expects float X, W and R of one element type");
  auto xs = shapeOf(*x), ws = shapeOf(*w), rs = shapeOf(*r);
  if (xs.size() != 3 || ws.size() != 3 || rs.size() != 3)
    return ic.fail("X, W and R must be 3-D");
  int64_t layout = ic.attrInt("layout", 0);
  if (layout != 0 && layout != 1)
    return ic.fail("layout " + llvm::Twine(layout) + " is not 0 or 1");
  rc.batchMajor = layout == 1;
  rc.seq = rc.batchMajor ? xs[1] : xs[0];
  rc.batch = rc.batchMajor ? xs[0] : xs[1];
  rc.input = xs[2];
  rc.hidden = ic.attrInt("hidden_size", rs[2]);
  std::string direction = ic.attrString("direction", "forward");
  if (direction == "bidirectional")
    rc.dirs = 2;
  else if (direction == "reverse")
    rc.reverse = true;
  else if (direction != "forward")
    return ic.fail("direction '" + direction + "' is not supported");
  int64_t gh = rc.gates * rc.hidden;
  if (ws[0] != rc.dirs || ws[1] != gh || ws[2] != rc.input)
    return ic.fail("W must have shape [" + llvm::Twine(rc.dirs) + ", " +
                   llvm::Twine(gh) + ", " + llvm::Twine(rc.input) + "]");
  if (rs[0] != rc.dirs || rs[1] != gh || rs[2] != rc.hidden)
    return ic.fail("R must have shape [" + llvm::Twine(rc.dirs) + ", " +
                   llvm::Twine(gh) + ", " + llvm::Twine(rc.hidden) + "]");

  // Optional operands, in the graph.host op's input order after X, W, R.
  int next = 3;
  auto optional = [&](int idx, ArrayRef<int64_t> want,
                      const char *what) -> llvm::Expected<int> {
    if (!ic.hasInput(idx))
      return -1;
    auto v = ic.input(idx);
    if (!v)
      return v.takeError();
    if (elementOf(*v) != elem || shapeOf(*v) != want) {
      std::string s;
      for (int64_t d : want)
        s += (s.empty() ? "" : ", ") + std::to_string(d);
      return ic.fail(llvm::Twine(what) +
                     " must be a tensor of X's type with "
                     "shape [" +
                     s + "]");
    }
    return next++;
  };
  SmallVector<int64_t> stateShape =
      rc.batchMajor ? SmallVector<int64_t>{rc.batch, rc.dirs, rc.hidden}
                    : SmallVector<int64_t>{rc.dirs, rc.batch, rc.hidden};
  auto b = optional(3, {rc.dirs, 2 * gh}, "B");
  if (!b)
    return b.takeError();
  rc.b = *b;
  auto h0 = optional(5, stateShape, "initial_h");
  if (!h0)
    return h0.takeError();
  rc.h0 = *h0;
  if (cell == Cell::LSTM) {
    auto c0 = optional(6, stateShape, "initial_c");
    if (!c0)
      return c0.takeError();
    rc.c0 = *c0;
    auto p = optional(7, {rc.dirs, 3 * rc.hidden}, "P");
    if (!p)
      return p.takeError();
    rc.p = *p;
  }

  rc.lens.assign(rc.batch, rc.seq);
  if (ic.hasInput(4) && !ic.constantInput(4)) {
    auto v = ic.input(4);
    if (!v)
      return v.takeError();
    if (!isa<IntegerType>(elementOf(*v)) ||
        shapeOf(*v) != ArrayRef<int64_t>{rc.batch})
      return ic.fail("sequence_lens must be an integer tensor of shape [" +
                     llvm::Twine(rc.batch) + "]");
    rc.lensArg = next++;
    rc.partial = true;
  } else if (ic.hasInput(4)) {
    auto lens = ic.constantInts(4);
    if (!lens)
      return lens.takeError();
    if (int64_t(lens->size()) != rc.batch)
      return ic.fail("sequence_lens must have one entry per batch entry");
    for (int64_t l : *lens)
      if (l < 0 || l > rc.seq)
        return ic.fail("sequence_lens entry " + llvm::Twine(l) +
                       " is outside [0, " + llvm::Twine(rc.seq) + "]");
    rc.lens = *lens;
  }
  rc.partial = rc.partial ||
               llvm::any_of(rc.lens, [&](int64_t l) { return l != rc.seq; });

  if (ic.attr("clip")) {
    float v = ic.attrFloat("clip", 0.0f);
    if (!(v > 0.0f))
      return ic.fail("clip must be positive");
    rc.clip = v;
  }
  rc.linearBeforeReset =
      cell == Cell::GRU && ic.attrInt("linear_before_reset", 0) != 0;
  rc.inputForget = cell == Cell::LSTM && ic.attrInt("input_forget", 0) != 0;

  // Activations: per direction f (RNN), f, g (GRU), f, g, h (LSTM).
  std::vector<std::string> names;
  if (const onnx::AttributeProto *a = ic.attr("activations")) {
    for (const std::string &s : a->strings())
      names.push_back(llvm::StringRef(s).lower());
  } else {
    std::vector<std::string> one =
        cell == Cell::RNN ? std::vector<std::string>{"tanh"}
        : cell == Cell::GRU
            ? std::vector<std::string>{"sigmoid", "tanh"}
            : std::vector<std::string>{"sigmoid", "tanh", "tanh"};
    for (int64_t d = 0; d < rc.dirs; ++d)
      names.insert(names.end(), one.begin(), one.end());
  }
  size_t perDir = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 2 : 3;
  if (names.size() != perDir * rc.dirs)
    return ic.fail("activations must name " + llvm::Twine(perDir * rc.dirs) +
                   " functions, got " + llvm::Twine(names.size()));
  std::vector<float> alphas, betas;
  if (const onnx::AttributeProto *a = ic.attr("activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (const onnx::AttributeProto *a = ic.attr("activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());
  size_t ai = 0, bi = 0;
  rc.acts.resize(rc.dirs);
  for (size_t i = 0; i < names.size(); ++i) {
    auto info = activationInfo(names[i]);
    if (!info)
      return ic.fail("activation '" + names[i] + "' is not one ONNX lists");
    Activation act{names[i], info->alphaDefault, info->betaDefault};
    if (info->alpha && ai < alphas.size())
      act.alpha = alphas[ai++];
    if (info->beta && bi < betas.size())
      act.beta = betas[bi++];
    rc.acts[i / perDir].push_back(act);
  }
  return rc;
}

template <Cell C> llvm::Error importRecurrent(ImportContext &ic) {
  auto rc = parse(ic, C);
  if (!rc)
    return rc.takeError();
  loadScf(ic);
  SmallVector<Value> ins;
  for (int idx : {0, 1, 2, 3, 5, 6, 7}) {
    if (idx == 6 && C != Cell::LSTM)
      break;
    if (!ic.hasInput(idx))
      continue;
    auto v = ic.input(idx);
    if (!v)
      return v.takeError();
    ins.push_back(*v);
  }
  if (rc->lensArg >= 0) {
    auto v = ic.input(4);
    if (!v)
      return v.takeError();
    ins.push_back(*v);
  }
  Type elem = elementOf(ins[0]);
  int outputs = C == Cell::LSTM ? 3 : 2;
  for (int k = 0; k < outputs && k < ic.node->output_size(); ++k) {
    if (ic.node->output(k).empty())
      continue;
    SmallVector<int64_t> shape =
        k == 0 ? (rc->batchMajor ? SmallVector<int64_t>{rc->batch, rc->seq,
                                                        rc->dirs, rc->hidden}
                                 : SmallVector<int64_t>{rc->seq, rc->dirs,
                                                        rc->batch, rc->hidden})
               : (rc->batchMajor
                      ? SmallVector<int64_t>{rc->batch, rc->dirs, rc->hidden}
                      : SmallVector<int64_t>{rc->dirs, rc->batch, rc->hidden});
    Value y = ic.hostOp(ins, tensorType(shape, elem),
                        conversion::recurrenceParams(ic.builder, *rc, k));
    if (auto e = ic.defineOutput(k, y))
      return e;
  }
  return llvm::Error::success();
}

} // namespace

void registerRecurrentImporters(llvm::StringMap<OpImporter> &table) {
  table["RNN"] = importRecurrent<Cell::RNN>;
  table["GRU"] = importRecurrent<Cell::GRU>;
  table["LSTM"] = importRecurrent<Cell::LSTM>;
}

} // namespace systole::frontend
