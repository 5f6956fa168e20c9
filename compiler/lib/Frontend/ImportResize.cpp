//===- ImportResize.cpp - Resize and Upsample on the host -----------------===//
//
// Resize (opsets 10-19) and Upsample (7-9) as graph.host ops. Shapes, scales,
// sizes and roi are compile-time values, so everything that depends on them
// -- which input pixel an output pixel reads and with which weight -- is
// computed here, in C++, with ONNX Runtime's float32 arithmetic
// (upsamplebase.h, upsample.cc, upsample_antialias.h): nearest picks exactly
// ORT's pixel and the interpolation weights are ORT's. The IR only gathers:
//
//   nearest         one linalg.generic over the output whose body reads
//                   tensor.extract X[map_0[o_0], ..., map_r[o_r]]
//   linear, cubic,  one linalg.generic per resized axis (last axis first,
//   antialias       as ORT's separable kernels), with a reduction loop over
//                   that axis' taps: acc += w[o, k] * X[.., idx[o, k], ..]
//                   (index and weight tables are dense constants)
//   extrapolation   (tf_crop_and_resize) a final elementwise select where
//                   any axis' source coordinate lies outside the input
//
// ORT only runs linear on 2-D/4-D/3-D/5-D inputs and cubic on 2-D/4-D ones;
// the per-axis form generalizes both to any set of resized axes with ORT's
// per-axis formulas (the n-linear weight is the product of the per-axis
// weights, as in ORT's bilinear/trilinear kernels).
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include "systole/Frontend/OnnxModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace mlir;

namespace systole::frontend {

namespace {

enum class Mode { Nearest, Linear, Cubic };
enum class Coord {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  TfHalfPixelForNN,
  AlignCorners,
  Asymmetric,
  TfCropAndResize
};
/// Simple is Resize-10's and Upsample's rounding (no nearest_mode yet).
enum class Nearest { Simple, RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

/// Everything the lowering needs, with scales/sizes/roi already expanded to
/// every axis of the input.
struct ResizeSpec {
  Mode mode = Mode::Nearest;
  Coord coord = Coord::HalfPixel;
  Nearest nearest = Nearest::RoundPreferFloor;
  float cubicA = -0.75f;
  bool excludeOutside = false;
  bool antialias = false;
  float extrapolation = 0.0f;
  std::vector<int64_t> in, out;
  std::vector<float> scales;
  /// Whether the scales input (not sizes) chose the output shape.
  bool fromScales = false;
  /// [starts..., ends...], 2 * rank.
  std::vector<float> roi;
};

/// ORT's GetOriginalCoordinateFromResizedCoordinate, operand types included
/// (some modes go through double and round back to float).
float originalCoordinate(Coord c, float x, float scale, float lengthResized,
                         float lengthOriginal, float roiStart, float roiEnd) {
  switch (c) {
  case Coord::Asymmetric:
    return x / scale;
  case Coord::PytorchHalfPixel:
    return lengthResized > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  case Coord::TfHalfPixelForNN:
    return (x + 0.5f) / scale;
  case Coord::AlignCorners:
    return lengthResized == 1 ? 0
                              : x * (lengthOriginal - 1) / (lengthResized - 1);
  case Coord::TfCropAndResize: {
    double orig = lengthResized > 1
                      ? roiStart * (lengthOriginal - 1) +
                            (x * (roiEnd - roiStart) * (lengthOriginal - 1)) /
                                (lengthResized - 1)
                      : 0.5 * (roiStart + roiEnd) * (lengthOriginal - 1);
    return static_cast<float>(orig);
  }
  case Coord::HalfPixelSymmetric: {
    float outputWidth = scale * lengthOriginal;
    float adjustment = lengthResized / outputWidth;
    float center = lengthOriginal / 2;
    float offset = center * (1 - adjustment);
    return static_cast<float>(offset + (x + 0.5) / scale - 0.5);
  }
  case Coord::HalfPixel:
    break;
  }
  return ((x + 0.5f) / scale) - 0.5f;
}

/// ORT's GetNearestPixelFromOriginal.
int64_t nearestPixel(Nearest n, float x, bool downsample) {
  switch (n) {
  case Nearest::Simple:
    return downsample ? static_cast<int64_t>(std::ceil(x))
                      : static_cast<int64_t>(x);
  case Nearest::RoundPreferCeil:
    return static_cast<int64_t>(std::round(x));
  case Nearest::Floor:
    return static_cast<int64_t>(std::floor(x));
  case Nearest::Ceil:
    return static_cast<int64_t>(std::ceil(x));
  case Nearest::RoundPreferFloor:
    break;
  }
  if (x == static_cast<float>(static_cast<int64_t>(x)) + 0.5f)
    return static_cast<int64_t>(std::floor(x));
  return static_cast<int64_t>(std::round(x));
}

/// How one axis is resampled: output index o reads input indices
/// index[o * taps + k] (-1: no tap) with weights weight[o * taps + k];
/// outside[o]: the source coordinate is outside the input
/// (tf_crop_and_resize's extrapolation).
struct AxisTaps {
  int64_t taps = 1;
  std::vector<int64_t> index;
  std::vector<float> weight;
  std::vector<int8_t> outside;
  bool anyOutside() const {
    return std::any_of(outside.begin(), outside.end(),
                       [](int8_t v) { return v != 0; });
  }
};

float sourceCoordinate(const ResizeSpec &s, int64_t axis, int64_t o) {
  int64_t rank = s.in.size();
  // The ONNX reference (whose outputs the node tests hold) takes align
  // corners' length_resized as scale * length_original, unfloored, in
  // double; ORT takes the integer output length and so fails
  // test_resize_downsample_scales_{linear,cubic}_align_corners. With sizes
  // the two agree.
  if (s.coord == Coord::AlignCorners && s.fromScales) {
    double lengthResized = double(s.scales[axis]) * double(s.in[axis]);
    if (lengthResized == 1)
      return 0.0f;
    return static_cast<float>(double(o) * double(s.in[axis] - 1) /
                              (lengthResized - 1));
  }
  return originalCoordinate(s.coord, static_cast<float>(o), s.scales[axis],
                            static_cast<float>(s.out[axis]),
                            static_cast<float>(s.in[axis]), s.roi[axis],
                            s.roi[rank + axis]);
}

bool isOutside(const ResizeSpec &s, int64_t axis, float orig) {
  return s.coord == Coord::TfCropAndResize &&
         (orig < 0 || orig > static_cast<float>(s.in[axis] - 1));
}

/// UpsampleNearestSetupInputMappings.
AxisTaps nearestTaps(const ResizeSpec &s, int64_t axis) {
  AxisTaps t;
  int64_t len = s.in[axis];
  for (int64_t o = 0; o < s.out[axis]; ++o) {
    float orig = sourceCoordinate(s, axis, o);
    int64_t i = nearestPixel(s.nearest, orig, s.scales[axis] < 1);
    t.index.push_back(std::clamp<int64_t>(i, 0, len - 1));
    t.weight.push_back(1.0f);
    t.outside.push_back(isOutside(s, axis, orig));
  }
  return t;
}

/// SetupUpsampleBilinear, one axis.
AxisTaps linearTaps(const ResizeSpec &s, int64_t axis) {
  AxisTaps t;
  t.taps = 2;
  int64_t len = s.in[axis];
  for (int64_t o = 0; o < s.out[axis]; ++o) {
    float orig = sourceCoordinate(s, axis, o);
    float in = std::max(0.0f, std::min(orig, static_cast<float>(len - 1)));
    int64_t i1 = std::min(static_cast<int64_t>(in), len - 1);
    int64_t i2 = std::min(i1 + 1, len - 1);
    float d1 = std::fabs(in - static_cast<float>(i1));
    float d2 = std::fabs(in - static_cast<float>(i2));
    if (i1 == i2)
      d1 = d2 = 0.5f;
    t.index.insert(t.index.end(), {i1, i2});
    t.weight.insert(t.weight.end(), {d2, d1});
    t.outside.push_back(isOutside(s, axis, orig));
  }
  return t;
}

/// ORT's GetCubicCoeffs (Keys' kernel with coefficient a).
std::array<float, 4> cubicCoeffs(float s, float a) {
  float x = std::abs(s);
  return {((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a,
          ((a + 2) * x - (a + 3)) * x * x + 1,
          ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1,
          ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a};
}

/// ResizeBiCubic, one axis: four taps around floor(x), clamped to the input;
/// exclude_outside zeroes the taps outside and renormalizes.
AxisTaps cubicTaps(const ResizeSpec &s, int64_t axis) {
  AxisTaps t;
  t.taps = 4;
  int64_t len = s.in[axis];
  for (int64_t o = 0; o < s.out[axis]; ++o) {
    float orig = sourceCoordinate(s, axis, o);
    int64_t base = static_cast<int64_t>(std::floor(orig));
    std::array<float, 4> c =
        cubicCoeffs(orig - static_cast<float>(base), s.cubicA);
    float sum = 1;
    if (s.excludeOutside) {
      sum = 0;
      for (int64_t k = 0; k < 4; ++k) {
        int64_t i = base - 1 + k;
        if (i < 0 || i >= len)
          c[k] = 0.0f;
        sum += c[k];
      }
    }
    for (int64_t k = 0; k < 4; ++k) {
      t.index.push_back(std::clamp<int64_t>(base - 1 + k, 0, len - 1));
      t.weight.push_back(c[k] / sum);
    }
    t.outside.push_back(isOutside(s, axis, orig));
  }
  return t;
}

/// SetupUpsampleFilterAntiAlias, one axis: the filter is stretched by
/// 1/scale when downsampling; taps outside the input fold onto the border
/// (or are dropped with exclude_outside), weights are normalized.
AxisTaps antialiasTaps(const ResizeSpec &s, int64_t axis) {
  bool cubic = s.mode == Mode::Cubic;
  float a = s.cubicA;
  auto filter = [&](float x) -> float {
    if (x < 0.0f)
      x = -x;
    if (!cubic)
      return x < 1.0f ? 1.0f - x : 0.0f;
    if (x < 1.0f)
      return ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1;
    if (x < 2.0f)
      return (((x - 5.0f) * x + 8.f) * x - 4.f) * a;
    return 0.0f;
  };
  float supportSize = cubic ? 4.0f : 2.0f;
  float rscale = s.scales[axis];
  float scale = 1.0f / rscale;
  float support =
      scale >= 1.0f ? (supportSize * 0.5f) * scale : supportSize * 0.5f;
  int64_t window = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  float invScale = scale >= 1.0f ? 1.0f / scale : 1.0f;
  int64_t len = s.in[axis], outLen = s.out[axis];

  AxisTaps t;
  t.taps = window;
  for (int64_t o = 0; o < outLen; ++o) {
    float center = 0.5f + (scale == 1.0f ? static_cast<float>(o)
                                         : sourceCoordinate(s, axis, o));
    t.outside.push_back(
        s.coord == Coord::TfCropAndResize &&
        (center - 0.5f < 0 || center - 0.5f > static_cast<float>(len - 1)));
    int64_t xmin = static_cast<int64_t>(std::floor(center - support + 0.5f));
    int64_t xmax = static_cast<int64_t>(std::floor(center + support + 0.5f));
    xmax = xmin + std::clamp<int64_t>(xmax - xmin, 0, window);
    int64_t cutMin = std::clamp<int64_t>(xmin, 0, len);
    int64_t cutMax = std::clamp<int64_t>(xmax, 0, len);
    if (s.excludeOutside) {
      xmin = cutMin;
      xmax = cutMax;
    }
    std::vector<int64_t> idx;
    std::vector<float> w;
    float total = 0.0f;
    for (int64_t k = xmin; k < xmax; ++k) {
      float v = filter((static_cast<float>(k) - center + 0.5f) * invScale);
      total += v;
      idx.push_back(std::clamp<int64_t>(k, 0, len - 1));
      w.push_back(v);
    }
    // No input pixel under the window: ORT writes 0 (before extrapolation).
    if (cutMin >= cutMax)
      idx.clear();
    float inv = total == 0.0f ? 1.0f : 1.0f / total;
    for (int64_t k = 0; k < window; ++k) {
      bool used = k < int64_t(idx.size());
      t.index.push_back(used ? idx[k] : -1);
      t.weight.push_back(used ? w[k] * inv : 0.0f);
    }
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Attributes and operands
//===----------------------------------------------------------------------===//

llvm::Expected<Mode> parseMode(ImportContext &ic, llvm::StringRef m,
                               bool cubicAllowed) {
  if (m == "nearest")
    return Mode::Nearest;
  if (m == "linear" || m == "bilinear")
    return Mode::Linear;
  if (m == "cubic" && cubicAllowed)
    return Mode::Cubic;
  return ic.fail("mode '" + m + "' is not supported (nearest, linear" +
                 (cubicAllowed ? ", cubic" : "") + ")");
}

llvm::Expected<Coord> parseCoord(ImportContext &ic, llvm::StringRef c) {
  if (c == "half_pixel")
    return Coord::HalfPixel;
  if (c == "half_pixel_symmetric")
    return Coord::HalfPixelSymmetric;
  if (c == "pytorch_half_pixel")
    return Coord::PytorchHalfPixel;
  if (c == "tf_half_pixel_for_nn")
    return Coord::TfHalfPixelForNN;
  if (c == "align_corners")
    return Coord::AlignCorners;
  if (c == "asymmetric")
    return Coord::Asymmetric;
  if (c == "tf_crop_and_resize")
    return Coord::TfCropAndResize;
  return ic.fail("coordinate_transformation_mode '" + c + "' is not supported");
}

llvm::Expected<Nearest> parseNearest(ImportContext &ic, llvm::StringRef n) {
  if (n == "round_prefer_floor")
    return Nearest::RoundPreferFloor;
  if (n == "round_prefer_ceil")
    return Nearest::RoundPreferCeil;
  if (n == "floor")
    return Nearest::Floor;
  if (n == "ceil")
    return Nearest::Ceil;
  return ic.fail("nearest_mode '" + n + "' is not supported");
}

/// Input `i` as constant floats; an absent input or an empty tensor (the
/// opset-11 placeholder for "not given") is an empty vector.
llvm::Expected<std::vector<float>> optionalFloats(ImportContext &ic, int i) {
  if (!ic.hasInput(i))
    return std::vector<float>{};
  const HostTensor *t = ic.constantInput(i);
  if (t && t->numElements() == 0)
    return std::vector<float>{};
  return ic.constantFloats(i);
}

/// Spreads per-`axes` values over every axis (`fill` elsewhere).
std::vector<float> overAxes(llvm::ArrayRef<float> v,
                            llvm::ArrayRef<int64_t> axes, int64_t rank,
                            float fill) {
  std::vector<float> all(rank, fill);
  for (size_t i = 0; i < axes.size(); ++i)
    all[axes[i]] = v[i];
  return all;
}

llvm::Expected<ResizeSpec> parseResize(ImportContext &ic,
                                       llvm::ArrayRef<int64_t> inShape) {
  ResizeSpec s;
  s.in.assign(inShape.begin(), inShape.end());
  int64_t rank = inShape.size();
  bool upsample = ic.node->op_type() == "Upsample";
  int64_t opset = opsetVersion(ic.model, "");
  // Resize-10 and Upsample: asymmetric coordinates, "simple" rounding, and
  // scales as the second input (Upsample-7: an attribute).
  bool legacy = upsample || opset < 11;

  auto mode = parseMode(ic, ic.attrString("mode", "nearest"), !legacy);
  if (!mode)
    return mode.takeError();
  s.mode = *mode;
  if (legacy) {
    s.coord = Coord::Asymmetric;
    s.nearest = Nearest::Simple;
  } else {
    auto c = parseCoord(
        ic, ic.attrString("coordinate_transformation_mode", "half_pixel"));
    if (!c)
      return c.takeError();
    s.coord = *c;
    auto n =
        parseNearest(ic, ic.attrString("nearest_mode", "round_prefer_floor"));
    if (!n)
      return n.takeError();
    s.nearest = *n;
    s.cubicA = ic.attrFloat("cubic_coeff_a", -0.75f);
    s.excludeOutside = ic.attrInt("exclude_outside", 0) != 0;
    s.extrapolation = ic.attrFloat("extrapolation_value", 0.0f);
    // Antialiasing only changes the linear and cubic filters (ONNX: "no
    // effect" in nearest mode).
    s.antialias = ic.attrInt("antialias", 0) != 0 && s.mode != Mode::Nearest;
  }

  // axes (opset 18): scales, sizes and roi name only these axes.
  std::vector<int64_t> axes;
  if (auto a = ic.attrInts("axes")) {
    for (int64_t x : *a) {
      int64_t v = x < 0 ? x + rank : x;
      if (v < 0 || v >= rank || llvm::is_contained(axes, v))
        return ic.fail("axes has an invalid or repeated axis " +
                       llvm::Twine(x));
      axes.push_back(v);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }

  std::string policy = ic.attrString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return ic.fail("keep_aspect_ratio_policy '" + policy +
                   "' is not supported");

  std::vector<float> scales;
  if (upsample && !ic.hasInput(1)) {
    const onnx::AttributeProto *a = ic.attr("scales");
    if (!a)
      return ic.fail("Upsample needs its scales attribute");
    scales.assign(a->floats().begin(), a->floats().end());
  } else {
    auto sc = optionalFloats(ic, legacy ? 1 : 2);
    if (!sc)
      return sc.takeError();
    scales = std::move(*sc);
  }

  s.out.assign(rank, 0);
  if (!scales.empty()) {
    if (scales.size() != axes.size())
      return ic.fail("scales has " + llvm::Twine(scales.size()) +
                     " values for " + llvm::Twine(axes.size()) + " axes");
    s.scales = overAxes(scales, axes, rank, 1.0f);
    s.fromScales = true;
    for (int64_t d = 0; d < rank; ++d) {
      float sc = s.scales[d];
      if (!(sc > 0) || !std::isfinite(sc) || (upsample && sc < 1))
        return ic.fail("scale " + std::to_string(sc) + " of axis " +
                       llvm::Twine(d) + " is not supported (" +
                       (upsample ? ">= 1" : "> 0") + " required)");
      // ORT's ComputeOutputShape: float product, truncated.
      s.out[d] = static_cast<int64_t>(sc * static_cast<float>(s.in[d]));
    }
  } else {
    if (legacy || !ic.hasInput(3))
      return ic.fail("neither scales nor sizes is given");
    auto sizes = ic.constantInts(3);
    if (!sizes)
      return sizes.takeError();
    if (sizes->size() != axes.size())
      return ic.fail("sizes has " + llvm::Twine(sizes->size()) +
                     " values for " + llvm::Twine(axes.size()) + " axes");
    s.out = s.in;
    for (size_t i = 0; i < axes.size(); ++i)
      s.out[axes[i]] = (*sizes)[i];
    s.scales.assign(rank, 1.0f);
    for (int64_t d = 0; d < rank; ++d) {
      if (s.out[d] <= 0 || s.in[d] == 0)
        return ic.fail("sizes must be positive for a non-empty input");
      s.scales[d] = static_cast<float>(s.out[d]) / static_cast<float>(s.in[d]);
    }
    // ORT's AdjustOutputSizeAsPolicy: one scale for every listed axis.
    if (policy != "stretch") {
      bool notLarger = policy == "not_larger";
      float chosen = notLarger ? std::numeric_limits<float>::max()
                               : std::numeric_limits<float>::min();
      for (int64_t d : axes)
        chosen = notLarger ? std::min(chosen, s.scales[d])
                           : std::max(chosen, s.scales[d]);
      for (int64_t d : axes) {
        s.scales[d] = chosen;
        s.out[d] = static_cast<int64_t>(
            std::round(chosen * static_cast<float>(s.in[d])));
      }
    }
  }
  for (int64_t d = 0; d < rank; ++d)
    if (s.out[d] <= 0)
      return ic.fail("axis " + llvm::Twine(d) + " resizes to " +
                     llvm::Twine(s.out[d]) + " elements");

  // roi only matters for tf_crop_and_resize (other modes ignore it, so a
  // runtime roi is fine there).
  s.roi.assign(2 * rank, 0.0f);
  std::fill(s.roi.begin() + rank, s.roi.end(), 1.0f);
  if (s.coord == Coord::TfCropAndResize) {
    auto roi = optionalFloats(ic, 1);
    if (!roi)
      return roi.takeError();
    if (!roi->empty()) {
      if (roi->size() != 2 * axes.size())
        return ic.fail("roi has " + llvm::Twine(roi->size()) +
                       " values, expected " + llvm::Twine(2 * axes.size()));
      for (size_t i = 0; i < axes.size(); ++i) {
        s.roi[axes[i]] = (*roi)[i];
        s.roi[rank + axes[i]] = (*roi)[axes.size() + i];
      }
    }
  }
  return s;
}

//===----------------------------------------------------------------------===//
// IR
//===----------------------------------------------------------------------===//

Value indexTable(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                 llvm::ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, b.getI64Type());
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, values));
}

Value weightTable(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<float> values, Type compute) {
  auto type = RankedTensorType::get(shape, compute);
  if (compute.isF64()) {
    std::vector<double> d(values.begin(), values.end());
    return b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, llvm::ArrayRef<double>(d)));
  }
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, values));
}

Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  auto from = cast<FloatType>(v.getType());
  auto t = cast<FloatType>(to);
  if (from == t)
    return v;
  if (from.getWidth() < t.getWidth())
    return b.create<arith::ExtFOp>(loc, to, v);
  return b.create<arith::TruncFOp>(loc, to, v);
}

SmallVector<utils::IteratorType> parallel(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

/// out[o] = X[map_d[o_d] for the resized axes, o_d elsewhere].
Value gatherNearest(OpBuilder &b, Location loc, Value x,
                    llvm::ArrayRef<int64_t> outShape,
                    llvm::ArrayRef<std::optional<AxisTaps>> taps) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = outShape.size();
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  SmallVector<int64_t> inputAxis;
  for (int64_t d = 0; d < rank; ++d) {
    if (!taps[d])
      continue;
    ins.push_back(indexTable(b, loc, {outShape[d]}, taps[d]->index));
    maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(d, ctx)));
    inputAxis.push_back(d);
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Type elem = elementOf(x);
  Value init = b.create<tensor::EmptyOp>(loc, outShape, elem);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps,
          parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            SmallVector<Value> coords;
            for (int64_t d = 0; d < rank; ++d)
              coords.push_back(nb.create<linalg::IndexOp>(l, d));
            for (size_t k = 0; k < inputAxis.size(); ++k)
              coords[inputAxis[k]] =
                  nb.create<arith::IndexCastOp>(l, nb.getIndexType(), args[k]);
            Value v = nb.create<tensor::ExtractOp>(l, x, coords);
            nb.create<linalg::YieldOp>(l, v);
          })
      .getResult(0);
}

/// Resamples `x` along `axis`: out[o] = sum_k w[o_axis, k] *
/// x[..., idx[o_axis, k], ...] in `compute` precision, taps with index -1
/// skipped.
Value resampleAxis(OpBuilder &b, Location loc, Value x, int64_t axis,
                   const AxisTaps &t, Type compute) {
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape(shapeOf(x));
  int64_t rank = shape.size();
  int64_t outLen = t.outside.size();
  shape[axis] = outLen;
  bool padded = llvm::is_contained(t.index, int64_t(-1));
  Value idx = indexTable(b, loc, {outLen, t.taps}, t.index);
  Value w = weightTable(b, loc, {outLen, t.taps}, t.weight, compute);
  AffineMap tableMap = AffineMap::get(
      rank + 1, 0, {getAffineDimExpr(axis, ctx), getAffineDimExpr(rank, ctx)},
      ctx);
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  AffineMap outMap = AffineMap::get(rank + 1, 0, outExprs, ctx);
  SmallVector<utils::IteratorType> iters = parallel(rank);
  iters.push_back(utils::IteratorType::reduction);

  Value zero = b.create<arith::ConstantOp>(loc, b.getFloatAttr(compute, 0.0));
  Value init = b.create<linalg::FillOp>(
                    loc, zero,
                    ValueRange{b.create<tensor::EmptyOp>(loc, shape, compute)})
                   .getResult(0);
  Value acc =
      b.create<linalg::GenericOp>(
           loc, TypeRange{init.getType()}, ValueRange{idx, w}, ValueRange{init},
           SmallVector<AffineMap>{tableMap, tableMap, outMap}, iters,
           [&](OpBuilder &nb, Location l, ValueRange args) {
             SmallVector<Value> coords;
             for (int64_t d = 0; d < rank; ++d)
               coords.push_back(nb.create<linalg::IndexOp>(l, d));
             Value i64 = args[0];
             Value valid;
             if (padded) {
               Value z = nb.create<arith::ConstantOp>(
                   l, nb.getIntegerAttr(nb.getI64Type(), 0));
               valid = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge,
                                                i64, z);
               i64 = nb.create<arith::SelectOp>(l, valid, i64, z);
             }
             coords[axis] =
                 nb.create<arith::IndexCastOp>(l, nb.getIndexType(), i64);
             Value v = castFloat(
                 nb, l, nb.create<tensor::ExtractOp>(l, x, coords), compute);
             Value sum = nb.create<arith::AddFOp>(
                 l, args[2], nb.create<arith::MulFOp>(l, args[1], v));
             if (padded)
               sum = nb.create<arith::SelectOp>(l, valid, sum, args[2]);
             nb.create<linalg::YieldOp>(l, sum);
           })
          .getResult(0);
  Type elem = elementOf(x);
  if (elem == compute)
    return acc;
  Value out = b.create<tensor::EmptyOp>(loc, shape, elem);
  SmallVector<AffineMap> id(2, AffineMap::getMultiDimIdentityMap(rank, ctx));
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{out.getType()}, ValueRange{acc}, ValueRange{out}, id,
          parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            nb.create<linalg::YieldOp>(l, castFloat(nb, l, args[0], elem));
          })
      .getResult(0);
}

/// The extrapolation value where any axis' source coordinate is outside.
Value extrapolate(OpBuilder &b, Location loc, Value y,
                  llvm::ArrayRef<std::optional<AxisTaps>> taps, float value) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = shapeOf(y);
  int64_t rank = shape.size();
  SmallVector<Value> ins = {y};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  for (int64_t d = 0; d < rank; ++d) {
    if (!taps[d] || !taps[d]->anyOutside())
      continue;
    auto type = RankedTensorType::get({shape[d]}, b.getI8Type());
    ins.push_back(b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, llvm::ArrayRef(taps[d]->outside))));
    maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(d, ctx)));
  }
  if (ins.size() == 1)
    return y;
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Type elem = elementOf(y);
  Value init = b.create<tensor::EmptyOp>(loc, shape, elem);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps,
          parallel(rank),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value zero = nb.create<arith::ConstantOp>(
                l, nb.getIntegerAttr(nb.getI8Type(), 0));
            Value any;
            for (Value f : args.drop_front().drop_back()) {
              Value c = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne, f,
                                                 zero);
              any = any ? nb.create<arith::OrIOp>(l, any, c) : c;
            }
            Value e;
            if (isa<FloatType>(elem))
              e = nb.create<arith::ConstantOp>(
                  l, nb.getFloatAttr(elem, double(value)));
            else if (elem.isInteger(1))
              e = nb.create<arith::ConstantOp>(
                  l, nb.getIntegerAttr(elem, value != 0.0f));
            else
              e = nb.create<arith::ConstantOp>(
                  l, nb.getIntegerAttr(elem, static_cast<int64_t>(value)));
            Value r = nb.create<arith::SelectOp>(l, any, e, args[0]);
            nb.create<linalg::YieldOp>(l, r);
          })
      .getResult(0);
}

llvm::Error importResize(ImportContext &ic) {
  auto x = ic.input(0);
  if (!x)
    return x.takeError();
  Type elem = elementOf(*x);
  if (graph::isQuantized(elem))
    return ic.fail("expects unquantized tensors (int8 activations come as "
                   "QDQ)");
  ArrayRef<int64_t> inShape = shapeOf(*x);
  if (inShape.empty())
    return ic.fail("expects a tensor of rank >= 1");
  auto spec = parseResize(ic, inShape);
  if (!spec)
    return spec.takeError();
  const ResizeSpec &s = *spec;
  if (s.mode != Mode::Nearest && !isa<FloatType>(elem))
    return ic.fail("linear/cubic resizing of integer tensors is not "
                   "supported (ORT's fixed-point rounding)");
  int64_t rank = inShape.size();

  // ORT copies when no axis changes size (whatever the coordinate mode).
  if (s.out == s.in) {
    auto y = ic.hostOp(
        *x,
        [&](OpBuilder &b, Location loc,
            ValueRange args) -> llvm::Expected<Value> {
          Value init = b.create<tensor::EmptyOp>(loc, inShape, elem);
          return b.create<linalg::CopyOp>(loc, args[0], init).getResult(0);
        });
    if (!y)
      return y.takeError();
    return ic.defineOutput(0, *y);
  }

  // Per-axis taps; axes ORT treats as identity have none. Nearest and the
  // plain filters skip scale-1 axes (ORT uses the output index itself,
  // whatever the coordinate mode); antialias skips axes whose length is
  // unchanged (ORT copies them).
  SmallVector<std::optional<AxisTaps>> taps(rank);
  for (int64_t d = 0; d < rank; ++d) {
    bool identity = s.antialias ? s.out[d] == s.in[d] : s.scales[d] == 1.0f;
    if (identity)
      continue;
    if (s.antialias)
      taps[d] = antialiasTaps(s, d);
    else if (s.mode == Mode::Nearest)
      taps[d] = nearestTaps(s, d);
    else if (s.mode == Mode::Linear)
      taps[d] = linearTaps(s, d);
    else
      taps[d] = cubicTaps(s, d);
  }

  // Nearest-neighbour upsampling of the spatial dims of an NCHW tensor by
  // integer factors, taps o -> o / f exactly: a graph.upsample, which the
  // NPU runs as strided stores (anything else stays host code).
  if (s.mode == Mode::Nearest && !s.antialias && rank == 4 && elem.isF32() &&
      !taps[0] && !taps[1]) {
    SmallVector<int64_t> factors;
    bool exact = true;
    for (int64_t d = 2; d < 4 && exact; ++d) {
      int64_t f = s.out[d] / s.in[d];
      exact = f >= 1 && s.in[d] * f == s.out[d];
      if (exact && taps[d]) {
        exact = !taps[d]->anyOutside();
        for (int64_t o = 0; exact && o < s.out[d]; ++o)
          exact = taps[d]->index[o] == o / f;
      }
      factors.push_back(f);
    }
    if (exact) {
      Value y = ic.builder.create<graph::UpsampleOp>(
          ic.loc(), RankedTensorType::get(s.out, elem), *x,
          ic.builder.getDenseI64ArrayAttr(factors),
          graph::LayoutAttr::get(ic.ctx(), graph::Layout::NCHW));
      return ic.defineOutput(0, y);
    }
  }

  Type compute = elem.isF64() ? Type(Float64Type::get(ic.ctx()))
                              : Type(Float32Type::get(ic.ctx()));
  auto y = ic.hostOp(*x,
                     [&](OpBuilder &b, Location loc,
                         ValueRange args) -> llvm::Expected<Value> {
                       Value v = args[0];
                       if (s.mode == Mode::Nearest && !s.antialias) {
                         v = gatherNearest(b, loc, v, s.out, taps);
                       } else {
                         // Last axis first, as ORT's separable kernels.
                         for (int64_t d = rank - 1; d >= 0; --d)
                           if (taps[d])
                             v = resampleAxis(b, loc, v, d, *taps[d], compute);
                       }
                       return extrapolate(b, loc, v, taps, s.extrapolation);
                     });
  if (!y)
    return y.takeError();
  return ic.defineOutput(0, *y);
}

} // namespace

void registerResizeImporters(llvm::StringMap<OpImporter> &table) {
  table["Resize"] = importResize;
  table["Upsample"] = importResize;
}

} // namespace systole::frontend
