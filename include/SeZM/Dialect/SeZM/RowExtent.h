//===- RowExtent.h - a tensor's rows as a multiple of N or E ----*- C++ -*-===//
//
// Whether a tensor has one row per atom or per edge (or a fixed multiple
// of either) decides how a GPU kernel tiles it: 4096 atoms on 256-row
// blocks are 16 blocks for 132 multiprocessors, 645,240 edges thousands.
// The entry function's arguments name their extents (sezm.extents); the
// rows of other tensors are traced to them through the ops that make them.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_DIALECT_SEZM_ROWEXTENT_H
#define SEZM_DIALECT_SEZM_ROWEXTENT_H

#include "mlir/IR/Value.h"

#include <optional>
#include <string>

namespace mlir::sezm {

/// The extent of a tensor's first axis: `factor` times the graph size
/// `graphSize` ("N" or "E").
struct RowExtent {
  std::string graphSize;
  int64_t factor = 1;
};

/// The extent of the first axis of `tensor`, traced through views
/// (collapse_shape, expand_shape), destination-passing ops (their inits),
/// tensor.empty and tensor.dim, elementwise ops and sezm ops (their shape
/// contracts) to the entry function's sezm.extents; nullopt where the trace
/// ends elsewhere.
std::optional<RowExtent> traceRowExtent(Value tensor);

} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_ROWEXTENT_H
