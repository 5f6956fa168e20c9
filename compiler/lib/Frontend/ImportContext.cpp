//===- ImportContext.cpp - What the op importers read and define --------===//
//
// Node inputs (values or compile-time constants), attributes, outputs, the
// graph.host ops the families emit, and quantized element types.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

using namespace mlir;
using llvm::StringRef;

namespace systole::frontend {

llvm::Error ImportContext::notConstant(int i, const llvm::Twine &what) const {
  std::string name = hasInput(i) ? node->input(i) : std::string();
  std::string msg;
  llvm::handleAllErrors(
      fail("input " + llvm::Twine(i) + " ('" + name + "'" +
           (what.isTriviallyEmpty() ? "" : ", " + what) +
           ") must be a compile-time constant (an initializer or computed "
           "from initializers)"),
      [&](const llvm::ErrorInfoBase &e) { msg = e.message(); });
  return llvm::make_error<NotConstantError>(msg, name);
}

llvm::Error ImportContext::fail(const llvm::Twine &msg) const {
  std::string where = modelPath.str();
  if (node)
    where += ": node '" + node->name() + "' (" +
             (node->domain().empty() ? "" : node->domain() + "::") +
             node->op_type() + ")";
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 where + ": " + msg);
}

Location ImportContext::loc() const {
  Location file = FileLineColLoc::get(ctx(), modelPath, 0, 0);
  if (!node)
    return file;
  // Nameless nodes are named after their first output; the pseudo-node of a
  // constant graph output has none (fuzz-onnx-import: protobuf read of a
  // missing element).
  std::string name = !node->name().empty() ? node->name()
                     : node->output_size()
                         ? node->op_type() + ":" + node->output(0)
                         : node->op_type();
  return NameLoc::get(StringAttr::get(ctx(), name), file);
}

bool ImportContext::isDefined(StringRef name) const {
  return values.count(name);
}

bool ImportContext::hasInput(int i) const {
  return i < node->input_size() && !node->input(i).empty();
}

const HostTensor *ImportContext::constant(StringRef name) const {
  auto it = values.find(name);
  if (it == values.end() || !it->second.constant)
    return nullptr;
  return &*it->second.constant;
}

const HostTensor *ImportContext::constantInput(int i) const {
  return hasInput(i) ? constant(node->input(i)) : nullptr;
}

static Type elementTypeFor(MLIRContext *ctx, ElementType type) {
  switch (type) {
  case ElementType::Int8:
    return IntegerType::get(ctx, 8);
  case ElementType::UInt8:
    // Signless: the quant dialect's casts take only signless storage; the
    // unsignedness lives in the `!quant.uniform<u8...>` types.
    return IntegerType::get(ctx, 8);
  case ElementType::Int16:
    return IntegerType::get(ctx, 16);
  case ElementType::Int32:
    return IntegerType::get(ctx, 32);
  case ElementType::Int64:
    return IntegerType::get(ctx, 64);
  case ElementType::Float32:
    return Float32Type::get(ctx);
  case ElementType::Float64:
    return Float64Type::get(ctx);
  case ElementType::Bool:
    return IntegerType::get(ctx, 1);
  case ElementType::Float16:
    return Float16Type::get(ctx);
  // Signless like uint8; ImportContext::isUnsigned says which are unsigned.
  case ElementType::UInt16:
    return IntegerType::get(ctx, 16);
  case ElementType::UInt32:
    return IntegerType::get(ctx, 32);
  case ElementType::UInt64:
    return IntegerType::get(ctx, 64);
  case ElementType::BFloat16:
    return BFloat16Type::get(ctx);
  }
  return {};
}

Value ImportContext::materialize(const HostTensor &tensor) {
  auto type = tensorType(tensor.shape(), elementTypeFor(ctx(), tensor.type()));
  DenseElementsAttr attr;
  if (tensor.type() == ElementType::Bool) {
    SmallVector<bool> bits(tensor.data(), tensor.data() + tensor.byteSize());
    attr = DenseElementsAttr::get(type, bits);
  } else {
    attr = DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(reinterpret_cast<const char *>(tensor.data()),
                             tensor.byteSize()));
  }
  return builder.create<arith::ConstantOp>(loc(), type, attr);
}

Value ImportContext::hostOp(ValueRange inputs, Type result,
                            ArrayRef<NamedAttribute> params) {
  return builder
      .create<graph::HostOp>(
          loc(), result, inputs,
          builder.getStringAttr(node ? node->op_type() : "host"),
          builder.getDictionaryAttr(params))
      .getOutput();
}

Value ImportContext::hostCopy(Value v) {
  return hostOp(v, v.getType(),
                {builder.getNamedAttr("body", builder.getStringAttr("Copy"))});
}

llvm::Expected<Value> ImportContext::input(int i) {
  if (!hasInput(i))
    return fail("missing required input " + llvm::Twine(i));
  return value(node->input(i));
}

llvm::Expected<Value> ImportContext::value(StringRef name) {
  auto it = values.find(name);
  if (it == values.end())
    return fail("input '" + name +
                "' is not defined before use (cyclic or unsorted graph)");
  if (!it->second.value)
    it->second.value = materialize(*it->second.constant);
  return it->second.value;
}

llvm::Expected<std::vector<int64_t>> ImportContext::constantInts(int i) {
  const HostTensor *t = constantInput(i);
  if (!t)
    return notConstant(i);
  std::vector<int64_t> out;
  for (int64_t k = 0; k < t->numElements(); ++k) {
    switch (t->type()) {
    case ElementType::Int64:
      out.push_back(t->dataAs<int64_t>()[k]);
      break;
    case ElementType::Int32:
      out.push_back(t->dataAs<int32_t>()[k]);
      break;
    default:
      return fail("input " + llvm::Twine(i) + " must be int32/int64, got " +
                  elementTypeName(t->type()));
    }
  }
  return out;
}

llvm::Expected<std::vector<float>> ImportContext::constantFloats(int i) {
  const HostTensor *t = constantInput(i);
  if (!t)
    return notConstant(i);
  std::vector<float> out;
  for (int64_t k = 0; k < t->numElements(); ++k) {
    if (t->type() == ElementType::Float32)
      out.push_back(t->dataAs<float>()[k]);
    else if (t->type() == ElementType::Float64)
      out.push_back(static_cast<float>(t->dataAs<double>()[k]));
    else
      return fail("input " + llvm::Twine(i) + " must be float, got " +
                  elementTypeName(t->type()));
  }
  return out;
}

void ImportContext::define(StringRef name, Value value) {
  values[name] = Entry{value, std::nullopt};
}

void ImportContext::defineConstant(StringRef name, HostTensor tensor) {
  values[name] = Entry{Value(), std::move(tensor)};
}

llvm::Error ImportContext::defineOutput(int i, Value value) {
  if (i >= node->output_size())
    return fail("expected at least " + llvm::Twine(i + 1) + " outputs");
  define(node->output(i), value);
  return llvm::Error::success();
}

const onnx::AttributeProto *ImportContext::attr(StringRef name) const {
  for (const auto &a : node->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

SmallVector<NamedAttribute> ImportContext::nodeAttributes() const {
  SmallVector<NamedAttribute> out;
  llvm::StringSet<> seen;
  for (const auto &a : node->attribute()) {
    // The first of equally named attributes, as attr() reads.
    if (!seen.insert(a.name()).second)
      continue;
    Attribute v;
    switch (a.type()) {
    case onnx::AttributeProto::INT:
      v = builder.getI64IntegerAttr(a.i());
      break;
    case onnx::AttributeProto::FLOAT:
      v = builder.getF32FloatAttr(a.f());
      break;
    case onnx::AttributeProto::STRING:
      v = builder.getStringAttr(a.s());
      break;
    case onnx::AttributeProto::INTS:
      v = builder.getDenseI64ArrayAttr(
          SmallVector<int64_t>(a.ints().begin(), a.ints().end()));
      break;
    case onnx::AttributeProto::FLOATS:
      v = builder.getDenseF32ArrayAttr(
          SmallVector<float>(a.floats().begin(), a.floats().end()));
      break;
    default:
      continue;
    }
    out.push_back(builder.getNamedAttr(a.name(), v));
  }
  return out;
}

int64_t ImportContext::attrInt(StringRef name, int64_t dflt) const {
  const auto *a = attr(name);
  return a ? a->i() : dflt;
}

float ImportContext::attrFloat(StringRef name, float dflt) const {
  const auto *a = attr(name);
  return a ? a->f() : dflt;
}

std::string ImportContext::attrString(StringRef name, StringRef dflt) const {
  const auto *a = attr(name);
  return a ? a->s() : dflt.str();
}

std::optional<std::vector<int64_t>>
ImportContext::attrInts(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

llvm::Expected<Type> ImportContext::quantElementType(int scaleIdx, int zpIdx,
                                                     int64_t axis,
                                                     Type defaultStorage) {
  auto scales = constantFloats(scaleIdx);
  if (!scales)
    return scales.takeError();
  if (scales->empty())
    return fail("empty scale");
  for (float s : *scales)
    if (!(s > 0.0f) || !std::isfinite(s))
      return fail("scale must be positive and finite, got " +
                  std::to_string(s));
  std::vector<int64_t> zps(scales->size(), 0);
  Type storage = defaultStorage;
  if (zpIdx >= 0 && hasInput(zpIdx)) {
    const HostTensor *zt = constantInput(zpIdx);
    if (!zt)
      return notConstant(zpIdx, "the zero point");
    if (zt->numElements() != static_cast<int64_t>(scales->size()))
      return fail("zero point has " + llvm::Twine(zt->numElements()) +
                  " elements, scale has " + llvm::Twine(scales->size()));
    storage = zt->type() == ElementType::UInt8
                  ? IntegerType::get(ctx(), 8, IntegerType::Unsigned)
                  : elementTypeFor(ctx(), zt->type());
    for (int64_t k = 0; k < zt->numElements(); ++k) {
      switch (zt->type()) {
      case ElementType::Int8:
        zps[k] = zt->dataAs<int8_t>()[k];
        break;
      case ElementType::UInt8:
        zps[k] = zt->dataAs<uint8_t>()[k];
        break;
      case ElementType::Int32:
        zps[k] = zt->dataAs<int32_t>()[k];
        break;
      default:
        return fail(llvm::Twine("unsupported zero point type ") +
                    elementTypeName(zt->type()));
      }
    }
  }
  // The storage of a tensor without zero point is its own element type,
  // which a hostile model can make a float (fuzz-onnx-import: invalid cast).
  auto intType = dyn_cast<IntegerType>(storage);
  if (!intType || intType.getWidth() < 2 || intType.getWidth() > 32) {
    std::string name;
    llvm::raw_string_ostream os(name);
    storage.print(os);
    return fail("quantized data must be an integer tensor of at most 32 "
                "bits, got " +
                os.str());
  }
  bool isSigned = !intType.isUnsigned();
  unsigned width = intType.getWidth();
  int64_t lo = isSigned ? -(int64_t(1) << (width - 1)) : 0;
  int64_t hi =
      isSigned ? (int64_t(1) << (width - 1)) - 1 : (int64_t(1) << width) - 1;
  unsigned flags = isSigned ? quant::QuantizationFlags::Signed : 0;
  Type expressed = Float32Type::get(ctx());
  Type signless = IntegerType::get(ctx(), width);
  if (scales->size() == 1)
    return quant::UniformQuantizedType::get(flags, signless, expressed,
                                            (*scales)[0], zps[0], lo, hi);
  SmallVector<double> s(scales->begin(), scales->end());
  return quant::UniformQuantizedPerAxisType::get(
      flags, signless, expressed, s, zps, static_cast<int32_t>(axis), lo, hi);
}

llvm::Expected<Value> ImportContext::asQuantized(Value v, Type quantElement) {
  Type elem = elementOf(v);
  if (elem == quantElement)
    return v;
  auto qt = cast<quant::QuantizedType>(quantElement);
  auto shape = shapeOf(v);
  if (graph::isQuantized(elem)) {
    // Different parameters on the same stored integers: go through storage.
    Type storage = cast<quant::QuantizedType>(elem).getStorageType();
    v = builder.create<quant::StorageCastOp>(loc(), tensorType(shape, storage),
                                             v);
    elem = storage;
  }
  auto intType = dyn_cast<IntegerType>(elem);
  if (!intType || intType.getWidth() != qt.getStorageTypeIntegralWidth())
    return fail("expected a " + llvm::Twine(qt.getStorageTypeIntegralWidth()) +
                "-bit integer tensor for quantized input");
  return builder
      .create<quant::StorageCastOp>(loc(), tensorType(shape, quantElement), v)
      .getResult();
}

} // namespace systole::frontend
