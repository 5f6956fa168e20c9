//===- ImportNorm.cpp - Batch/Instance/Layer/Group normalization, LRN -----===//
//
// The normalizations as graph.host ops: this file validates the nodes and
// records what their bodies need in `params`; the bodies (ORT's formulas)
// are built by lib/Conversion/OnnxToLinalg/Norm.cpp. An op with several
// outputs (LayerNormalization's Mean/InvStdDev, BatchNormalization's
// running statistics) is one graph.host per output used (`output`).
// A float32 LayerNormalization with one output stays graph.layer_norm.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Frontend/OnnxModel.h"

using namespace mlir;

namespace systole::frontend {

namespace {

llvm::Expected<SmallVector<Value>> floatInputs(ImportContext &ic, int first,
                                               int last) {
  SmallVector<Value> v;
  for (int i = first; i <= last; ++i) {
    if (!ic.hasInput(i))
      continue;
    auto x = ic.input(i);
    if (!x)
      return x.takeError();
    if (!isa<FloatType>(elementOf(*x)))
      return ic.fail("expects float tensors (int8 activations come as QDQ)");
    v.push_back(*x);
  }
  return v;
}

bool wants(ImportContext &ic, int i) {
  return ic.node->output_size() > i && !ic.node->output(i).empty();
}

NamedAttribute param(ImportContext &ic, StringRef name, Attribute value) {
  return ic.builder.getNamedAttr(name, value);
}
NamedAttribute f64Param(ImportContext &ic, StringRef name, double v) {
  return param(ic, name, ic.builder.getF64FloatAttr(v));
}
NamedAttribute i64Param(ImportContext &ic, StringRef name, int64_t v) {
  return param(ic, name, ic.builder.getI64IntegerAttr(v));
}

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

/// A BatchNormalization parameter is [C] (read along dim 1) or, with opset
/// 7's spatial=0, [C, D1, ...] aligned to x's dims 1...
bool validParamShape(Value p, ArrayRef<int64_t> xs) {
  auto ps = shapeOf(p);
  return (ps.size() == 1 && ps[0] == xs[1]) ||
         (ps.size() == xs.size() - 1 && ps == xs.drop_front());
}

llvm::Error importBatchNormalization(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 4);
  if (!ins)
    return ins.takeError();
  if (ins->size() != 5)
    return ic.fail("expects X, scale, B, input_mean and input_var");
  Value x = (*ins)[0];
  auto xs = shapeOf(x);
  int64_t rank = xs.size();
  if (rank < 2)
    return ic.fail("expects an [N, C, ...] input");
  for (Value v : llvm::ArrayRef(*ins).drop_front())
    if (elementOf(v) != elementOf(x))
      return ic.fail("BatchNormalization with parameters of another element "
                     "type than X is not supported");
  int64_t opset = opsetVersion(ic.model, "");
  bool training = ic.attrInt("training_mode", 0) != 0;
  if (opset < 14 && ic.node->output_size() > 1)
    for (int i = 1; i < ic.node->output_size(); ++i)
      if (wants(ic, i))
        return ic.fail("the training outputs (mean, var, saved_mean, "
                       "saved_var) of BatchNormalization before opset 14 "
                       "are not supported");
  if (!training && (wants(ic, 1) || wants(ic, 2)))
    return ic.fail("running_mean/running_var need training_mode=1");
  for (int i = 1; i < 5; ++i)
    if (!validParamShape((*ins)[i], xs))
      return ic.fail("BatchNormalization parameters must have shape [C] (or "
                     "[C, D1, ...] with spatial=0)");
  if (training && llvm::any_of(*ins, [&](Value v) {
        return v != x && shapeOf(v).size() != 1;
      }))
    return ic.fail("training_mode=1 expects [C] parameters");
  SmallVector<NamedAttribute> params{
      f64Param(ic, "epsilon", ic.attrFloat("epsilon", 1e-5f)),
      f64Param(ic, "momentum", ic.attrFloat("momentum", 0.9f)),
      param(ic, "training", ic.builder.getBoolAttr(training))};
  for (int out = 0; out <= 2; ++out) {
    if (out > 0 && !wants(ic, out))
      continue;
    SmallVector<NamedAttribute> p(params);
    p.push_back(i64Param(ic, "output", out));
    Value y = out == 0 ? ic.hostOp(*ins, x.getType(), p)
                       : ic.hostOp(ValueRange{x, (*ins)[2 + out]},
                                   (*ins)[2 + out].getType(), p);
    if (auto e = ic.defineOutput(out, y))
      return e;
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// InstanceNormalization, GroupNormalization, MeanVarianceNormalization
//===----------------------------------------------------------------------===//

llvm::Error importInstanceNormalization(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 2);
  if (!ins)
    return ins.takeError();
  if (ins->size() != 3)
    return ic.fail("expects input, scale and B");
  auto xs = shapeOf((*ins)[0]);
  if (xs.size() < 3)
    return ic.fail("expects an [N, C, D1, ...] input");
  for (int i = 1; i < 3; ++i)
    if (shapeOf((*ins)[i]) != ArrayRef<int64_t>{xs[1]} ||
        elementOf((*ins)[i]) != elementOf((*ins)[0]))
      return ic.fail("scale and B must be [C] of the input's element type");
  Value y =
      ic.hostOp(*ins, (*ins)[0].getType(),
                {f64Param(ic, "epsilon", ic.attrFloat("epsilon", 1e-5f))});
  return ic.defineOutput(0, y);
}

/// The element type ONNX's stash_type names (float by default).
llvm::Expected<Type> stashType(ImportContext &ic) {
  Type t = onnxElementType(ic.ctx(),
                           ic.attrInt("stash_type", onnx::TensorProto::FLOAT));
  if (t && isa<FloatType>(t))
    return t;
  return ic.fail("stash_type " + llvm::Twine(ic.attrInt("stash_type", 1)) +
                 " is not a float type");
}

/// Scale and bias per group (opset 18) or per channel (opset 21).
llvm::Error importGroupNormalization(ImportContext &ic) {
  bool perChannel = opsetVersion(ic.model, "") >= 21;
  auto ins = floatInputs(ic, 0, 2);
  if (!ins)
    return ins.takeError();
  if (ins->size() != 3)
    return ic.fail("expects X, scale and bias");
  auto stash = stashType(ic);
  if (!stash)
    return stash.takeError();
  auto xs = shapeOf((*ins)[0]);
  int64_t groups = ic.attrInt("num_groups", 0);
  if (xs.size() < 3)
    return ic.fail("expects an [N, C, D1, ...] input");
  if (groups <= 0 || xs[1] % groups)
    return ic.fail("num_groups " + llvm::Twine(groups) + " does not divide " +
                   llvm::Twine(xs[1]) + " channels");
  int64_t pn = perChannel ? xs[1] : groups;
  for (int i = 1; i < 3; ++i)
    if (shapeOf((*ins)[i]) != ArrayRef<int64_t>{pn})
      return ic.fail("scale and bias must have " + llvm::Twine(pn) +
                     " elements (" +
                     (perChannel ? "one per channel" : "one per group") + ")");
  Value y =
      ic.hostOp(*ins, (*ins)[0].getType(),
                {f64Param(ic, "epsilon", ic.attrFloat("epsilon", 1e-5f)),
                 i64Param(ic, "num_groups", groups),
                 param(ic, "per_channel", ic.builder.getBoolAttr(perChannel)),
                 param(ic, "stash_type", TypeAttr::get(*stash))});
  return ic.defineOutput(0, y);
}

llvm::Error importMeanVarianceNormalization(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 0);
  if (!ins)
    return ins.takeError();
  Value x = (*ins)[0];
  int64_t rank = shapeOf(x).size();
  std::vector<int64_t> axes =
      ic.attrInts("axes").value_or(std::vector<int64_t>{0, 2, 3});
  for (int64_t &a : axes) {
    a = a < 0 ? a + rank : a;
    if (a < 0 || a >= rank)
      return ic.fail("axis out of range");
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  Value y =
      ic.hostOp(x, x.getType(),
                {param(ic, "axes", ic.builder.getDenseI64ArrayAttr(axes))});
  return ic.defineOutput(0, y);
}

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

/// The host form: any float type, statistics in stash_type, the Mean and
/// InvStdDev outputs ([d0, ..., d(axis-1), 1, ...] in stash_type).
llvm::Error hostLayerNormalization(ImportContext &ic, ArrayRef<Value> ins,
                                   int64_t axis) {
  auto stash = stashType(ic);
  if (!stash)
    return stash.takeError();
  auto xs = shapeOf(ins[0]);
  int64_t rank = xs.size();
  for (Value p : ins.drop_front()) {
    auto ps = shapeOf(p);
    if (ps.size() > size_t(rank - axis) ||
        llvm::any_of(llvm::zip(llvm::reverse(ps), llvm::reverse(xs)),
                     [](auto pair) {
                       return std::get<0>(pair) != 1 &&
                              std::get<0>(pair) != std::get<1>(pair);
                     }))
      return ic.fail("Scale and B must broadcast to the normalized dims");
  }
  SmallVector<int64_t> statShape(xs.begin(), xs.begin() + axis);
  statShape.append(rank - axis, 1);
  for (int out = 0; out <= 2; ++out) {
    if (out > 0 && !wants(ic, out))
      continue;
    SmallVector<NamedAttribute> params{
        i64Param(ic, "axis", axis),
        f64Param(ic, "epsilon", ic.attrFloat("epsilon", 1e-5f)),
        param(ic, "stash_type", TypeAttr::get(*stash)),
        i64Param(ic, "output", out)};
    Value y = out == 0
                  ? ic.hostOp(ins, ins[0].getType(), params)
                  : ic.hostOp(ins[0], tensorType(statShape, *stash), params);
    if (auto e = ic.defineOutput(out, y))
      return e;
  }
  return llvm::Error::success();
}

/// X, Scale[, B] (inputs 0..last) of one float type and the normalized
/// axis of a LayerNormalization-like op.
llvm::Expected<std::pair<SmallVector<Value>, int64_t>>
normInputs(ImportContext &ic, int last) {
  auto ins = floatInputs(ic, 0, last);
  if (!ins)
    return ins.takeError();
  if (ins->size() < 2)
    return ic.fail("expects X and Scale");
  for (Value v : *ins)
    if (elementOf(v) != elementOf((*ins)[0]))
      return ic.fail("X, Scale and B must have one element type");
  int64_t rank = shapeOf((*ins)[0]).size();
  int64_t axis = ic.attrInt("axis", -1);
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank)
    return ic.fail(ic.node->op_type() + " axis out of range");
  return std::make_pair(std::move(*ins), axis);
}

/// A float32 LayerNormalization with one output keeps graph.layer_norm
/// (the form the transformer's host groups were validated with); every
/// other form is the host op above.
llvm::Error importLayerNormalization(ImportContext &ic) {
  auto in = normInputs(ic, 2);
  if (!in)
    return in.takeError();
  auto &[list, axis] = *in;
  SmallVector<Value> *ins = &list;
  Value x = list[0];
  int64_t rank = shapeOf(x).size();
  int64_t norm = 1;
  for (int64_t d = axis; d < rank; ++d)
    norm *= shapeOf(x)[d];
  bool fullParams =
      llvm::all_of(llvm::ArrayRef(*ins).drop_front(), [&](Value p) {
        return cast<RankedTensorType>(p.getType()).getNumElements() == norm;
      });
  if (elementOf(x).isF32() && !wants(ic, 1) && !wants(ic, 2) &&
      ic.attrInt("stash_type", 1) == 1 && fullParams) {
    auto &b = ic.builder;
    Value y = b.create<graph::LayerNormOp>(
        ic.loc(), x.getType(), x, (*ins)[1],
        ins->size() > 2 ? (*ins)[2] : Value(), b.getI64IntegerAttr(axis),
        b.getF64FloatAttr(ic.attrFloat("epsilon", 1e-5f)));
    return ic.defineOutput(0, y);
  }
  return hostLayerNormalization(ic, *ins, axis);
}

/// SimplifiedLayerNormalization (ORT's SimplifiedLayerNormFusion, in ORT's
/// ONNX domain; Frontend/OrtFusions.cpp): x / sqrt(mean(x^2) + eps) * scale
/// on the host, LayerNormalization's body without the mean. Its optional
/// inv_std_var output is not supported.
llvm::Error importSimplifiedLayerNormalization(ImportContext &ic) {
  auto in = normInputs(ic, 1);
  if (!in)
    return in.takeError();
  auto &[ins, axis] = *in;
  if (wants(ic, 1))
    return ic.fail("output 1 (inv_std_var) is not supported");
  auto stash = stashType(ic);
  if (!stash)
    return stash.takeError();
  Value y = ic.hostOp(
      ins, ins[0].getType(),
      {param(ic, "body", ic.builder.getStringAttr("LayerNormalization")),
       i64Param(ic, "axis", axis),
       f64Param(ic, "epsilon", ic.attrFloat("epsilon", 1e-5f)),
       param(ic, "stash_type", TypeAttr::get(*stash)),
       i64Param(ic, "output", 0),
       param(ic, "simplified", ic.builder.getUnitAttr())});
  return ic.defineOutput(0, y);
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

llvm::Error importLRN(ImportContext &ic) {
  auto ins = floatInputs(ic, 0, 0);
  if (!ins)
    return ins.takeError();
  Value x = (*ins)[0];
  int64_t size = ic.attrInt("size", 0);
  if (shapeOf(x).size() < 3)
    return ic.fail("expects an [N, C, D1, ...] input");
  if (size <= 0)
    return ic.fail("size must be positive");
  Value y = ic.hostOp(x, x.getType(),
                      {i64Param(ic, "size", size),
                       f64Param(ic, "alpha", ic.attrFloat("alpha", 1e-4f)),
                       f64Param(ic, "beta", ic.attrFloat("beta", 0.75f)),
                       f64Param(ic, "bias", ic.attrFloat("bias", 1.0f))});
  return ic.defineOutput(0, y);
}

} // namespace

void registerNormImporters(llvm::StringMap<OpImporter> &table) {
  table["BatchNormalization"] = importBatchNormalization;
  table["InstanceNormalization"] = importInstanceNormalization;
  table["LayerNormalization"] = importLayerNormalization;
  table["SimplifiedLayerNormalization"] = importSimplifiedLayerNormalization;
  table["GroupNormalization"] = importGroupNormalization;
  table["MeanVarianceNormalization"] = importMeanVarianceNormalization;
  table["LRN"] = importLRN;
}

} // namespace systole::frontend
