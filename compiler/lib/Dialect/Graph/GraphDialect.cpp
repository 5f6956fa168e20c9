//===- GraphDialect.cpp - Graph dialect registration ----------------------===//
#include "systole/Dialect/Graph/GraphDialect.h"
#include "systole/Dialect/Graph/GraphOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace systole::graph;

#include "systole/Dialect/Graph/GraphDialect.cpp.inc"
#include "systole/Dialect/Graph/GraphEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "systole/Dialect/Graph/GraphAttrs.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "systole/Dialect/Graph/GraphOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "systole/Dialect/Graph/GraphAttrs.cpp.inc"
      >();
}
