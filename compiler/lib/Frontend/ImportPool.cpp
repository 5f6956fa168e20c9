//===- ImportPool.cpp - Max/Average/Global pooling and their int8 forms ---===//
#include "ImportContext.h"

using namespace mlir;

namespace systole::frontend {

namespace {

llvm::Error buildPool(ImportContext &ic, Value x, graph::PoolKind kind,
                      Type resultElement) {
  auto xs = shapeOf(x);
  if (xs.size() != 4)
    return ic.fail("only 2-D pooling (4-D input) is supported");
  if (ic.node->output_size() > 1 && !ic.node->output(1).empty())
    return ic.fail("MaxPool's Indices output is not supported");
  auto kernel = ic.attrInts("kernel_shape");
  if (!kernel || kernel->size() != 2)
    return ic.fail("kernel_shape must have 2 entries");
  auto strides = ic.attrInts("strides").value_or(std::vector<int64_t>{1, 1});
  auto dilations =
      ic.attrInts("dilations").value_or(std::vector<int64_t>{1, 1});
  if (dilations != std::vector<int64_t>{1, 1})
    return ic.fail("dilated pooling is not supported");
  if (strides.size() != 2 || strides[0] <= 0 || strides[1] <= 0)
    return ic.fail("strides must be 2 positive values");
  auto pads = resolvePads2D(ic, {xs[2], xs[3]}, *kernel, strides, dilations);
  if (!pads)
    return pads.takeError();
  // ceil_mode: extend the end pads so floor division yields the ceil output;
  // the extension is never counted by an average (ONNX excludes it).
  bool ceilMode = ic.attrInt("ceil_mode", 0);
  bool countIncludePad = ic.attrInt("count_include_pad", 0);
  if (ceilMode) {
    for (int d = 0; d < 2; ++d) {
      int64_t span = xs[2 + d] + (*pads)[d] + (*pads)[d + 2] - (*kernel)[d];
      if (span < 0)
        return ic.fail("the kernel does not fit the padded input");
      int64_t out = (span + strides[d] - 1) / strides[d] + 1;
      // PyTorch/ONNX: the last window must start inside the input or the
      // begin padding.
      if ((out - 1) * strides[d] >= xs[2 + d] + (*pads)[d])
        --out;
      int64_t extra = (out - 1) * strides[d] + (*kernel)[d] - xs[2 + d] -
                      (*pads)[d] - (*pads)[d + 2];
      if (extra > 0) {
        if (kind == graph::PoolKind::Avg && countIncludePad &&
            ((*pads)[d] || (*pads)[d + 2]))
          return ic.fail("ceil_mode with count_include_pad and explicit "
                         "pads is not supported");
        (*pads)[d + 2] += extra;
      }
    }
  }
  int64_t oh = graph::windowOutputSize(xs[2], (*kernel)[0], strides[0], 1,
                                       (*pads)[0], (*pads)[2]);
  int64_t ow = graph::windowOutputSize(xs[3], (*kernel)[1], strides[1], 1,
                                       (*pads)[1], (*pads)[3]);
  if (oh <= 0 || ow <= 0)
    return ic.fail("the kernel does not fit the padded input");
  for (int d = 0; d < 2; ++d)
    if ((*pads)[d] >= (*kernel)[d] || (*pads)[d + 2] >= (*kernel)[d])
      return ic.fail("pads must be smaller than the kernel");
  auto b = ic.builder;
  Value y = b.create<graph::PoolOp>(
      ic.loc(), tensorType({xs[0], xs[1], oh, ow}, resultElement), x,
      graph::PoolKindAttr::get(ic.ctx(), kind), b.getDenseI64ArrayAttr(*kernel),
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(*pads),
      b.getBoolAttr(countIncludePad),
      graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW));
  return ic.defineOutput(0, y);
}

template <graph::PoolKind Kind> llvm::Error importPool(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  if (Kind == graph::PoolKind::Avg && !isa<FloatType>(elementOf(*x)))
    return ic.fail("AveragePool expects a float tensor");
  if (ic.node->op_type() == "MaxPool" && ic.attrInt("storage_order", 0))
    return ic.fail("storage_order=1 is not supported");
  return buildPool(ic, *x, Kind, elementOf(*x));
}

llvm::Error importGlobalAveragePool(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  auto xs = shapeOf(*x);
  if (xs.size() != 4)
    return ic.fail("only 4-D inputs are supported");
  Value y = ic.builder.create<graph::GlobalAvgPoolOp>(
      ic.loc(), tensorType({xs[0], xs[1], 1, 1}, elementOf(*x)), *x,
      graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW));
  return ic.defineOutput(0, y);
}

/// GlobalMaxPool is a max pool whose window is the whole image.
llvm::Error importGlobalMaxPool(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  auto xs = shapeOf(*x);
  if (xs.size() != 4)
    return ic.fail("only 4-D inputs are supported");
  auto b = ic.builder;
  Value y = b.create<graph::PoolOp>(
      ic.loc(), tensorType({xs[0], xs[1], 1, 1}, elementOf(*x)), *x,
      graph::PoolKindAttr::get(ic.ctx(), graph::PoolKind::Max),
      b.getDenseI64ArrayAttr({xs[2], xs[3]}), b.getDenseI64ArrayAttr({1, 1}),
      b.getDenseI64ArrayAttr({0, 0, 0, 0}), b.getBoolAttr(false),
      graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW));
  return ic.defineOutput(0, y);
}

/// Quantized operands (X, x_scale, x_zp, y_scale, y_zp) of ORT's
/// QLinear*Pool ops, NCHW only.
llvm::Expected<std::pair<Value, Type>> qlinearPoolOperands(ImportContext &ic) {
  if (ic.attrInt("channels_last", 0))
    return ic.fail("channels_last=1 is not supported");
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type i8 = IntegerType::get(ic.ctx(), 8);
  auto xt = ic.quantElementType(1, 2, 0, i8);
  auto yt = ic.quantElementType(3, 4, 0, i8);
  if (!xt)
    return xt.takeError();
  if (!yt)
    return yt.takeError();
  auto qx = ic.asQuantized(*x, *xt);
  if (!qx)
    return qx.takeError();
  return std::make_pair(*qx, *yt);
}

llvm::Error importQLinearGlobalAveragePool(ImportContext &ic) {
  auto ops = qlinearPoolOperands(ic);
  if (!ops)
    return ops.takeError();
  auto xs = shapeOf(ops->first);
  if (xs.size() != 4)
    return ic.fail("only 4-D inputs are supported");
  Value y = ic.builder.create<graph::GlobalAvgPoolOp>(
      ic.loc(), tensorType({xs[0], xs[1], 1, 1}, ops->second), ops->first,
      graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW));
  return ic.defineOutput(0, y);
}

llvm::Error importQLinearAveragePool(ImportContext &ic) {
  auto ops = qlinearPoolOperands(ic);
  if (!ops)
    return ops.takeError();
  return buildPool(ic, ops->first, graph::PoolKind::Avg, ops->second);
}

} // namespace

void registerPoolImporters(llvm::StringMap<OpImporter> &table) {
  table["MaxPool"] = importPool<graph::PoolKind::Max>;
  table["AveragePool"] = importPool<graph::PoolKind::Avg>;
  table["GlobalAveragePool"] = importGlobalAveragePool;
  table["GlobalMaxPool"] = importGlobalMaxPool;
  table["com.microsoft::QLinearGlobalAveragePool"] =
      importQLinearGlobalAveragePool;
  table["com.microsoft::QLinearAveragePool"] = importQLinearAveragePool;
}

} // namespace systole::frontend
