//===- ExpandBFloat16.cpp - bfloat16 conversions as integer arithmetic ----===//
//
// LLVM lowers `fptrunc float to bfloat` on x86 to a call of __truncsfbf2,
// which Debian 12's libgcc (GCC 12) does not provide, so a shared object with
// a bfloat16 Cast would not load. Upstream's bf16 expansion writes extf and
// truncf of bfloat16 as shifts and integer rounding (round to nearest even,
// NaN kept quiet), as ONNX's Cast and ONNX Runtime compute them.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace systole::conversion {
#define GEN_PASS_DEF_EXPANDBFLOAT16
#include "systole/Conversion/Passes.h.inc"
} // namespace systole::conversion

using namespace mlir;

namespace {
struct ExpandBFloat16Pass
    : systole::conversion::impl::ExpandBFloat16Base<ExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
