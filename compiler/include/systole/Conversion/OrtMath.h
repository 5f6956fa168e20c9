//===- OrtMath.h - Float functions computed as ONNX Runtime's MLAS does ---===//
//
// Where ORT computes a transcendental function with its own approximation
// (MLAS), the host fallback repeats that approximation operation for
// operation, so quantized models that round its result agree with ORT
// bit for bit instead of "within an ulp".
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_ORTMATH_H
#define SYSTOLE_CONVERSION_ORTMATH_H

#include "mlir/IR/Builders.h"

#include <cstdint>
#include <vector>

namespace systole::conversion {

/// logistic(x) = 1 / (1 + e^-x) of a float32 scalar as MLAS's x86-64 FMA3
/// kernel computes it (MlasComputeLogistic, the kernel of ORT's Sigmoid and
/// of the table of com.microsoft.QLinearSigmoid): x clamped to [-18, 18],
/// odd/even rational polynomial in x^2 by fused multiply-adds, p / q + 0.5,
/// clamped below at 0.
mlir::Value mlasLogistic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// tanh(x) of a float32 scalar as MLAS's FMA3 kernel computes it
/// (MlasComputeTanhF32KernelFma3, ORT's Tanh): x clamped to [-9, 9], the
/// odd/even rational polynomial of Eigen's tanh in x^2 by fused
/// multiply-adds, p / q.
mlir::Value mlasTanh(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// erf(x) of a float32 scalar as MLAS's FMA3 kernel computes it
/// (MlasErfKernelFma3, ORT's Erf): |x| clamped to 3.925; below 0.921875 an
/// odd polynomial, above it 1 - exp(-q(|x|)) with MLAS's erf-specific exp;
/// the sign of x copied onto the result.
mlir::Value mlasErf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// e^x of a float32 scalar as MLAS's AVX512F kernels compute it
/// (MlasComputeExpF32KernelAvx512F, ORT's Exp, and the same steps inside
/// MlasComputeSumExpF32KernelAvx512F, ORT's Softmax): x clamped below at
/// -103.972, range reduction x - m ln2 in two FMAs, a degree-6 polynomial by
/// FMAs, then VSCALEFPS's single rounding of p * 2^m (x clamped above at
/// 88.776 too, so that exp(+inf) = inf as ORT's Exp gives).
mlir::Value mlasExp(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// Softmax of a float32 tensor over `axes` (contiguous, ascending; every
/// other dim a row index) as ORT 1.23 computes it on AVX512F: the row
/// maximum, e = mlasExp(x + -max), their sum accumulated in 16 lanes
/// (lane k mod 16, rows of 16 in order) and reduced as the kernel's
/// vextractf64x4/vhaddps/vaddss tree, then e * (1 / sum).
mlir::Value mlasSoftmax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        llvm::ArrayRef<int64_t> axes);

/// Row sums of a float32 [R, N] tensor as ORT 1.23's ReduceSum/ReduceMean
/// over trailing axes computes them (ReduceAggregatorSum::FastReduceKR, an
/// Eigen vector sum built for SSE): from the first 16-byte aligned element
/// of the row (row r starts r * N floats into a 16-byte aligned tensor),
/// packets of 4 in two accumulators, their sum plus a last packet,
/// reduced as (p0 + p2) + (p1 + p3), then the elements before the aligned
/// start and after the last packet one by one; a row with fewer than 4
/// aligned elements is summed in order.
mlir::Value eigenRowSums(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value rows);

/// ORT's float32 ReduceSum (`mean` false) or ReduceMean of `x` over `axes`
/// (ascending) as `outShape`, when they are the trailing axes: eigenRowSums
/// of the rows, the mean by one float division. A null Value for other
/// axes (ORT takes other paths there).
mlir::Value ortTrailingSum(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x, llvm::ArrayRef<int64_t> axes,
                           bool mean, llvm::ArrayRef<int64_t> outShape);

/// What ORT's MatMul<float> hands MLAS for one product (MatMulComputeHelper:
/// a 2-D B folds A's batch dims into M), and whether B is a constant 2-D
/// weight, which ORT prepacks (GemmPackBFp32).
struct SgemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool packedB = false;
  /// SGEMM's alpha (com.microsoft.FusedMatMul): the first stride's sum is
  /// multiplied by it, each further one added by a fused multiply-add.
  float alpha = 1.0f;
};

/// y = sum over the last loop (K) of lhs[lhsMap] * rhs[rhsMap], into a
/// float32 tensor of `outShape` at yMap, as MLAS's SGEMM on x86-64 sums each
/// output (ORT 1.23, MlasGemmBatch): the general kernels (AVX512F, FMA3)
/// chain fused multiply-adds over K in order from zero, one chain per
/// stride of K (256 for a prepacked B, else 128 scaled by the N/K rule of
/// MlasSgemmOperation), each chain added to the result; with M == 1 and B
/// not prepacked the AVX kernel MlasSgemmKernelM1Avx rounds each product
/// and adds groups of 4, then a group of 2 and of 1, to the result (only
/// with alpha 1, else the general kernels run). (One
/// output column, N == 1, takes MLAS's M1TransposeB kernel, not
/// reproduced: the general order is used.)
mlir::Value mlasSgemm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                      mlir::Value rhs, mlir::AffineMap lhsMap,
                      mlir::AffineMap rhsMap, mlir::AffineMap yMap,
                      llvm::ArrayRef<int64_t> outShape, SgemmShape shape);

/// ORT's QLinearSoftmax table (QlinearBuildLookupTableUint32 with a float
/// table): the entry for code byte b is exp((i - 255 + shift) * x_scale) in
/// double, i = b's position (b + 128 for int8), shift keeping the row's
/// float sum in range. Both the host body and the NPU's VSOFTMAX read it.
std::vector<float> qlinearSoftmaxTable(float xScale, int64_t reduceLen,
                                       bool isSigned);

} // namespace systole::conversion

#endif // SYSTOLE_CONVERSION_ORTMATH_H
