//===- OrtFusions.h - ORT's arithmetic-changing fusions --------*- C++ -*-===//
//
// Internal to the frontend; OrtFusions.cpp says what and why.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_ORTFUSIONS_H
#define SYSTOLE_LIB_FRONTEND_ORTFUSIONS_H

#include "onnx/onnx_pb.h"

namespace systole::frontend {

/// Rewrites the float subgraphs ONNX Runtime fuses before it runs a model
/// (at ORT_ENABLE_ALL, the reference's level) into the fused op, where the
/// fused kernel rounds differently from the ops it replaces; returns
/// whether anything changed. Runs after the checker: a fused op may be
/// newer than the model's opset, as in ORT.
bool fuseLikeOrt(onnx::ModelProto &model);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_ORTFUSIONS_H
