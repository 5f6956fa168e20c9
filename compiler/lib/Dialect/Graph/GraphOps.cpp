//===- GraphOps.cpp - Graph dialect operations ----------------------------===//
//
// Verifiers re-derive every result shape from the operands and attributes, so
// a pass that rewrites an op incorrectly fails at the next verification
// rather than producing a binary with wrong tensor sizes.
//
//===----------------------------------------------------------------------===//
#include "systole/Dialect/Graph/GraphOps.h"

#include "llvm/ADT/StringSet.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace systole::graph;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int64_t systole::graph::windowOutputSize(int64_t input, int64_t kernel,
                                         int64_t stride, int64_t dilation,
                                         int64_t padBegin, int64_t padEnd) {
  int64_t effective = dilation * (kernel - 1) + 1;
  int64_t span = input + padBegin + padEnd - effective;
  if (span < 0 || stride <= 0)
    return 0;
  return span / stride + 1;
}

FailureOr<SmallVector<int64_t>>
systole::graph::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return failure();
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool systole::graph::isQuantized(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  return isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType>(
      type);
}

Type systole::graph::storageForm(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return type;
  if (auto q = dyn_cast<quant::QuantizedType>(tensor.getElementType()))
    return tensor.clone(q.getStorageType());
  return type;
}

static RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static LogicalResult
verifyResultShape(Operation *op, ArrayRef<int64_t> expected, Value result) {
  ArrayRef<int64_t> actual = rankedType(result).getShape();
  if (actual == expected)
    return success();
  auto join = [](ArrayRef<int64_t> dims) {
    std::string s;
    for (int64_t d : dims)
      s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
  };
  return op->emitOpError() << "result shape " << join(actual)
                           << " does not match the inferred shape "
                           << join(expected);
}

static LogicalResult verifyActivationRange(Operation *op,
                                           std::optional<int64_t> lo,
                                           std::optional<int64_t> hi,
                                           Value result) {
  if (!lo && !hi)
    return success();
  if (!isQuantized(result.getType()))
    return op->emitOpError("act_min/act_max require a quantized result");
  if (lo && hi && *lo > *hi)
    return op->emitOpError()
           << "empty activation range [" << *lo << ", " << *hi << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// Quantize / Dequantize
//===----------------------------------------------------------------------===//

LogicalResult QuantizeOp::verify() {
  if (isQuantized(getInput().getType()) ||
      !isa<FloatType>(rankedType(getInput()).getElementType()))
    return emitOpError("input must be a float tensor");
  if (!isQuantized(getOutput().getType()))
    return emitOpError("result must be a quantized tensor");
  return success();
}

LogicalResult DequantizeOp::verify() {
  if (!isQuantized(getInput().getType()))
    return emitOpError("input must be a quantized tensor");
  if (!isa<FloatType>(rankedType(getOutput()).getElementType()))
    return emitOpError("result must be a float tensor");
  return success();
}

LogicalResult TableOp::verify() {
  for (Type t : {getInput().getType(), getOutput().getType()}) {
    auto q = dyn_cast<quant::UniformQuantizedType>(
        cast<ShapedType>(t).getElementType());
    if (!q || q.getStorageTypeIntegralWidth() != 8)
      return emitOpError("input and result must be 8-bit per-tensor "
                         "quantized tensors");
  }
  auto table = cast<ShapedType>(getTable().getType());
  if (!table.getElementType().isInteger(8))
    return emitOpError("table must hold 8-bit integers");
  if (table.getRank() == 1 && table.getNumElements() == 256)
    return success();
  auto in = cast<ShapedType>(getInput().getType());
  if (table.getRank() == 2 && table.getDimSize(1) == 256 && in.getRank() > 0 &&
      table.getDimSize(0) == in.getShape().back())
    return success();
  return emitOpError("table must be [256], or [C, 256] with C the input's "
                     "last (channel) dimension");
}

//===----------------------------------------------------------------------===//
// Conv2D
//===----------------------------------------------------------------------===//

bool Conv2DOp::isDepthwise() {
  int64_t channels = rankedType(getInput()).getShape()[channelDim(getLayout())];
  return getGroup() > 1 && getGroup() == channels;
}

LogicalResult Conv2DOp::verify() {
  auto in = rankedType(getInput()), w = rankedType(getFilter());
  if (in.getRank() != 4 || w.getRank() != 4)
    return emitOpError("expects 4-D input and filter");
  if (getStrides().size() != 2 || getDilations().size() != 2 ||
      getPads().size() != 4)
    return emitOpError("expects 2 strides, 2 dilations and 4 pads");
  for (int64_t s : getStrides())
    if (s <= 0)
      return emitOpError("strides must be positive");
  for (int64_t d : getDilations())
    if (d <= 0)
      return emitOpError("dilations must be positive");
  for (int64_t p : getPads())
    if (p < 0)
      return emitOpError("pads must be non-negative");
  bool nchw = getLayout() == Layout::NCHW;
  // Filter is OIHW with NCHW and HWIO with NHWC.
  int64_t outCh = nchw ? w.getDimSize(0) : w.getDimSize(3);
  int64_t inChPerGroup = nchw ? w.getDimSize(1) : w.getDimSize(2);
  int64_t kh = nchw ? w.getDimSize(2) : w.getDimSize(0);
  int64_t kw = nchw ? w.getDimSize(3) : w.getDimSize(1);
  int64_t group = getGroup();
  int64_t inCh = in.getDimSize(channelDim(getLayout()));
  if (group <= 0 || inCh % group || outCh % group)
    return emitOpError() << "group " << group << " must divide input channels "
                         << inCh << " and output channels " << outCh;
  if (inCh / group != inChPerGroup)
    return emitOpError() << "filter expects " << inChPerGroup
                         << " input channels per group, input has "
                         << inCh / group;
  if (getBias()) {
    auto b = rankedType(getBias());
    if (b.getRank() != 1 || b.getDimSize(0) != outCh)
      return emitOpError() << "bias must be 1-D of size " << outCh;
  }
  int64_t h = in.getDimSize(spatialDim(getLayout()));
  int64_t wd = in.getDimSize(spatialDim(getLayout()) + 1);
  auto pads = getPads();
  int64_t oh = windowOutputSize(h, kh, getStrides()[0], getDilations()[0],
                                pads[0], pads[2]);
  int64_t ow = windowOutputSize(wd, kw, getStrides()[1], getDilations()[1],
                                pads[1], pads[3]);
  if (oh <= 0 || ow <= 0)
    return emitOpError("kernel does not fit the padded input");
  SmallVector<int64_t> expected =
      nchw ? SmallVector<int64_t>{in.getDimSize(0), outCh, oh, ow}
           : SmallVector<int64_t>{in.getDimSize(0), oh, ow, outCh};
  if (failed(verifyResultShape(*this, expected, getOutput())))
    return failure();
  return verifyActivationRange(*this, getActMin(), getActMax(), getOutput());
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::verify() {
  auto a = rankedType(getLhs()), b = rankedType(getRhs());
  if (a.getRank() < 2 || b.getRank() < 2)
    return emitOpError("operands must have rank >= 2");
  int64_t k = a.getShape().back();
  if (b.getShape()[b.getRank() - 2] != k)
    return emitOpError() << "contraction mismatch: lhs has K=" << k
                         << ", rhs has K=" << b.getShape()[b.getRank() - 2];
  ArrayRef<int64_t> aBatch = a.getShape().drop_back(2);
  ArrayRef<int64_t> bBatch = b.getShape().drop_back(2);
  auto batch = broadcastShapes(aBatch, bBatch);
  if (failed(batch))
    return emitOpError("batch dimensions do not broadcast");
  SmallVector<int64_t> expected(*batch);
  expected.push_back(a.getShape()[a.getRank() - 2]);
  expected.push_back(b.getShape().back());
  if (getBias()) {
    auto bias = rankedType(getBias());
    if (bias.getRank() != 1 || bias.getDimSize(0) != b.getShape().back())
      return emitOpError() << "bias must be 1-D of size "
                           << b.getShape().back();
  }
  if (failed(verifyResultShape(*this, expected, getOutput())))
    return failure();
  return verifyActivationRange(*this, getActMin(), getActMax(), getOutput());
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static LogicalResult verifyBinary(Operation *op, Value lhs, Value rhs,
                                  Value out, std::optional<int64_t> lo,
                                  std::optional<int64_t> hi) {
  auto shape =
      broadcastShapes(rankedType(lhs).getShape(), rankedType(rhs).getShape());
  if (failed(shape))
    return op->emitOpError("operand shapes do not broadcast");
  if (failed(verifyResultShape(op, *shape, out)))
    return failure();
  return verifyActivationRange(op, lo, hi, out);
}

LogicalResult AddOp::verify() {
  return verifyBinary(*this, getLhs(), getRhs(), getOutput(), getActMin(),
                      getActMax());
}

LogicalResult MulOp::verify() {
  return verifyBinary(*this, getLhs(), getRhs(), getOutput(), getActMin(),
                      getActMax());
}

LogicalResult SubOp::verify() {
  return verifyBinary(*this, getLhs(), getRhs(), getOutput(), getActMin(),
                      getActMax());
}

LogicalResult DivOp::verify() {
  return verifyBinary(*this, getLhs(), getRhs(), getOutput(), getActMin(),
                      getActMax());
}

LogicalResult UnaryOp::verify() {
  static const llvm::StringSet<> known = {
      "exp", "sigmoid", "tanh",       "erf",       "sqrt",
      "neg", "abs",     "reciprocal", "hardswish", "gelu"};
  if (!known.contains(getFn()))
    return emitOpError("unknown function '") << getFn() << "'";
  if (!isa<FloatType>(rankedType(getInput()).getElementType()))
    return emitOpError("expects a float tensor");
  return success();
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = rankedType(getInput()).getRank();
  if (getAxis() < 0 || getAxis() >= rank)
    return emitOpError("axis ")
           << getAxis() << " out of range for rank " << rank;
  if (!isa<FloatType>(rankedType(getInput()).getElementType()))
    return emitOpError("expects a float tensor");
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto in = rankedType(getInput());
  if (getAxis() < 0 || getAxis() >= in.getRank())
    return emitOpError("axis ")
           << getAxis() << " out of range for rank " << in.getRank();
  ArrayRef<int64_t> norm = in.getShape().drop_front(getAxis());
  for (Value v : {getScale(), getBias()}) {
    if (!v)
      continue;
    ArrayRef<int64_t> s = rankedType(v).getShape();
    int64_t n = 1, m = 1;
    for (int64_t d : s)
      n *= d;
    for (int64_t d : norm)
      m *= d;
    if (n != m)
      return emitOpError("scale/bias must have the normalized shape");
  }
  if (failed(verifyResultShape(*this, in.getShape(), getOutput())))
    return failure();
  return success();
}

LogicalResult ReduceOp::verify() {
  if (getKind() != "mean" && getKind() != "sum" && getKind() != "max")
    return emitOpError("unknown reduction '") << getKind() << "'";
  auto in = rankedType(getInput());
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    bool reduced = llvm::is_contained(getAxes(), d);
    if (!reduced)
      expected.push_back(in.getShape()[d]);
    else if (getKeepdims())
      expected.push_back(1);
  }
  for (int64_t a : getAxes())
    if (a < 0 || a >= in.getRank())
      return emitOpError("axis ") << a << " out of range";
  return verifyResultShape(*this, expected, getOutput());
}

LogicalResult SliceOp::verify() {
  auto in = rankedType(getInput()), out = rankedType(getOutput());
  if (int64_t(getOffsets().size()) != in.getRank() ||
      int64_t(getStrides().size()) != in.getRank() ||
      out.getRank() != in.getRank())
    return emitOpError("offsets/strides/result must match the input rank");
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t o = getOffsets()[d], s = getStrides()[d], n = out.getShape()[d];
    if (o < 0 || s < 1 || (n > 0 && o + (n - 1) * s >= in.getShape()[d]))
      return emitOpError("slice of dim ") << d << " out of bounds";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult PoolOp::verify() {
  auto in = rankedType(getInput());
  if (in.getRank() != 4)
    return emitOpError("expects a 4-D input");
  if (getKernel().size() != 2 || getStrides().size() != 2 ||
      getPads().size() != 4)
    return emitOpError("expects 2 kernel dims, 2 strides and 4 pads");
  for (int64_t p : getPads())
    if (p < 0)
      return emitOpError("pads must be non-negative");
  int64_t sd = spatialDim(getLayout());
  auto pads = getPads();
  // A window made only of padding has no defined max; ONNX forbids it.
  if (pads[0] >= getKernel()[0] || pads[1] >= getKernel()[1] ||
      pads[2] >= getKernel()[0] || pads[3] >= getKernel()[1])
    return emitOpError("pads must be smaller than the kernel");
  int64_t oh = windowOutputSize(in.getDimSize(sd), getKernel()[0],
                                getStrides()[0], 1, pads[0], pads[2]);
  int64_t ow = windowOutputSize(in.getDimSize(sd + 1), getKernel()[1],
                                getStrides()[1], 1, pads[1], pads[3]);
  if (oh <= 0 || ow <= 0)
    return emitOpError("kernel does not fit the padded input");
  SmallVector<int64_t> expected(in.getShape());
  expected[sd] = oh;
  expected[sd + 1] = ow;
  return verifyResultShape(*this, expected, getOutput());
}

LogicalResult GlobalAvgPoolOp::verify() {
  auto in = rankedType(getInput());
  if (in.getRank() != 4)
    return emitOpError("expects a 4-D input");
  SmallVector<int64_t> expected(in.getShape());
  expected[spatialDim(getLayout())] = 1;
  expected[spatialDim(getLayout()) + 1] = 1;
  return verifyResultShape(*this, expected, getOutput());
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  auto first = rankedType(getInputs().front());
  int64_t rank = first.getRank();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << rank;
  SmallVector<int64_t> expected(first.getShape());
  expected[axis] = 0;
  for (Value v : getInputs()) {
    auto t = rankedType(v);
    if (t.getRank() != rank)
      return emitOpError("inputs must have the same rank");
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis && t.getDimSize(i) != first.getDimSize(i))
        return emitOpError() << "inputs differ in dimension " << i;
    expected[axis] += t.getDimSize(axis);
  }
  return verifyResultShape(*this, expected, getOutput());
}

LogicalResult ReshapeOp::verify() {
  auto in = rankedType(getInput()), out = rankedType(getOutput());
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "cannot reshape " << in.getNumElements()
                         << " elements into " << out.getNumElements();
  if (in.getElementType() != out.getElementType())
    return emitOpError("reshape must keep the element type");
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  // reshape(reshape(x)) == reshape(x): only the final shape matters.
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  return {};
}

LogicalResult TransposeOp::verify() {
  auto in = rankedType(getInput());
  ArrayRef<int64_t> perm = getPerm();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOpError("perm must have one entry per dimension");
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError("perm must be a permutation");
    seen[p] = true;
    expected.push_back(in.getDimSize(p));
  }
  return verifyResultShape(*this, expected, getOutput());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  if (identity && getInput().getType() == getOutput().getType())
    return getInput();
  // transpose(transpose(x, p), q) = transpose(x, p o q).
  if (auto producer = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> inner = producer.getPerm();
    SmallVector<int64_t> composed;
    for (int64_t q : perm)
      composed.push_back(inner[q]);
    getInputMutable().assign(producer.getInput());
    setPerm(composed);
    return getResult();
  }
  return {};
}

LogicalResult UpsampleOp::verify() {
  auto in = rankedType(getInput()), out = rankedType(getOutput());
  if (in.getRank() != 4 || out.getRank() != 4)
    return emitOpError("expects 4-D input and result");
  ArrayRef<int64_t> f = getFactors();
  if (f.size() != 2 || f[0] < 1 || f[1] < 1)
    return emitOpError("factors must be two integers >= 1");
  int64_t h = getLayout() == Layout::NHWC ? 1 : 2;
  for (int64_t d = 0; d < 4; ++d) {
    int64_t scale = d == h ? f[0] : d == h + 1 ? f[1] : 1;
    if (in.getDimSize(d) * scale != out.getDimSize(d))
      return emitOpError("result dim ")
             << d << " must be " << in.getDimSize(d) * scale;
  }
  if (getElementTypeOrSelf(in) != getElementTypeOrSelf(out))
    return emitOpError("input and result element types must agree");
  return success();
}

/// DepthToSpace (`toSpace`: channels / b^2, H and W * b) and SpaceToDepth
/// (the inverse): 4-D, the dims of `layout`, divisible where they shrink.
static LogicalResult verifyBlockMove(Operation *op, Value input, Value output,
                                     int64_t b, Layout layout, bool toSpace) {
  auto in = rankedType(input), out = rankedType(output);
  if (in.getRank() != 4 || out.getRank() != 4)
    return op->emitOpError("expects 4-D input and result");
  if (b < 1)
    return op->emitOpError("blocksize must be >= 1");
  int64_t c = layout == Layout::NHWC ? 3 : 1;
  int64_t h = layout == Layout::NHWC ? 1 : 2;
  for (int64_t d = 0; d < 4; ++d) {
    // The factor a dim grows by (> 0) or shrinks by (< 0).
    int64_t f = d == c                 ? (toSpace ? -b * b : b * b)
                : d == h || d == h + 1 ? (toSpace ? b : -b)
                                       : 1;
    int64_t n = in.getDimSize(d);
    if ((f < 0 && n % -f) || out.getDimSize(d) != (f < 0 ? n / -f : n * f))
      return op->emitOpError("result dim ")
             << d << " does not match blocksize " << b;
  }
  if (getElementTypeOrSelf(in) != getElementTypeOrSelf(out))
    return op->emitOpError("input and result element types must agree");
  return success();
}

LogicalResult DepthToSpaceOp::verify() {
  return verifyBlockMove(*this, getInput(), getOutput(), getBlocksize(),
                         getLayout(), /*toSpace=*/true);
}

LogicalResult SpaceToDepthOp::verify() {
  return verifyBlockMove(*this, getInput(), getOutput(), getBlocksize(),
                         getLayout(), /*toSpace=*/false);
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType() &&
      llvm::all_of(getPads(), [](int64_t p) { return p == 0; }))
    return getInput();
  return {};
}

LogicalResult PadOp::verify() {
  auto in = rankedType(getInput());
  ArrayRef<int64_t> pads = getPads();
  if (static_cast<int64_t>(pads.size()) != 2 * in.getRank())
    return emitOpError("pads must have 2 * rank entries");
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    if (pads[i] < 0 || pads[i + in.getRank()] < 0)
      return emitOpError("negative pads (cropping) are not supported");
    expected.push_back(in.getDimSize(i) + pads[i] + pads[i + in.getRank()]);
  }
  return verifyResultShape(*this, expected, getOutput());
}

LogicalResult HostOp::verify() {
  if (!hasBody())
    return success(); // built later from `params` (convert-onnx-to-linalg)
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("region has ")
           << body.getNumArguments() << " arguments for " << getInputs().size()
           << " operands";
  // Quantized values enter and leave the region as their storage codes.
  for (auto [arg, in] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != storageForm(in.getType()))
      return emitOpError("region argument type ")
             << arg.getType() << " differs from its operand's " << in.getType();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().size() != 1 ||
      yield.getValues().front().getType() != storageForm(getOutput().getType()))
    return emitOpError("region must yield one value of the result type");
  return success();
}

#define GET_OP_CLASSES
#include "systole/Dialect/Graph/GraphOps.cpp.inc"
