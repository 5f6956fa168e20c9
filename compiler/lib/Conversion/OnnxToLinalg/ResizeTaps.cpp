//===- ResizeTaps.cpp - Resize's per-axis taps, as ONNX Runtime -----------===//
//
// ORT's coordinate transforms, nearest rounding and interpolation filters
// (upsamplebase.h, upsample.cc, upsample_antialias.h), in its float32
// arithmetic: the index and weight tables Resize.cpp gathers with.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/ResizeTaps.h"

#include <array>
#include <cmath>

namespace systole::conversion {

namespace {

constexpr std::pair<Mode, const char *> modeNames[] = {
    {Mode::Nearest, "nearest"},
    {Mode::Linear, "linear"},
    {Mode::Cubic, "cubic"}};
constexpr std::pair<Coord, const char *> coordNames[] = {
    {Coord::HalfPixel, "half_pixel"},
    {Coord::HalfPixelSymmetric, "half_pixel_symmetric"},
    {Coord::PytorchHalfPixel, "pytorch_half_pixel"},
    {Coord::TfHalfPixelForNN, "tf_half_pixel_for_nn"},
    {Coord::AlignCorners, "align_corners"},
    {Coord::Asymmetric, "asymmetric"},
    {Coord::TfCropAndResize, "tf_crop_and_resize"}};
constexpr std::pair<Nearest, const char *> nearestNames[] = {
    {Nearest::Simple, "simple"},
    {Nearest::RoundPreferFloor, "round_prefer_floor"},
    {Nearest::RoundPreferCeil, "round_prefer_ceil"},
    {Nearest::Floor, "floor"},
    {Nearest::Ceil, "ceil"}};

template <typename E, size_t N>
std::optional<E> named(const std::pair<E, const char *> (&table)[N],
                       llvm::StringRef name) {
  for (const auto &[e, n] : table)
    if (name == n)
      return e;
  return std::nullopt;
}

template <typename E, size_t N>
llvm::StringRef nameIn(const std::pair<E, const char *> (&table)[N], E e) {
  for (const auto &[v, n] : table)
    if (v == e)
      return n;
  return "";
}

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

/// ORT's GetCubicCoeffs (Keys' kernel with coefficient a).
std::array<float, 4> cubicCoeffs(float s, float a) {
  float x = std::abs(s);
  return {((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a,
          ((a + 2) * x - (a + 3)) * x * x + 1,
          ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1,
          ((a * (2 - x) - 5 * a) * (2 - x) + 8 * a) * (2 - x) - 4 * a};
}

} // namespace

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

std::optional<Mode> modeNamed(llvm::StringRef name) {
  return named(modeNames, name);
}
std::optional<Coord> coordNamed(llvm::StringRef name) {
  return named(coordNames, name);
}
std::optional<Nearest> nearestNamed(llvm::StringRef name) {
  return named(nearestNames, name);
}
llvm::StringRef nameOf(Mode m) { return nameIn(modeNames, m); }
llvm::StringRef nameOf(Coord c) { return nameIn(coordNames, c); }
llvm::StringRef nameOf(Nearest n) { return nameIn(nearestNames, n); }

} // namespace systole::conversion
