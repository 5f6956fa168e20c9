//===- OnnxToLinalg.h - Bodies of the host ops the importer leaves -*- C++
//-*-===//
//
// The importer translates an ONNX node the NPU cannot run into a graph.host
// op whose region may still be empty: it validates the node and records
// what the body needs in the op's `params` dictionary. The bodies (linalg,
// tensor, arith and math over the region's arguments) are built here, one
// file per op family (lib/Conversion/OnnxToLinalg/<Family>.cpp), by the
// convert-onnx-to-linalg pass or by buildHostBodies after import.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_ONNXTOLINALG_H
#define SYSTOLE_CONVERSION_ONNXTOLINALG_H

#include "systole/Dialect/Graph/GraphOps.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace systole::conversion {

/// Builds the body of `host` (whose region is empty) from its operands and
/// `params` (which stay). The error names the op and the parameter.
llvm::Error buildHostBody(graph::HostOp host);

/// buildHostBody for every graph.host under `root` that has no body yet.
llvm::Error buildHostBodies(mlir::Operation *root);

/// What the importer checks of an elementwise ONNX op (Elementwise.cpp)
/// before it emits its graph.host: the number of inputs (-1: variadic),
/// whether they must be float, and where the result element type comes from.
struct ElementwiseSignature {
  enum class Result { SameAsInput, Bool, Attr };
  int inputs;
  bool floatOnly;
  Result result;
};
std::optional<ElementwiseSignature> elementwiseSignature(llvm::StringRef op);
/// Every ONNX op type Elementwise.cpp builds.
std::vector<std::string> elementwiseOps();

} // namespace systole::conversion

#endif // SYSTOLE_CONVERSION_ONNXTOLINALG_H
