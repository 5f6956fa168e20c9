//===- ApproximateMath.cpp - math.exp/tanh/erf -> polynomials -------------===//
//
// The shared object must not depend on libm symbols the runtime might not
// export, and the PTX must not need libdevice; upstream's polynomial
// approximations give both targets the same arithmetic.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
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
    // Only exp/tanh/erf (and what their expansions create): upstream's
    // asin/acos/atan/log/sin/cos polynomials are less accurate than libm
    // (asin near 1 is off by 1e-2), and those functions have no ORT kernel
    // of their own to match, so they stay libm calls (math-to-llvm/libm).
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::ExpOp, math::TanhOp, math::ErfOp>(op))
        ops.push_back(op);
    });
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    if (failed(applyOpPatternsAndFold(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
