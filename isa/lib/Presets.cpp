//===- Presets.cpp - Resolving a hardware config by name or file ----------===//
#include "systole/ISA/Presets.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace systole::isa;

std::string systole::isa::presetDirectory() {
  if (const char *env = std::getenv("SYSTOLE_PRESET_DIR"))
    return env;
  return SYSTOLE_PRESET_DIR;
}

llvm::Expected<HwConfig>
systole::isa::resolveHwConfig(llvm::StringRef nameOrPath) {
  if (nameOrPath.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no hardware config given (--hw FILE or "
                                   "a preset name such as default-32x32)");
  if (nameOrPath.ltrim().starts_with("{"))
    return parseHwConfig(nameOrPath);
  if (llvm::sys::fs::exists(nameOrPath))
    return loadHwConfigFile(nameOrPath);
  std::string dir = presetDirectory();
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, nameOrPath + ".json");
  // A path is never a preset name.
  if (!nameOrPath.contains('/') && llvm::sys::fs::exists(path))
    return loadHwConfigFile(path);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "hardware config '" + nameOrPath +
          "' is neither a file nor a bundled preset in " + dir +
          " (see `systole presets`)");
}
