# Finds every external dependency; a missing one stops configuration with the
# Debian package that provides it, so a newcomer knows what to install.

macro(systole_require found_var what package)
  if(NOT ${found_var})
    message(FATAL_ERROR "${what} not found: install the Debian package "
                        "'${package}' (tools/setup.sh installs everything).")
  endif()
endmacro()

# MLIR/LLVM 19, linked through the shared libMLIR.so / libLLVM.so.
# (MLIRConfigVersion only accepts exact versions, so the major is checked
# after loading.)
find_package(MLIR CONFIG QUIET
  HINTS /usr/lib/llvm-19/lib/cmake/mlir NO_DEFAULT_PATH)
systole_require(MLIR_FOUND "MLIR 19 (MLIRConfig.cmake)" "libmlir-19-dev mlir-19-tools")
find_package(LLVM CONFIG QUIET HINTS ${MLIR_DIR}/../llvm NO_DEFAULT_PATH)
systole_require(LLVM_FOUND "LLVM 19 (LLVMConfig.cmake)" "llvm-19-dev")
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "LLVM/MLIR 19 required, found ${LLVM_PACKAGE_VERSION}: "
                      "install 'llvm-19-dev libmlir-19-dev'.")
endif()
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)
set(LLVM_LINK_LLVM_DYLIB ON)
set(MLIR_LINK_MLIR_DYLIB ON)
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})
# MLIR/LLVM are built without RTTI; our code that touches them follows suit
# per target (see systole_llvm_target below).

# Tools the lit tests run.
find_program(SYSTOLE_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-19/bin)
systole_require(SYSTOLE_FILECHECK "FileCheck" "llvm-19-tools")
find_file(SYSTOLE_LIT_PY lit.py HINTS /usr/lib/llvm-19/build/utils/lit NO_DEFAULT_PATH)
systole_require(SYSTOLE_LIT_PY "lit (lit.py)" "llvm-19-tools")

# SystemC 2.3 through pkg-config.
find_package(PkgConfig QUIET)
systole_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config")
pkg_check_modules(SYSTEMC QUIET IMPORTED_TARGET systemc>=2.3)
systole_require(SYSTEMC_FOUND "SystemC 2.3 (systemc.pc)" "libsystemc-dev")

# Verilator 5.
find_package(verilator QUIET HINTS /usr/share/verilator)
systole_require(verilator_FOUND "Verilator (verilator-config.cmake)" "verilator")

# FlatBuffers runtime and flatc.
find_package(FlatBuffers CONFIG QUIET)
systole_require(FlatBuffers_FOUND "FlatBuffers (FlatBuffersConfig.cmake)" "libflatbuffers-dev")
find_program(SYSTOLE_FLATC flatc)
systole_require(SYSTOLE_FLATC "flatc" "flatbuffers-compiler")

# ONNX protobuf classes.
find_package(ONNX CONFIG QUIET)
systole_require(ONNX_FOUND "ONNX (ONNXConfig.cmake)" "libonnx-dev")
find_package(Protobuf QUIET)
systole_require(Protobuf_FOUND "Protobuf" "libprotobuf-dev")

find_package(GTest QUIET)
systole_require(GTest_FOUND "GoogleTest" "libgtest-dev")

find_package(Python3 3.11 QUIET COMPONENTS Interpreter)
set(SYSTOLE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch/onnx/numpy (Debian's)")

# Compile a target the way LLVM/MLIR headers expect (no RTTI, no exceptions
# across LLVM APIs) and link the shared libraries.
function(systole_llvm_target target)
  target_compile_options(${target} PRIVATE -fno-rtti)
endfunction()
