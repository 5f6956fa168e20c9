//===- ResizeTaps.h - Resize's per-axis taps, as ONNX Runtime -*- C++ -*-===//
//
// Which input pixels an output pixel of Resize/Upsample reads along one
// axis, and with which weights, with ONNX Runtime's float32 arithmetic
// (lib/Conversion/OnnxToLinalg/ResizeTaps.cpp): the Resize body
// (OnnxToLinalg/Resize.cpp) gathers with them, and the importer
// (Frontend/ImportResize.cpp) reads them to tell an exact integer
// upsampling, which the NPU runs, from the others.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_RESIZETAPS_H
#define SYSTOLE_CONVERSION_RESIZETAPS_H

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace systole::conversion {

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

/// The params' names of the modes: ONNX's attribute values ("nearest",
/// "linear", "cubic"; "half_pixel", ...; "round_prefer_floor", ...), and
/// "simple" for Nearest::Simple, which no ONNX attribute names.
std::optional<Mode> modeNamed(llvm::StringRef name);
std::optional<Coord> coordNamed(llvm::StringRef name);
std::optional<Nearest> nearestNamed(llvm::StringRef name);
llvm::StringRef nameOf(Mode m);
llvm::StringRef nameOf(Coord c);
llvm::StringRef nameOf(Nearest n);

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

} // namespace systole::conversion

#endif // SYSTOLE_CONVERSION_RESIZETAPS_H
