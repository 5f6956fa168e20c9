//===- OnnxImporter.cpp - ONNX model -> graph dialect ---------------------===//
//
// Walks the (topologically sorted, as ONNX requires) node list once and
// dispatches each node to the translator registered for its op type.
//
//===----------------------------------------------------------------------===//
#include "ConvTransposeAsConv.h"
#include "GuardedShapeInference.h"
#include "ImportContext.h"
#include "ImportHelpers.h"
#include "OrtFusions.h"
#include "QuantizeFloatWeights.h"

#include "systole/Conversion/LoweringUtils.h"
#include "systole/Conversion/OnnxToLinalg.h"
#include "systole/Frontend/OnnxModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

using namespace mlir;
using llvm::StringRef;

namespace systole::frontend {

char NotConstantError::ID;

std::string importerKey(StringRef domain, StringRef opType) {
  if (domain.empty() || domain == "ai.onnx")
    return opType.str();
  return (domain + "::" + opType).str();
}

//===----------------------------------------------------------------------===//
// Importer driver
//===----------------------------------------------------------------------===//

/// The translator of each op type. The order of the registrations decides
/// which translator an op type gets: a later one replaces an earlier one
/// (and may look it up first to keep it for some cases). Keep it when
/// moving importers between files: a file split in two registers at the
/// same place (ImportShape.cpp + ImportPadSlice.cpp, ImportHostConv.cpp +
/// ImportHostPool.cpp, ImportConv.cpp + ImportLinear.cpp, whose op types do
/// not overlap).
/// Merges one family's translators into `table`; an op type two families
/// of the same table register is a bug of this file's wiring, reported on
/// the first import.
static void addFamily(llvm::StringMap<OpImporter> &table,
                      void (*family)(llvm::StringMap<OpImporter> &)) {
  llvm::StringMap<OpImporter> own;
  family(own);
  for (auto &e : own)
    if (!table.try_emplace(e.getKey(), e.getValue()).second)
      llvm::report_fatal_error("ONNX op type '" + e.getKey() +
                               "' is registered by two importer families");
}

/// The graph forms: ops the NPU partition knows (graph.conv2d, graph.add,
/// graph.reduce, ...), float32 or quantized.
static const llvm::StringMap<OpImporter> &graphForms() {
  static const llvm::StringMap<OpImporter> table = [] {
    llvm::StringMap<OpImporter> t;
    for (auto family : {registerQuantImporters, registerConvImporters,
                        registerLinearImporters, registerElementwiseImporters,
                        registerPoolImporters, registerShapeImporters,
                        registerPadSliceImporters, registerFloatImporters})
      addFamily(t, family);
    return t;
  }();
  return table;
}

/// The host families: graph.host ops of every element type ONNX allows.
static const llvm::StringMap<OpImporter> &hostForms() {
  static const llvm::StringMap<OpImporter> table = [] {
    llvm::StringMap<OpImporter> t;
    for (auto family : {registerReduceImporters, registerScanImporters,
                        registerIndexImporters, registerTensorOpImporters,
                        registerNormImporters, registerHostConvImporters,
                        registerHostPoolImporters, registerResizeImporters,
                        registerLossImporters, registerRecurrentImporters,
                        registerEinsumImporters, registerSignalImporters,
                        registerDynamicQuantImporters})
      addFamily(t, family);
    return t;
  }();
  return table;
}

OpImporter graphFormOf(StringRef opType) { return graphForms().lookup(opType); }

/// The NPU-or-host rule. An op type with a host family goes to it: the
/// family hands the cases its graph form expresses to graphFormOf (a QDQ
/// Conv of a supported group, a float32 ReduceMean over constant axes, a
/// quantized MaxPool, ...) and builds a graph.host for the rest. Otherwise
/// the graph form translates it, and an elementwise op type without either
/// is a host elementwise op (ImportHostElementwise.cpp).
static OpImporter translatorFor(StringRef key) {
  static const llvm::StringMap<OpImporter> elementwise = [] {
    llvm::StringMap<OpImporter> t;
    registerHostElementwiseImporters(t);
    return t;
  }();
  if (OpImporter f = hostForms().lookup(key))
    return f;
  if (OpImporter f = graphForms().lookup(key))
    return f;
  return elementwise.lookup(key);
}

bool isOpImportable(StringRef domain, StringRef opType) {
  return translatorFor(importerKey(domain, opType)) != nullptr;
}

void registerImportDialects(MLIRContext &context) {
  context
      .loadDialect<graph::GraphDialect, arith::ArithDialect, func::FuncDialect,
                   quant::QuantizationDialect, linalg::LinalgDialect,
                   tensor::TensorDialect, math::MathDialect, scf::SCFDialect>();
}

static llvm::Expected<Type> graphElementType(ImportContext &ic, int32_t t) {
  if (Type type = onnxElementType(ic.ctx(), t))
    return type;
  return ic.fail("graph input/output element type " +
                 onnx::TensorProto::DataType_Name(
                     static_cast<onnx::TensorProto::DataType>(t)) +
                 " is not supported (float16/32/64, bfloat16, int8/16/32/64, "
                 "uint8/16/32/64 and bool are)");
}

static llvm::Expected<RankedTensorType>
graphInputType(ImportContext &ic, const onnx::ValueInfoProto &info,
               const ImportOptions &options) {
  if (!info.type().has_tensor_type())
    return ic.fail("graph input '" + info.name() + "' is not a tensor");
  const auto &tt = info.type().tensor_type();
  auto elem = graphElementType(ic, tt.elem_type());
  if (!elem)
    return elem.takeError();
  std::vector<int64_t> shape;
  auto over = options.inputShapes.find(info.name());
  if (over != options.inputShapes.end()) {
    shape = over->second;
  } else {
    if (!tt.has_shape())
      return ic.fail("graph input '" + info.name() +
                     "' has no shape; pass one with --input-shape");
    for (const auto &d : tt.shape().dim()) {
      if (d.has_dim_value()) {
        // Empty tensors (dimension 0) are legal ONNX (an empty axes list).
        if (d.dim_value() < 0)
          return ic.fail("graph input '" + info.name() +
                         "' has negative dimension " +
                         llvm::Twine(d.dim_value()));
        shape.push_back(d.dim_value());
      } else {
        // Only a leading batch dimension has a safe default; a sequence
        // length or image size silently set to 1 computes something else.
        int64_t index = shape.size();
        std::string param = d.dim_param();
        std::string lower = llvm::StringRef(param).lower();
        bool batchLike =
            index == 0 &&
            (lower.find("batch") != std::string::npos || lower == "n" ||
             lower == "b" || llvm::StringRef(lower).starts_with("unk__"));
        if (!batchLike)
          return ic.fail("graph input '" + info.name() + "' dimension " +
                         llvm::Twine(index) + " is symbolic ('" +
                         (param.empty() ? "?" : param) +
                         "'); give its size with --input-shape " + info.name() +
                         "=...");
        if (options.defaultedDims)
          options.defaultedDims->push_back(
              "input '" + info.name() + "' dimension 0 ('" + param +
              "') set to " + std::to_string(options.symbolicDimValue));
        shape.push_back(options.symbolicDimValue);
      }
    }
  }
  if (checkedNumElements(shape) < 0 || checkedNumElements(shape) > (1ll << 32))
    return ic.fail("graph input '" + info.name() + "' is too large");
  return RankedTensorType::get(shape, *elem);
}

/// "uint8".."uint64" for ONNX's unsigned element types, else "".
static std::string unsignedName(int32_t t) {
  switch (t) {
  case onnx::TensorProto::UINT8:
    return "uint8";
  case onnx::TensorProto::UINT16:
    return "uint16";
  case onnx::TensorProto::UINT32:
    return "uint32";
  case onnx::TensorProto::UINT64:
    return "uint64";
  default:
    return "";
  }
}

void ImportContext::recordElemTypes() {
  auto note = [&](const onnx::ValueInfoProto &v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().elem_type())
      elemTypes[v.name()] = v.type().tensor_type().elem_type();
  };
  // ONNX shape inference types every value (signedness is not in MLIR's
  // signless integers); a model it cannot infer keeps the declared types.
  onnx::ModelProto inferred = model;
  if (!inferShapesGuarded(inferred))
    inferred = model;
  const onnx::GraphProto &g = inferred.graph();
  for (const auto &v : g.value_info())
    note(v);
  for (const auto &v : g.input())
    note(v);
  for (const auto &v : g.output())
    note(v);
  for (const auto &t : g.initializer())
    elemTypes[t.name()] = t.data_type();
}

int32_t ImportContext::onnxElemType(StringRef name) const {
  auto it = elemTypes.find(name);
  return it == elemTypes.end() ? 0 : it->second;
}

bool ImportContext::isUnsigned(StringRef name) const {
  return !unsignedName(onnxElemType(name)).empty();
}

bool ImportContext::isUnsignedInput(int i) const {
  return hasInput(i) && isUnsigned(node->input(i));
}

/// Whether `v` is a graph input or a constant, possibly through reshapes
/// (which compute nothing: their result aliases their operand's buffer).
static bool aliasesNoComputation(Value v) {
  while (auto r = v.getDefiningOp<graph::ReshapeOp>())
    v = r->getOperand(0);
  return isa<BlockArgument>(v) || v.getDefiningOp<arith::ConstantOp>();
}

/// `v` copied into a new tensor by host code (the Copy body).
static llvm::Expected<Value> copyOnHost(ImportContext &ic, Value v,
                                        int64_t outputIndex) {
  if (graph::isQuantized(elementOf(v)))
    return ic.fail("a graph output that is a quantized graph input or "
                   "constant is not supported");
  Value copy = ic.hostCopy(v);
  // Distinct per output, so CSE keeps one copy for each name.
  copy.getDefiningOp()->setAttr("graph.output_index",
                                ic.builder.getI64IntegerAttr(outputIndex));
  return copy;
}

/// The opset and the checker: what makes a model readable at all.
static llvm::Error checkModel(ImportContext &ic,
                              const onnx::ModelProto &model) {
  int64_t opset = opsetVersion(model, "");
  // Opset 7 brought numpy broadcasting to the elementwise ops (before, a
  // `broadcast` attribute chose it) and is the oldest opset of the ONNX node
  // tests that exported models still use; translators whose op changed
  // meaning since then read each opset's spelling (Clip bounds, Squeeze and
  // Reduce axes, Pad's pads, Softmax's 2-D coercion) or refuse the old form
  // by name.
  // An older model is read as opset 7 when every ai.onnx node has the same
  // schema version at both (Not, Selu, Softplus... did not change), so its
  // meaning is opset 7's.
  if (opset < 7) {
    for (const auto &n : model.graph().node()) {
      if (!n.domain().empty() && n.domain() != "ai.onnx")
        continue;
      const auto *then = onnx::OpSchemaRegistry::Schema(n.op_type(), opset);
      const auto *at7 = onnx::OpSchemaRegistry::Schema(n.op_type(), 7);
      if (!then || !at7 || then->SinceVersion() != at7->SinceVersion())
        return ic.fail("ai.onnx opset " + llvm::Twine(opset) +
                       " is not supported for " + n.op_type() +
                       " (its meaning changed by opset 7; 7 or later is "
                       "supported); convert the model with "
                       "onnx.version_converter");
    }
  }
  // A newer opset may change an op's meaning; the checker below only knows
  // the schemas up to libonnx's newest opset.
  int64_t newest = onnx::OpSchemaRegistry::DomainToVersionRange::Instance()
                       .Map()
                       .at(onnx::ONNX_DOMAIN)
                       .second;
  if (opset > newest)
    return ic.fail("ai.onnx opset " + llvm::Twine(opset) +
                   " is newer than the ONNX library knows (up to " +
                   llvm::Twine(newest) + ")");
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return ic.fail(llvm::Twine("malformed ONNX model: ") + e.what());
  }

  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>>
importOnnxModel(const onnx::ModelProto &original, StringRef modelPath,
                MLIRContext &context, const ImportOptions &options) {
  // Float weights between QDQ pairs are quantized as ONNX Runtime does
  // before it runs the model (QuantizeFloatWeights.cpp).
  // Then an upsampling ConvTranspose becomes a 1x1 Conv and a DepthToSpace
  // (ConvTransposeAsConv.cpp).
  onnx::ModelProto rewritten = original;
  bool changed = quantizeFloatWeightsLikeOrt(rewritten);
  std::map<std::string, ConvTransposeOrigin> convTransposeOrigins;
  if (!options.hostConvTranspose)
    changed |= convTransposeAsConv(rewritten, convTransposeOrigins);
  const onnx::ModelProto &checked = changed ? rewritten : original;
  registerImportDialects(context);
  OpBuilder builder(&context);
  {
    ImportContext ic(builder, modelPath, checked);
    if (auto err = checkModel(ic, checked))
      return std::move(err);
  }
  // ONNX Runtime's fusions that change the arithmetic (OrtFusions.cpp),
  // after the checker: a fused op may be newer than the model's opset.
  onnx::ModelProto fused;
  bool isFused = false;
  if (options.ortFusions) {
    fused = checked;
    isFused = fuseLikeOrt(fused);
  }
  const onnx::ModelProto &model = isFused ? fused : checked;
  ImportContext ic(builder, modelPath, model);
  ic.convTransposeOrigins = std::move(convTransposeOrigins);

  ic.recordElemTypes();
  const onnx::GraphProto &g = model.graph();
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(&context, modelPath, 0, 0));
  builder.setInsertionPointToEnd(module->getBody());

  for (const auto &init : g.initializer()) {
    auto t = tensorFromProto(init, modelPath.str() + ": initializer '" +
                                       init.name() + "'");
    if (!t)
      return t.takeError();
    ic.defineConstant(init.name(), std::move(*t));
  }

  // Graph inputs that are not initializers are the function arguments.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<std::string> argUnsigned;
  for (const auto &in : g.input()) {
    if (ic.constant(in.name()))
      continue;
    auto type = graphInputType(ic, in, options);
    if (!type)
      return type.takeError();
    argTypes.push_back(*type);
    argNames.push_back(in.name());
    argUnsigned.push_back(unsignedName(in.type().tensor_type().elem_type()));
  }
  auto func = builder.create<func::FuncOp>(
      ic.loc(), "main", builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "graph.name", builder.getStringAttr(name));
    if (!argUnsigned[i].empty())
      func.setArgAttr(i, "graph.dtype", builder.getStringAttr(argUnsigned[i]));
    ic.define(name, entry->getArgument(i));
  }
  builder.setInsertionPointToStart(entry);

  for (const auto &node : g.node()) {
    ic.node = &node;
    OpImporter translate =
        translatorFor(importerKey(node.domain(), node.op_type()));
    if (!translate)
      return ic.fail("operator is supported neither by the NPU nor by the "
                     "host fallback");
    // Every op we import has an output; contrib-domain nodes are not
    // checked against a schema by the ONNX checker.
    if (node.output_size() == 0)
      return ic.fail("node has no outputs");
    for (int i = 0; i < node.input_size(); ++i)
      if (!node.input(i).empty() && !ic.isDefined(node.input(i)))
        return ic.fail("input '" + node.input(i) +
                       "' is not defined before use (cyclic or unsorted "
                       "graph)");
    if (auto err = translate(ic))
      return std::move(err);
  }
  ic.node = nullptr;

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const auto &out : g.output()) {
    if (!ic.isDefined(out.name()))
      return ic.fail("graph output '" + out.name() + "' is never produced");
    // A constant output is legal ONNX; it becomes a constant in the IR.
    onnx::NodeProto fake;
    fake.add_input(out.name());
    ic.node = &fake;
    auto v = ic.input(0);
    ic.node = nullptr;
    if (!v)
      return v.takeError();
    // An output that is a graph input, a constant or a view of one (Identity,
    // Reshape, Squeeze, inference Dropout), or a value already returned, has
    // no computation to write it: a host copy gives it its own buffer.
    Value result = *v;
    if (aliasesNoComputation(result) || llvm::is_contained(results, result)) {
      auto copy = copyOnHost(ic, result, results.size());
      if (!copy)
        return copy.takeError();
      result = *copy;
    }
    results.push_back(result);
    resultTypes.push_back(result.getType());
  }
  builder.create<func::ReturnOp>(ic.loc(), results);
  func.setFunctionType(builder.getFunctionType(argTypes, resultTypes));
  for (auto [i, out] : llvm::enumerate(g.output())) {
    func.setResultAttr(i, "graph.name", builder.getStringAttr(out.name()));
    std::string u = unsignedName(ic.onnxElemType(out.name()));
    if (!u.empty() && !graph::isQuantized(elementOf(results[i])))
      func.setResultAttr(i, "graph.dtype", builder.getStringAttr(u));
  }

  // The host ops' bodies (lib/Conversion/OnnxToLinalg).
  if (options.buildHostBodies)
    if (auto err = conversion::buildHostBodies(*module))
      return ic.fail("internal error: " + llvm::toString(std::move(err)));

  std::string diagnostic;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      if (diagnostic.empty())
        diagnostic = d.str();
      return success();
    });
    if (failed(verify(*module)))
      return ic.fail("internal error: imported IR does not verify: " +
                     diagnostic);
  }
  return module;
}

llvm::Expected<OwningOpRef<ModuleOp>>
importOnnxFile(StringRef path, MLIRContext &context,
               const ImportOptions &options) {
  auto model = loadOnnxModel(path);
  if (!model)
    return model.takeError();
  return importOnnxModel(**model, path, context, options);
}

} // namespace systole::frontend
