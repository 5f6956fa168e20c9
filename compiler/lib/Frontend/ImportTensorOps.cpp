//===- ImportTensorOps.cpp - Expand, Tile, Range, Split, DepthToSpace, ... ===//
//
// Ops that build or rearrange whole tensors, for any element type. Their
// output shapes must be known at import, so the operands that decide them
// (Expand's shape, Tile's repeats, Range's bounds, Split's sizes) are
// compile-time constants; what only sets values is read at run time. Each
// data movement is one linalg.generic whose input indexing map is an affine
// function of the output position (Tile: `i mod d`, DepthToSpace/
// SpaceToDepth: floordiv/mod by the block size), which the host pipeline
// lowers to loops like any other linalg op; ops whose result is fully known
// at import (Range, Size, small ConstantOfShape) become constants so shape
// arithmetic downstream still folds.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Conversion/LoweringUtils.h"
#include "systole/Frontend/OnnxModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::frontend {

namespace {

/// A host op computing output 0 as a copy of input 0 whose source position
/// is `map` of the output position (lib/Conversion/OnnxToLinalg/
/// TensorOps.cpp).
llvm::Error defineAffineCopy(ImportContext &ic, Value x,
                             ArrayRef<int64_t> shape, AffineMap map) {
  Value y =
      ic.hostOp(x, tensorType(shape, elementOf(x)),
                {ic.builder.getNamedAttr("map", AffineMapAttr::get(map))});
  return ic.defineOutput(0, y);
}

/// The element type ONNX's `dtype` attributes name (EyeLike). BFLOAT16 is
/// refused although onnxElementType maps it: EyeLike never accepted it, and
/// a model that asks for it still fails with this message.
llvm::Expected<Type> onnxType(ImportContext &ic, int64_t dtype) {
  if (dtype != onnx::TensorProto::BFLOAT16)
    if (Type t = onnxElementType(ic.ctx(), dtype))
      return t;
  return ic.fail("dtype " +
                 onnx::TensorProto::DataType_Name(
                     static_cast<onnx::TensorProto::DataType>(dtype)) +
                 " is not supported");
}

//===----------------------------------------------------------------------===//
// Expand, Tile
//===----------------------------------------------------------------------===//

/// Expand broadcasts both ways (numpy): the result has the larger of each
/// dim, so a shape entry of 1 keeps the input's dim.
llvm::Error importExpand(ImportContext &ic) {
  auto x = plainInput(ic, 0);
  if (!x)
    return x.takeError();
  auto target = ic.constantInts(1);
  if (!target)
    return target.takeError();
  auto shape = graph::broadcastShapes(shapeOf(*x), *target);
  if (failed(shape))
    return ic.fail("input shape does not broadcast to the requested shape");
  SmallVector<int64_t> out(*shape);
  return ic.defineOutput(0, ic.hostOp(*x, tensorType(out, elementOf(*x)), {}));
}

/// Tile: out[i] = x[i mod dim] along each repeated dim.
llvm::Error importTile(ImportContext &ic) {
  auto x = plainInput(ic, 0);
  if (!x)
    return x.takeError();
  auto repeats = ic.constantInts(1);
  if (!repeats)
    return repeats.takeError();
  ArrayRef<int64_t> in = shapeOf(*x);
  if (repeats->size() != in.size())
    return ic.fail("repeats must have one entry per dimension");
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> exprs;
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t r = (*repeats)[d];
    if (r < 0)
      return ic.fail("negative repeat " + llvm::Twine(r));
    shape.push_back(in[d] * r);
    AffineExpr e = getAffineDimExpr(d, ic.ctx());
    exprs.push_back(r == 1 || in[d] == 0 ? e : e % in[d]);
  }
  return defineAffineCopy(ic, *x, shape,
                          AffineMap::get(in.size(), 0, exprs, ic.ctx()));
}

//===----------------------------------------------------------------------===//
// Values known at import: Range, ConstantOfShape, Size, EyeLike
//===----------------------------------------------------------------------===//

/// `start, start + delta, ...` below `limit`, accumulating in T as ONNX
/// Runtime's kernel does.
template <typename T>
HostTensor rangeOf(ElementType type, T start, T limit, T delta) {
  double n = std::ceil((double(limit) - double(start)) / double(delta));
  int64_t count = n > 0 ? int64_t(n) : 0;
  HostTensor out(type, {count});
  T v = start;
  for (int64_t i = 0; i < count; ++i, v += delta)
    out.dataAs<T>()[i] = v;
  return out;
}

template <typename T> T scalarOf(const HostTensor &t) {
  return t.dataAs<T>()[0];
}

/// Range's length depends on its operands' values, so all three are
/// compile-time constants and so is the result.
llvm::Error importRange(ImportContext &ic) {
  const HostTensor *s[3];
  for (int i = 0; i < 3; ++i) {
    s[i] = ic.constantInput(i);
    if (!s[i])
      return ic.notConstant(i, "Range's length depends on its operands");
    if (s[i]->numElements() != 1 || s[i]->type() != s[0]->type())
      return ic.fail("start, limit and delta must be scalars of one type");
  }
  ElementType t = s[0]->type();
  auto check = [&](double delta) -> llvm::Error {
    if (delta == 0)
      return ic.fail("delta must not be zero");
    return llvm::Error::success();
  };
  HostTensor out;
#define SYSTOLE_RANGE(ET, T)                                                   \
  case ET:                                                                     \
    if (auto e = check(double(scalarOf<T>(*s[2]))))                            \
      return e;                                                                \
    out = rangeOf<T>(t, scalarOf<T>(*s[0]), scalarOf<T>(*s[1]),                \
                     scalarOf<T>(*s[2]));                                      \
    break;
  switch (t) {
    SYSTOLE_RANGE(ElementType::Float32, float)
    SYSTOLE_RANGE(ElementType::Float64, double)
    SYSTOLE_RANGE(ElementType::Int16, int16_t)
    SYSTOLE_RANGE(ElementType::Int32, int32_t)
    SYSTOLE_RANGE(ElementType::Int64, int64_t)
  default:
    return ic.fail(llvm::Twine("Range of ") + elementTypeName(t) +
                   " is not supported (float, double, int16/32/64 are)");
  }
#undef SYSTOLE_RANGE
  ic.defineConstant(ic.node->output(0), std::move(out));
  return llvm::Error::success();
}

/// Results up to this many elements fold into constants (shape arithmetic
/// such as ConstantOfShape -> Mul -> Where keeps folding); larger ones are
/// filled at run time instead of bloating the binary.
constexpr int64_t kFoldLimit = 4096;

llvm::Error importConstantOfShape(ImportContext &ic) {
  auto shape = ic.constantInts(0);
  if (!shape)
    return shape.takeError();
  for (int64_t d : *shape)
    if (d < 0)
      return ic.fail("negative dimension " + llvm::Twine(d));
  HostTensor value(ElementType::Float32, {1});
  std::memset(value.data(), 0, value.byteSize());
  if (const onnx::AttributeProto *a = ic.attr("value")) {
    auto t = tensorFromProto(a->t(), ic.modelPath.str() + ": value");
    if (!t)
      return t.takeError();
    if (t->numElements() != 1)
      return ic.fail("value must have one element");
    value = std::move(*t);
  }
  HostTensor out(value.type(), *shape);
  if (out.numElements() <= kFoldLimit) {
    size_t elem = elementSize(value.type());
    for (int64_t i = 0; i < out.numElements(); ++i)
      std::memcpy(out.data() + i * elem, value.data(), elem);
    return defineFolded(ic, std::move(out));
  }
  Value v = ic.materialize(value);
  SmallVector<int64_t> dims(shape->begin(), shape->end());
  return ic.defineOutput(0, ic.hostOp(v, tensorType(dims, elementOf(v)), {}));
}

llvm::Error importSize(ImportContext &ic) {
  auto shape = shapeOfInput(ic, 0);
  if (!shape)
    return shape.takeError();
  HostTensor out(ElementType::Int64, {});
  out.dataAs<int64_t>()[0] = checkedNumElements(*shape);
  return defineFolded(ic, std::move(out));
}

/// EyeLike: ones on the k-th diagonal of a 2-D tensor shaped like the input.
llvm::Error importEyeLike(ImportContext &ic) {
  auto shape = shapeOfInput(ic, 0);
  if (!shape)
    return shape.takeError();
  if (shape->size() != 2)
    return ic.fail("EyeLike needs a 2-D input");
  Type elem;
  if (ic.attr("dtype")) {
    auto t = onnxType(ic, ic.attrInt("dtype", 0));
    if (!t)
      return t.takeError();
    elem = *t;
  } else {
    auto x = ic.input(0);
    if (!x)
      return x.takeError();
    elem = elementOf(*x);
    if (graph::isQuantized(elem))
      return ic.fail("expects an unquantized input");
  }
  int64_t k = ic.attrInt("k", 0);
  SmallVector<int64_t> dims(shape->begin(), shape->end());
  Value y = ic.hostOp(
      ValueRange{}, tensorType(dims, elem),
      {ic.builder.getNamedAttr("k", ic.builder.getI64IntegerAttr(k))});
  return ic.defineOutput(0, y);
}

//===----------------------------------------------------------------------===//
// Split
//===----------------------------------------------------------------------===//

/// The sizes of Split's outputs along the axis: the `split` input (opset
/// 13+) or attribute (before), `num_outputs` (opset 18: equal chunks of
/// ceil(dim / n), the last smaller), else equal parts, one per output.
llvm::Expected<std::vector<int64_t>> splitSizes(ImportContext &ic,
                                                int64_t dim) {
  int64_t outputs = ic.node->output_size();
  std::vector<int64_t> sizes;
  if (ic.hasInput(1)) {
    auto s = ic.constantInts(1);
    if (!s)
      return s.takeError();
    sizes = *s;
  } else if (auto s = ic.attrInts("split")) {
    sizes = *s;
  } else if (ic.attr("num_outputs")) {
    int64_t n = ic.attrInt("num_outputs", 0);
    if (n < 1 || n != outputs)
      return ic.fail("num_outputs must equal the number of outputs");
    int64_t chunk = (dim + n - 1) / n;
    for (int64_t i = 0, left = dim; i < n; ++i, left -= chunk)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, left)));
  } else {
    if (dim % outputs)
      return ic.fail("dimension " + llvm::Twine(dim) + " does not split into " +
                     llvm::Twine(outputs) + " equal parts");
    sizes.assign(outputs, dim / outputs);
  }
  if (int64_t(sizes.size()) != outputs)
    return ic.fail("split has " + llvm::Twine(sizes.size()) + " entries for " +
                   llvm::Twine(outputs) + " outputs");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return ic.fail("negative split size");
    total += s;
  }
  if (total != dim)
    return ic.fail("split sizes add up to " + llvm::Twine(total) +
                   ", not the dimension " + llvm::Twine(dim));
  return sizes;
}

/// Each used output is a slice of the input: graph.slice for float32 and
/// quantized tensors (the forms the partitioner knows, also for int8
/// models), a host tensor.extract_slice for the other types.
llvm::Error importSplit(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  ArrayRef<int64_t> in = shapeOf(*x);
  auto axis = normalizeAxis(ic, ic.attrInt("axis", 0), in.size());
  if (!axis)
    return axis.takeError();
  auto sizes = splitSizes(ic, in[*axis]);
  if (!sizes)
    return sizes.takeError();
  Type elem = elementOf(*x);
  bool graphForm = elem.isF32() || graph::isQuantized(elem);
  int64_t offset = 0;
  for (int k = 0; k < ic.node->output_size(); ++k) {
    int64_t size = (*sizes)[k];
    SmallVector<int64_t> offsets(in.size(), 0), strides(in.size(), 1),
        shape(in);
    offsets[*axis] = offset;
    shape[*axis] = size;
    offset += size;
    if (ic.node->output(k).empty())
      continue;
    Value y;
    if (graphForm) {
      auto &b = ic.builder;
      y = b.create<graph::SliceOp>(ic.loc(), tensorType(shape, elem), *x,
                                   b.getDenseI64ArrayAttr(offsets),
                                   b.getDenseI64ArrayAttr(strides));
    } else {
      auto &b = ic.builder;
      y = ic.hostOp(
          *x, tensorType(shape, elem),
          {b.getNamedAttr("offsets", b.getDenseI64ArrayAttr(offsets)),
           b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides))});
    }
    if (auto e = ic.defineOutput(k, y))
      return e;
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// DepthToSpace, SpaceToDepth, ReverseSequence
//===----------------------------------------------------------------------===//

llvm::Expected<int64_t> blockSize(ImportContext &ic) {
  int64_t b = ic.attrInt("blocksize", 0);
  if (b < 1)
    return ic.fail("blocksize must be positive");
  // The lowerings index with blocksize^2 and scale H and W by blocksize.
  if (b > (int64_t(1) << 20))
    return ic.fail("blocksize " + llvm::Twine(b) + " is too large");
  return b;
}

/// [N, C, H, W] -> [N, C / b^2, H b, W b]. DCR reads the channel
/// (h mod b, w mod b, c) of the depth, CRD (c, h mod b, w mod b).
llvm::Error importDepthToSpace(ImportContext &ic) {
  auto x = plainInput(ic, 0);
  if (!x)
    return x.takeError();
  auto bs = blockSize(ic);
  if (!bs)
    return bs.takeError();
  int64_t b = *bs;
  ArrayRef<int64_t> in = shapeOf(*x);
  if (in.size() != 4 || in[1] % (b * b))
    return ic.fail("DepthToSpace needs [N, C, H, W] with C divisible by "
                   "blocksize^2");
  int64_t outH, outW;
  if (llvm::MulOverflow(in[2], b, outH) || llvm::MulOverflow(in[3], b, outW))
    return ic.fail("DepthToSpace output of H and W times blocksize " +
                   llvm::Twine(b) + " overflows");
  std::string mode = ic.attrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return ic.fail("mode '" + mode + "' is not supported (DCR, CRD are)");
  int64_t c = in[1] / (b * b);
  SmallVector<int64_t> shape = {in[0], c, outH, outW};
  Type elem = cast<RankedTensorType>(x->getType()).getElementType();
  if (elem.isF32()) {
    // An op of its own, so that a quantized one can run on the NPU.
    Value y = ic.builder.create<graph::DepthToSpaceOp>(
        ic.loc(), RankedTensorType::get(shape, elem), *x,
        ic.builder.getI64IntegerAttr(b), ic.builder.getBoolAttr(mode == "CRD"),
        graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW));
    return ic.defineOutput(0, y);
  }
  MLIRContext *ctx = ic.ctx();
  AffineExpr n = getAffineDimExpr(0, ctx), ch = getAffineDimExpr(1, ctx),
             h = getAffineDimExpr(2, ctx), w = getAffineDimExpr(3, ctx);
  AffineExpr srcC = mode == "DCR" ? (h % b) * (b * c) + (w % b) * c + ch
                                  : ch * (b * b) + (h % b) * b + w % b;
  AffineMap map =
      AffineMap::get(4, 0, {n, srcC, h.floorDiv(b), w.floorDiv(b)}, ctx);
  return defineAffineCopy(ic, *x, shape, map);
}

/// [N, C, H, W] -> [N, C b^2, H / b, W / b], the inverse of DCR.
llvm::Error importSpaceToDepth(ImportContext &ic) {
  auto x = plainInput(ic, 0);
  if (!x)
    return x.takeError();
  auto bs = blockSize(ic);
  if (!bs)
    return bs.takeError();
  int64_t b = *bs;
  ArrayRef<int64_t> in = shapeOf(*x);
  if (in.size() != 4 || in[2] % b || in[3] % b)
    return ic.fail("SpaceToDepth needs [N, C, H, W] with H and W divisible "
                   "by blocksize");
  int64_t c = in[1];
  SmallVector<int64_t> shape = {in[0], c * b * b, in[2] / b, in[3] / b};
  Type elem = cast<RankedTensorType>(x->getType()).getElementType();
  if (elem.isF32()) {
    // An op of its own, so that a quantized one can run on the NPU.
    Value y = ic.builder.create<graph::SpaceToDepthOp>(
        ic.loc(), RankedTensorType::get(shape, elem), *x,
        ic.builder.getI64IntegerAttr(b),
        graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW));
    return ic.defineOutput(0, y);
  }
  MLIRContext *ctx = ic.ctx();
  AffineExpr n = getAffineDimExpr(0, ctx), oc = getAffineDimExpr(1, ctx),
             h = getAffineDimExpr(2, ctx), w = getAffineDimExpr(3, ctx);
  AffineExpr block = oc.floorDiv(c);
  AffineMap map = AffineMap::get(
      4, 0, {n, oc % c, h * b + block.floorDiv(b), w * b + block % b}, ctx);
  return defineAffineCopy(ic, *x, shape, map);
}

/// Reverses the first sequence_lens[b] steps along time_axis of each batch
/// entry; the rest is copied. The lengths are read at run time.
llvm::Error importReverseSequence(ImportContext &ic) {
  auto x = plainInput(ic, 0), lens = plainInput(ic, 1);
  if (!x)
    return x.takeError();
  if (!lens)
    return lens.takeError();
  SmallVector<int64_t> shape(shapeOf(*x));
  int64_t rank = shape.size();
  if (rank < 2)
    return ic.fail("ReverseSequence needs a tensor of rank 2 or more");
  auto ta = normalizeAxis(ic, ic.attrInt("time_axis", 0), rank);
  auto ba = normalizeAxis(ic, ic.attrInt("batch_axis", 1), rank);
  if (!ta)
    return ta.takeError();
  if (!ba)
    return ba.takeError();
  int64_t t = *ta, bAxis = *ba;
  if (t == bAxis || t > 1 || bAxis > 1)
    return ic.fail("time_axis and batch_axis must be 0 and 1");
  if (shapeOf(*lens).size() != 1 || shapeOf(*lens)[0] != shape[bAxis] ||
      !isa<IntegerType>(elementOf(*lens)))
    return ic.fail("sequence_lens must be an integer vector of batch size");
  auto &b = ic.builder;
  Value y = ic.hostOp({*x, *lens}, x->getType(),
                      {b.getNamedAttr("batch_axis", b.getI64IntegerAttr(bAxis)),
                       b.getNamedAttr("time_axis", b.getI64IntegerAttr(t))});
  return ic.defineOutput(0, y);
}

} // namespace

void registerTensorOpImporters(llvm::StringMap<OpImporter> &table) {
  table["Expand"] = importExpand;
  table["Tile"] = importTile;
  table["Range"] = importRange;
  table["ConstantOfShape"] = importConstantOfShape;
  table["Size"] = importSize;
  table["EyeLike"] = importEyeLike;
  table["Split"] = importSplit;
  table["DepthToSpace"] = importDepthToSpace;
  table["SpaceToDepth"] = importSpaceToDepth;
  table["ReverseSequence"] = importReverseSequence;
}

} // namespace systole::frontend
