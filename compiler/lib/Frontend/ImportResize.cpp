//===- ImportResize.cpp - Resize and Upsample on the host -----------------===//
//
// Resize (opsets 10-19) and Upsample (7-9) as graph.host ops. Shapes, scales,
// sizes and roi must be compile-time values: this file reads and checks
// the attributes and operands and resolves them, per axis of the input,
// into the op's params; Conversion/OnnxToLinalg/Resize.cpp computes ORT's
// taps from them and builds the body. A nearest-neighbour upsampling of
// NCHW's spatial dims by integer factors becomes a graph.upsample instead,
// which the NPU runs.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"
#include "ImportHelpers.h"

#include "systole/Conversion/ResizeTaps.h"
#include "systole/Frontend/OnnxModel.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace systole::frontend {

namespace {

using conversion::AxisTaps;
using conversion::Coord;
using conversion::Mode;
using conversion::Nearest;
using conversion::ResizeSpec;

//===----------------------------------------------------------------------===//
// Attributes and operands
//===----------------------------------------------------------------------===//

llvm::Expected<Mode> parseMode(ImportContext &ic, llvm::StringRef m,
                               bool cubicAllowed) {
  auto mode = conversion::modeNamed(m == "bilinear" ? "linear" : m);
  if (mode && (*mode != Mode::Cubic || cubicAllowed))
    return *mode;
  return ic.fail("mode '" + m + "' is not supported (nearest, linear" +
                 (cubicAllowed ? ", cubic" : "") + ")");
}

llvm::Expected<Coord> parseCoord(ImportContext &ic, llvm::StringRef c) {
  if (auto coord = conversion::coordNamed(c))
    return *coord;
  return ic.fail("coordinate_transformation_mode '" + c + "' is not supported");
}

llvm::Expected<Nearest> parseNearest(ImportContext &ic, llvm::StringRef n) {
  // "simple" is Resize-10's rounding, not an attribute value.
  if (auto nearest = conversion::nearestNamed(n);
      nearest && *nearest != Nearest::Simple)
    return *nearest;
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

  // Nearest-neighbour upsampling of the spatial dims of an NCHW tensor by
  // integer factors, taps o -> o / f exactly: a graph.upsample, which the
  // NPU runs as strided stores (anything else stays host code).
  if (s.mode == Mode::Nearest && !s.antialias && rank == 4 && elem.isF32() &&
      s.out != s.in && s.scales[0] == 1.0f && s.scales[1] == 1.0f) {
    SmallVector<int64_t> factors;
    bool exact = true;
    for (int64_t d = 2; d < 4 && exact; ++d) {
      int64_t f = s.out[d] / s.in[d];
      exact = f >= 1 && s.in[d] * f == s.out[d];
      if (exact && s.scales[d] != 1.0f) {
        AxisTaps taps = conversion::nearestTaps(s, d);
        exact = !taps.anyOutside();
        for (int64_t o = 0; exact && o < s.out[d]; ++o)
          exact = taps.index[o] == o / f;
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

  OpBuilder &b = ic.builder;
  auto f32 = [&](float v) { return b.getF32FloatAttr(v); };
  SmallVector<NamedAttribute> params{
      b.getNamedAttr("mode", b.getStringAttr(conversion::nameOf(s.mode))),
      b.getNamedAttr("coordinate_transformation_mode",
                     b.getStringAttr(conversion::nameOf(s.coord))),
      b.getNamedAttr("nearest_mode",
                     b.getStringAttr(conversion::nameOf(s.nearest))),
      b.getNamedAttr("cubic_coeff_a", f32(s.cubicA)),
      b.getNamedAttr("exclude_outside", b.getBoolAttr(s.excludeOutside)),
      b.getNamedAttr("antialias", b.getBoolAttr(s.antialias)),
      b.getNamedAttr("extrapolation_value", f32(s.extrapolation)),
      b.getNamedAttr("scales", b.getDenseF32ArrayAttr(s.scales)),
      b.getNamedAttr("from_scales", b.getBoolAttr(s.fromScales)),
      b.getNamedAttr("roi", b.getDenseF32ArrayAttr(s.roi))};
  return ic.defineOutput(
      0, ic.hostOp(*x, RankedTensorType::get(s.out, elem), params));
}

} // namespace

void registerResizeImporters(llvm::StringMap<OpImporter> &table) {
  table["Resize"] = importResize;
  table["Upsample"] = importResize;
}

} // namespace systole::frontend
