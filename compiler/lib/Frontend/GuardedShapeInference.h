//===- GuardedShapeInference.h - ONNX shape inference without its crashes -===//
//
// Internal to the frontend; GuardedShapeInference.cpp says what and why.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_GUARDEDSHAPEINFERENCE_H
#define SYSTOLE_LIB_FRONTEND_GUARDEDSHAPEINFERENCE_H

#include "onnx/onnx_pb.h"

namespace systole::frontend {

/// Runs onnx::shape_inference::InferShapes on `model` (a copy the caller
/// owns) after removing what makes libonnx 1.12 read out of bounds; returns
/// false if inference fails (the copy may then be partly inferred).
bool inferShapesGuarded(onnx::ModelProto &model);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_GUARDEDSHAPEINFERENCE_H
