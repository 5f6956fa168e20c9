//===- PlacementSummary.cpp - Ops and MACs on the NPU and the host --------===//
//
// MACs are counted from shapes, the same way for an op on either side, so
// the NPU's share of a model's MACs is comparable across configs and with
// a count made from the ONNX graph (tests/e2e/check_placement.py).
//
//===----------------------------------------------------------------------===//
#include "systole/Target/NPU/PlacementSummary.h"

#include "systole/Dialect/Graph/GraphOps.h"
#include "systole/Target/NPU/Annotations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace systole::npu {

namespace {

/// ONNX ops whose work is multiply-accumulates (the only graph.host ops
/// counted); a host form that yields no count gets a note, not a silent 0.
bool multipliesByDefinition(llvm::StringRef onnxOp) {
  static const llvm::StringSet<> ops = {
      "Conv",       "ConvInteger",   "ConvTranspose", "QLinearConv",
      "MatMul",     "MatMulInteger", "QLinearMatMul", "Gemm",
      "Einsum",     "RNN",           "GRU",           "LSTM",
      "DeformConv", "MatMulNBits",   "FusedMatMul",   "Attention"};
  return ops.contains(onnxOp);
}

/// A reduction whose body multiplies and accumulates: a contraction.
bool isContraction(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return false;
  bool mul = false, add = false;
  op->getRegion(0).walk([&](Operation *inner) {
    mul |= llvm::isa<arith::MulFOp, arith::MulIOp>(inner);
    add |= llvm::isa<arith::AddFOp, arith::AddIOp>(inner);
  });
  return mul && add;
}

/// Iterations of the constant-bound scf.for loops around `op` inside `top`;
/// nullopt if one of them has dynamic bounds.
std::optional<uint64_t> tripCount(Operation *op, Operation *top) {
  uint64_t trips = 1;
  for (Operation *p = op->getParentOp(); p && p != top; p = p->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      continue;
    auto lb = getConstantIntValue(loop.getLowerBound());
    auto ub = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return std::nullopt;
    trips *= *ub > *lb ? uint64_t((*ub - *lb + *step - 1) / *step) : 0;
  }
  return trips;
}

uint64_t hostOpMacs(graph::HostOp host, std::string *note) {
  // Only ops whose work is multiply-accumulates: a Resize's interpolation
  // or a norm's sum of squares is a weighted reduction too, but not MACs
  // in the sense of the model's compute (and not on any NPU's array).
  if (!multipliesByDefinition(host.getOnnxOp()))
    return 0;
  // The host form convolves the zero-dilated input (ImportHostConv.cpp),
  // stride^2 times the model's MACs: count the model's, every input element
  // times the weight's [M/group, k...] (operands x, w[, bias]).
  if (host.getOnnxOp() == "ConvTranspose" && host.getInputs().size() >= 2) {
    auto x = cast<ShapedType>(host.getInputs()[0].getType());
    auto w = cast<ShapedType>(host.getInputs()[1].getType());
    if (x.hasStaticShape() && w.hasStaticShape() && w.getRank() >= 2)
      return static_cast<uint64_t>(x.getNumElements()) *
             static_cast<uint64_t>(w.getNumElements() / w.getDimSize(0));
    if (note)
      *note = "dynamic shape: MACs not derivable";
    return 0;
  }
  uint64_t macs = 0;
  bool dynamic = false;
  host.getBody().walk([&](linalg::LinalgOp op) {
    if (!isContraction(op))
      return;
    auto trips = tripCount(op, host);
    uint64_t iterations = 1;
    for (int64_t r : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(r)) {
        dynamic = true;
        return;
      }
      iterations *= static_cast<uint64_t>(r);
    }
    if (!trips) {
      dynamic = true;
      return;
    }
    macs += iterations * *trips;
  });
  if (note && macs == 0)
    *note = dynamic ? "dynamic loop bounds: MACs not derivable"
                    : "no contraction in its host form: MACs not counted";
  return macs;
}

} // namespace

uint64_t countMacs(Operation *op, std::string *note) {
  auto elements = [](Value v) -> std::optional<uint64_t> {
    auto t = dyn_cast<ShapedType>(v.getType());
    if (!t || !t.hasStaticShape())
      return std::nullopt;
    return static_cast<uint64_t>(t.getNumElements());
  };
  if (op->hasAttr(graph::kDataMovementAttr))
    return 0; // a channel gather (ChannelGather.cpp): data movement
  if (auto conv = dyn_cast<graph::Conv2DOp>(op)) {
    if (auto model = conv->getAttrOfType<IntegerAttr>(graph::kModelMacsAttr))
      return static_cast<uint64_t>(model.getInt());
    auto in = cast<ShapedType>(conv.getInput().getType());
    auto w = cast<ShapedType>(conv.getFilter().getType());
    auto out = elements(conv.getOutput());
    bool nhwc = conv.getLayout() == graph::Layout::NHWC;
    int64_t channels = in.getDimSize(nhwc ? 3 : 1);
    if (!out || !w.hasStaticShape() || ShapedType::isDynamic(channels) ||
        conv.getGroup() <= 0) {
      if (note)
        *note = "dynamic shape: MACs not derivable";
      return 0;
    }
    // Filter HWIO with NHWC, OIHW with NCHW (graph.conv2d).
    uint64_t window = nhwc ? w.getDimSize(0) * w.getDimSize(1)
                           : w.getDimSize(2) * w.getDimSize(3);
    if (auto model = conv->getAttrOfType<IntegerAttr>(graph::kModelWindowAttr))
      window = static_cast<uint64_t>(model.getInt());
    return *out * window * static_cast<uint64_t>(channels / conv.getGroup());
  }
  if (auto mm = dyn_cast<graph::MatMulOp>(op)) {
    auto out = elements(mm.getOutput());
    int64_t k = cast<ShapedType>(mm.getLhs().getType()).getShape().back();
    if (!out || ShapedType::isDynamic(k)) {
      if (note)
        *note = "dynamic shape: MACs not derivable";
      return 0;
    }
    return *out * static_cast<uint64_t>(k);
  }
  if (auto host = dyn_cast<graph::HostOp>(op))
    return hostOpMacs(host, note);
  return 0;
}

std::vector<isa::OpPlacement> summarizePlacement(func::FuncOp func) {
  std::vector<isa::OpPlacement> out;
  for (Operation &op : func.getBody().front()) {
    auto placement = getPlacement(&op);
    if (!placement || llvm::isa<graph::ReshapeOp>(op))
      continue;
    isa::OpPlacement p;
    p.name = onnxNodeName(op.getLoc());
    p.op = op.getName().stripDialect().str();
    if (auto u = dyn_cast<graph::UnaryOp>(op))
      p.op = u.getFn().str();
    if (auto h = dyn_cast<graph::HostOp>(op))
      p.op = h.getOnnxOp().str();
    p.onHost = *placement == Placement::Host;
    p.macs = countMacs(&op, &p.note);
    if (auto why = op.getAttrOfType<StringAttr>(kHostReasonAttr))
      p.reason = why.str();
    else if (p.onHost && llvm::isa<graph::QuantizeOp, graph::DequantizeOp>(op))
      p.reason = "float <-> int8 conversion (host kernel)";
    else if (p.onHost && llvm::isa<graph::TransposeOp>(op))
      p.reason = "layout change (host kernel)";
    out.push_back(std::move(p));
  }
  return out;
}

std::string onnxNodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (auto n = onnxNodeName(l); !n.empty())
        return n;
  return "";
}

} // namespace systole::npu
