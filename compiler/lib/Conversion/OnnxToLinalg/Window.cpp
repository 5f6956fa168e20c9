//===- Window.cpp - What the conv and pool bodies share -------------------===//
#include "Window.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace systole::conversion {

SmallVector<NamedAttribute> windowParams(Builder &b, const Window &w) {
  return {b.getNamedAttr("kernel", b.getDenseI64ArrayAttr(w.kernel)),
          b.getNamedAttr("strides", b.getDenseI64ArrayAttr(w.strides)),
          b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(w.dilations)),
          b.getNamedAttr("pad_begin", b.getDenseI64ArrayAttr(w.padBegin)),
          b.getNamedAttr("pad_end", b.getDenseI64ArrayAttr(w.padEnd)),
          b.getNamedAttr("ceil_extra", b.getDenseI64ArrayAttr(w.ceilExtra)),
          b.getNamedAttr("out", b.getDenseI64ArrayAttr(w.out))};
}

namespace onnx::window {

llvm::Expected<Window> windowOf(const Params &p, int64_t rank) {
  Window w;
  std::pair<const char *, SmallVector<int64_t> *> fields[] = {
      {"kernel", &w.kernel},
      {"strides", &w.strides},
      {"dilations", &w.dilations},
      {"pad_begin", &w.padBegin},
      {"pad_end", &w.padEnd},
      {"ceil_extra", &w.ceilExtra},
      {"out", &w.out}};
  for (auto [name, field] : fields) {
    SYSTOLE_PARAM(v, p.i64s(name));
    if (int64_t(v.size()) != rank)
      return p.fail("parameter '" + llvm::Twine(name) + "' needs " +
                    llvm::Twine(rank) + " entries, one per spatial dim");
    *field = v;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (w.kernel[d] <= 0 || w.strides[d] <= 0 || w.dilations[d] <= 0 ||
        w.out[d] <= 0)
      return p.fail("kernel, strides, dilations and out must be positive");
  return w;
}

Value padWith(OpBuilder &b, Location loc, Value in, ArrayRef<int64_t> low,
              ArrayRef<int64_t> high, Value pad) {
  if (llvm::all_of(low, [](int64_t x) { return x == 0; }) &&
      llvm::all_of(high, [](int64_t x) { return x == 0; }))
    return in;
  SmallVector<int64_t> shape(shapeOf(in));
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += low[d] + high[d];
  MLIRContext *ctx = b.getContext();
  return b.create<tensor::PadOp>(loc, tensorType(shape, elementOf(in)), in,
                                 getAsIndexOpFoldResult(ctx, low),
                                 getAsIndexOpFoldResult(ctx, high), pad);
}

Value padWindow(OpBuilder &b, Location loc, Value in, ArrayRef<int64_t> begin,
                ArrayRef<int64_t> end, Value pad) {
  SmallVector<int64_t> low{0, 0}, high{0, 0};
  low.append(begin.begin(), begin.end());
  high.append(end.begin(), end.end());
  return padWith(b, loc, in, low, high, pad);
}

SmallVector<AffineExpr> dims(MLIRContext *ctx, int64_t from, int64_t n) {
  SmallVector<AffineExpr> e;
  for (int64_t i = 0; i < n; ++i)
    e.push_back(getAffineDimExpr(from + i, ctx));
  return e;
}

} // namespace onnx::window

} // namespace systole::conversion
