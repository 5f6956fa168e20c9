//===- ImportConv.cpp - Conv, QLinearConv and ConvInteger -----------------===//
//
// Float (Conv), QOperator (QLinearConv) and integer (ConvInteger) forms all
// map to graph.conv2d; only the element types differ (quantizedOperands,
// shared with the matrix products of ImportLinear.cpp).
//
//===----------------------------------------------------------------------===//
#include "ImportHelpers.h"

using namespace mlir;

namespace systole::frontend {

namespace {

llvm::Error buildConv(ImportContext &ic, Value x, Value w, Value bias,
                      Type resultElement) {
  auto xs = shapeOf(x), ws = shapeOf(w);
  if (xs.size() != 4 || ws.size() != 4)
    return ic.fail("only 2-D convolution (4-D input and weight) is supported, "
                   "got a " +
                   llvm::Twine(xs.size()) + "-D input");
  std::vector<int64_t> kernel{ws[2], ws[3]};
  if (auto k = ic.attrInts("kernel_shape"))
    if (*k != kernel)
      return ic.fail("kernel_shape does not match the weight shape");
  auto strides = ic.attrInts("strides").value_or(std::vector<int64_t>{1, 1});
  auto dilations =
      ic.attrInts("dilations").value_or(std::vector<int64_t>{1, 1});
  if (strides.size() != 2 || dilations.size() != 2)
    return ic.fail("strides and dilations must have 2 entries");
  for (int64_t s : strides)
    if (s <= 0)
      return ic.fail("strides must be positive");
  for (int64_t d : dilations)
    if (d <= 0)
      return ic.fail("dilations must be positive");
  auto pads = resolvePads2D(ic, {xs[2], xs[3]}, kernel, strides, dilations);
  if (!pads)
    return pads.takeError();
  int64_t group = ic.attrInt("group", 1);
  if (group <= 0 || xs[1] % group || ws[0] % group || xs[1] / group != ws[1])
    return ic.fail("group " + llvm::Twine(group) + " is inconsistent with " +
                   llvm::Twine(xs[1]) + " input channels and a weight of " +
                   llvm::Twine(ws[1]) + " channels per group");
  int64_t oh = graph::windowOutputSize(xs[2], kernel[0], strides[0],
                                       dilations[0], (*pads)[0], (*pads)[2]);
  int64_t ow = graph::windowOutputSize(xs[3], kernel[1], strides[1],
                                       dilations[1], (*pads)[1], (*pads)[3]);
  if (oh <= 0 || ow <= 0)
    return ic.fail("the kernel does not fit the padded input");
  if (bias && (shapeOf(bias).size() != 1 || shapeOf(bias)[0] != ws[0]))
    return ic.fail("bias must be 1-D with one value per output channel");
  auto b = ic.builder;
  Value y = b.create<graph::Conv2DOp>(
      ic.loc(), tensorType({xs[0], ws[0], oh, ow}, resultElement), x, w, bias,
      b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(dilations),
      b.getDenseI64ArrayAttr(*pads), b.getI64IntegerAttr(group),
      graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW), IntegerAttr(),
      IntegerAttr());
  // A ConvTranspose's MACs: every input element times Cout x kernel area.
  auto origin = ic.convTransposeOrigins.find(ic.node->output(0));
  if (origin != ic.convTransposeOrigins.end())
    y.getDefiningOp()->setAttr(
        graph::kModelMacsAttr,
        b.getI64IntegerAttr(xs[0] * xs[1] * xs[2] * xs[3] *
                            origin->second.coutPerGroup *
                            origin->second.kernelArea));
  return ic.defineOutput(0, y);
}

llvm::Error importConv(ImportContext &ic) {
  auto x = ic.input(0), w = ic.input(1);
  if (!x)
    return x.takeError();
  if (!w)
    return w.takeError();
  Value bias;
  if (ic.hasInput(2)) {
    auto b = ic.input(2);
    if (!b)
      return b.takeError();
    bias = *b;
  }
  if (!isa<FloatType>(elementOf(*x)))
    return ic.fail("Conv expects float tensors");
  return buildConv(ic, *x, *w, bias, elementOf(*x));
}

llvm::Error importQLinearConv(ImportContext &ic) {
  QuantOperands q{0, 1, 2, 3, 4, 5, 6, 7, 8};
  auto ops = quantizedOperands(ic, q, /*wAxis=*/0, /*integerOp=*/false);
  if (!ops)
    return ops.takeError();
  return buildConv(ic, ops->x, ops->w, ops->bias, ops->resultElement);
}

llvm::Error importConvInteger(ImportContext &ic) {
  QuantOperands q;
  q.x = 0, q.w = 1, q.xZp = 2, q.wZp = 3;
  auto ops = quantizedOperands(ic, q, /*wAxis=*/0, /*integerOp=*/true);
  if (!ops)
    return ops.takeError();
  return buildConv(ic, ops->x, ops->w, Value(), ops->resultElement);
}

} // namespace

void registerConvImporters(llvm::StringMap<OpImporter> &table) {
  table["Conv"] = importConv;
  table["QLinearConv"] = importQLinearConv;
  table["ConvInteger"] = importConvInteger;
}

} // namespace systole::frontend
