//===- FoldConstantElementwise.cpp - Elementwise ops on constants at import
//===//
//
// Exporters compute shapes with arithmetic on constants: a LayerNorm function
// body takes Size(Shape(X)) - axis, torch's exports compute reshape targets
// with Mul/Div/Add/Where/Equal on Gather(Shape(x)). Shapes are static here, so
// those values are known at import; folding them keeps the ops that need them
// at compile time (ConstantOfShape, Reshape, Expand, Slice) importable.
//
// Only ops whose float result is exactly the double computation rounded to
// the element type are folded (+, -, *, /, sqrt, comparisons, min/max,
// floor/ceil, casts, Mod): a float32 op computed in double and rounded once
// gives the float32 result bit for bit. Anything else stays a host op.
//
//===----------------------------------------------------------------------===//
#include "FoldConstantElementwise.h"

#include "systole/Dialect/Graph/GraphOps.h"

#include <cmath>
#include <cstring>
#include <functional>

namespace systole::frontend {

namespace {

/// Element types the folder reads and writes (float16/bfloat16 stay IR).
bool foldable(ElementType t) {
  switch (t) {
  case ElementType::Float16:
    return false;
  default:
    return true;
  }
}

bool isFloat(ElementType t) {
  return t == ElementType::Float32 || t == ElementType::Float64;
}

/// A scalar held as the widest type of its kind.
struct Num {
  bool isF;
  double f;
  int64_t i;
  uint64_t u() const { return static_cast<uint64_t>(i); }
};

Num load(const HostTensor &t, int64_t k) {
  const uint8_t *p = t.data();
  switch (t.type()) {
  case ElementType::Int8:
    return {false, 0, reinterpret_cast<const int8_t *>(p)[k]};
  case ElementType::UInt8:
  case ElementType::Bool:
    return {false, 0, p[k]};
  case ElementType::Int16:
    return {false, 0, reinterpret_cast<const int16_t *>(p)[k]};
  case ElementType::UInt16:
    return {false, 0, reinterpret_cast<const uint16_t *>(p)[k]};
  case ElementType::Int32:
    return {false, 0, reinterpret_cast<const int32_t *>(p)[k]};
  case ElementType::UInt32:
    return {false, 0, reinterpret_cast<const uint32_t *>(p)[k]};
  case ElementType::Int64:
  case ElementType::UInt64:
    return {false, 0, reinterpret_cast<const int64_t *>(p)[k]};
  case ElementType::Float32:
    return {true, reinterpret_cast<const float *>(p)[k], 0};
  case ElementType::Float64:
    return {true, reinterpret_cast<const double *>(p)[k], 0};
  case ElementType::Float16:
    break;
  }
  return {false, 0, 0};
}

template <typename T> void put(HostTensor &t, int64_t k, T v) {
  std::memcpy(t.data() + k * sizeof(T), &v, sizeof(T));
}

/// Stores `v` with ONNX Cast's conversions (float -> int truncates).
void store(HostTensor &t, int64_t k, const Num &v) {
  auto asInt = [&]() -> int64_t {
    return v.isF ? static_cast<int64_t>(std::trunc(v.f)) : v.i;
  };
  switch (t.type()) {
  case ElementType::Bool:
    put<uint8_t>(t, k, v.isF ? v.f != 0.0 : v.i != 0);
    break;
  case ElementType::Int8:
  case ElementType::UInt8:
    put<uint8_t>(t, k, static_cast<uint8_t>(asInt()));
    break;
  case ElementType::Int16:
  case ElementType::UInt16:
    put<uint16_t>(t, k, static_cast<uint16_t>(asInt()));
    break;
  case ElementType::Int32:
  case ElementType::UInt32:
    put<uint32_t>(t, k, static_cast<uint32_t>(asInt()));
    break;
  case ElementType::Int64:
  case ElementType::UInt64:
    put<int64_t>(t, k, asInt());
    break;
  case ElementType::Float32:
    put<float>(t, k, static_cast<float>(v.isF ? v.f : double(v.i)));
    break;
  case ElementType::Float64:
    put<double>(t, k, v.isF ? v.f : double(v.i));
    break;
  case ElementType::Float16:
    break;
  }
}

using Fn = std::function<std::optional<Num>(const std::vector<Num> &)>;

Num F(double v) { return {true, v, 0}; }
Num I(int64_t v) { return {false, 0, v}; }
Num B(bool v) { return {false, 0, v ? 1 : 0}; }

/// The op's scalar function, or nullptr if it is not folded. `uns`: the
/// integer operands are unsigned.
Fn scalarFn(llvm::StringRef op, bool uns) {
  auto arith = [uns](auto f, auto g) -> Fn {
    return [=](const std::vector<Num> &a) -> std::optional<Num> {
      if (a[0].isF)
        return F(f(a[0].f, a[1].f));
      return g(a[0], a[1]);
    };
  };
  if (op == "Add")
    return arith([](double x, double y) { return x + y; },
                 [](Num x, Num y) -> std::optional<Num> {
                   return I(int64_t(x.u() + y.u()));
                 });
  if (op == "Sub")
    return arith([](double x, double y) { return x - y; },
                 [](Num x, Num y) -> std::optional<Num> {
                   return I(int64_t(x.u() - y.u()));
                 });
  if (op == "Mul")
    return arith([](double x, double y) { return x * y; },
                 [](Num x, Num y) -> std::optional<Num> {
                   return I(int64_t(x.u() * y.u()));
                 });
  if (op == "Div")
    return arith([](double x, double y) { return x / y; },
                 [uns](Num x, Num y) -> std::optional<Num> {
                   if (y.i == 0)
                     return std::nullopt; // undefined: leave it to run time
                   if (uns)
                     return I(int64_t(x.u() / y.u()));
                   if (x.i == INT64_MIN && y.i == -1)
                     return std::nullopt;
                   return I(x.i / y.i);
                 });
  // Mod with fmod=0 (integers: the sign of the divisor, as Python's %) and
  // "FMod", the importer's name for fmod=1 (C's fmod and %: the sign of the
  // dividend; exact for floats, so double then rounding is bit-exact).
  if (op == "Mod" || op == "FMod") {
    bool fmod = op == "FMod";
    return [=](const std::vector<Num> &a) -> std::optional<Num> {
      if (a[0].isF) {
        if (!fmod)
          return std::nullopt; // float Mod requires fmod=1 (ONNX)
        return F(std::fmod(a[0].f, a[1].f));
      }
      Num x = a[0], y = a[1];
      if (y.i == 0)
        return std::nullopt;
      if (uns)
        return I(int64_t(x.u() % y.u()));
      if (x.i == INT64_MIN && y.i == -1)
        return I(0);
      int64_t r = x.i % y.i;
      if (!fmod && r != 0 && ((r < 0) != (y.i < 0)))
        r += y.i;
      return I(r);
    };
  }
  auto cmp = [uns](auto pred) -> Fn {
    return [=](const std::vector<Num> &a) -> std::optional<Num> {
      if (a[0].isF)
        return B(pred(a[0].f, a[1].f));
      if (uns)
        return B(pred(a[0].u(), a[1].u()));
      return B(pred(a[0].i, a[1].i));
    };
  };
  if (op == "Equal")
    return cmp([](auto x, auto y) { return x == y; });
  if (op == "Less")
    return cmp([](auto x, auto y) { return x < y; });
  if (op == "LessOrEqual")
    return cmp([](auto x, auto y) { return x <= y; });
  if (op == "Greater")
    return cmp([](auto x, auto y) { return x > y; });
  if (op == "GreaterOrEqual")
    return cmp([](auto x, auto y) { return x >= y; });
  if (op == "Not")
    return [](const std::vector<Num> &a) -> std::optional<Num> {
      return B(a[0].i == 0);
    };
  if (op == "And" || op == "Or" || op == "Xor")
    return [op](const std::vector<Num> &a) -> std::optional<Num> {
      bool x = a[0].i != 0, y = a[1].i != 0;
      return B(op == "And" ? (x && y) : op == "Or" ? (x || y) : (x != y));
    };
  if (op == "Where")
    return [](const std::vector<Num> &a) -> std::optional<Num> {
      return a[0].i ? a[1] : a[2];
    };
  if (op == "Neg")
    return [](const std::vector<Num> &a) -> std::optional<Num> {
      return a[0].isF ? F(-a[0].f) : I(int64_t(0 - a[0].u()));
    };
  if (op == "Abs")
    return [uns](const std::vector<Num> &a) -> std::optional<Num> {
      if (a[0].isF)
        return F(std::fabs(a[0].f));
      return uns || a[0].i >= 0 ? a[0] : I(int64_t(0 - a[0].u()));
    };
  if (op == "Sqrt")
    return [](const std::vector<Num> &a) -> std::optional<Num> {
      if (!a[0].isF)
        return std::nullopt;
      return F(std::sqrt(a[0].f));
    };
  if (op == "Floor" || op == "Ceil")
    return [op](const std::vector<Num> &a) -> std::optional<Num> {
      if (!a[0].isF)
        return std::nullopt;
      return F(op == "Floor" ? std::floor(a[0].f) : std::ceil(a[0].f));
    };
  if (op == "Min" || op == "Max" || op == "Sum")
    return [op, uns](const std::vector<Num> &a) -> std::optional<Num> {
      Num acc = a[0];
      for (size_t k = 1; k < a.size(); ++k) {
        const Num &v = a[k];
        if (acc.isF && (std::isnan(acc.f) || std::isnan(v.f))) {
          acc = F(NAN);
          continue;
        }
        if (op == "Sum") {
          acc = acc.isF ? F(acc.f + v.f) : I(int64_t(acc.u() + v.u()));
          continue;
        }
        bool less = acc.isF ? v.f < acc.f : uns ? v.u() < acc.u() : v.i < acc.i;
        bool greater = acc.isF ? v.f > acc.f
                       : uns   ? v.u() > acc.u()
                               : v.i > acc.i;
        if ((op == "Min" && less) || (op == "Max" && greater))
          acc = v;
      }
      return acc;
    };
  if (op == "Cast" || op == "CastLike")
    return [uns](const std::vector<Num> &a) -> std::optional<Num> {
      if (!a[0].isF && uns)
        return a[0].i < 0 ? F(double(a[0].u())) : a[0];
      if (a[0].isF && !std::isfinite(a[0].f))
        return std::nullopt; // float -> int of inf/nan is undefined
      return a[0];
    };
  return nullptr;
}

} // namespace

std::optional<HostTensor>
foldConstantElementwise(llvm::StringRef op,
                        llvm::ArrayRef<const HostTensor *> inputs,
                        ElementType resultType, bool isUnsigned) {
  constexpr int64_t kMaxElements = 1 << 16;
  if (inputs.empty() || !foldable(resultType))
    return std::nullopt;
  for (const HostTensor *t : inputs)
    if (!t || !foldable(t->type()))
      return std::nullopt;
  Fn fn = scalarFn(op, isUnsigned);
  if (!fn)
    return std::nullopt;
  // The operands of one arithmetic op share a kind (Where's condition and
  // Cast's source are read as they are).
  bool floatOperands = isFloat(inputs.back()->type());
  if (op != "Where" && op != "Cast" && op != "CastLike")
    for (const HostTensor *t : inputs)
      if (isFloat(t->type()) != floatOperands)
        return std::nullopt;
  llvm::SmallVector<int64_t> shape(inputs[0]->shape().begin(),
                                   inputs[0]->shape().end());
  for (const HostTensor *t : inputs.drop_front()) {
    auto s = graph::broadcastShapes(shape, t->shape());
    if (mlir::failed(s))
      return std::nullopt;
    shape.assign(s->begin(), s->end());
  }
  std::vector<int64_t> outShape(shape.begin(), shape.end());
  int64_t n = checkedNumElements(outShape);
  if (n < 0 || n > kMaxElements)
    return std::nullopt;
  HostTensor out(resultType, outShape);
  size_t rank = outShape.size();
  std::vector<int64_t> idx(rank, 0);
  std::vector<Num> args(inputs.size());
  for (int64_t k = 0; k < n; ++k) {
    for (size_t a = 0; a < inputs.size(); ++a) {
      // numpy broadcasting: align trailing dims, size-1 dims repeat.
      const std::vector<int64_t> &s = inputs[a]->shape();
      int64_t flat = 0;
      for (size_t d = 0; d < s.size(); ++d) {
        int64_t i = idx[rank - s.size() + d];
        flat = flat * s[d] + (s[d] == 1 ? 0 : i);
      }
      args[a] = load(*inputs[a], flat);
    }
    auto v = fn(args);
    if (!v)
      return std::nullopt;
    store(out, k, *v);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < outShape[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

} // namespace systole::frontend
