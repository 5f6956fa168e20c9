//===- ImportContext.h - State shared by the ONNX op importers --*- C++ -*-===//
//
// Internal to the frontend. Op translators (Import*.cpp) read node inputs and
// attributes through this class and define the node outputs; constants stay
// host tensors until an op needs them as IR values, so shape arguments
// (Reshape's shape, Pad's pads, Q/DQ parameters) never become IR.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_IMPORTCONTEXT_H
#define SYSTOLE_LIB_FRONTEND_IMPORTCONTEXT_H

#include "ConvTransposeAsConv.h"

#include "systole/Conversion/LoweringUtils.h"
#include "systole/Dialect/Graph/GraphOps.h"
#include "systole/Frontend/OnnxImporter.h"
#include "systole/Support/HostTensor.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

#include <optional>

namespace systole::frontend {

class ImportContext {
public:
  ImportContext(mlir::OpBuilder &builder, llvm::StringRef modelPath,
                const onnx::ModelProto &model)
      : builder(builder), modelPath(modelPath), model(model) {}

  mlir::OpBuilder &builder;
  llvm::StringRef modelPath;
  const onnx::ModelProto &model;
  /// The node being translated, for locations and messages.
  const onnx::NodeProto *node = nullptr;
  /// Convs that were ConvTransposes, by output name (ConvTransposeAsConv).
  std::map<std::string, ConvTransposeOrigin> convTransposeOrigins;

  /// "model.onnx: node 'conv1' (Conv): <msg>".
  llvm::Error fail(const llvm::Twine &msg) const;
  /// A NotConstantError for input `i` (`what` says which operand it is).
  llvm::Error notConstant(int i, const llvm::Twine &what = "") const;
  mlir::Location loc() const;
  mlir::MLIRContext *ctx() const { return builder.getContext(); }

  // Values --------------------------------------------------------------
  bool isDefined(llvm::StringRef name) const;
  /// Input `i` of the current node as an IR value (materializing constants).
  llvm::Expected<mlir::Value> input(int i);
  /// Value `name` as an IR value (materializing a constant).
  llvm::Expected<mlir::Value> value(llvm::StringRef name);
  /// Whether input `i` is present (ONNX marks omitted optionals with "").
  bool hasInput(int i) const;
  /// Input `i` as a compile-time constant, or nullptr.
  const HostTensor *constantInput(int i) const;
  const HostTensor *constant(llvm::StringRef name) const;
  /// Input `i` as constant integers (shape/axes operands).
  llvm::Expected<std::vector<int64_t>> constantInts(int i);
  /// Input `i` as one constant float (or per-axis floats).
  llvm::Expected<std::vector<float>> constantFloats(int i);

  void define(llvm::StringRef name, mlir::Value value);
  void defineConstant(llvm::StringRef name, HostTensor tensor);
  llvm::Error defineOutput(int i, mlir::Value value);

  /// Materializes a host tensor as an arith.constant.
  mlir::Value materialize(const HostTensor &tensor);

  /// A `graph.host` op named after the node's op type over `inputs` whose
  /// body is built after import from `params` (what the node's validated
  /// attributes say) by lib/Conversion/OnnxToLinalg.
  mlir::Value hostOp(mlir::ValueRange inputs, mlir::Type result,
                     llvm::ArrayRef<mlir::NamedAttribute> params);
  /// A graph.host copy of `v` (the `Copy` body), named after the node's op
  /// type.
  mlir::Value hostCopy(mlir::Value v);

  // ONNX element types ---------------------------------------------------
  /// Records the ONNX element type of every value (shape inference over the
  /// model), before any node is translated.
  void recordElemTypes();
  /// onnx::TensorProto::DataType of value `name`, 0 if unknown.
  int32_t onnxElemType(llvm::StringRef name) const;
  /// Whether value `name` / input `i` is uint8..uint64: MLIR holds them in
  /// signless integers, so division, comparison, min/max, right shift and
  /// conversion to float must choose the unsigned form.
  bool isUnsigned(llvm::StringRef name) const;
  bool isUnsignedInput(int i) const;

  // Attributes -------------------------------------------------------------
  int64_t attrInt(llvm::StringRef name, int64_t dflt) const;
  float attrFloat(llvm::StringRef name, float dflt) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef dflt) const;
  std::optional<std::vector<int64_t>> attrInts(llvm::StringRef name) const;
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  /// The node's INT, FLOAT, STRING, INTS and FLOATS attributes as MLIR
  /// attributes (i64, f32, string, array<i64>, array<f32>), for a host op's
  /// params.
  llvm::SmallVector<mlir::NamedAttribute> nodeAttributes() const;

  // Quantization -----------------------------------------------------------
  /// The `!quant.uniform` element type for scale/zero-point inputs `scaleIdx`
  /// and `zpIdx` (zpIdx < 0 or absent: zero point 0 with `storage`).
  /// Per-axis when the scale has more than one element.
  llvm::Expected<mlir::Type> quantElementType(int scaleIdx, int zpIdx,
                                              int64_t axis,
                                              mlir::Type defaultStorage);
  /// Reinterprets an integer or quantized tensor as `quantElement` (a storage
  /// cast: the stored integers are unchanged).
  llvm::Expected<mlir::Value> asQuantized(mlir::Value v,
                                          mlir::Type quantElement);

private:
  struct Entry {
    mlir::Value value;
    std::optional<HostTensor> constant;
  };
  llvm::StringMap<Entry> values;
  llvm::StringMap<int32_t> elemTypes;
};

/// A translator for one ONNX op type.
using OpImporter = llvm::Error (*)(ImportContext &);

/// Registries of the translators, one per file (Import*.cpp). The graph
/// forms (Quant, Conv, Linear, Elementwise, Pool, Shape, PadSlice, Float)
/// and the host families (the rest) are two tables; an op type in both goes
/// to its host family, which calls graphFormOf for the cases the graph form
/// expresses (the rule: translatorFor in OnnxImporter.cpp). No op type is
/// registered twice within a table, so the order of registration does not
/// matter.
void registerQuantImporters(llvm::StringMap<OpImporter> &table);
void registerConvImporters(llvm::StringMap<OpImporter> &table);
void registerLinearImporters(llvm::StringMap<OpImporter> &table);
void registerElementwiseImporters(llvm::StringMap<OpImporter> &table);
void registerPoolImporters(llvm::StringMap<OpImporter> &table);
void registerShapeImporters(llvm::StringMap<OpImporter> &table);
void registerPadSliceImporters(llvm::StringMap<OpImporter> &table);
void registerFloatImporters(llvm::StringMap<OpImporter> &table);
void registerHostElementwiseImporters(llvm::StringMap<OpImporter> &table);
void registerReduceImporters(llvm::StringMap<OpImporter> &table);
void registerScanImporters(llvm::StringMap<OpImporter> &table);
void registerIndexImporters(llvm::StringMap<OpImporter> &table);
void registerTensorOpImporters(llvm::StringMap<OpImporter> &table);
void registerNormImporters(llvm::StringMap<OpImporter> &table);
void registerHostConvImporters(llvm::StringMap<OpImporter> &table);
void registerHostPoolImporters(llvm::StringMap<OpImporter> &table);
void registerResizeImporters(llvm::StringMap<OpImporter> &table);
void registerLossImporters(llvm::StringMap<OpImporter> &table);
void registerRecurrentImporters(llvm::StringMap<OpImporter> &table);
void registerEinsumImporters(llvm::StringMap<OpImporter> &table);
void registerSignalImporters(llvm::StringMap<OpImporter> &table);
void registerDynamicQuantImporters(llvm::StringMap<OpImporter> &table);

/// The graph-form translator of `opType`, or null: for a host family that
/// keeps the graph form where it applies.
OpImporter graphFormOf(llvm::StringRef opType);

/// QuantizeLinear/DequantizeLinear whose scale is a run-time value, in float
/// on the host (ImportDynamicQuant.cpp).
llvm::Error importHostQuantizeLinear(ImportContext &ic);
llvm::Error importHostDequantizeLinear(ImportContext &ic);

/// The host (graph.host) form of an elementwise ONNX op registered by
/// registerHostElementwiseImporters: every element type, ONNX semantics.
/// Float-only importers delegate here for integer and bool tensors.
llvm::Error importHostElementwise(ImportContext &ic);

/// Key of the translator table: "op" for ai.onnx, "domain::op" otherwise.
std::string importerKey(llvm::StringRef domain, llvm::StringRef opType);

using conversion::lowering::elementOf;
using conversion::lowering::shapeOf;
using conversion::lowering::tensorType;

/// Normalizes ONNX pads/auto_pad for a 2-D window op into
/// [top, left, bottom, right].
llvm::Expected<std::vector<int64_t>>
resolvePads2D(ImportContext &ic, llvm::ArrayRef<int64_t> inputHW,
              llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
              llvm::ArrayRef<int64_t> dilations);

} // namespace systole::frontend

#endif // SYSTOLE_LIB_FRONTEND_IMPORTCONTEXT_H
