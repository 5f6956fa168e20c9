//===- ImportHostWindow.cpp - Windows of the host conv/pool ops -----------===//
#include "ImportHostWindow.h"

using namespace mlir;

namespace systole::frontend {

//===----------------------------------------------------------------------===//
// Window geometry
//===----------------------------------------------------------------------===//

llvm::Expected<SmallVector<int64_t>> attrVector(ImportContext &ic,
                                                StringRef name, int64_t n,
                                                int64_t dflt, int64_t min) {
  auto v = ic.attrInts(name);
  if (!v)
    return SmallVector<int64_t>(n, dflt);
  if (int64_t(v->size()) != n)
    return ic.fail(name + " must have " + llvm::Twine(n) + " entries, got " +
                   llvm::Twine(v->size()));
  for (int64_t x : *v)
    if (x < min)
      return ic.fail(name + " must be at least " + llvm::Twine(min));
  return SmallVector<int64_t>(v->begin(), v->end());
}

llvm::Expected<Window> resolveWindow(ImportContext &ic, ArrayRef<int64_t> in,
                                     ArrayRef<int64_t> kernel, bool ceilMode) {
  Window w;
  int64_t r = in.size();
  w.kernel.assign(kernel.begin(), kernel.end());
  auto strides = attrVector(ic, "strides", r, 1, 1);
  if (!strides)
    return strides.takeError();
  auto dilations = attrVector(ic, "dilations", r, 1, 1);
  if (!dilations)
    return dilations.takeError();
  w.strides = *strides;
  w.dilations = *dilations;
  w.padBegin.assign(r, 0);
  w.padEnd.assign(r, 0);
  w.ceilExtra.assign(r, 0);
  std::string autoPad = ic.attrString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    auto pads = attrVector(ic, "pads", 2 * r, 0, 0);
    if (!pads)
      return pads.takeError();
    for (int64_t d = 0; d < r; ++d) {
      w.padBegin[d] = (*pads)[d];
      w.padEnd[d] = (*pads)[d + r];
    }
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // Output ceil(in / stride); the odd padding goes to the end for
    // SAME_UPPER, to the beginning for SAME_LOWER.
    for (int64_t d = 0; d < r; ++d) {
      int64_t out = (in[d] + w.strides[d] - 1) / w.strides[d];
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[d] + w.extent(d) - in[d]);
      int64_t small = total / 2;
      w.padBegin[d] = autoPad == "SAME_UPPER" ? small : total - small;
      w.padEnd[d] = total - w.padBegin[d];
    }
  } else if (autoPad != "VALID") {
    return ic.fail("unknown auto_pad '" + autoPad + "'");
  }
  for (int64_t d = 0; d < r; ++d) {
    int64_t span = in[d] + w.padBegin[d] + w.padEnd[d] - w.extent(d);
    if (span < 0)
      return ic.fail("the kernel does not fit the padded input");
    int64_t out = span / w.strides[d] + 1;
    if (ceilMode && span % w.strides[d]) {
      ++out;
      // The last window must start inside the input or the begin padding
      // (ORT, PyTorch).
      if ((out - 1) * w.strides[d] >= in[d] + w.padBegin[d])
        --out;
      w.ceilExtra[d] =
          std::max<int64_t>(0, (out - 1) * w.strides[d] + w.extent(d) -
                                   (in[d] + w.padBegin[d] + w.padEnd[d]));
      w.padEnd[d] += w.ceilExtra[d];
    }
    w.out.push_back(out);
  }
  return w;
}

llvm::Expected<SmallVector<int64_t>>
kernelShape(ImportContext &ic, int64_t rank,
            std::optional<ArrayRef<int64_t>> fromWeight) {
  auto k = ic.attrInts("kernel_shape");
  if (fromWeight) {
    if (k && ArrayRef<int64_t>(*k) != *fromWeight)
      return ic.fail("kernel_shape does not match the weight shape");
    return SmallVector<int64_t>(fromWeight->begin(), fromWeight->end());
  }
  if (!k)
    return ic.fail("kernel_shape is required");
  if (int64_t(k->size()) != rank)
    return ic.fail("kernel_shape must have " + llvm::Twine(rank) +
                   " entries for a " + llvm::Twine(rank + 2) + "-D input");
  for (int64_t x : *k)
    if (x <= 0)
      return ic.fail("kernel_shape must be positive");
  return SmallVector<int64_t>(k->begin(), k->end());
}

bool fromDequantize(Value v) {
  return v.getDefiningOp<graph::DequantizeOp>() != nullptr;
}

} // namespace systole::frontend
