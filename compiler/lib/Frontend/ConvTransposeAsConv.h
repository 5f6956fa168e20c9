//===- ConvTransposeAsConv.h - Upsampling ConvTranspose as Conv + D2S -*- C++
//-*-===//
//
// Internal to the frontend; ConvTransposeAsConv.cpp says what and why.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_CONVTRANSPOSEASCONV_H
#define SYSTOLE_LIB_FRONTEND_CONVTRANSPOSEASCONV_H

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <map>
#include <string>

namespace systole::frontend {

/// What a rewritten Conv was, so MAC counts stay the model's.
struct ConvTransposeOrigin {
  int64_t kernelArea = 1;   // kh * kw of the ConvTranspose
  int64_t coutPerGroup = 1; // its outputs per input channel
};

/// Rewrites each QDQ ConvTranspose whose output is a multiple of its stride
/// into a Conv with stride^2 x Cout filters, a QuantizeLinear/
/// DequantizeLinear pair of the output's parameters and a DCR
/// DepthToSpace; records each Conv by its output name in `origins`;
/// returns whether anything changed.
bool convTransposeAsConv(onnx::ModelProto &model,
                         std::map<std::string, ConvTransposeOrigin> &origins);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_CONVTRANSPOSEASCONV_H
