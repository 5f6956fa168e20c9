//===- ApproximateMath.cpp - math.exp/tanh/erf -> polynomials -------------===//
//
// The shared object must not depend on libm symbols the runtime might not
// export, and the PTX must not need libdevice; upstream's polynomial
// approximations give both targets the same arithmetic.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace systole::conversion {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "systole/Conversion/Passes.h.inc"
} // namespace systole::conversion

using namespace mlir;

namespace {
struct ApproximateMathPass
    : systole::conversion::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
