//===- NPUDialect.cpp - npu dialect registration --------------------------===//
#include "systole/Dialect/NPU/NPUDialect.h"
#include "systole/Dialect/NPU/NPUOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace systole::npu;

#include "systole/Dialect/NPU/NPUDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "systole/Dialect/NPU/NPUTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "systole/Dialect/NPU/NPUAttrs.cpp.inc"

void NPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "systole/Dialect/NPU/NPUAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "systole/Dialect/NPU/NPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "systole/Dialect/NPU/NPUOps.cpp.inc"
      >();
}
