# Sanitizer and fuzzing builds (docs/security.md).
#
# SYSTOLE_SANITIZE=ON builds everything with ASan + UBSan; any report aborts
# the process, so ctest fails on the first one.
# SYSTOLE_FUZZ=ON (clang only) adds libFuzzer coverage instrumentation to
# everything and builds the fuzz targets of tests/fuzz/; it implies
# SYSTOLE_SANITIZE, so one build directory serves both the sanitizer test
# suite and the fuzzers (tools/sanitize.sh).
option(SYSTOLE_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(SYSTOLE_FUZZ "Build the libFuzzer targets (tests/fuzz; clang-19)" OFF)
if(SYSTOLE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SYSTOLE_FUZZ=ON needs clang (libFuzzer): configure "
            "with -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 "
            "(Debian packages 'clang-19' and 'libclang-rt-19-dev').")
  endif()
  set(SYSTOLE_SANITIZE ON CACHE BOOL "" FORCE)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
# -fno-sanitize=vptr: the vptr check needs RTTI on both sides, and LLVM's
# classes (libLLVM, formatv adapters) have none: false reports otherwise.
# Clang: no fake stacks for use-after-return detection; SystemC switches
# coroutine stacks behind ASan's back and fake frames of a suspended thread
# get recycled (SEGV in CommandQueue::issueLoop otherwise).
if(SYSTOLE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize=vptr
                      -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_compile_options(-fsanitize-address-use-after-return=never)
  endif()
  add_link_options(-fsanitize=address,undefined)
endif()
