//===- ResizeTaps.h - Resize's per-axis taps, as ONNX Runtime -*- C++ -*-===//
//
// Internal to the frontend (ImportResize.cpp). Which input pixels an output
// pixel of Resize/Upsample reads along one axis, and with which weights,
// computed at import with ONNX Runtime's float32 arithmetic.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_RESIZETAPS_H
#define SYSTOLE_LIB_FRONTEND_RESIZETAPS_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace systole::frontend {

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

/// The taps of `axis` for nearest, linear, cubic and antialiased (linear or
/// cubic) resizing (ResizeTaps.cpp).
AxisTaps nearestTaps(const ResizeSpec &s, int64_t axis);
AxisTaps linearTaps(const ResizeSpec &s, int64_t axis);
AxisTaps cubicTaps(const ResizeSpec &s, int64_t axis);
AxisTaps antialiasTaps(const ResizeSpec &s, int64_t axis);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_RESIZETAPS_H
