//===- TopOps.td - Top dialect operations -------------------*- tablegen -*-===//
// The op set of the Top dialect, split by category.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TOP_OPS
#define TPUC_TOP_OPS

include "tpuc/Dialect/Top/TopBase.td"
include "tpuc/Dialect/Top/TopIOOps.td"
include "tpuc/Dialect/Top/TopNNOps.td"
include "tpuc/Dialect/Top/TopElementwiseOps.td"
include "tpuc/Dialect/Top/TopShapeOps.td"
include "tpuc/Dialect/Top/TopLLMOps.td"
include "tpuc/Dialect/Top/TopControlOps.td"

#endif // TPUC_TOP_OPS
