//===- HostRecurrence.h - An ONNX RNN, GRU or LSTM node, resolved -*- C++
//-*-===//
//
// What the importer (Frontend/ImportRecurrent.cpp) resolves of a recurrent
// node's attributes and operands, and how it travels in the graph.host
// op's params to the body builder (lib/Conversion/OnnxToLinalg/
// Recurrent.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_HOSTRECURRENCE_H
#define SYSTOLE_CONVERSION_HOSTRECURRENCE_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace systole::conversion {

enum class Cell { RNN, GRU, LSTM };

struct Activation {
  std::string name; ///< lower case
  float alpha = 0.0f, beta = 0.0f;
};

/// A node's shapes and attributes, and where its operands sit among the
/// graph.host op's inputs (-1: absent). X, W and R are always 0, 1 and 2.
struct Recurrence {
  Cell cell = Cell::RNN;
  int64_t gates = 1;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool batchMajor = false;
  bool reverse = false; ///< direction == "reverse"
  std::optional<float> clip;
  bool linearBeforeReset = false, inputForget = false;
  std::vector<std::vector<Activation>> acts; ///< per direction
  std::vector<int64_t> lens;                 ///< per batch entry, constant
  bool partial = false; ///< some len < seq (or not known at compile time)
  int x = 0, w = 1, r = 2, b = -1, h0 = -1, c0 = -1, p = -1;
  int lensArg = -1; ///< a runtime sequence_lens
};

/// The params of output `output` (0: Y, 1: Y_h, 2: Y_c) of `rc`: `layout`,
/// `direction`, `clip` (when set), `linear_before_reset`, `input_forget`,
/// `activations` with their resolved `activation_alpha`/`activation_beta`
/// (one each per function, every direction's in order), the operand
/// indices `b`, `initial_h`, `initial_c`, `p`, `sequence_lens`, the
/// constant `lens`, and `output`. Shapes come from the operands.
llvm::SmallVector<mlir::NamedAttribute>
recurrenceParams(mlir::Builder &b, const Recurrence &rc, int64_t output);

} // namespace systole::conversion

#endif // SYSTOLE_CONVERSION_HOSTRECURRENCE_H
