//===- QuantizeFloatWeights.h - ORT's weight/bias quantization --*- C++ -*-===//
//
// Internal to the frontend; QuantizeFloatWeights.cpp says what and why.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_QUANTIZEFLOATWEIGHTS_H
#define SYSTOLE_LIB_FRONTEND_QUANTIZEFLOATWEIGHTS_H

#include "onnx/onnx_pb.h"

#include <set>

namespace systole::frontend {

/// Rewrites float weights and biases of QDQ Conv/ConvTranspose/Gemm nodes to
/// DequantizeLinear of int8/int32 initializers as ONNX Runtime's
/// WeightBiasQuantization does; returns whether anything changed.
bool quantizeFloatWeightsLikeOrt(onnx::ModelProto &model);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_QUANTIZEFLOATWEIGHTS_H
