//===- Linear.cpp - Bodies of MatMul, MatMulInteger, Gemm and Einsum ------===//
//
// Every MatMul/Gemm/MatMulInteger the NPU does not take (1-D operands,
// float64/float16/integer data, alpha/beta, a full or scalar C, run-time
// integer operands) is one contraction: linalg.matmul for two plain
// matrices, otherwise a linalg.generic whose maps (the importer's
// `indexing_maps`: numpy batch broadcasting, transposes, the promoted 1-D
// operands) read the operands, K the last loop, accumulating in the
// operands' type as ORT's CPU kernels do. An Einsum is one linalg.generic
// too: the product of the operands' elements, summed over the reduction
// loops into a zero-filled result. The importers (Frontend/ImportLinear.cpp,
// ImportEinsum.cpp) check shapes and derive the maps.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/LoweringUtils.h"
#include "systole/Conversion/OrtMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace linear {
namespace {

using lw::addOf;
using lw::mulOf;

/// The contraction's loops: the result's dims, then K.
struct Contraction {
  ArrayRef<int64_t> out;
  int64_t loops = 0;
  AffineMap yMap;
};

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  if (auto f = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(f, 0.0));
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, 0));
}

Value zerosOf(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type t) {
  Value e = b.create<tensor::EmptyOp>(loc, shape, t);
  return b
      .create<linalg::FillOp>(loc, ValueRange{zeroOf(b, loc, t)}, ValueRange{e})
      .getResult(0);
}

/// y = sum_k term(operands at their maps) over the loops of `c`, into a
/// zero-filled tensor of `elem`.
Value contract(
    OpBuilder &b, Location loc, const Contraction &c, ValueRange ins,
    ArrayRef<AffineMap> inMaps, Type elem,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> term) {
  SmallVector<AffineMap> maps(inMaps.begin(), inMaps.end());
  maps.push_back(c.yMap);
  SmallVector<utils::IteratorType> iters(c.loops - 1,
                                         utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Value init = zerosOf(b, loc, c.out, elem);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value t = term(nb, l, a.drop_back());
            nb.create<linalg::YieldOp>(l, addOf(nb, l, a.back(), t));
          })
      .getResult(0);
}

/// `indexing_maps` of `count` affine maps over the same loops.
llvm::Expected<SmallVector<AffineMap>> mapsOf(const Params &p, size_t count) {
  auto attrs = llvm::dyn_cast_or_null<ArrayAttr>(p.attr("indexing_maps"));
  if (!attrs || attrs.size() != count)
    return p.fail("parameter 'indexing_maps' needs " + llvm::Twine(count) +
                  " affine maps");
  SmallVector<AffineMap> maps;
  for (Attribute a : attrs) {
    auto m = llvm::dyn_cast<AffineMapAttr>(a);
    if (!m ||
        (!maps.empty() && m.getValue().getNumDims() != maps[0].getNumDims()))
      return p.fail("the indexing maps must range over the same loops");
    maps.push_back(m.getValue());
  }
  return maps;
}

/// MatMul of any rank and element type: maps for A, B and the result.
llvm::Expected<Value> matMul(OpBuilder &nb, Location loc, ValueRange args,
                             Type result, const Params &p) {
  SYSTOLE_PARAM(maps, mapsOf(p, 3));
  if (args.size() != 2)
    return p.fail("expects A and B");
  auto type = cast<RankedTensorType>(result);
  Type elem = type.getElementType();
  Contraction c{type.getShape(), maps[0].getNumDims(), maps[2]};
  if (p.has("alpha") && !elem.isF32())
    return p.fail("parameter 'alpha' needs float32 operands");
  if (elem.isF32()) {
    // Summed as ORT's MatMul<float> (MLAS SGEMM) sums (OrtMath.h): its
    // helper folds A's batch into M when B is 2-D; a 1-D operand is one row
    // or column.
    ArrayRef<int64_t> a = shapeOf(args[0]), bs = shapeOf(args[1]);
    SgemmShape shape;
    shape.k = a.back();
    shape.m = a.size() == 1 ? 1 : a[a.size() - 2];
    if (bs.size() <= 2)
      for (size_t i = 0; i + 2 < a.size(); ++i)
        shape.m *= a[i];
    shape.n = bs.size() == 1 ? 1 : bs.back();
    shape.packedB =
        bs.size() == 2 && args[1].getDefiningOp<arith::ConstantOp>() != nullptr;
    // com.microsoft.FusedMatMul's scale (ORT's MatMulScaleFusion).
    shape.alpha = p.attrFloat("alpha", 1.0f);
    return mlasSgemm(nb, loc, args[0], args[1], maps[0], maps[1], maps[2],
                     c.out, shape);
  }
  if (shapeOf(args[0]).size() == 2 && shapeOf(args[1]).size() == 2)
    return nb
        .create<linalg::MatmulOp>(loc, ValueRange{args[0], args[1]},
                                  ValueRange{zerosOf(nb, loc, c.out, elem)})
        .getResult(0);
  return contract(nb, loc, c, args, {maps[0], maps[1]}, elem,
                  [](OpBuilder &tb, Location l, ValueRange s) {
                    return mulOf(tb, l, s[0], s[1]);
                  });
}

/// MatMulInteger: sum((a - a_zp) * (b - b_zp)) in int32, the int8 data
/// extended by its ONNX signedness (`unsigned_a`, `unsigned_b`); maps for
/// A, B, the zero points the params say are there, and the result.
llvm::Expected<Value> matMulInteger(OpBuilder &nb, Location loc,
                                    ValueRange args, Type result,
                                    const Params &p) {
  SYSTOLE_PARAM(hasAZp, p.flag("has_a_zero_point"));
  SYSTOLE_PARAM(hasBZp, p.flag("has_b_zero_point"));
  SYSTOLE_PARAM(aUnsigned, p.flag("unsigned_a"));
  SYSTOLE_PARAM(bUnsigned, p.flag("unsigned_b"));
  size_t n = 2 + size_t(hasAZp) + size_t(hasBZp);
  SYSTOLE_PARAM(maps, mapsOf(p, n + 1));
  if (args.size() != n)
    return p.fail("expects A, B and the zero points the params name");
  int aZp = hasAZp ? 2 : -1, bZp = hasBZp ? (hasAZp ? 3 : 2) : -1;
  auto type = cast<RankedTensorType>(result);
  Type i32 = type.getElementType();
  Contraction c{type.getShape(), maps[0].getNumDims(), maps.back()};
  return contract(
      nb, loc, c, args, ArrayRef<AffineMap>(maps).drop_back(), i32,
      [&](OpBuilder &tb, Location l, ValueRange s) -> Value {
        auto widen = [&](Value v, bool isUnsigned) -> Value {
          if (isUnsigned)
            return tb.create<arith::ExtUIOp>(l, i32, v);
          return tb.create<arith::ExtSIOp>(l, i32, v);
        };
        Value x = widen(s[0], aUnsigned), w = widen(s[1], bUnsigned);
        if (aZp >= 0)
          x = tb.create<arith::SubIOp>(l, x, widen(s[aZp], aUnsigned));
        if (bZp >= 0)
          w = tb.create<arith::SubIOp>(l, w, widen(s[bZp], bUnsigned));
        return tb.create<arith::MulIOp>(l, x, w);
      });
}

/// Gemm: alpha * A' B' + beta * C, maps for A' and B' (the transposes) and
/// the result; C (a third operand) broadcast to [M, N].
llvm::Expected<Value> gemm(OpBuilder &nb, Location loc, ValueRange args,
                           Type result, const Params &p) {
  SYSTOLE_PARAM(maps, mapsOf(p, 3));
  float alpha = p.attrFloat("alpha", 1.0f), beta = p.attrFloat("beta", 1.0f);
  if (args.size() != 2 && args.size() != 3)
    return p.fail("expects A, B and an optional C");
  bool withC = args.size() == 3;
  auto type = cast<RankedTensorType>(result);
  Type elem = type.getElementType();
  Contraction c{type.getShape(), maps[0].getNumDims(), maps[2]};
  auto scalar = [&](OpBuilder &sb, Location l, double v) -> Value {
    if (auto f = dyn_cast<FloatType>(elem))
      return sb.create<arith::ConstantOp>(l, sb.getFloatAttr(f, v));
    return sb.create<arith::ConstantOp>(l, sb.getIntegerAttr(elem, int64_t(v)));
  };
  Value ab = contract(nb, loc, c, args.take_front(2), {maps[0], maps[1]}, elem,
                      [](OpBuilder &tb, Location l, ValueRange s) {
                        return mulOf(tb, l, s[0], s[1]);
                      });
  if (alpha == 1.0f && !withC)
    return ab;
  SmallVector<Value> epilogue = {ab};
  if (withC)
    epilogue.push_back(args[2]);
  return lw::elementwise(
      nb, loc, c.out, epilogue,
      [&](OpBuilder &eb, Location l, ValueRange s) -> Value {
        Value v = s[0];
        if (alpha != 1.0f)
          v = mulOf(eb, l, scalar(eb, l, alpha), v);
        if (!withC)
          return v;
        Value cv = s[1];
        if (beta != 1.0f)
          cv = mulOf(eb, l, scalar(eb, l, beta), cv);
        return addOf(eb, l, v, cv);
      },
      elem);
}

/// Params `indexing_maps` (one per operand, then the result's), `loops`,
/// `reduction_loops`.
llvm::Expected<Value> einsum(OpBuilder &b, Location loc, ValueRange args,
                             Type result, const Params &p) {
  SYSTOLE_PARAM(loops, p.i64("loops"));
  SYSTOLE_PARAM(reductionLoops, p.i64s("reduction_loops"));
  auto mapAttrs = llvm::dyn_cast_or_null<ArrayAttr>(p.attr("indexing_maps"));
  if (!mapAttrs || mapAttrs.size() != args.size() + 1)
    return p.fail("parameter 'indexing_maps' needs one affine map per operand "
                  "and one for the result");
  SmallVector<AffineMap> maps;
  for (Attribute a : mapAttrs) {
    auto m = llvm::dyn_cast<AffineMapAttr>(a);
    if (!m || m.getValue().getNumDims() != uint64_t(loops))
      return p.fail("every indexing map must range over the loops");
    maps.push_back(m.getValue());
  }
  SmallVector<utils::IteratorType> iters(loops, utils::IteratorType::parallel);
  for (int64_t r : reductionLoops) {
    if (r < 0 || r >= loops)
      return p.fail("a reduction loop is out of range");
    iters[r] = utils::IteratorType::reduction;
  }
  auto type = cast<RankedTensorType>(result);
  Type elem = type.getElementType();
  ArrayRef<int64_t> outShape = type.getShape();
  bool reduces = !reductionLoops.empty();
  bool isFloat = isa<FloatType>(elem);
  Value init = b.create<tensor::EmptyOp>(loc, outShape, elem);
  if (reduces) {
    Value zero =
        isFloat ? b.create<arith::ConstantOp>(loc, b.getFloatAttr(elem, 0.0))
                : b.create<arith::ConstantOp>(loc, b.getIntegerAttr(elem, 0));
    init = b.create<linalg::FillOp>(loc, ValueRange{zero}, ValueRange{init})
               .getResult(0);
  }
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, args, ValueRange{init}, maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange s) {
            Value prod = s[0];
            for (Value v : s.drop_front().drop_back())
              prod = isFloat ? Value(nb.create<arith::MulFOp>(l, prod, v))
                             : Value(nb.create<arith::MulIOp>(l, prod, v));
            if (reduces)
              prod = isFloat
                         ? Value(nb.create<arith::AddFOp>(l, s.back(), prod))
                         : Value(nb.create<arith::AddIOp>(l, s.back(), prod));
            nb.create<linalg::YieldOp>(l, prod);
          })
      .getResult(0);
}

} // namespace
} // namespace linear

void registerLinearBodies(llvm::StringMap<HostBodyFn> &table) {
  table["Einsum"] = linear::einsum;
  table["MatMul"] = linear::matMul;
  table["MatMulInteger"] = linear::matMulInteger;
  table["Gemm"] = linear::gemm;
}

} // namespace systole::conversion::onnx
