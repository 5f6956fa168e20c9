//===- Elementwise.cpp - Bodies of the elementwise ONNX ops ---------------===//
//
// Every elementwise ONNX operator (unary math, activations, arithmetic,
// comparisons, logic, bit ops, Where, Cast) as one linalg.generic with ONNX
// (numpy) broadcasting maps and an arith/math body: the semantics of each op
// are written once, for every element type ONNX allows (float16/32/64,
// signed integers, bool). The importer (Frontend/ImportHostElementwise.cpp)
// checks the operands against elementwiseSignature and records the node's
// attributes and the operands' signedness in params.
//
// Unsigned integer tensors are held in signless integers; ops whose result
// depends on signedness (division, remainder, comparison, min/max, right
// shift, conversion to and from float) pick the unsigned arith op when ONNX
// types the operand uint8..uint64 (`unsigned`, `unsigned_input1`,
// `unsigned_output` in params).
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/LoweringUtils.h"
#include "systole/Conversion/OnnxToLinalg.h"
#include "systole/Conversion/OrtMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <functional>

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion::onnx {

namespace elementwise {
namespace {

/// What an op needs to build its body: the builder, location, the scalar
/// arguments, the node's attributes (params) and the result element type.
struct Scalar {
  OpBuilder &b;
  Location loc;
  ValueRange args;
  const Params &p;
  Type elem;
  /// The (integer) operands are unsigned.
  bool uns = false;
  /// Input 1 (Pow's exponent, CastLike's target) / the output are unsigned.
  bool unsignedInput1 = false;
  bool unsignedOutput = false;

  Value x() const { return args[0]; }
  Value y() const { return args[1]; }
  Value cst(double v, Type t) const {
    if (auto f = dyn_cast<FloatType>(t))
      return b.create<arith::ConstantOp>(loc, b.getFloatAttr(f, v));
    return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, int64_t(v)));
  }
  Value fc(double v) const { return cst(v, x().getType()); }
  bool isFloat() const { return isa<FloatType>(x().getType()); }
};

using Body = std::function<Value(Scalar &)>;

/// An elementwise op: how many inputs (-1: variadic), whether it needs a
/// float input, the result element type rule and the body.
using Result = ElementwiseSignature::Result;
struct Elementwise {
  int inputs;
  bool floatOnly;
  Result result;
  Body body;
};

Value select(Scalar &s, Value c, Value a, Value b) {
  return s.b.create<arith::SelectOp>(s.loc, c, a, b);
}
Value cmpf(Scalar &s, arith::CmpFPredicate p, Value a, Value b) {
  return s.b.create<arith::CmpFOp>(s.loc, p, a, b);
}
Value cmpi(Scalar &s, arith::CmpIPredicate p, Value a, Value b) {
  return s.b.create<arith::CmpIOp>(s.loc, p, a, b);
}
Value addf(Scalar &s, Value a, Value b) {
  return s.b.create<arith::AddFOp>(s.loc, a, b);
}
Value mulf(Scalar &s, Value a, Value b) {
  return s.b.create<arith::MulFOp>(s.loc, a, b);
}
Value subf(Scalar &s, Value a, Value b) {
  return s.b.create<arith::SubFOp>(s.loc, a, b);
}
Value divf(Scalar &s, Value a, Value b) {
  return s.b.create<arith::DivFOp>(s.loc, a, b);
}
Value expf(Scalar &s, Value a) { return s.b.create<math::ExpOp>(s.loc, a); }
Value logf(Scalar &s, Value a) { return s.b.create<math::LogOp>(s.loc, a); }
float attrF(Scalar &s, const char *name, float dflt) {
  return s.p.attrFloat(name, dflt);
}

template <typename OpT> Body unaryMath() {
  return [](Scalar &s) -> Value { return s.b.create<OpT>(s.loc, s.x()); };
}

/// Float or integer binary arithmetic (`UOp`: the unsigned integer form).
template <typename FOp, typename IOp, typename UOp = IOp> Body arith2() {
  return [](Scalar &s) -> Value {
    if (s.isFloat())
      return s.b.create<FOp>(s.loc, s.x(), s.y());
    if (s.uns)
      return s.b.create<UOp>(s.loc, s.x(), s.y());
    return s.b.create<IOp>(s.loc, s.x(), s.y());
  };
}

/// The unsigned form of a signed integer predicate.
arith::CmpIPredicate unsignedPredicate(arith::CmpIPredicate p) {
  using IP = arith::CmpIPredicate;
  switch (p) {
  case IP::slt:
    return IP::ult;
  case IP::sle:
    return IP::ule;
  case IP::sgt:
    return IP::ugt;
  case IP::sge:
    return IP::uge;
  default:
    return p;
  }
}

Body compare(arith::CmpFPredicate f, arith::CmpIPredicate i) {
  return [f, i](Scalar &s) -> Value {
    if (s.isFloat())
      return cmpf(s, f, s.x(), s.y());
    return cmpi(s, s.uns ? unsignedPredicate(i) : i, s.x(), s.y());
  };
}

/// A variadic fold (Sum/Min/Max/Mean) over every argument.
Body fold(std::function<Value(Scalar &, Value, Value)> f, bool mean = false) {
  return [f, mean](Scalar &s) -> Value {
    Value acc = s.args[0];
    for (Value v : s.args.drop_front())
      acc = f(s, acc, v);
    if (mean)
      acc = divf(s, acc, s.fc(double(s.args.size())));
    return acc;
  };
}

Value minOf(Scalar &s, Value a, Value b) {
  return lw::minOf(s.b, s.loc, a, b, s.uns);
}
Value maxOf(Scalar &s, Value a, Value b) {
  return lw::maxOf(s.b, s.loc, a, b, s.uns);
}

/// ONNX Cast: float -> int truncates toward zero, int -> float rounds to
/// nearest, to bool is `x != 0`, from bool is 0/1; `fromU`/`toU` say that
/// the integer source/target is unsigned.
Value convert(OpBuilder &b, Location loc, Value v, Type to, bool fromU = false,
              bool toU = false) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fi = dyn_cast<IntegerType>(from), ti = dyn_cast<IntegerType>(to);
  auto ff = dyn_cast<FloatType>(from), tf = dyn_cast<FloatType>(to);
  if (ti && ti.getWidth() == 1) {
    if (ff)
      return b.create<arith::CmpFOp>(
          loc, arith::CmpFPredicate::UNE, v,
          b.create<arith::ConstantOp>(loc, b.getFloatAttr(ff, 0.0)));
    return b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne, v,
        b.create<arith::ConstantOp>(loc, b.getIntegerAttr(fi, 0)));
  }
  if (fi && fi.getWidth() == 1) {
    if (tf)
      return b.create<arith::UIToFPOp>(loc, to, v);
    return b.create<arith::ExtUIOp>(loc, to, v);
  }
  if (ff && tf) {
    // float16 <-> bfloat16 have one width: through float32.
    if (ff.getWidth() == tf.getWidth())
      return b.create<arith::TruncFOp>(
          loc, to, b.create<arith::ExtFOp>(loc, b.getF32Type(), v));
    return ff.getWidth() < tf.getWidth()
               ? Value(b.create<arith::ExtFOp>(loc, to, v))
               : Value(b.create<arith::TruncFOp>(loc, to, v));
  }
  if (ff && ti)
    return toU ? Value(b.create<arith::FPToUIOp>(loc, to, v))
               : Value(b.create<arith::FPToSIOp>(loc, to, v));
  if (fi && tf)
    return fromU ? Value(b.create<arith::UIToFPOp>(loc, to, v))
                 : Value(b.create<arith::SIToFPOp>(loc, to, v));
  if (fi.getWidth() == ti.getWidth())
    return v;
  if (fi.getWidth() > ti.getWidth())
    return b.create<arith::TruncIOp>(loc, to, v);
  return fromU ? Value(b.create<arith::ExtUIOp>(loc, to, v))
               : Value(b.create<arith::ExtSIOp>(loc, to, v));
}

const llvm::StringMap<Elementwise> &table() {
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  static const llvm::StringMap<Elementwise> t = [] {
    llvm::StringMap<Elementwise> m;
    auto f1 = [&](const char *n, Body b) {
      m[n] = {1, true, Result::SameAsInput, std::move(b)};
    };
    // Float math, the functions of ONNX's operator table.
    // float32 Exp, Erf and Tanh are MLAS's (ORT's kernels, bit for bit).
    f1("Exp", [](Scalar &s) {
      if (s.x().getType().isF32())
        return conversion::mlasExp(s.b, s.loc, s.x());
      return unaryMath<math::ExpOp>()(s);
    });
    f1("Log", unaryMath<math::LogOp>());
    f1("Sqrt", unaryMath<math::SqrtOp>());
    f1("Sin", unaryMath<math::SinOp>());
    f1("Cos", unaryMath<math::CosOp>());
    f1("Tan", unaryMath<math::TanOp>());
    f1("Asin", unaryMath<math::AsinOp>());
    f1("Acos", unaryMath<math::AcosOp>());
    f1("Atan", unaryMath<math::AtanOp>());
    f1("Sinh", unaryMath<math::SinhOp>());
    f1("Cosh", unaryMath<math::CoshOp>());
    f1("Asinh", unaryMath<math::AsinhOp>());
    f1("Acosh", unaryMath<math::AcoshOp>());
    f1("Atanh", unaryMath<math::AtanhOp>());
    f1("Erf", [](Scalar &s) {
      if (s.x().getType().isF32())
        return conversion::mlasErf(s.b, s.loc, s.x());
      return unaryMath<math::ErfOp>()(s);
    });
    f1("Tanh", [](Scalar &s) {
      if (s.x().getType().isF32())
        return conversion::mlasTanh(s.b, s.loc, s.x());
      return unaryMath<math::TanhOp>()(s);
    });
    f1("Floor", unaryMath<math::FloorOp>());
    f1("Ceil", unaryMath<math::CeilOp>());
    // ONNX Round is round-half-to-even.
    f1("Round", unaryMath<math::RoundEvenOp>());
    f1("Reciprocal", [](Scalar &s) { return divf(s, s.fc(1), s.x()); });
    f1("Sigmoid", [](Scalar &s) {
      if (s.x().getType().isF32())
        return conversion::mlasLogistic(s.b, s.loc, s.x());
      return divf(
          s, s.fc(1),
          addf(s, s.fc(1), expf(s, s.b.create<arith::NegFOp>(s.loc, s.x()))));
    });
    f1("Softplus",
       [](Scalar &s) { return logf(s, addf(s, expf(s, s.x()), s.fc(1))); });
    f1("Softsign", [](Scalar &s) {
      Value a = s.b.create<math::AbsFOp>(s.loc, s.x());
      return divf(s, s.x(), addf(s, s.fc(1), a));
    });
    f1("Elu", [](Scalar &s) {
      Value neg = mulf(s, s.fc(attrF(s, "alpha", 1.0f)),
                       subf(s, expf(s, s.x()), s.fc(1)));
      return select(s, cmpf(s, FP::OLT, s.x(), s.fc(0)), neg, s.x());
    });
    f1("Celu", [](Scalar &s) {
      // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
      Value alpha = s.fc(attrF(s, "alpha", 1.0f));
      Value e =
          mulf(s, alpha, subf(s, expf(s, divf(s, s.x(), alpha)), s.fc(1)));
      return addf(s, maxOf(s, s.fc(0), s.x()), minOf(s, s.fc(0), e));
    });
    f1("Selu", [](Scalar &s) {
      Value alpha = s.fc(attrF(s, "alpha", 1.67326319217681884765625f));
      Value gamma = s.fc(attrF(s, "gamma", 1.05070102214813232421875f));
      Value neg = subf(s, mulf(s, alpha, expf(s, s.x())), alpha);
      Value v = select(s, cmpf(s, FP::OLE, s.x(), s.fc(0)), neg, s.x());
      return mulf(s, gamma, v);
    });
    f1("LeakyRelu", [](Scalar &s) {
      Value a = s.fc(attrF(s, "alpha", 0.01f));
      return select(s, cmpf(s, FP::OLT, s.x(), s.fc(0)), mulf(s, a, s.x()),
                    s.x());
    });
    f1("ThresholdedRelu", [](Scalar &s) {
      Value a = s.fc(attrF(s, "alpha", 1.0f));
      return select(s, cmpf(s, FP::OGT, s.x(), a), s.x(), s.fc(0));
    });
    f1("HardSigmoid", [](Scalar &s) {
      Value v = addf(s, mulf(s, s.fc(attrF(s, "alpha", 0.2f)), s.x()),
                     s.fc(attrF(s, "beta", 0.5f)));
      return minOf(s, s.fc(1), maxOf(s, s.fc(0), v));
    });
    f1("HardSwish", [](Scalar &s) {
      Value v = addf(s, mulf(s, s.fc(1.0 / 6.0), s.x()), s.fc(0.5));
      return mulf(s, s.x(), minOf(s, s.fc(1), maxOf(s, s.fc(0), v)));
    });
    f1("Mish", [](Scalar &s) {
      Value sp = logf(s, addf(s, expf(s, s.x()), s.fc(1)));
      return mulf(s, s.x(), s.b.create<math::TanhOp>(s.loc, sp));
    });
    f1("Gelu", [](Scalar &s) -> Value {
      if (s.p.attrString("approximate", "none") == "tanh") {
        // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        Value x3 = mulf(s, s.x(), mulf(s, s.x(), s.x()));
        Value in = mulf(s, s.fc(std::sqrt(2.0 / M_PI)),
                        addf(s, s.x(), mulf(s, s.fc(0.044715), x3)));
        Value t = s.b.create<math::TanhOp>(s.loc, in);
        return mulf(s, mulf(s, s.fc(0.5), s.x()), addf(s, s.fc(1), t));
      }
      Value e = s.b.create<math::ErfOp>(s.loc, mulf(s, s.x(), s.fc(M_SQRT1_2)));
      return mulf(s, mulf(s, s.fc(0.5), s.x()), addf(s, s.fc(1), e));
    });
    f1("Shrink", [](Scalar &s) {
      Value l = s.fc(attrF(s, "lambd", 0.5f));
      Value bias = s.fc(attrF(s, "bias", 0.0f));
      Value nl = s.b.create<arith::NegFOp>(s.loc, l);
      Value lo =
          select(s, cmpf(s, FP::OLT, s.x(), nl), addf(s, s.x(), bias), s.fc(0));
      return select(s, cmpf(s, FP::OGT, s.x(), l), subf(s, s.x(), bias), lo);
    });
    m["IsNaN"] = {1, true, Result::Bool,
                  [](Scalar &s) { return cmpf(s, FP::UNO, s.x(), s.x()); }};
    m["IsInf"] = {1, true, Result::Bool, [](Scalar &s) -> Value {
                    Value inf = s.fc(INFINITY), ninf = s.fc(-INFINITY);
                    bool pos = s.p.attrInt("detect_positive", 1);
                    bool neg = s.p.attrInt("detect_negative", 1);
                    Value p = cmpf(s, FP::OEQ, s.x(), inf);
                    Value n = cmpf(s, FP::OEQ, s.x(), ninf);
                    Value no = s.cst(0, s.b.getI1Type());
                    return s.b.create<arith::OrIOp>(s.loc, pos ? p : no,
                                                    neg ? n : no);
                  }};

    // Any numeric type.
    auto n1 = [&](const char *n, Body b) {
      m[n] = {1, false, Result::SameAsInput, std::move(b)};
    };
    n1("Abs", [](Scalar &s) -> Value {
      if (s.isFloat())
        return s.b.create<math::AbsFOp>(s.loc, s.x());
      if (s.uns)
        return s.x();
      return s.b.create<math::AbsIOp>(s.loc, s.x());
    });
    n1("Neg", [](Scalar &s) -> Value {
      if (s.isFloat())
        return s.b.create<arith::NegFOp>(s.loc, s.x());
      return s.b.create<arith::SubIOp>(s.loc, s.fc(0), s.x());
    });
    n1("Relu", [](Scalar &s) { return maxOf(s, s.x(), s.fc(0)); });
    n1("Sign", [](Scalar &s) -> Value {
      if (s.isFloat()) {
        Value pos =
            select(s, cmpf(s, FP::OGT, s.x(), s.fc(0)), s.fc(1), s.fc(0));
        return select(s, cmpf(s, FP::OLT, s.x(), s.fc(0)), s.fc(-1), pos);
      }
      if (s.uns)
        return select(s, cmpi(s, IP::ne, s.x(), s.fc(0)), s.fc(1), s.fc(0));
      Value pos = select(s, cmpi(s, IP::sgt, s.x(), s.fc(0)), s.fc(1), s.fc(0));
      return select(s, cmpi(s, IP::slt, s.x(), s.fc(0)), s.fc(-1), pos);
    });
    n1("BitwiseNot", [](Scalar &s) -> Value {
      return s.b.create<arith::XOrIOp>(s.loc, s.x(), s.fc(-1));
    });
    m["Not"] = {1, false, Result::Bool, [](Scalar &s) -> Value {
                  return s.b.create<arith::XOrIOp>(s.loc, s.x(),
                                                   s.cst(1, s.b.getI1Type()));
                }};

    auto n2 = [&](const char *n, Body b) {
      m[n] = {2, false, Result::SameAsInput, std::move(b)};
    };
    n2("Add", arith2<arith::AddFOp, arith::AddIOp>());
    n2("Sub", arith2<arith::SubFOp, arith::SubIOp>());
    n2("Mul", arith2<arith::MulFOp, arith::MulIOp>());
    n2("Div", arith2<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>());
    n2("BitwiseAnd", [](Scalar &s) -> Value {
      return s.b.create<arith::AndIOp>(s.loc, s.x(), s.y());
    });
    n2("BitwiseOr", [](Scalar &s) -> Value {
      return s.b.create<arith::OrIOp>(s.loc, s.x(), s.y());
    });
    n2("BitwiseXor", [](Scalar &s) -> Value {
      return s.b.create<arith::XOrIOp>(s.loc, s.x(), s.y());
    });
    n2("BitShift", [](Scalar &s) -> Value {
      if (s.p.attrString("direction", "") == "LEFT")
        return s.b.create<arith::ShLIOp>(s.loc, s.x(), s.y());
      return s.b.create<arith::ShRUIOp>(s.loc, s.x(), s.y());
    });
    n2("Mod", [](Scalar &s) -> Value {
      if (!s.isFloat() && s.uns)
        return s.b.create<arith::RemUIOp>(s.loc, s.x(), s.y());
      if (s.isFloat() || s.p.attrInt("fmod", 0))
        return s.isFloat()
                   ? Value(s.b.create<arith::RemFOp>(s.loc, s.x(), s.y()))
                   : Value(s.b.create<arith::RemSIOp>(s.loc, s.x(), s.y()));
      // Integer Mod takes the sign of the divisor (Python's %).
      Value r = s.b.create<arith::RemSIOp>(s.loc, s.x(), s.y());
      Value zero = s.fc(0);
      Value rNeg = cmpi(s, IP::slt, r, zero),
            yNeg = cmpi(s, IP::slt, s.y(), zero);
      Value fix = s.b.create<arith::AndIOp>(
          s.loc, cmpi(s, IP::ne, r, zero),
          s.b.create<arith::XOrIOp>(s.loc, rNeg, yNeg));
      return select(s, fix, s.b.create<arith::AddIOp>(s.loc, r, s.y()), r);
    });
    // Pow's exponent may have another type; it is converted to the base's.
    n2("Pow", [](Scalar &s) -> Value {
      // `exponent`: a constant 2 or 3, which ORT computes by multiplication.
      if (s.isFloat() && s.p.has("exponent")) {
        Value sq = mulf(s, s.x(), s.x());
        return s.p.attrInt("exponent", 2) == 3 ? mulf(s, sq, s.x()) : sq;
      }
      Value e =
          convert(s.b, s.loc, s.y(), s.x().getType(), s.unsignedInput1, s.uns);
      if (s.isFloat())
        return s.b.create<math::PowFOp>(s.loc, s.x(), e);
      return s.b.create<math::IPowIOp>(s.loc, s.x(), e);
    });
    n2("PRelu", [](Scalar &s) -> Value {
      if (s.isFloat())
        return select(s, cmpf(s, FP::OLT, s.x(), s.fc(0)),
                      mulf(s, s.x(), s.y()), s.x());
      return select(s, cmpi(s, IP::slt, s.x(), s.fc(0)),
                    s.b.create<arith::MulIOp>(s.loc, s.x(), s.y()), s.x());
    });
    auto cmp = [&](const char *n, FP f, IP i) {
      m[n] = {2, false, Result::Bool, compare(f, i)};
    };
    cmp("Equal", FP::OEQ, IP::eq);
    cmp("Less", FP::OLT, IP::slt);
    cmp("LessOrEqual", FP::OLE, IP::sle);
    cmp("Greater", FP::OGT, IP::sgt);
    cmp("GreaterOrEqual", FP::OGE, IP::sge);
    m["And"] = {2, false, Result::Bool, [](Scalar &s) -> Value {
                  return s.b.create<arith::AndIOp>(s.loc, s.x(), s.y());
                }};
    m["Or"] = {2, false, Result::Bool, [](Scalar &s) -> Value {
                 return s.b.create<arith::OrIOp>(s.loc, s.x(), s.y());
               }};
    m["Xor"] = {2, false, Result::Bool, [](Scalar &s) -> Value {
                  return s.b.create<arith::XOrIOp>(s.loc, s.x(), s.y());
                }};
    m["Sum"] = {-1, false, Result::SameAsInput,
                fold([](Scalar &s, Value a, Value b) -> Value {
                  if (isa<FloatType>(a.getType()))
                    return addf(s, a, b);
                  return s.b.create<arith::AddIOp>(s.loc, a, b);
                })};
    m["Mean"] = {-1, true, Result::SameAsInput, fold(addf, /*mean=*/true)};
    m["Min"] = {-1, false, Result::SameAsInput, fold(minOf)};
    m["Max"] = {-1, false, Result::SameAsInput, fold(maxOf)};
    // Where(cond, x, y): the result type is x's.
    m["Where"] = {3, false, Result::Attr, [](Scalar &s) -> Value {
                    return select(s, s.args[0], s.args[1], s.args[2]);
                  }};
    m["Cast"] = {1, false, Result::Attr, [](Scalar &s) -> Value {
                   return convert(s.b, s.loc, s.x(), s.elem, s.uns,
                                  s.unsignedOutput);
                 }};
    m["CastLike"] = {2, false, Result::Attr, [](Scalar &s) -> Value {
                       return convert(s.b, s.loc, s.x(), s.elem, s.uns,
                                      s.unsignedInput1);
                     }};
    return m;
  }();
  return t;
}

/// The body of every op of the table: one linalg.generic over the result's
/// shape with broadcasting maps.
llvm::Expected<Value> build(OpBuilder &b, Location loc, ValueRange args,
                            Type result, const Params &p,
                            const Elementwise &e) {
  SmallVector<int64_t> shape(cast<RankedTensorType>(result).getShape());
  Type elem = cast<RankedTensorType>(result).getElementType();
  SYSTOLE_PARAM(uns, p.flag("unsigned"));
  SYSTOLE_PARAM(in1, p.flag("unsigned_input1"));
  SYSTOLE_PARAM(out, p.flag("unsigned_output"));
  // CastLike's `like` operand only gives the result type: not an operand.
  int want = p.op() == "CastLike" ? 1 : e.inputs;
  if (args.empty() || (want >= 0 && int(args.size()) != want))
    return p.fail("expects " + llvm::Twine(want) + " operands, got " +
                  llvm::Twine(args.size()));
  return lw::elementwise(
      b, loc, shape, args,
      [&](OpBuilder &nb, Location l, ValueRange scalars) {
        Scalar s{nb, l, scalars, p, elem, uns, in1, out};
        return e.body(s);
      },
      elem);
}

} // namespace
} // namespace elementwise

namespace elementwise {
namespace {

/// Clip of an integer tensor: max(x, min) then min(., max), the bounds
/// scalar operands of x's type (`has_min`, `has_max` say which are there).
llvm::Expected<Value> integerClip(OpBuilder &b, Location loc, ValueRange a,
                                  Type, const Params &p) {
  SYSTOLE_PARAM(uns, p.flag("unsigned"));
  SYSTOLE_PARAM(hasLo, p.flag("has_min"));
  SYSTOLE_PARAM(hasHi, p.flag("has_max"));
  if (a.size() != 1 + size_t(hasLo) + size_t(hasHi) ||
      !isa<IntegerType>(elementOf(a[0])))
    return p.fail("expects an integer tensor and the bounds has_min/has_max "
                  "name");
  return lw::elementwise(
      b, loc, shapeOf(a[0]), a,
      [&](OpBuilder &nb, Location l, ValueRange s) -> Value {
        Value v = s[0];
        size_t k = 1;
        if (hasLo)
          v = uns ? Value(nb.create<arith::MaxUIOp>(l, v, s[k++]))
                  : Value(nb.create<arith::MaxSIOp>(l, v, s[k++]));
        if (hasHi)
          v = uns ? Value(nb.create<arith::MinUIOp>(l, v, s[k]))
                  : Value(nb.create<arith::MinSIOp>(l, v, s[k]));
        return v;
      },
      elementOf(a[0]));
}

} // namespace
} // namespace elementwise

void registerElementwiseBodies(llvm::StringMap<HostBodyFn> &table) {
  table["Clip"] = elementwise::integerClip;
  // One builder serves every op: it finds the op's entry by name.
  for (const auto &e : elementwise::table())
    table[e.getKey()] = [](OpBuilder &b, Location loc, ValueRange args,
                           Type result,
                           const Params &p) -> llvm::Expected<Value> {
      return elementwise::build(b, loc, args, result, p,
                                elementwise::table().find(p.op())->second);
    };
}

} // namespace systole::conversion::onnx

namespace systole::conversion {

std::optional<ElementwiseSignature> elementwiseSignature(llvm::StringRef op) {
  auto it = onnx::elementwise::table().find(op);
  if (it == onnx::elementwise::table().end())
    return std::nullopt;
  return ElementwiseSignature{it->second.inputs, it->second.floatOnly,
                              it->second.result};
}

std::vector<std::string> elementwiseOps() {
  std::vector<std::string> ops;
  for (const auto &e : onnx::elementwise::table())
    ops.push_back(e.getKey().str());
  return ops;
}

} // namespace systole::conversion
