//===- SharedObject.cpp - Load compiled host code from its bytes ----------===//
#include "systole/Support/SharedObject.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <mutex>

using namespace systole;

llvm::Expected<rt::HostEntryFn>
rt::loadSharedObjectEntry(llvm::ArrayRef<uint8_t> code, llvm::StringRef entry) {
  auto error = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
  };
  static std::mutex mutex;
  static llvm::StringMap<HostEntryFn> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key(reinterpret_cast<const char *>(code.data()), code.size());
  key += '\0' + entry.str();
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  llvm::SmallString<128> path;
  int fd;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("systole-host", "so", fd, path))
    return error("cannot write host code to a temporary file: " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(code.data()), code.size());
  }
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  llvm::sys::fs::remove(path); // the mapping stays valid
  if (!lib)
    return error(
        llvm::formatv("cannot load host code '{0}': {1}", entry, dlerror()));
  auto fn = reinterpret_cast<HostEntryFn>(dlsym(lib, entry.str().c_str()));
  if (!fn)
    return error(llvm::formatv("host code has no symbol '{0}'", entry));
  cache[key] = fn;
  return fn;
}
