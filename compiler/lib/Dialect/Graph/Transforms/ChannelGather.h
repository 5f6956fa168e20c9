//===- ChannelGather.h - Channel shuffles and splits as 1x1 convs -*- C++
//-*-===//
//
// Internal to the graph transforms (graph-to-nhwc uses them).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_DIALECT_GRAPH_TRANSFORMS_CHANNELGATHER_H
#define SYSTOLE_LIB_DIALECT_GRAPH_TRANSFORMS_CHANNELGATHER_H

#include "systole/Dialect/Graph/GraphOps.h"

#include "mlir/IR/PatternMatch.h"

namespace systole::graph {

/// A channel shuffle (reshape, transpose of the group dims, reshape) and a
/// channel Slice between DequantizeLinear and QuantizeLinear of an 8-bit
/// NHWC tensor become 1x1 convolutions with 0/1 weights that copy codes.
void populateChannelGatherPatterns(mlir::RewritePatternSet &patterns);

} // namespace systole::graph

#endif // SYSTOLE_LIB_DIALECT_GRAPH_TRANSFORMS_CHANNELGATHER_H
