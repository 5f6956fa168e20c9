//===- OrtGraph.h - Producers and consumers of an ONNX graph ---*- C++ -*-===//
//
// Internal to the frontend: what OrtFusions.cpp and OrtQdqFusions.cpp ask
// of a graph while they match ORT's rewrites (who reads a value, how many
// edges ORT counts, constants).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_FRONTEND_ORTGRAPH_H
#define SYSTOLE_LIB_FRONTEND_ORTGRAPH_H

#include "systole/Frontend/OnnxModel.h"

#include "onnx/onnx_pb.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <utility>

namespace systole::frontend::ort {

/// Who produces and who consumes each value of a graph.
struct Uses {
  llvm::StringMap<int> producer;
  llvm::StringMap<llvm::SmallVector<int>> consumers; ///< one per input slot
  llvm::StringMap<const onnx::TensorProto *> constants;
  llvm::StringMap<int> rank;
  llvm::StringMap<int32_t> elemType; ///< ONNX TensorProto data type
  llvm::StringMap<int64_t> lastDim;
  llvm::DenseSet<llvm::StringRef> graphOutputs;
  /// A node's position in the graph (a RepeatedPtrField's elements are not
  /// contiguous, so this is not pointer arithmetic).
  llvm::DenseMap<const onnx::NodeProto *, int> index;
};

/// `g`'s uses, with the types `inferred` (g after shape inference) knows.
Uses usesOf(const onnx::GraphProto &g, const onnx::GraphProto &inferred);
const onnx::NodeProto *nodeOf(const onnx::GraphProto &g, const Uses &u,
                              llvm::StringRef value);
/// An op of the default domain named `type`.
bool isOp(const onnx::NodeProto *n, llvm::StringRef type);
/// ORT's output edge count: the consumers' input slots reading any output.
size_t edges(const Uses &u, const onnx::NodeProto &n);
/// The consumer nodes of `n`'s first output, in graph order.
llvm::SmallVector<const onnx::NodeProto *>
children(const onnx::GraphProto &g, const Uses &u, const onnx::NodeProto &n);
const onnx::NodeProto *firstChild(const onnx::GraphProto &g, const Uses &u,
                                  const onnx::NodeProto &n,
                                  llvm::StringRef type);
const onnx::NodeProto *firstParent(const onnx::GraphProto &g, const Uses &u,
                                   const onnx::NodeProto &n,
                                   llvm::StringRef type);
/// The constant `name` (initializer or Constant node) of ONNX type `type`,
/// decoded by tensorFromProto.
std::optional<HostTensor> constantOf(const Uses &u, llvm::StringRef name,
                                     int32_t type);

/// A match: the fused node and the indices of the nodes it replaces (it
/// takes the place of the last).
using Match = std::optional<std::pair<onnx::NodeProto, llvm::SmallVector<int>>>;

/// OrtQdqFusions.cpp: one round of ORT's DoubleQDQPairsRemover (whether it
/// changed `model`), and the QDQ Softmax -> com.microsoft.QLinearSoftmax
/// match rooted at `softmax` for a model of default-domain `opset`.
bool removeDoubleQdqPairs(onnx::ModelProto &model);
Match matchQdqSoftmax(const onnx::GraphProto &g, const Uses &u,
                      const onnx::NodeProto &softmax, int64_t opset);

} // namespace systole::frontend::ort

#endif // SYSTOLE_LIB_FRONTEND_ORTGRAPH_H
