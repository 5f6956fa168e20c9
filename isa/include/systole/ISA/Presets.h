//===- Presets.h - Resolving a hardware config by name or file --*- C++ -*-===//
//
// The one resolution of a --hw argument: the compiler, the CLI, the Python
// API and the npu dialect's verifier all call resolveHwConfig, so a preset
// name means the same file everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_PRESETS_H
#define SYSTOLE_ISA_PRESETS_H

#include "systole/ISA/HwConfig.h"

#include <string>

namespace systole::isa {

/// The folder of the bundled presets: $SYSTOLE_PRESET_DIR if set, else the
/// source tree's isa/presets.
std::string presetDirectory();

/// An existing file, else a preset name (presetDirectory()/<name>.json),
/// else JSON text (starting with '{', as an npu.program's `hw` holds it).
llvm::Expected<HwConfig> resolveHwConfig(llvm::StringRef nameOrPath);

} // namespace systole::isa

#endif // SYSTOLE_ISA_PRESETS_H
