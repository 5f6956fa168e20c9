//===- ConvTransposeAsConv.h - Upsampling ConvTranspose as Conv + D2S -*- C++
//-*-===//
//
// Internal to the frontend; ConvTransposeAsConv.cpp says what and why.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_CONVTRANSPOSEASCONV_H
#define SYSTOLE_LIB_FRONTEND_CONVTRANSPOSEASCONV_H

#include "onnx/onnx_pb.h"

namespace systole::frontend {

/// Rewrites each QDQ ConvTranspose whose kernel equals its stride into a
/// 1x1 Conv with stride^2 x Cout filters, a QuantizeLinear/DequantizeLinear
/// pair of the output's parameters and a DCR DepthToSpace; returns whether
/// anything changed.
bool convTransposeAsConv(onnx::ModelProto &model);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_CONVTRANSPOSEASCONV_H
