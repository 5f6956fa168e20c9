//===- FoldConstantElementwise.h - Elementwise ops on constants -*- C++ -*-===//
//
// Internal to the frontend (FoldConstantElementwise.cpp says which ops and
// why their results are exact).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_FOLDCONSTANTELEMENTWISE_H
#define SYSTOLE_LIB_FRONTEND_FOLDCONSTANTELEMENTWISE_H

#include "systole/Support/HostTensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace systole::frontend {

/// ONNX elementwise op `op` over constant `inputs` (numpy broadcasting) as a
/// `resultType` tensor, or nullopt when it is not folded (an op or type the
/// folder does not evaluate exactly, a result over 65536 elements, integer
/// division by zero). `isUnsigned`: the integer operands are unsigned.
std::optional<HostTensor>
foldConstantElementwise(llvm::StringRef op,
                        llvm::ArrayRef<const HostTensor *> inputs,
                        ElementType resultType, bool isUnsigned);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_FOLDCONSTANTELEMENTWISE_H
