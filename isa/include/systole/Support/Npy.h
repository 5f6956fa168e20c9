//===- Npy.h - Read and write NumPy .npy files ------------------*- C++ -*-===//
//
// Inputs and outputs of `systole run` are .npy files (format 1.0/2.0/3.0,
// little-endian, C order), the lingua franca of the Python reference tools.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SUPPORT_NPY_H
#define SYSTOLE_SUPPORT_NPY_H

#include "systole/Support/HostTensor.h"

#include "llvm/Support/Error.h"

namespace systole {

/// Parses .npy bytes; `what` names the source in error messages.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes,
                                    llvm::StringRef what);
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);
std::string serializeNpy(const HostTensor &tensor);
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace systole

#endif // SYSTOLE_SUPPORT_NPY_H
