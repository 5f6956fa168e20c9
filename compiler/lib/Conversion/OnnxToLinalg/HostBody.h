//===- HostBody.h - What the family files of OnnxToLinalg share -*- C++ -*-===//
//
// Internal to lib/Conversion/OnnxToLinalg. A family file registers one
// builder per ONNX op type; a builder gets the region's arguments and the
// op's `params` and returns the value the region yields.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_CONVERSION_ONNXTOLINALG_HOSTBODY_H
#define SYSTOLE_LIB_CONVERSION_ONNXTOLINALG_HOSTBODY_H

#include "systole/Conversion/LoweringUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

namespace systole::conversion::onnx {

/// The `params` of one graph.host, read by name: a missing or mistyped
/// parameter is an error naming the op and the parameter (hand-written IR
/// reaches here through systole-opt).
class Params {
public:
  Params(llvm::StringRef onnxOp, mlir::DictionaryAttr dict)
      : onnxOp(onnxOp), dict(dict) {}

  bool has(llvm::StringRef name) const { return bool(get(name)); }
  /// A parameter of a kind the readers below do not cover (null if absent).
  mlir::Attribute attr(llvm::StringRef name) const { return get(name); }
  llvm::Expected<int64_t> i64(llvm::StringRef name) const;
  llvm::Expected<double> f64(llvm::StringRef name) const;
  llvm::Expected<bool> flag(llvm::StringRef name) const;
  llvm::Expected<mlir::Type> type(llvm::StringRef name) const;
  llvm::Expected<llvm::SmallVector<int64_t>> i64s(llvm::StringRef name) const;
  llvm::Expected<llvm::SmallVector<float>> f32s(llvm::StringRef name) const;
  llvm::Expected<llvm::StringRef> str(llvm::StringRef name) const;

  /// An ONNX attribute the importer copied (nodeAttributes), or its default
  /// when the node has none: int64 (INT), float32 (FLOAT) or string
  /// (STRING). A present attribute of another kind reads as protobuf's zero
  /// value, as ImportContext::attr* do.
  int64_t attrInt(llvm::StringRef name, int64_t dflt) const;
  float attrFloat(llvm::StringRef name, float dflt) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef dflt) const;

  llvm::Error fail(const llvm::Twine &msg) const;
  /// The ONNX op type the op names.
  llvm::StringRef op() const { return onnxOp; }

private:
  mlir::Attribute get(llvm::StringRef name) const;
  llvm::Error wrong(llvm::StringRef name, llvm::StringRef what) const;

  llvm::StringRef onnxOp;
  mlir::DictionaryAttr dict;
};

/// `auto var = <the parameter expr reads>`, or return its error (a builder
/// returns on the first missing or mistyped parameter).
#define SYSTOLE_PARAM(var, expr)                                               \
  auto var##OrErr = (expr);                                                    \
  if (!var##OrErr)                                                             \
    return var##OrErr.takeError();                                             \
  auto var = *var##OrErr;

/// Builds the body of one graph.host: `args` are the region's arguments,
/// `result` the op's result type.
using HostBodyFn = llvm::Expected<mlir::Value> (*)(mlir::OpBuilder &,
                                                   mlir::Location,
                                                   mlir::ValueRange args,
                                                   mlir::Type result,
                                                   const Params &);

using lowering::elementOf;
using lowering::shapeOf;
using lowering::tensorType;

/// out[ivs] = in[map(ivs)] over `shape`: a data movement whose source
/// position is an affine function of the output position (TensorOps.cpp;
/// Tile, DepthToSpace, SpaceToDepth and Slice).
mlir::Value affineCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                       llvm::ArrayRef<int64_t> shape, mlir::AffineMap map);

/// One registration function per family file.
void registerNormBodies(llvm::StringMap<HostBodyFn> &table);
void registerElementwiseBodies(llvm::StringMap<HostBodyFn> &table);
void registerReduceBodies(llvm::StringMap<HostBodyFn> &table);
void registerScanBodies(llvm::StringMap<HostBodyFn> &table);
void registerIndexBodies(llvm::StringMap<HostBodyFn> &table);
void registerTensorOpBodies(llvm::StringMap<HostBodyFn> &table);
void registerLossBodies(llvm::StringMap<HostBodyFn> &table);
void registerLinearBodies(llvm::StringMap<HostBodyFn> &table);
void registerPadSliceBodies(llvm::StringMap<HostBodyFn> &table);
void registerDynamicQuantBodies(llvm::StringMap<HostBodyFn> &table);
void registerConvBodies(llvm::StringMap<HostBodyFn> &table);
void registerPoolBodies(llvm::StringMap<HostBodyFn> &table);
void registerResizeBodies(llvm::StringMap<HostBodyFn> &table);
void registerRecurrentBodies(llvm::StringMap<HostBodyFn> &table);

} // namespace systole::conversion::onnx

#endif // SYSTOLE_LIB_CONVERSION_ONNXTOLINALG_HOSTBODY_H
