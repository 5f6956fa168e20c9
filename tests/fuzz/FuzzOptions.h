//===- FuzzOptions.h - Sanitizer defaults shared by the fuzz targets
//-------===//
//
// LLVM's BumpPtrAllocator poisons its slabs with ASan's manual poisoning when
// the including code is instrumented, and unpoisons on allocation. Our
// instrumented inline copies interpose those of the uninstrumented Debian
// libLLVM/libMLIR, so a slab poisoned by one is handed out by the other:
// false "use-after-poison" reports inside MLIR. Manual poisoning is off;
// every other ASan check stays on (docs/security.md).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TESTS_FUZZ_FUZZOPTIONS_H
#define SYSTOLE_TESTS_FUZZ_FUZZOPTIONS_H

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

#endif // SYSTOLE_TESTS_FUZZ_FUZZOPTIONS_H
