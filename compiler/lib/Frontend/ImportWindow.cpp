//===- ImportWindow.cpp - ONNX auto_pad/pads for 2-D window ops -----------===//
#include "ImportContext.h"

namespace systole::frontend {

llvm::Expected<std::vector<int64_t>>
resolvePads2D(ImportContext &ic, llvm::ArrayRef<int64_t> inputHW,
              llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
              llvm::ArrayRef<int64_t> dilations) {
  std::string autoPad = ic.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    auto pads = ic.attrInts("pads").value_or(std::vector<int64_t>(4, 0));
    if (pads.size() != 4)
      return ic.fail("pads must have 4 entries for a 2-D op, got " +
                     llvm::Twine(pads.size()));
    for (int64_t p : pads)
      if (p < 0)
        return ic.fail("negative pads are not supported");
    // ONNX order is [top, left, bottom, right] = [x1_begin, x2_begin, ...].
    return pads;
  }
  if (autoPad == "VALID")
    return std::vector<int64_t>(4, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return ic.fail("unknown auto_pad '" + autoPad + "'");
  // SAME: output = ceil(input / stride); the odd pad goes at the end for
  // SAME_UPPER and at the beginning for SAME_LOWER.
  std::vector<int64_t> pads(4);
  for (int d = 0; d < 2; ++d) {
    int64_t out = (inputHW[d] + strides[d] - 1) / strides[d];
    int64_t effective = dilations[d] * (kernel[d] - 1) + 1;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * strides[d] + effective - inputHW[d]);
    int64_t small = total / 2, big = total - small;
    pads[d] = autoPad == "SAME_UPPER" ? small : big;
    pads[d + 2] = autoPad == "SAME_UPPER" ? big : small;
  }
  return pads;
}

} // namespace systole::frontend
