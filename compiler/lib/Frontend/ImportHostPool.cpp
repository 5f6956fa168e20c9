//===- ImportHostPool.cpp - Pooling and MaxUnpool on the host -------------===//
//
// MaxPool, AveragePool, LpPool and their Global forms of any spatial rank,
// and MaxUnpool, as graph.host ops: the input is checked and every window
// attribute (pads, auto_pad, strides, dilations, ceil_mode) is resolved
// into the op's params; the bodies are built by
// Conversion/OnnxToLinalg/Pool.cpp.
//
// The graph.pool forms (ImportPool.cpp) stay for 2-D pools whose input comes
// from a DequantizeLinear: FoldQDQ turns those into the NPU's int8 ops.
// Everything else runs here. Convolution: ImportHostConv.cpp.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"
#include "ImportHostWindow.h"

using namespace mlir;

namespace systole::frontend {

namespace {

enum class PoolKind { Max, Sum, Lp };

llvm::Expected<Value> poolInput(ImportContext &ic, bool floatOnly) {
  auto x = plainInput(ic, 0);
  if (!x)
    return x.takeError();
  Type e = elementOf(*x);
  if (floatOnly && !isa<FloatType>(e))
    return ic.fail(ic.node->op_type() + " expects a float tensor");
  if (!isa<FloatType>(e) && e.getIntOrFloatBitWidth() != 8)
    return ic.fail(ic.node->op_type() + " of " +
                   llvm::Twine(e.getIntOrFloatBitWidth()) +
                   "-bit integers is not an ONNX type");
  if (shapeOf(*x).size() < 3)
    return ic.fail("expects an [N, C, D1, ...] input of rank 3 or more");
  return *x;
}

/// MaxPool, AveragePool and LpPool of any spatial rank.
llvm::Error importHostPool(ImportContext &ic, PoolKind kind) {
  auto x = poolInput(ic, kind != PoolKind::Max);
  if (!x)
    return x.takeError();
  auto xs = shapeOf(*x);
  int64_t r = xs.size() - 2;
  bool isUnsigned = ic.isUnsignedInput(0);
  auto kernel = kernelShape(ic, r, std::nullopt);
  if (!kernel)
    return kernel.takeError();
  auto win = resolveWindow(ic, xs.drop_front(2), *kernel,
                           ic.attrInt("ceil_mode", 0) != 0);
  if (!win)
    return win.takeError();
  double p = kind == PoolKind::Lp ? double(ic.attrInt("p", 2)) : 0.0;
  if (kind == PoolKind::Lp && p <= 0)
    return ic.fail("p must be positive");
  bool includePad = ic.attrInt("count_include_pad", 0) != 0;
  int64_t storageOrder = ic.attrInt("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return ic.fail("storage_order must be 0 or 1");
  OpBuilder &b = ic.builder;
  auto params = conversion::windowParams(b, *win);
  params.push_back(b.getNamedAttr("unsigned", b.getBoolAttr(isUnsigned)));
  if (kind == PoolKind::Lp)
    params.push_back(b.getNamedAttr("p", b.getI64IntegerAttr(int64_t(p))));
  if (kind == PoolKind::Sum)
    params.push_back(
        b.getNamedAttr("count_include_pad", b.getBoolAttr(includePad)));
  SmallVector<int64_t> yshape{xs[0], xs[1]};
  yshape.append(win->out.begin(), win->out.end());
  auto withOutput = [&](int64_t k) {
    SmallVector<NamedAttribute> all(params);
    all.push_back(b.getNamedAttr("output", b.getI64IntegerAttr(k)));
    if (k == 1)
      all.push_back(
          b.getNamedAttr("column_major", b.getBoolAttr(storageOrder == 1)));
    return all;
  };
  Type elem = elementOf(*x);
  if (auto err = ic.defineOutput(
          0, ic.hostOp(*x, tensorType(yshape, elem), withOutput(0))))
    return err;
  if (ic.node->output_size() < 2 || ic.node->output(1).empty())
    return llvm::Error::success();
  return ic.defineOutput(
      1, ic.hostOp(*x, tensorType(yshape, b.getI64Type()), withOutput(1)));
}

/// The 2-D pooling forms the NPU runs: a DequantizeLinear input (FoldQDQ
/// folds the island) or an already quantized one (QOperator models), no
/// dilation, no Indices output.
bool forNpuPool(ImportContext &ic, OpImporter graphForm) {
  auto x = ic.input(0);
  if (!x) {
    llvm::consumeError(x.takeError());
    return false;
  }
  auto dil = ic.attrInts("dilations");
  bool dilated = dil && llvm::any_of(*dil, [](int64_t v) { return v != 1; });
  bool indices = ic.node->output_size() > 1 && !ic.node->output(1).empty();
  return graphForm && shapeOf(*x).size() == 4 &&
         (fromDequantize(*x) || graph::isQuantized(elementOf(*x))) &&
         !dilated && !indices;
}

/// The graph form for QDQ pools, the host form when the graph form refuses
/// the attributes or the input is not quantized.
template <PoolKind Kind> llvm::Error importPool(ImportContext &ic) {
  OpImporter graphForm =
      graphFormOf(Kind == PoolKind::Max ? "MaxPool" : "AveragePool");
  if (forNpuPool(ic, graphForm)) {
    if (llvm::Error e = graphForm(ic))
      llvm::consumeError(std::move(e));
    else
      return llvm::Error::success();
  }
  return importHostPool(ic, Kind);
}

llvm::Error importLpPool(ImportContext &ic) {
  return importHostPool(ic, PoolKind::Lp);
}

/// GlobalMax/Average/LpPool of any rank: a reduction over every spatial dim
/// to [N, C, 1, ...].
template <PoolKind Kind, bool Average>
llvm::Error importGlobalPool(ImportContext &ic) {
  OpImporter graphForm = Kind == PoolKind::Max ? graphFormOf("GlobalMaxPool")
                         : Average ? graphFormOf("GlobalAveragePool")
                                   : nullptr;
  if (forNpuPool(ic, graphForm))
    return graphForm(ic);
  auto x = poolInput(ic, Kind != PoolKind::Max);
  if (!x)
    return x.takeError();
  auto xs = shapeOf(*x);
  int64_t r = xs.size() - 2;
  bool isUnsigned = ic.isUnsignedInput(0);
  double p = Kind == PoolKind::Lp ? double(ic.attrInt("p", 2)) : 0.0;
  if (Kind == PoolKind::Lp && p <= 0)
    return ic.fail("p must be positive");
  OpBuilder &b = ic.builder;
  SmallVector<NamedAttribute> params{
      b.getNamedAttr("unsigned", b.getBoolAttr(isUnsigned))};
  if (Kind == PoolKind::Lp)
    params.push_back(b.getNamedAttr("p", b.getI64IntegerAttr(int64_t(p))));
  SmallVector<int64_t> yshape{xs[0], xs[1]};
  yshape.append(r, 1);
  return ic.defineOutput(
      0, ic.hostOp(*x, tensorType(yshape, elementOf(*x)), params));
}

/// MaxUnpool: checks I and output_shape against the shape the pooling
/// attributes infer; `grow` is what output_shape adds at the end.
llvm::Error importMaxUnpool(ImportContext &ic) {
  auto x = ic.input(0), idx = ic.input(1);
  if (!x)
    return x.takeError();
  if (!idx)
    return idx.takeError();
  auto xs = shapeOf(*x);
  int64_t r = xs.size() - 2;
  if (xs.size() < 3)
    return ic.fail("expects an [N, C, D1, ...] input of rank 3 or more");
  if (shapeOf(*idx) != xs || !elementOf(*idx).isInteger(64))
    return ic.fail("I must be int64 with X's shape");
  auto kernel = kernelShape(ic, r, std::nullopt);
  if (!kernel)
    return kernel.takeError();
  auto strides = attrVector(ic, "strides", r, 1, 1);
  auto pads = attrVector(ic, "pads", 2 * r, 0, 0);
  if (!strides)
    return strides.takeError();
  if (!pads)
    return pads.takeError();
  SmallVector<int64_t> inferred{xs[0], xs[1]};
  for (int64_t d = 0; d < r; ++d)
    inferred.push_back((xs[2 + d] - 1) * (*strides)[d] + (*kernel)[d] -
                       (*pads)[d] - (*pads)[d + r]);
  SmallVector<int64_t> outShape(inferred);
  if (ic.hasInput(2)) {
    auto s = ic.constantInts(2);
    if (!s)
      return s.takeError();
    if (int64_t(s->size()) != r + 2)
      return ic.fail("output_shape must have " + llvm::Twine(r + 2) +
                     " entries");
    outShape.assign(s->begin(), s->end());
  }
  SmallVector<int64_t> grow;
  for (int64_t d = 0; d < r + 2; ++d) {
    if (outShape[d] < inferred[d] || (d < 2 && outShape[d] != inferred[d]))
      return ic.fail("output_shape is smaller than the shape the pooling "
                     "attributes infer");
    grow.push_back(outShape[d] - inferred[d]);
  }
  return ic.defineOutput(
      0, ic.hostOp(ValueRange{*x, *idx}, tensorType(outShape, elementOf(*x)),
                   {ic.builder.getNamedAttr(
                       "grow", ic.builder.getDenseI64ArrayAttr(grow))}));
}

} // namespace

void registerHostPoolImporters(llvm::StringMap<OpImporter> &table) {
  table["MaxPool"] = importPool<PoolKind::Max>;
  table["AveragePool"] = importPool<PoolKind::Sum>;
  table["LpPool"] = importLpPool;
  table["GlobalMaxPool"] = importGlobalPool<PoolKind::Max, false>;
  table["GlobalAveragePool"] = importGlobalPool<PoolKind::Sum, true>;
  table["GlobalLpPool"] = importGlobalPool<PoolKind::Lp, false>;
  table["MaxUnpool"] = importMaxUnpool;
}

} // namespace systole::frontend
