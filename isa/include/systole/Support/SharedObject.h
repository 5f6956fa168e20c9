//===- SharedObject.h - Load compiled host code from its bytes ------------===//
//
// Host code is a shared object with one entry `void entry(uint8_t *dram)`.
// The runtime runs a .npu's host segments through this loader, the
// compiler the host code it evaluates at compile time (npu-fold-tables),
// so both call the same machine code the same way.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SUPPORT_SHAREDOBJECT_H
#define SYSTOLE_SUPPORT_SHAREDOBJECT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace systole::rt {

using HostEntryFn = void (*)(uint8_t *);

/// Writes `code` to a private temporary file, dlopen's it (RTLD_LOCAL: two
/// objects' entries never collide) and returns `entry`. The same bytes and
/// entry are loaded once per process.
llvm::Expected<HostEntryFn> loadSharedObjectEntry(llvm::ArrayRef<uint8_t> code,
                                                  llvm::StringRef entry);

} // namespace systole::rt

#endif // SYSTOLE_SUPPORT_SHAREDOBJECT_H
