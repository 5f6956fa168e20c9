//===- ImportSignal.cpp - Window functions
//---------------------------------===//
//
// HannWindow, HammingWindow and BlackmanWindow (opset 17) depend only on
// their size, which must be known at compile time (the output shape), so
// each is a constant computed here in double precision with ONNX's
// formulas: w[n] = a0 - a1 cos(2 pi n / N') + a2 cos(4 pi n / N'), N' = N
// for a periodic window and N - 1 for a symmetric one.
//
//===----------------------------------------------------------------------===//
#include "ImportContext.h"

#include <cmath>

namespace systole::frontend {

namespace {

template <int Kind> llvm::Error importWindow(ImportContext &ic) {
  auto size = ic.constantInts(0);
  if (!size)
    return size.takeError();
  if (size->size() != 1 || (*size)[0] < 0)
    return ic.fail("size must be one non-negative integer");
  int64_t n = (*size)[0];
  bool periodic = ic.attrInt("periodic", 1) != 0;
  double denom = periodic ? double(n) : double(n - 1);
  // Hann, Hamming (ONNX's 25/46, 21/46), Blackman.
  static const double coeffs[3][3] = {
      {0.5, 0.5, 0.0}, {25.0 / 46.0, 21.0 / 46.0, 0.0}, {0.42, 0.5, 0.08}};
  const double *a = coeffs[Kind];
  std::vector<double> w(n);
  for (int64_t k = 0; k < n; ++k) {
    double x = denom > 0 ? 2.0 * M_PI * double(k) / denom : 0.0;
    w[k] = a[0] - a[1] * std::cos(x) + a[2] * std::cos(2.0 * x);
  }
  int64_t type = ic.attrInt("output_datatype", onnx::TensorProto::FLOAT);
  HostTensor t;
  switch (type) {
  case onnx::TensorProto::FLOAT:
    t = HostTensor(ElementType::Float32, {n});
    for (int64_t k = 0; k < n; ++k)
      t.dataAs<float>()[k] = float(w[k]);
    break;
  case onnx::TensorProto::DOUBLE:
    t = HostTensor(ElementType::Float64, {n});
    for (int64_t k = 0; k < n; ++k)
      t.dataAs<double>()[k] = w[k];
    break;
  case onnx::TensorProto::INT32:
    t = HostTensor(ElementType::Int32, {n});
    for (int64_t k = 0; k < n; ++k)
      t.dataAs<int32_t>()[k] = int32_t(w[k]);
    break;
  case onnx::TensorProto::INT64:
    t = HostTensor(ElementType::Int64, {n});
    for (int64_t k = 0; k < n; ++k)
      t.dataAs<int64_t>()[k] = int64_t(w[k]);
    break;
  default:
    return ic.fail("output_datatype " + llvm::Twine(type) +
                   " is not supported (float, double, int32, int64 are)");
  }
  ic.defineConstant(ic.node->output(0), std::move(t));
  return llvm::Error::success();
}

} // namespace

void registerSignalImporters(llvm::StringMap<OpImporter> &table) {
  table["HannWindow"] = importWindow<0>;
  table["HammingWindow"] = importWindow<1>;
  table["BlackmanWindow"] = importWindow<2>;
}

} // namespace systole::frontend
