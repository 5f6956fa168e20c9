//===- Graph.td - Graph dialect umbrella --------------------*- tablegen -*-===//
#ifndef SYSTOLE_DIALECT_GRAPH_GRAPH_TD
#define SYSTOLE_DIALECT_GRAPH_GRAPH_TD

include "systole/Dialect/Graph/GraphDialect.td"
include "systole/Dialect/Graph/GraphOps.td"

#endif // SYSTOLE_DIALECT_GRAPH_GRAPH_TD
